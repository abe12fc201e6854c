// Record path confinement: on random trees full of symlinks, a successful resolution always lies
// inside the canonical root, is a regular file, and is the file the OS would open; the in-memory
// and the real filesystem give the same answers. The mechanism too: `read_beneath` of a
// resolution reads that file, `read_beneath` of any stored path never reads outside, and both
// filesystems agree on it.

use std::path::{Path, PathBuf};

use domain::graph::confine::{self, Deny};
use fs_memory::MemoryFs;
use fs_std::StdFs;
use ports::fs::{ConfineView, FileKind, FileSystem};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Target {
    Relative(String),
    AbsInside(String),
    AbsOutside(String),
    PrefixSibling(String),
}

#[derive(Debug, Clone)]
enum Make {
    Dir(String),
    File(String),
    Link(String, Target),
}

fn name() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("a"), Just("b"), Just("l"), Just("secret.md"), Just("r.md")]
}

fn rel(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(name(), 1..max).prop_map(|p| p.join("/"))
}

fn climbing() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof![3 => name(), 1 => Just(".."), 1 => Just(".")], 1..5).prop_map(|p| p.join("/"))
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        climbing().prop_map(Target::Relative),
        rel(4).prop_map(Target::AbsInside),
        rel(3).prop_map(Target::AbsOutside),
        rel(3).prop_map(Target::PrefixSibling),
    ]
}

fn make() -> impl Strategy<Value = Make> {
    prop_oneof![
        2 => rel(4).prop_map(Make::Dir),
        3 => rel(4).prop_map(Make::File),
        3 => (rel(4), target()).prop_map(|(p, t)| Make::Link(p, t)),
    ]
}

fn stored() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => rel(5),
        1 => climbing(),
        1 => rel(3).prop_map(|r| format!("/{r}")),
        1 => rel(3).prop_map(|r| format!("../root-sib/{r}")),
        1 => rel(3).prop_map(|r| format!("a//{r}")),
    ]
}

struct World {
    root: PathBuf,
    outside: PathBuf,
    sibling: PathBuf,
}

fn world(base: &Path) -> World {
    World { root: base.join("root"), outside: base.join("outside"), sibling: base.join("root-sib") }
}

fn target_path(w: &World, t: &Target) -> PathBuf {
    match t {
        Target::Relative(r) => PathBuf::from(r),
        Target::AbsInside(r) => w.root.join(r),
        Target::AbsOutside(r) => w.outside.join(r),
        Target::PrefixSibling(r) => w.sibling.join(r),
    }
}

/// Builds the tree on one filesystem; `link` makes a symlink there.
fn build(fs: &dyn FileSystem, link: &dyn Fn(&Path, &Path), w: &World, plan: &[Make]) {
    for dir in [&w.root, &w.outside, &w.sibling] {
        fs.create_dir_all(dir).unwrap();
    }
    fs.write_atomic(&w.outside.join("secret.md"), b"SECRET").unwrap();
    fs.write_atomic(&w.sibling.join("secret.md"), b"SIBLING").unwrap();
    for m in plan {
        // Creation may fail (a file in the way, a dangling link): the same on both sides.
        match m {
            Make::Dir(p) => {
                let _ = fs.create_dir_all(&w.root.join(p));
            }
            Make::File(p) => {
                let _ = fs.write_new(&w.root.join(p), p.as_bytes());
            }
            Make::Link(p, t) => {
                let at = w.root.join(p);
                if at.parent().is_some_and(|d| fs.metadata(d).is_ok_and(|m| m.kind == FileKind::Dir))
                    && fs.symlink_metadata(&at).is_err()
                {
                    link(&target_path(w, t), &at);
                }
            }
        }
    }
}

fn relative(w: &World, r: Result<confine::ConfinedPath, Deny>) -> Result<PathBuf, Deny> {
    r.map(|p| p.as_path().strip_prefix(&w.root).expect("inside the root").to_path_buf())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn resolution_never_leaves_the_root(plan in proptest::collection::vec(make(), 0..25), paths in proptest::collection::vec(stored(), 1..12)) {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let w = world(&base);

        let mem = MemoryFs::new();
        build(&mem, &|t, at| { let _ = mem.symlink(t, at); }, &w, &plan);
        build(&StdFs, &|t, at| { let _ = std::os::unix::fs::symlink(t, at); }, &w, &plan);

        for stored in &paths {
            let on_mem = confine::resolve(&ConfineView(&mem), &w.root, stored);
            if let Ok(p) = &on_mem {
                let p = p.as_path();
                prop_assert!(p.starts_with(&w.root) && p != w.root, "{stored} -> {p:?}");
                prop_assert_eq!(mem.canonicalize(p).unwrap(), p.to_path_buf(), "no symlink left in {:?}", p);
                prop_assert_eq!(mem.symlink_metadata(p).unwrap().kind, FileKind::File);
                // What was allowed is exactly what the OS would open for that path.
                prop_assert_eq!(mem.canonicalize(&w.root.join(stored)).unwrap(), p.to_path_buf());
                let content = mem.read(p, 1024).unwrap();
                prop_assert!(content != b"SECRET" && content != b"SIBLING");
            }
            let on_disk = confine::resolve(&ConfineView(&StdFs), &w.root, stored);
            // What the policy allowed opens beneath the root with no symlink followed, on both.
            if let (Ok(m), Ok(d)) = (&on_mem, &on_disk) {
                let from_mem = mem.read_beneath(&w.root, m.relative(), 1024).map(|(b, _)| b);
                let from_disk = StdFs.read_beneath(&w.root, d.relative(), 1024).map(|(b, _)| b);
                prop_assert_eq!(from_mem.as_ref().ok(), from_disk.as_ref().ok());
                prop_assert_eq!(from_mem.unwrap(), mem.read(m.as_path(), 1024).unwrap());
            }
            prop_assert_eq!(relative(&w, on_mem), relative(&w, on_disk), "{}", stored);
            // The mechanism on its own, given the stored path as is: never outside, same answer.
            let raw_mem = mem.read_beneath(&w.root, Path::new(stored), 1024);
            let raw_disk = StdFs.read_beneath(&w.root, Path::new(stored), 1024);
            for bytes in [&raw_mem, &raw_disk].into_iter().flatten().map(|(b, _)| b) {
                prop_assert!(bytes != b"SECRET" && bytes != b"SIBLING", "{stored} read outside");
            }
            prop_assert_eq!(raw_mem.map(|(b, _)| b).map_err(|e| e.kind), raw_disk.map(|(b, _)| b).map_err(|e| e.kind), "{}", stored);
        }
    }
}

#[test]
fn the_named_escapes_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let w = world(&base);
    let fs = MemoryFs::new();
    build(&fs, &|_, _| {}, &w, &[Make::Dir("a".into()), Make::File("a/r.md".into())]);
    fs.symlink(w.outside.join("secret.md"), &w.root.join("a/out.md")).unwrap();
    fs.symlink(&w.outside, &w.root.join("dirlink")).unwrap();
    fs.symlink("loop2", &w.root.join("loop1")).unwrap();
    fs.symlink("loop1", &w.root.join("loop2")).unwrap();
    fs.symlink("r.md", &w.root.join("a/inside.md")).unwrap();
    fs.make_special(&w.root.join("a/fifo.md")).unwrap();
    let view = ConfineView(&fs);
    let r = |s: &str| confine::resolve(&view, &w.root, s).map(|p| p.as_path().to_path_buf());
    assert_eq!(r("a/r.md").unwrap(), w.root.join("a/r.md"));
    assert_eq!(r("a/inside.md").unwrap(), w.root.join("a/r.md"), "a symlink that stays inside is followed");
    assert_eq!(r("../outside/secret.md"), Err(Deny::NotRelative));
    assert_eq!(r(w.outside.join("secret.md").to_str().unwrap()), Err(Deny::NotRelative));
    assert_eq!(r("a/out.md"), Err(Deny::Escapes));
    assert_eq!(r("dirlink/secret.md"), Err(Deny::Escapes));
    assert_eq!(r("loop1"), Err(Deny::Loop));
    assert_eq!(r("a/fifo.md"), Err(Deny::NotAFile));
    assert_eq!(r("a"), Err(Deny::NotAFile));
    assert_eq!(r("a/none.md"), Err(Deny::Missing));
}
