// `vitaecontext doctor` on real files in an isolated HOME: a healthy setup, a broken one, the
// live client check against the real binary and against a command that writes junk, JSON, usage.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::ExitStatus;

use serde_json::Value;

use crate::util::{Cmd, bin, copy_dir, example};

fn run(home: &Path, args: &[&str]) -> (ExitStatus, String, String) {
    Cmd::new(args).env("HOME", home).output()
}

/// A setup the server serves cleanly: the example Career Context (private), the example
/// VitaeGraph indexed, Cursor registered with this binary.
fn healthy(home: &Path) {
    let dir = home.join(".vitaecontext");
    fs::create_dir_all(&dir).unwrap();
    let context = dir.join("career-context.md");
    fs::copy(example("career-context.md"), &context).unwrap();
    fs::set_permissions(&context, fs::Permissions::from_mode(0o600)).unwrap();
    copy_dir(&example("vitaegraph"), &dir.join("vitaegraph"));
    let (st, _, err) = run(home, &["graph", "index"]);
    assert!(st.success(), "{err}");
    let (st, _, err) = run(home, &["register", "--client", "cursor"]);
    assert!(st.success(), "{err}");
}

fn json(home: &Path, extra: &[&str]) -> (ExitStatus, Value) {
    let mut args = vec!["doctor", "--json"];
    args.extend_from_slice(extra);
    let (st, out, err) = run(home, &args);
    (st, serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}")))
}

fn codes(v: &Value) -> Vec<String> {
    v["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_healthy_setup_passes_with_the_live_check() {
    let home = tempfile::tempdir().unwrap();
    healthy(home.path());
    let (st, out, err) = run(home.path(), &["doctor", "--live"]);
    assert_eq!(st.code(), Some(0), "{out}\n{err}");
    assert!(out.ends_with("0 errors, 0 warnings\n"), "{out}");
    assert!(
        out.contains("Career Context: ") && out.contains("(the canonical ~/.vitaecontext/career-context.md)"),
        "{out}"
    );
    assert!(out.contains("index current") && out.contains("Client cursor: "), "{out}");
    let (st, v) = json(home.path(), &[]);
    assert_eq!(st.code(), Some(0));
    assert_eq!((v["errors"].as_u64(), v["warnings"].as_u64()), (Some(0), Some(0)), "{v:#}");
    assert_eq!(v["graph"]["index"], "current");
    assert_eq!(v["context"]["status"], "selected");
}

#[test]
fn a_broken_setup_reports_every_problem_and_exits_1() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    healthy(h);
    let context = h.join(".vitaecontext/career-context.md");
    fs::copy(example("broken/missing_tldr.md"), &context).unwrap();
    fs::set_permissions(&context, fs::Permissions::from_mode(0o644)).unwrap();
    let record = h.join(".vitaecontext/vitaegraph/projects/booking-api/project.md");
    let text = fs::read_to_string(&record).unwrap();
    fs::write(&record, text.replace("REST API", "A REST API")).unwrap();
    let skills = h.join("skills");
    fs::create_dir_all(skills.join("b")).unwrap();
    let skill = "id: cv-helper\ntype: prompt\nprompt: Rewrite {{bullet}}.\n";
    fs::write(skills.join("cv-helper.yaml"), skill).unwrap();
    fs::write(skills.join("b/cv-helper.yaml"), skill).unwrap();
    let cursor = h.join(".cursor/mcp.json");
    let config = fs::read_to_string(&cursor).unwrap();
    let exe = fs::canonicalize(bin()).unwrap().display().to_string();
    fs::write(&cursor, config.replace(&exe, "/nonexistent/vitaecontext")).unwrap();

    let skills_arg = skills.display().to_string();
    let (st, out, _) = run(h, &["doctor", "--skills", &skills_arg]);
    assert_eq!(st.code(), Some(1), "{out}");
    for code in [
        "vitaecontext::context::missing_tldr",
        "vitaecontext::context::readable_by_others",
        "vitaecontext::graph::index_stale",
        "vitaecontext::skills::conflict",
        "vitaecontext::client::stale_path",
    ] {
        assert!(out.contains(code), "{code} missing:\n{out}");
    }
    assert!(out.contains("records changed: project:booking-api"), "{out}");

    let (st, v) = json(h, &["--skills", &skills_arg]);
    assert_eq!(st.code(), Some(1));
    let codes = codes(&v);
    assert!(codes.contains(&"vitaecontext::client::stale_path".to_owned()), "{codes:?}");
    let errors = v["findings"].as_array().unwrap().iter().filter(|f| f["severity"] == "error").count();
    assert_eq!(v["errors"].as_u64(), Some(errors as u64));
    let stale =
        v["findings"].as_array().unwrap().iter().find(|f| f["code"] == "vitaecontext::client::stale_path").unwrap();
    assert_eq!(stale["file"], cursor.display().to_string());
    assert_eq!(stale["line"], 4);
    let mode =
        v["findings"].as_array().unwrap().iter().find(|f| f["code"] == "vitaecontext::context::readable_by_others");
    assert!(mode.unwrap()["help"].as_str().unwrap().contains(&format!("chmod 600 {}", context.display())));
}

/// The classic silent failure the live check exists for: a command that prints a banner on
/// stdout breaks every client, though it starts and answers.
#[test]
fn the_live_check_fails_a_command_that_writes_other_text_on_stdout() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    healthy(h);
    let script = h.join("noisy-vitaecontext");
    fs::write(&script, format!("#!/bin/sh\necho 'starting vitaecontext'\nexec '{}' \"$@\"\n", bin().display()))
        .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let cursor = h.join(".cursor/mcp.json");
    let config = fs::read_to_string(&cursor).unwrap();
    let exe = fs::canonicalize(bin()).unwrap().display().to_string();
    fs::write(&cursor, config.replace(&exe, &script.display().to_string())).unwrap();

    // Without --live it is only another binary (a warning); with it, an error.
    let (st, v) = json(h, &[]);
    assert_eq!(st.code(), Some(0), "{v:#}");
    assert_eq!(codes(&v), ["vitaecontext::client::other_binary"]);
    let (st, v) = json(h, &["--live"]);
    assert_eq!(st.code(), Some(1), "{v:#}");
    assert_eq!(codes(&v), ["vitaecontext::client::other_binary", "vitaecontext::client::live_failed"]);
    let message = v["findings"][1]["message"].as_str().unwrap();
    assert!(message.contains("not JSON: starting vitaecontext"), "{message}");
}

#[test]
fn nothing_set_up_is_an_error_and_bad_flags_are_usage_errors() {
    let home = tempfile::tempdir().unwrap();
    let (st, v) = json(home.path(), &[]);
    assert_eq!(st.code(), Some(1));
    assert_eq!(codes(&v), ["vitaecontext::context::not_found", "vitaecontext::graph::not_set_up"]);
    assert_eq!(v["context"]["status"], "missing");
    let (st, _, err) = run(home.path(), &["doctor", "--bogus"]);
    assert_eq!(st.code(), Some(2), "{err}");
}

/// A generated file over the 2 GiB the server reads is unreadable, as the server finds it,
/// never "current" or merely stale (found in review: compared in step, a file that large was
/// no longer capped). A sparse file: nothing is written.
#[test]
fn a_generated_file_the_server_would_not_read_is_unreadable() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    healthy(h);
    let search = h.join(".vitaecontext/vitaegraph/.generated/search-index.json");
    fs::OpenOptions::new().write(true).open(&search).unwrap().set_len(2 * 1024 * 1024 * 1024 + 1).unwrap();
    let (_, v) = json(h, &[]);
    assert_eq!(codes(&v), ["vitaecontext::graph::index_unreadable"], "{v:#}");
    let message = v["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("search-index.json could not be read") && message.contains("larger than"), "{message}");
    assert_eq!(v["graph"]["index"], "unknown");
}

/// Found by a newcomer's review: with `--root`, the advice to index named no root, so following
/// it indexed the default graph and the warning stayed; with `.generated` a symlink, the
/// advice was `graph index`, which refuses to write through one.
#[test]
fn index_advice_names_the_root_given_and_a_linked_generated_folder() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let root = h.join("my graph");
    copy_dir(&example("vitaegraph"), &root);
    let _ = fs::remove_dir_all(root.join(".generated"));
    let root_arg = root.to_str().unwrap();
    let finding = |v: &Value, code: &str| -> Value {
        let found = v["findings"].as_array().unwrap().iter().find(|f| f["code"] == code).cloned();
        found.unwrap_or_else(|| panic!("no {code}: {v:#}"))
    };
    let (_, v) = json(h, &["--root", root_arg]);
    let advice = finding(&v, "vitaecontext::graph::index_missing")["help"].as_str().unwrap().to_owned();
    assert!(advice.contains(&format!("`vitaecontext graph index --root '{root_arg}'`")), "{advice}");
    // The advice works: the index it writes is the one doctor looks at.
    let (st, _, err) = run(h, &["graph", "index", "--root", root_arg]);
    assert!(st.success(), "{err}");
    let (_, v) = json(h, &["--root", root_arg]);
    assert_eq!(v["graph"]["index"], "current", "{v:#}");
    fs::rename(root.join(".generated"), root.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink("elsewhere", root.join(".generated")).unwrap();
    let (_, v) = json(h, &["--root", root_arg]);
    let unreadable = finding(&v, "vitaecontext::graph::index_unreadable");
    assert!(unreadable["message"].as_str().unwrap().contains("is a symbolic link"), "{v:#}");
    assert!(unreadable["help"].as_str().unwrap().contains("Put the folder itself at"), "{v:#}");
}
