//! Snapshots of the doctor report as a person reads it (no colour, width 100), on the healthy
//! and the broken fixture of the use case's tests.

use super::*;
use crate::usecase::doctor::tests::{FakeProbe, broken, broken_sources, healthy, run_on, sources};

#[test]
fn healthy_setup_report() {
    let report = run_on(&healthy(), &sources(), false, &FakeProbe::default());
    insta::assert_snapshot!(render(&report, 100, false));
}

#[test]
fn broken_setup_report() {
    let report = run_on(&broken(), &broken_sources(), true, &FakeProbe::default());
    let text = render(&report, 100, false);
    assert!(text.ends_with(&format!(
        "{} errors, {} warnings\n",
        report.count(Severity::Error),
        report.count(Severity::Warning)
    )));
    insta::assert_snapshot!(text);
}

#[test]
fn is_jsonrpc_accepts_messages_and_batches_only() {
    assert!(is_jsonrpc(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
    assert!(is_jsonrpc(r#"[{"jsonrpc":"2.0","method":"x"}]"#));
    assert!(!is_jsonrpc("Serving Career Context"));
    assert!(!is_jsonrpc(r#"{"id":1}"#));
    assert!(!is_jsonrpc("[]"));
}
