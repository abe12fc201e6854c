// `vitaecontext register` against real client configuration files in an isolated HOME.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use crate::util::{Cmd, bin};

fn run(home: &Path, args: &[&str]) -> (ExitStatus, String, String) {
    Cmd::new(args).env("HOME", home).output()
}

/// The command every entry should hold: the absolute path of the binary that ran.
fn exe() -> String {
    fs::canonicalize(bin()).unwrap().display().to_string()
}

fn backups(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".vitaecontext-backup-"))
        .collect();
    v.sort();
    v
}

const CURSOR: &str =
    "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"gh-mcp\",\n      \"args\": []\n    }\n  }\n}\n";

#[test]
fn register_twice_writes_once_with_a_backup() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".cursor");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    fs::write(&file, CURSOR).unwrap();
    fs::write(home.path().join("cc.md"), "# x").unwrap();

    let (st, out, err) = run(home.path(), &["register", "--client", "cursor", "--context", "~/cc.md"]);
    assert!(st.success(), "{err}");
    assert!(out.contains("Registered vitaecontext with Cursor"), "{out}");
    let text = fs::read_to_string(&file).unwrap();
    let context = home.path().join("cc.md").display().to_string();
    assert!(text.contains(&format!("\"command\": {}", serde_json::to_string(&exe()).unwrap())), "{text}");
    assert!(
        text.contains(&format!(
            "\"args\": [\"mcp\", \"--context\", {}, \"--watch\"]",
            serde_json::to_string(&context).unwrap()
        )),
        "{text}"
    );
    assert!(text.starts_with("{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"gh-mcp\","), "{text}");
    let b = backups(&dir);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(fs::read_to_string(&b[0]).unwrap(), CURSOR);
    let name = b[0].file_name().unwrap().to_string_lossy().into_owned();
    let stamp = name.strip_prefix("mcp.json.vitaecontext-backup-").unwrap();
    assert_eq!(stamp.len(), 16, "{stamp}");
    assert!(stamp.as_bytes()[8] == b'T' && stamp.ends_with('Z'), "{stamp}");

    let (st, out, err) = run(home.path(), &["register", "--client", "cursor", "--context", "~/cc.md"]);
    assert!(st.success(), "{err}");
    assert!(out.contains("already registered"), "{out}");
    assert_eq!(fs::read_to_string(&file).unwrap(), text, "the second run changes nothing");
    assert_eq!(backups(&dir).len(), 1, "and writes no second backup");

    // The listing sees it.
    let (st, out, _) = run(home.path(), &["register"]);
    assert!(st.success());
    assert!(out.contains("cursor") && out.contains(&format!("registered: {}", exe())), "{out}");
    assert!(out.contains("Not found:") && out.contains("codex"), "{out}");
}

/// A config keeps its permissions, and one made read-only is left as it is, with no backup
/// (found in review: a 444 file was replaced, and ended 600).
#[test]
fn a_config_keeps_its_mode_and_a_read_only_one_is_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".cursor");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    fs::write(&file, CURSOR).unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o664)).unwrap();
    let (st, _, err) = run(home.path(), &["register", "--client", "cursor"]);
    assert!(st.success(), "{err}");
    assert_eq!(mode(&file), 0o664);
    fs::write(&file, CURSOR).unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o444)).unwrap();
    let before = backups(&dir);
    let (st, _, err) = run(home.path(), &["register", "--client", "cursor"]);
    assert!(!st.success(), "{err}");
    assert!(err.contains("read-only"), "{err}");
    assert_eq!((fs::read_to_string(&file).unwrap(), mode(&file)), (CURSOR.to_owned(), 0o444));
    assert_eq!(backups(&dir), before, "no backup of what was not replaced");
}

const VSCODE: &str = "{\n\t// my servers\n\t\"servers\": {\n\t\t\"gh\": { \"type\": \"stdio\", \"command\": \"gh\" }, // keep\n\t},\n}\n";

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".config/Code/User");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    fs::write(&file, VSCODE).unwrap();
    let (st, out, err) = run(home.path(), &["register", "--client", "vscode", "--dry-run"]);
    assert!(st.success(), "{err}");
    let name = file.display().to_string();
    assert!(out.starts_with(&format!("--- {name}\n+++ {name}\n@@ ")), "{out}");
    assert!(out.contains("+\t\t\"vitaecontext\": {\n"), "{out}");
    assert!(out.contains("+\t\t\t\"type\": \"stdio\",\n"), "{out}");
    assert!(out.contains(" \t// my servers\n"), "comments are context, not changes: {out}");
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(fs::read_to_string(&file).unwrap(), VSCODE);
    assert!(backups(&dir).is_empty());
}

const CODEX: &str = "# mine\nmodel = \"gpt-5-codex\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\n\n[tui]\nnotifications = true\n";

#[test]
fn remove_takes_out_only_our_entry() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".codex");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("config.toml");
    fs::write(&file, CODEX).unwrap();

    let (st, _, err) = run(home.path(), &["register", "--client", "codex"]);
    assert!(st.success(), "{err}");
    let text = fs::read_to_string(&file).unwrap();
    assert!(text.contains("[mcp_servers.vitaecontext]"), "{text}");
    assert!(text.contains("\"--prompt-tools\""), "Codex has no MCP prompts: {text}");

    let (st, out, err) = run(home.path(), &["register", "--client", "codex", "--remove"]);
    assert!(st.success(), "{err}");
    assert!(out.contains("Removed vitaecontext"), "{out}");
    assert_eq!(fs::read_to_string(&file).unwrap(), CODEX, "byte for byte the original");
    let b = backups(&dir);
    assert_eq!(b.len(), 2, "one backup per change: {b:?}");
    assert!(b.iter().any(|p| fs::read_to_string(p).unwrap() == text));

    let (st, out, _) = run(home.path(), &["register", "--client", "codex", "--remove"]);
    assert!(st.success());
    assert!(out.contains("not registered"), "{out}");
    assert_eq!(backups(&dir).len(), 2);
}

#[test]
fn remove_without_a_file_creates_nothing() {
    let home = tempfile::tempdir().unwrap();
    let (st, out, err) = run(home.path(), &["register", "--client", "gemini", "--remove"]);
    assert!(st.success(), "{err}");
    assert!(out.contains("does not exist; nothing to remove"), "{out}");
    assert!(!home.path().join(".gemini").exists());
}

#[test]
fn register_creates_a_missing_file_and_its_folder() {
    let home = tempfile::tempdir().unwrap();
    let (st, out, err) = run(home.path(), &["register", "--client", "windsurf", "--root", "/srv/graph"]);
    assert!(st.success(), "{err}");
    assert!(out.contains("created"), "{out}");
    let text = fs::read_to_string(home.path().join(".codeium/windsurf/mcp_config.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["mcpServers"]["vitaecontext"]["args"],
        serde_json::json!(["mcp", "--root", "/srv/graph", "--prompt-tools", "--watch"])
    );
    assert_eq!(v["mcpServers"]["vitaecontext"]["command"], serde_json::json!(exe()));
}

#[test]
fn an_unparseable_file_exits_non_zero_and_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".config/Claude");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("claude_desktop_config.json");
    // Claude Desktop reads strict JSON: a comment would break it, so it is refused here.
    let broken = "{\n  // note\n  \"mcpServers\": {}\n}\n";
    fs::write(&file, broken).unwrap();
    let (st, out, err) = run(home.path(), &["register", "--client", "claude-desktop"]);
    assert_eq!(st.code(), Some(1), "{out}{err}");
    assert!(err.contains("vitaecontext::register::unparseable"), "{err}");
    assert!(err.contains("line 2, column 3"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(fs::read_to_string(&file).unwrap(), broken);
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "no backup, no temporary file");
    // --dry-run refuses the same way.
    let (st, _, _) = run(home.path(), &["register", "--client", "claude-desktop", "--dry-run"]);
    assert_eq!(st.code(), Some(1));
}

#[test]
fn claude_code_gets_its_own_command_unless_write() {
    let home = tempfile::tempdir().unwrap();
    let (st, out, err) = run(home.path(), &["register", "--client", "claude-code", "--root", "/srv/my graph"]);
    assert!(st.success(), "{err}");
    assert_eq!(
        out,
        format!("claude mcp add --scope user vitaecontext -- {} mcp --root '/srv/my graph' --watch\n", exe())
    );
    assert!(!home.path().join(".claude.json").exists(), "nothing written without --write");

    let file = home.path().join(".claude.json");
    fs::write(&file, "{\n  \"numStartups\": 3,\n  \"projects\": {}\n}\n").unwrap();
    let (st, _, err) = run(home.path(), &["register", "--client", "claude-code", "--write"]);
    assert!(st.success(), "{err}");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["numStartups"], 3);
    assert_eq!(
        v["mcpServers"]["vitaecontext"],
        serde_json::json!({"type": "stdio", "command": exe(), "args": ["mcp", "--watch"]})
    );

    let (st, out, _) = run(home.path(), &["register", "--client", "claude-code", "--remove"]);
    assert!(st.success());
    assert_eq!(out, "claude mcp remove --scope user vitaecontext\n");
}

#[test]
fn usage_errors_exit_2() {
    let home = tempfile::tempdir().unwrap();
    for args in [
        &["register", "--client", "emacs"][..],
        &["register", "--dry-run"],
        &["register", "--client", "cursor", "--remove", "--context", "x"],
    ] {
        let (st, _, err) = run(home.path(), args);
        assert_eq!(st.code(), Some(2), "{args:?}: {err}");
    }
}

#[test]
fn skills_choices_pass_through_with_absolute_paths() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().display().to_string();
    let (st, _, err) = Cmd::new([
        "register",
        "--client",
        "gemini",
        "--skills",
        "~/team-skills=10",
        "--skills",
        "mine",
        "--skills-config",
        "skills.toml",
    ])
    .env("HOME", home.path())
    .current_dir(home.path())
    .output();
    assert!(st.success(), "{err}");
    let text = fs::read_to_string(home.path().join(".gemini/settings.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["mcpServers"]["vitaecontext"]["args"],
        serde_json::json!([
            "mcp",
            "--skills",
            format!("{h}/team-skills=10"),
            "--skills",
            format!("{h}/mine"),
            "--skills-config",
            format!("{h}/skills.toml"),
            "--watch"
        ]),
        "Gemini CLI offers prompts, so no --prompt-tools"
    );
}

/// The entry runs `mcp --watch` by default, so the index follows the records; `--no-watch`
/// leaves it out.
#[test]
fn the_entry_watches_unless_told_not_to() {
    let home = tempfile::tempdir().unwrap();
    let args = |home: &std::path::Path| {
        let text = fs::read_to_string(home.join(".cursor/mcp.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["mcpServers"]["vitaecontext"]["args"].clone()
    };
    let (st, _, err) = run(home.path(), &["register", "--client", "cursor", "--root", "/srv/graph"]);
    assert!(st.success(), "{err}");
    assert_eq!(args(home.path()), serde_json::json!(["mcp", "--root", "/srv/graph", "--watch"]));
    let (st, _, err) = run(home.path(), &["register", "--client", "cursor", "--no-watch"]);
    assert!(st.success(), "{err}");
    assert_eq!(args(home.path()), serde_json::json!(["mcp", "--root", "/srv/graph"]));
}

/// Found in a newcomer's review: registering again without the flags dropped the entry's
/// `--context` and `--root`. The paths of the existing entry are kept unless new ones are
/// given, and the command says which it kept.
#[test]
fn registering_again_without_the_paths_keeps_them() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let context = h.join("my context.md");
    let (st, _, err) =
        run(h, &["register", "--client", "cursor", "--context", context.to_str().unwrap(), "--root", "/srv/graph"]);
    assert!(st.success(), "{err}");
    let config = h.join(".cursor/mcp.json");
    let before = std::fs::read_to_string(&config).unwrap();
    let (st, out, err) = run(h, &["register", "--client", "cursor"]);
    assert!(st.success(), "{err}");
    assert!(err.contains(&format!("Kept --context '{}'", context.display())), "{err}");
    assert!(err.contains("Kept --root /srv/graph"), "{err}");
    assert!(out.contains("already registered"), "nothing changes: {out}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
    // A new path replaces the old one; the other is kept.
    let (st, _, err) = run(h, &["register", "--client", "cursor", "--root", "/srv/other"]);
    assert!(st.success(), "{err}");
    assert!(err.contains("Kept --context") && !err.contains("Kept --root"), "{err}");
    let after = std::fs::read_to_string(&config).unwrap();
    assert!(
        after.contains("/srv/other") && !after.contains("/srv/graph") && after.contains("my context.md"),
        "{after}"
    );
}

/// The entry outlives the install: run by the npm launcher from npx's cache it is `npx -y
/// vitaecontext@V` (from an installed npm package, the binary's path); from
/// a pipx or uv tool install, the command that install put on PATH; from a uvx run, `uvx`; from
/// a cargo build folder, the path, with a warning that `cargo clean` removes it.
#[test]
fn register_writes_the_command_of_the_way_it_was_installed() {
    let version = env!("CARGO_PKG_VERSION");
    let entry_of = |home: &Path| {
        let text = fs::read_to_string(home.join(".cursor/mcp.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["mcpServers"]["vitaecontext"].clone()
    };
    let fresh = || {
        let home = tempfile::tempdir().unwrap();
        fs::create_dir_all(home.path().join(".cursor")).unwrap();
        home
    };

    // npm launcher
    let home = fresh();
    let (st, _, err) = Cmd::new(["register", "--client", "cursor", "--no-watch"])
        .env("HOME", home.path())
        .env("VITAECONTEXT_LAUNCHER", "npx")
        .output();
    assert!(st.success(), "{err}");
    assert!(!err.contains("warning"), "{err}");
    let e = entry_of(home.path());
    assert_eq!(e["command"], "npx");
    assert_eq!(e["args"], serde_json::json!(["-y", format!("vitaecontext@{version}"), "mcp"]));
    // Registering again is a no-op, and the listing does not call npx "another binary".
    let (_, out, _) = Cmd::new(["register", "--client", "cursor", "--no-watch"])
        .env("HOME", home.path())
        .env("VITAECONTEXT_LAUNCHER", "npx")
        .output();
    assert!(out.contains("already registered"), "{out}");
    let (_, out, _) = run(home.path(), &["register"]);
    assert!(out.contains("registered: npx -y vitaecontext@"), "{out}");

    // An installed npm package (`npm install -g`): the binary, not npx (which would ask the
    // registry at every start).
    let home = fresh();
    let (st, _, err) = Cmd::new(["register", "--client", "cursor", "--no-watch"])
        .env("HOME", home.path())
        .env("VITAECONTEXT_LAUNCHER", "npm")
        .output();
    assert!(st.success(), "{err}");
    assert_eq!(entry_of(home.path())["command"], exe());

    // A wheel in a virtual environment, linked from a folder on PATH (pipx, uv tool).
    let home = fresh();
    let venv = home.path().join("pipx/venvs/vitaecontext");
    fs::create_dir_all(venv.join("bin")).unwrap();
    fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    fs::copy(bin(), venv.join("bin/vitaecontext")).unwrap();
    let local_bin = home.path().join("local-bin");
    fs::create_dir_all(&local_bin).unwrap();
    std::os::unix::fs::symlink(venv.join("bin/vitaecontext"), local_bin.join("vitaecontext")).unwrap();
    let path = format!("{}:/usr/bin:/bin", local_bin.display());
    let installed = std::process::Command::new(venv.join("bin/vitaecontext"))
        .args(["register", "--client", "cursor", "--no-watch"])
        .env("HOME", home.path())
        .env("PATH", &path)
        .env_remove("VITAECONTEXT_LAUNCHER")
        .output()
        .unwrap();
    assert!(installed.status.success(), "{}", String::from_utf8_lossy(&installed.stderr));
    assert_eq!(entry_of(home.path())["command"], local_bin.join("vitaecontext").display().to_string());

    // The same wheel in uv's cache: `uvx`.
    let home = fresh();
    let cached = home.path().join(".cache/uv/archive-v0/AbC123");
    fs::create_dir_all(cached.join("bin")).unwrap();
    fs::write(cached.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    fs::copy(bin(), cached.join("bin/vitaecontext")).unwrap();
    let uvx = std::process::Command::new(cached.join("bin/vitaecontext"))
        .args(["register", "--client", "cursor", "--no-watch"])
        .env("HOME", home.path())
        .env_remove("VITAECONTEXT_LAUNCHER")
        .output()
        .unwrap();
    assert!(uvx.status.success(), "{}", String::from_utf8_lossy(&uvx.stderr));
    let e = entry_of(home.path());
    assert_eq!(
        (e["command"].as_str(), e["args"][0].as_str()),
        (Some("uvx"), Some(format!("vitaecontext@{version}").as_str()))
    );

    // This test's own binary lives in cargo's target/ folder: its path, and a warning.
    let home = fresh();
    let (st, _, err) = Cmd::new(["register", "--client", "cursor", "--no-watch"]).env("HOME", home.path()).output();
    assert!(st.success(), "{err}");
    assert_eq!(entry_of(home.path())["command"], exe());
    assert!(err.contains("warning:") && err.contains("cargo build folder") && err.contains("cargo install"), "{err}");
}
