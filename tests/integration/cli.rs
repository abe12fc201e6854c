// The command line outside the protocol: help, version, usage errors.

use crate::util::Cmd;

#[test]
fn help_and_version() {
    let (st, out, _) = Cmd::new(["--help"]).output();
    assert!(st.success());
    assert!(out.contains("mcp") && out.contains("Career Context"), "{out}");
    let (st, out, _) = Cmd::new(["--version"]).output();
    assert!(st.success());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "vitaecontext 2.3.0", "the first line is what doctor and scripts read: {out}");
    assert!(lines.get(1).is_some_and(|l| l.starts_with("commit ") && l.len() > "commit ".len()), "{out}");
    let target = lines.get(2).and_then(|l| l.strip_prefix("target ")).unwrap_or_else(|| panic!("{out}"));
    assert!(target.contains(std::env::consts::ARCH), "{out}");
    let (st, out, _) = Cmd::new(["-V"]).output();
    assert!(st.success());
    assert_eq!(out.trim(), "vitaecontext 2.3.0", "-V stays one line");
    let (st, out, _) = Cmd::new(["mcp", "--help"]).output();
    assert!(st.success());
    for flag in ["--context", "--context-path", "--root", "--vitaegraph", "--max-frame-bytes"] {
        assert!(out.contains(flag), "mcp --help lacks {flag}: {out}");
    }
}

#[test]
fn unknown_flags_and_flag_with_alias_are_usage_errors() {
    for args in [
        &["mcp", "--bogus"][..],
        &["mcp", "--context", "a.md", "--context-path", "b.md"],
        &["mcp", "--root", "a", "--vitaegraph", "b"],
        &["no-such-command"],
    ] {
        let (st, out, err) = Cmd::new(args).output();
        assert_eq!(st.code(), Some(2), "{args:?}: {err}");
        assert!(out.is_empty(), "usage errors go to stderr: {out}");
        assert!(!err.is_empty());
    }
}

#[test]
fn log_level_flag_is_validated() {
    let (st, _, err) = Cmd::new(["--log-level", "loud", "mcp"]).output();
    assert_eq!(st.code(), Some(2));
    assert!(err.contains("loud"), "{err}");
}
