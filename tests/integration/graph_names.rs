// File names that are not UTF-8 in a VitaeGraph, on the real filesystem: `graph validate` and
// `graph index` report each such file as a warning on stderr and go on with the others.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;

use crate::util::{Cmd, copy_dir, example};

/// Regression: one top-level file (or folder) whose name is not UTF-8 made both commands fail
/// with "No such file or directory", because the walker joined a lossy copy of the name.
#[test]
fn names_that_are_not_utf8_are_skipped_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    copy_dir(&example("vitaegraph"), &root);
    fs::write(root.join(OsStr::from_bytes(b"caf\xe9.md")), "---\ntype: project\n---\n").unwrap();
    let odd_dir = root.join(OsStr::from_bytes(b"proj\xffects"));
    fs::create_dir(&odd_dir).unwrap();
    fs::write(odd_dir.join("note.md"), "# note\n").unwrap();
    let root_arg = root.to_str().unwrap();

    let (st, out, err) = Cmd::new(["graph", "validate", "--root", root_arg]).output();
    assert!(st.success(), "validate: {out}{err}");
    assert_eq!(err.matches("warning: skipped").count(), 2, "{err}");
    assert!(err.contains("caf\u{FFFD}.md") && err.contains("not valid UTF-8"), "{err}");
    assert!(err.contains("proj\u{FFFD}ects/note.md"), "{err}");

    let (st, out, err) = Cmd::new(["graph", "index", "--root", root_arg]).output();
    assert!(st.success(), "index: {out}{err}");
    assert_eq!(err.matches("warning: skipped").count(), 2, "{err}");
    let graph = fs::read_to_string(root.join(".generated/graph.json")).unwrap();
    assert!(!graph.contains('\u{FFFD}') && graph.contains("project:cachewarden"));
}

/// Found in review: one record nested so deep that its path is over PATH_MAX (4,096 bytes)
/// made both commands fail, writing nothing: the walk reaches it folder by folder, but it
/// cannot be opened by its path. It is skipped with a warning, as a name that is not UTF-8 is.
#[test]
fn a_record_deeper_than_path_max_is_skipped_with_a_warning() {
    use rustix::fs::{CWD, Mode, OFlags};
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    copy_dir(&example("vitaegraph"), &root);
    // Made folder by folder from each one's handle: no path this long can be used whole.
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut dir = rustix::fs::openat(CWD, &root, flags, Mode::empty()).unwrap();
    let name = "d".repeat(200);
    for _ in 0..23 {
        rustix::fs::mkdirat(&dir, name.as_str(), Mode::from_raw_mode(0o755)).unwrap();
        dir = rustix::fs::openat(&dir, name.as_str(), flags, Mode::empty()).unwrap();
    }
    let file = rustix::fs::openat(&dir, "deep.md", OFlags::WRONLY | OFlags::CREATE, Mode::from_raw_mode(0o644));
    rustix::io::write(file.unwrap(), b"# deep\n").unwrap();
    let root_arg = root.to_str().unwrap();

    for command in ["validate", "index"] {
        let (st, out, err) = Cmd::new(["graph", command, "--root", root_arg]).output();
        assert!(st.success(), "{command}: {out}{err}");
        assert_eq!(err.matches("warning: skipped").count(), 1, "{command}: {err}");
        assert!(err.contains("deep.md") && err.contains("cannot be opened by its path"), "{command}: {err}");
    }
    let graph = fs::read_to_string(root.join(".generated/graph.json")).unwrap();
    assert!(graph.contains("project:cachewarden"), "the other records are indexed");
}
