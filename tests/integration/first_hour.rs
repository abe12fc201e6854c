// Rough edges a newcomer hit, each pinned by a regression test: clear words for the CLI, JSON
// errors in --json modes, an empty file said to be empty, and a server that says what it serves.

use std::fs;

use serde_json::Value;

use crate::util::{Cmd, Server, example};

/// An empty (or blank) file gets VitaeContext 2.3.0's findings, all at line 1 (formats.md: the
/// same codes on the same lines), and the text output says first that it is empty and what
/// to run.
#[test]
fn an_empty_career_context_reports_as_2_3_0_does_and_says_what_to_run() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("career-context.md");
    fs::write(&file, "\n  \n").unwrap();
    let (st, out, _) = Cmd::new(["context", "validate", file.to_str().unwrap(), "--json"]).output();
    assert_eq!(st.code(), Some(1));
    let v: Value = serde_json::from_str(&out).unwrap();
    let codes: Vec<(u64, &str)> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["line"].as_u64().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        codes,
        [
            (1, "h1_count"),
            (1, "missing_evidence_history"),
            (1, "missing_quick_reference"),
            (1, "missing_section"),
            (1, "missing_section"),
            (1, "missing_verified_facts"),
        ],
        "{v}"
    );
    let (st, _, err) = Cmd::new(["context", "validate", file.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(1));
    assert!(err.starts_with(&format!("{} is empty: `vitaecontext context init", file.display())), "{err}");
}

#[test]
fn json_modes_print_a_json_error_when_the_input_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope.md");
    let (st, out, _) = Cmd::new(["context", "validate", missing.to_str().unwrap(), "--json"]).output();
    assert_eq!(st.code(), Some(2));
    let v: Value = serde_json::from_str(&out).expect("a JSON object on stdout");
    assert!(v["error"]["message"].as_str().unwrap().contains("does not exist"), "{v}");
    assert_eq!(v["error"]["exitCode"], 2);
    let (st, out, _) = Cmd::new(["context", "validate", "--json"]).output();
    assert_eq!(st.code(), Some(2));
    let v: Value = serde_json::from_str(&out).expect("a JSON object on stdout");
    assert!(v["error"]["message"].as_str().unwrap().contains("No Career Context found"), "{v}");
    let (st, out, _) =
        Cmd::new(["graph", "validate", "--root", tmp.path().join("g").to_str().unwrap(), "--json"]).output();
    assert_eq!(st.code(), Some(2));
    assert!(serde_json::from_str::<Value>(&out).unwrap()["error"]["message"].is_string());
}

#[test]
fn the_cli_speaks_to_a_person_not_to_an_assistant() {
    let (_, _, err) = Cmd::new(["context", "validate"]).output();
    assert!(err.contains("No Career Context found") && err.contains("vitaecontext init"), "{err}");
    assert!(!err.contains("# Career Context") && !err.contains("ask the person"), "{err}");
}

#[test]
fn an_output_path_that_is_a_folder_is_named_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let (st, _, err) = Cmd::new(["context", "init", "--output", tmp.path().to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(2));
    assert!(err.contains("is a folder") && !err.contains("--force"), "{err}");
    let mut s = Server::mcp(&["--context", tmp.path().to_str().unwrap()]);
    let r = s.ok("resources/read", serde_json::json!({"uri": "career-context://current"}));
    let text = r["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("is a folder") && !text.contains("context init --output"), "{text}");
}

#[test]
fn the_server_says_what_it_serves_and_warns_about_missing_configured_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("no-graph");
    let ctx = example("career-context.md");
    let s = Server::mcp(&["--context", ctx.to_str().unwrap(), "--root", root.to_str().unwrap()]);
    let (_, _, err) = s.finish();
    assert!(err.contains("serving Career Context") && err.contains("chosen by --context"), "{err}");
    assert!(err.contains("WARN") && err.contains("no-graph") && err.contains("does not exist"), "{err}");
}
