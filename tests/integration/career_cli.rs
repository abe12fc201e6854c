// `vitaecontext context validate | summary | init` as a person runs them.

use std::fs;

use serde_json::Value;

use crate::util::{Cmd, example};

#[test]
fn validate_exit_codes_and_human_output() {
    let (st, out, err) = Cmd::new(["context", "validate", example("career-context.md").to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(out.starts_with("Career Context valid: "), "{out}");

    let bad = example("broken/reversed_date_range.md");
    let (st, _out, err) = Cmd::new(["context", "validate", bad.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("vitaecontext::context::reversed_date_range"), "{err}");
    assert!(err.contains("2026-2021") && err.contains("this range runs backwards"), "{err}");
    assert!(err.contains("help:"), "{err}");

    let (st, _, err) = Cmd::new(["context", "validate", "/no/such/file.md"]).output();
    assert_eq!(st.code(), Some(2));
    assert!(err.contains("does not exist"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let (st, _, _) = Cmd::new(["context", "validate", dir.path().to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(2), "a folder is not a Career Context");
}

/// `--context FILE`, as every other command takes it, names the file to `context validate` and
/// `context summary` too; with FILE as well it is a usage error.
#[test]
fn context_subcommands_take_the_context_flag() {
    let file = example("career-context.md");
    let file = file.to_str().unwrap();
    let (st, out, err) = Cmd::new(["context", "validate", "--context", file]).output();
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(out.starts_with("Career Context valid: "), "{out}");
    let (st, out, err) = Cmd::new(["context", "summary", "--for", "cv", "--context", file]).output();
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(out.starts_with("# Career Context packet - cv"), "{out}");
    let (st, _, _) = Cmd::new(["context", "validate", file, "--context", file]).output();
    assert_eq!(st.code(), Some(2));
}

#[test]
fn relative_and_tilde_paths_resolve() {
    let (st, out, _) =
        Cmd::new(["context", "validate", "examples/career-context.md"]).current_dir(&crate::util::repo_root()).output();
    assert_eq!(st.code(), Some(0));
    assert!(out.contains(example("career-context.md").to_str().unwrap()), "paths are reported absolute: {out}");
    let home = tempfile::tempdir().unwrap();
    fs::copy(example("career-context.md"), home.path().join("c.md")).unwrap();
    let (st, _, err) = Cmd::new(["context", "validate", "~/c.md"]).env("HOME", home.path()).output();
    assert_eq!(st.code(), Some(0), "{err}");
}

#[test]
fn a_warning_alone_is_still_valid() {
    let (st, out, err) =
        Cmd::new(["context", "validate", example("broken/missing_tldr.md").to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(0));
    assert!(out.contains("1 warning"), "{out}");
    assert!(err.contains("missing_tldr"), "{err}");
}

#[test]
fn validate_json_has_the_compatible_shape() {
    let bad = example("broken/quick_reference_yaml.md");
    let (st, out, _) = Cmd::new(["context", "validate", bad.to_str().unwrap(), "--json"]).output();
    assert_eq!(st.code(), Some(1));
    let v: Value = serde_json::from_str(&out).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["schemaVersion", "valid", "path", "title", "sectionNames", "errors", "warnings"]);
    let lines: Vec<u64> = v["errors"].as_array().unwrap().iter().map(|e| e["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [11, 12, 14]);
}

#[test]
fn validate_without_a_file_uses_the_server_selection_and_says_which() {
    let cmd = Cmd::new(["context", "validate"]);
    let dir = cmd.home.path().join(".vitaecontext");
    fs::create_dir(&dir).unwrap();
    fs::copy(example("career-context.md"), dir.join("career-context.md")).unwrap();
    let (st, _, err) = cmd.output();
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(err.contains("canonical ~/.vitaecontext/career-context.md"), "{err}");

    let (st, _, err) = Cmd::new(["context", "validate"]).output();
    assert_eq!(st.code(), Some(2));
    assert!(err.contains("No Career Context found"), "{err}");
}

#[test]
fn the_git_warning_depends_on_where_the_file_is() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    let nested = dir.path().join("a/b");
    fs::create_dir_all(&nested).unwrap();
    let f = nested.join("ctx.md");
    fs::copy(example("broken/tracked_workspace_path.md"), &f).unwrap();
    let (_, out, _) = Cmd::new(["context", "validate", f.to_str().unwrap(), "--json"]).output();
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["warnings"][0]["code"], "tracked_workspace_path");
    let outside = tempfile::tempdir().unwrap();
    let g = outside.path().join("ctx.md");
    fs::copy(example("broken/tracked_workspace_path.md"), &g).unwrap();
    let (_, out, _) = Cmd::new(["context", "validate", g.to_str().unwrap(), "--json"]).output();
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["warnings"], serde_json::json!([]));
}

#[test]
fn summary_prints_or_writes_the_packet_and_never_overwrites_without_force() {
    let file = example("career-context.md");
    let (st, out, _) = Cmd::new(["context", "summary", file.to_str().unwrap(), "--for", "linkedin"]).output();
    assert_eq!(st.code(), Some(0));
    assert!(out.starts_with("# Career Context packet - linkedin\n"));

    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out/packet.md");
    let args = ["context", "summary", file.to_str().unwrap(), "--for", "cv", "--output", target.to_str().unwrap()];
    let (st, _, err) = Cmd::new(args).output();
    assert_eq!(st.code(), Some(0), "{err}");
    let written = fs::read_to_string(&target).unwrap();
    assert!(written.starts_with("# Career Context packet - cv\n"));

    fs::write(&target, "keep me").unwrap();
    let (st, _, err) = Cmd::new(args).output();
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("already exists") && err.contains("--force"), "{err}");
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
    let leftovers: Vec<_> = fs::read_dir(target.parent().unwrap()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file may be left behind");

    let mut forced = args.to_vec();
    forced.push("--force");
    let (st, _, _) = Cmd::new(forced).output();
    assert_eq!(st.code(), Some(0));
    assert_eq!(fs::read_to_string(&target).unwrap(), written);

    // Never onto the Career Context it is made from, even with --force, by its path or a link
    // to it (found in review: the person's file was replaced by its packet, with no backup).
    let context = dir.path().join("career-context.md");
    fs::copy(&file, &context).unwrap();
    let link = dir.path().join("link.md");
    std::os::unix::fs::symlink(&context, &link).unwrap();
    for output in [&context, &link] {
        let (st, _, err) = Cmd::new([
            "context",
            "summary",
            context.to_str().unwrap(),
            "--for",
            "cv",
            "--output",
            output.to_str().unwrap(),
            "--force",
        ])
        .output();
        assert_eq!(st.code(), Some(2), "{err}");
        assert!(err.contains("is the Career Context this packet"), "{err}");
        assert_eq!(fs::read(&context).unwrap(), fs::read(&file).unwrap());
    }
}

#[test]
fn summary_json_and_invalid_input() {
    let file = example("career-context.md");
    let (_, out, _) = Cmd::new(["context", "summary", file.to_str().unwrap(), "--for", "x", "--json"]).output();
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["surface"], "x");
    assert_eq!(v["selectedSections"][0], "goals and targeting");
    assert!(v["content"].as_str().unwrap().starts_with("# Career Context packet - x"));

    let bad = example("broken/placeholder.md");
    let (st, out, err) = Cmd::new(["context", "summary", bad.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(1));
    assert!(out.is_empty());
    assert!(err.contains("1 error(s)"), "{err}");
    let (st, _, _) = Cmd::new(["context", "summary", file.to_str().unwrap(), "--for", "tiktok"]).output();
    assert_eq!(st.code(), Some(2));
}

#[test]
fn init_writes_a_private_starter_once() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let home_dir = tempfile::tempdir().unwrap();
    let home = home_dir.path().to_path_buf();
    let (st, out, err) = Cmd::new(["context", "init"]).env("HOME", &home).output();
    assert_eq!(st.code(), Some(0), "{err}");
    let path = home.join(".vitaecontext/career-context.md");
    assert!(out.contains(path.to_str().unwrap()), "{out}");
    let mode = fs::metadata(home.join(".vitaecontext")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    let starter = fs::read_to_string(&path).unwrap();
    for section in
        ["## QUICK REFERENCE", "## GOALS AND TARGETING", "## SKILLS INDEX", "[ROLE]", "TL;DR:", "VERIFIED FACTS"]
    {
        assert!(starter.contains(section), "starter lacks {section}");
    }

    // It does not validate until the placeholders are replaced.
    let (st, _, _) = Cmd::new(["context", "validate"]).env("HOME", &home).output();
    assert_eq!(st.code(), Some(1));

    fs::write(&path, "mine").unwrap();
    let (st, _, err) = Cmd::new(["context", "init"]).env("HOME", &home).output();
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "mine");
    let (st, out, _) = Cmd::new(["context", "init", "--force"]).env("HOME", &home).output();
    assert_eq!(st.code(), Some(0));
    assert_eq!(fs::read_to_string(&path).unwrap(), starter);
    // What --force replaced is kept beside it (found in review: a filled Career Context was
    // gone for good), and said.
    let backups: Vec<_> = fs::read_dir(home.join(".vitaecontext"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("career-context.md.vitaecontext-backup-"))
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert_eq!(fs::read_to_string(&backups[0]).unwrap(), "mine");
    assert!(out.contains(backups[0].to_str().unwrap()), "{out}");
    // The same bytes again: nothing to keep.
    let (st, _, _) = Cmd::new(["context", "init", "--force"]).env("HOME", &home).output();
    assert_eq!(st.code(), Some(0));
    assert_eq!(fs::read_dir(home.join(".vitaecontext")).unwrap().count(), 2, "the file and one backup");
    // A device or a read-only file is never replaced, even with --force.
    // (A FIFO of its own: run as root without the fix, a test on /dev/null replaced it.)
    let fifo = home.join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (st, _, err) =
        Cmd::new(["context", "init", "--output", fifo.to_str().unwrap(), "--force"]).env("HOME", &home).output();
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("FIFO, socket or device"), "{err}");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    fs::write(&path, "mine again").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let (st, _, err) = Cmd::new(["context", "init", "--force"]).env("HOME", &home).output();
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("read-"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "mine again");
    assert_eq!(fs::read_dir(home.join(".vitaecontext")).unwrap().count(), 2, "no backup of what was not replaced");

    let other = home.join("elsewhere/ctx.md");
    let (st, out, _) =
        Cmd::new(["context", "init", "--output", other.to_str().unwrap(), "--json"]).env("HOME", &home).output();
    assert_eq!(st.code(), Some(0));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["path"], other.to_str().unwrap());
}

/// Found in review: `context summary > packet.md` on a full disk exited 0 with nothing said,
/// leaving a cut packet. A failed write to stdout is exit 1 with the reason.
#[test]
fn a_report_that_cannot_be_written_to_stdout_fails() {
    let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let run = std::process::Command::new(crate::util::bin())
        .args(["context", "summary", example("career-context.md").to_str().unwrap()])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("could not write the output to stdout"), "{err}");
}
