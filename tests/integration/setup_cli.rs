// `vitaecontext init`: a first-time set-up that never overwrites and says what to do next.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::util::Cmd;

fn mode(p: &std::path::Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn init_sets_up_a_fresh_home_then_changes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().to_str().unwrap();
    let (st, out, err) = Cmd::new(["init", "--home", h]).output();
    assert!(st.success(), "{err}");
    let dir = home.path().join(".vitaecontext");
    assert_eq!(mode(&dir), 0o700);
    assert!(dir.join("career-context.md").is_file() && dir.join("vitaegraph/index.md").is_file(), "{out}");
    assert_eq!(mode(&dir.join("vitaegraph/projects")), 0o700);
    for step in ["context validate", "graph add", "graph index", "register"] {
        assert!(err.contains(step), "next step {step:?} is printed: {err}");
    }
    fs::write(dir.join("career-context.md"), "# Mine\n").unwrap();
    let (st, out, err) = Cmd::new(["init", "--home", h]).output();
    assert!(st.success(), "{err}");
    assert_eq!(fs::read_to_string(dir.join("career-context.md")).unwrap(), "# Mine\n", "never overwritten");
    assert!(out.contains("Kept your Career Context") && out.contains("nothing was changed"), "{out}");
}

#[test]
fn init_tightens_a_world_readable_folder_and_says_so() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".vitaecontext");
    fs::create_dir(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let (st, out, err) = Cmd::new(["init", "--home", home.path().to_str().unwrap()]).output();
    assert!(st.success(), "{err}");
    assert_eq!(mode(&dir), 0o700);
    assert!(out.contains("Tightened") && out.contains("0755"), "{out}");
}

/// The next steps after `init --home DIR` act on DIR, and each path pastes as one shell word
/// (found in review: they lacked --root and --context, so they acted on $HOME, and a path with
/// a space broke them).
#[test]
fn next_steps_name_the_files_set_up_and_paste_as_written() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("my home");
    let other = tmp.path().join("real-home");
    fs::create_dir_all(&other).unwrap();
    let (st, _, err) = Cmd::new(["init", "--home", home.to_str().unwrap()]).env("HOME", &other).output();
    assert!(st.success(), "{err}");
    let root = format!("--root '{}'", home.join(".vitaecontext/vitaegraph").display());
    let context = format!("'{}'", home.join(".vitaecontext/career-context.md").display());
    assert!(err.contains(&format!("context validate {context}")), "{err}");
    assert!(err.contains(&format!("graph index {root}")), "{err}");
    assert!(err.contains(&format!("register --client claude-desktop --context {context} {root}")), "{err}");
    // In $HOME itself, the commands need no flags.
    let (st, _, err) = Cmd::new(["init"]).env("HOME", &other).output();
    assert!(st.success(), "{err}");
    assert!(err.contains("Index them: vitaecontext graph index\n"), "{err}");
}

/// Found in review: the advice was "choose one with --context", which `init` does not take.
#[test]
fn init_with_two_candidate_files_says_what_to_do() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".vitaecontext");
    fs::create_dir(&dir).unwrap();
    for name in ["a-career-context.md", "b.context.md"] {
        fs::write(dir.join(name), "# A - B\n").unwrap();
    }
    let (st, out, err) = Cmd::new(["init", "--home", home.path().to_str().unwrap()]).output();
    assert!(st.success(), "{err}");
    assert!(out.contains("rename the one you use to career-context.md") && !out.contains("--context"), "{out}");
    assert!(!dir.join("career-context.md").exists(), "nothing chosen for the person");
}
