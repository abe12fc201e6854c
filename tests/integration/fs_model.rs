// The in-memory filesystem behaves like the real one: the same random operations on both,
// in a temp dir, give the same results (values equal, errors of the same kind), including the
// walk (files, and the symlinks it reports without entering), the confined reads
// (`read_beneath`, `metadata_beneath`) and names that are not UTF-8.

use std::path::{Path, PathBuf};

use fs_memory::MemoryFs;
use fs_std::StdFs;
use ports::fs::{Change, FileKind, FileSystem, FsError, Metadata};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Target {
    /// Relative, without `..`.
    Relative(String),
    /// `../<rel>`: one level up from the link's folder.
    Up(String),
    /// An absolute path inside the world.
    Inside(String),
    /// An absolute path in a sibling folder whose name starts with the world's name.
    PrefixSibling(String),
}

#[derive(Debug, Clone)]
enum Op {
    CreateDirAll(String),
    WriteAtomic(String, Vec<u8>),
    WriteNew(String, Vec<u8>),
    Symlink(Target, String),
    Remove(String),
    RemoveDir(String),
    /// `write_atomic_set`: a write (bytes) or a removal (`None`) per distinct path.
    WriteSet(Vec<(String, Option<Vec<u8>>)>),
    /// `write_atomic_set_beneath` from one root (relative to the world): a write or a removal
    /// per distinct path below it.
    WriteSetBeneath(String, Vec<(String, Option<Vec<u8>>)>),
    /// `create_private_dir_beneath`: root, then the path below it.
    CreateDirBeneath(String, String),
    Read(String, u64),
    Metadata(String),
    SymlinkMetadata(String),
    ReadLink(String),
    Canonicalize(String),
    ReadDir(String),
    Walk(String),
    /// Root (relative to the world) and the path below it.
    ReadBeneath(String, String, u64),
    MetadataBeneath(String, String),
    /// `read_beneath` then `metadata_beneath` from a root held open (`hold_root`).
    HeldBeneath(String, String, u64),
}

/// `x` stands for a name that is not UTF-8 (see [`os_path`]).
fn part() -> impl Strategy<Value = &'static str> {
    prop_oneof![4 => Just("a"), 4 => Just("b"), 4 => Just("c"), 4 => Just("l"), 1 => Just("x")]
}

fn rel() -> impl Strategy<Value = String> {
    proptest::collection::vec(part(), 0..4).prop_map(|parts| parts.join("/"))
}

fn nonempty_rel() -> impl Strategy<Value = String> {
    proptest::collection::vec(part(), 1..4).prop_map(|parts| parts.join("/"))
}

/// A generated path with every `x` replaced by the name `n\xff` (not UTF-8); `..` and `.` kept.
fn os_path(rel: &str) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    rel.split('/')
        .filter(|p| !p.is_empty())
        .map(|p| if p == "x" { std::ffi::OsStr::from_bytes(b"n\xff") } else { std::ffi::OsStr::new(p) })
        .collect()
}

/// A path below a root for `read_beneath`: mostly plain, sometimes with `..` or `.` (refused).
fn beneath_rel() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => rel(),
        1 => proptest::collection::vec(prop_oneof![part(), Just(".."), Just(".")], 1..4).prop_map(|p| p.join("/")),
    ]
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        nonempty_rel().prop_map(Target::Relative),
        rel().prop_map(Target::Up),
        rel().prop_map(Target::Inside),
        rel().prop_map(Target::PrefixSibling),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let bytes = proptest::collection::vec(any::<u8>(), 0..40);
    prop_oneof![
        3 => nonempty_rel().prop_map(Op::CreateDirAll),
        3 => (nonempty_rel(), bytes.clone()).prop_map(|(p, b)| Op::WriteAtomic(p, b)),
        1 => (nonempty_rel(), bytes.clone()).prop_map(|(p, b)| Op::WriteNew(p, b)),
        3 => (target(), nonempty_rel()).prop_map(|(t, p)| Op::Symlink(t, p)),
        1 => nonempty_rel().prop_map(Op::Remove),
        1 => nonempty_rel().prop_map(Op::RemoveDir),
        2 => proptest::collection::vec((nonempty_rel(), proptest::option::of(bytes.clone())), 1..4).prop_map(|mut set| {
            let mut seen = std::collections::BTreeSet::new();
            set.retain(|(p, _)| seen.insert(p.clone()));
            Op::WriteSet(set)
        }),
        2 => (rel(), proptest::collection::vec((beneath_rel(), proptest::option::of(bytes)), 1..4)).prop_map(
            |(root, mut set)| {
                let mut seen = std::collections::BTreeSet::new();
                set.retain(|(p, _)| seen.insert(p.clone()));
                Op::WriteSetBeneath(root, set)
            }
        ),
        1 => (rel(), beneath_rel()).prop_map(|(r, p)| Op::CreateDirBeneath(r, p)),
        2 => (rel(), 0u64..50).prop_map(|(p, c)| Op::Read(p, c)),
        1 => rel().prop_map(Op::Metadata),
        1 => rel().prop_map(Op::SymlinkMetadata),
        1 => rel().prop_map(Op::ReadLink),
        2 => rel().prop_map(Op::Canonicalize),
        1 => rel().prop_map(Op::ReadDir),
        1 => rel().prop_map(Op::Walk),
        3 => (rel(), beneath_rel(), 0u64..50).prop_map(|(r, p, c)| Op::ReadBeneath(r, p, c)),
        1 => (rel(), beneath_rel()).prop_map(|(r, p)| Op::MetadataBeneath(r, p)),
        2 => (rel(), beneath_rel(), 0u64..50).prop_map(|(r, p, c)| Op::HeldBeneath(r, p, c)),
    ]
}

/// A result reduced to what both filesystems must agree on.
#[derive(Debug, PartialEq)]
enum Outcome {
    Unit,
    Bytes(Vec<u8>),
    BytesMeta(Vec<u8>, Box<Outcome>),
    Meta(FileKind, u64),
    Path(PathBuf),
    Entries(Vec<(std::ffi::OsString, FileKind)>),
    Paths(Vec<PathBuf>),
    /// Files, then symlinks.
    Walk(Box<Outcome>, Box<Outcome>),
    Pair(Box<Outcome>, Box<Outcome>),
    Err(ports::fs::FsErrorKind),
}

fn meta(m: Metadata) -> Outcome {
    // A directory's size is filesystem-specific; stamps differ by nature.
    Outcome::Meta(m.kind, if m.kind == FileKind::Dir { 0 } else { m.len })
}

fn outcome<T>(r: Result<T, FsError>, f: impl FnOnce(T) -> Outcome) -> Outcome {
    match r {
        Ok(v) => f(v),
        Err(e) => Outcome::Err(e.kind),
    }
}

fn join(world: &Path, rel: &str) -> PathBuf {
    if rel.is_empty() { world.to_path_buf() } else { world.join(os_path(rel)) }
}

fn apply(fs: &dyn FileSystem, mem: Option<&MemoryFs>, world: &Path, op: &Op) -> Outcome {
    let sibling = PathBuf::from(format!("{}-sibling", world.display()));
    match op {
        Op::CreateDirAll(p) => outcome(fs.create_dir_all(&join(world, p)), |()| Outcome::Unit),
        Op::WriteAtomic(p, b) => outcome(fs.write_atomic(&join(world, p), b), |()| Outcome::Unit),
        Op::WriteNew(p, b) => outcome(fs.write_new(&join(world, p), b), |()| Outcome::Unit),
        Op::Symlink(t, p) => {
            let target = match t {
                Target::Relative(r) => os_path(r),
                Target::Up(r) => PathBuf::from("..").join(os_path(r)),
                Target::Inside(r) => join(world, r),
                Target::PrefixSibling(r) => join(&sibling, r),
            };
            let link = join(world, p);
            let r = match mem {
                Some(m) => m.symlink(target, &link),
                None => std::os::unix::fs::symlink(&target, &link).map_err(|e| {
                    let kind = match e.raw_os_error() {
                        Some(2) => ports::fs::FsErrorKind::NotFound,
                        Some(17) => ports::fs::FsErrorKind::AlreadyExists,
                        Some(20) => ports::fs::FsErrorKind::NotADirectory,
                        Some(40) => ports::fs::FsErrorKind::Loop,
                        _ => ports::fs::FsErrorKind::Other,
                    };
                    FsError::new(kind, &link, e.to_string())
                }),
            };
            outcome(r, |()| Outcome::Unit)
        }
        Op::Remove(p) => outcome(fs.remove_file(&join(world, p)), |()| Outcome::Unit),
        Op::RemoveDir(p) => outcome(fs.remove_dir(&join(world, p)), |()| Outcome::Unit),
        Op::WriteSet(set) => {
            let paths: Vec<PathBuf> = set.iter().map(|(p, _)| join(world, p)).collect();
            type Writer = Box<dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()> + Sync>;
            let writers: Vec<Writer> = set
                .iter()
                .map(|(_, b)| {
                    let b = b.clone().unwrap_or_default();
                    Box::new(move |out: &mut dyn std::io::Write| out.write_all(&b)) as Writer
                })
                .collect();
            // Content of odd length goes as a cache (not synced): the same outcome either way.
            let changes: Vec<Change<'_>> = set
                .iter()
                .zip(&paths)
                .zip(&writers)
                .map(|(((_, bytes), path), writer)| match bytes {
                    Some(b) if b.len() % 2 == 1 => Change::Cache(path, &**writer),
                    Some(b) => Change::Write(path, b),
                    None => Change::Remove(path),
                })
                .collect();
            outcome(fs.write_atomic_set(&changes), |()| Outcome::Unit)
        }
        Op::Read(p, cap) => outcome(fs.read(&join(world, p), *cap), Outcome::Bytes),
        Op::Metadata(p) => outcome(fs.metadata(&join(world, p)), meta),
        Op::SymlinkMetadata(p) => outcome(fs.symlink_metadata(&join(world, p)), meta),
        Op::ReadLink(p) => outcome(fs.read_link(&join(world, p)), Outcome::Path),
        Op::WriteSetBeneath(r, set) => {
            let root = join(world, r);
            let paths: Vec<PathBuf> = set.iter().map(|(p, _)| os_path(p)).collect();
            let changes: Vec<(&Path, Change<'_>)> = set
                .iter()
                .zip(&paths)
                .map(|((_, bytes), path)| match bytes {
                    Some(b) => (root.as_path(), Change::Write(path, b)),
                    None => (root.as_path(), Change::Remove(path)),
                })
                .collect();
            outcome(fs.write_atomic_set_beneath(&changes), |()| Outcome::Unit)
        }
        Op::CreateDirBeneath(r, p) => {
            outcome(fs.create_private_dir_beneath(&join(world, r), &os_path(p)), |()| Outcome::Unit)
        }
        Op::Canonicalize(p) => outcome(fs.canonicalize(&join(world, p)), Outcome::Path),
        Op::ReadDir(p) => outcome(fs.read_dir(&join(world, p)), |es| {
            Outcome::Entries(es.into_iter().map(|e| (e.name, e.kind)).collect())
        }),
        Op::Walk(p) => outcome(fs.walk(&join(world, p), &[".generated"]), |w| {
            Outcome::Walk(Box::new(Outcome::Paths(w.files)), Box::new(Outcome::Paths(w.symlinks)))
        }),
        Op::ReadBeneath(r, p, cap) => outcome(fs.read_beneath(&join(world, r), &os_path(p), *cap), |(b, m)| {
            Outcome::BytesMeta(b, Box::new(meta(m)))
        }),
        Op::MetadataBeneath(r, p) => outcome(fs.metadata_beneath(&join(world, r), &os_path(p)), meta),
        Op::HeldBeneath(r, p, cap) => outcome(fs.hold_root(&join(world, r)), |h| {
            let read = outcome(h.read_beneath(&os_path(p), *cap), |(b, m)| Outcome::BytesMeta(b, Box::new(meta(m))));
            Outcome::Pair(Box::new(read), Box::new(outcome(h.metadata_beneath(&os_path(p)), meta)))
        }),
    }
}

/// A link whose target climbs with `..` may only be made strictly below the world, so that no
/// sequence of links reaches above the temp dir (where the real machine has other files).
fn allowed(mem: &MemoryFs, world: &Path, op: &Op) -> bool {
    match op {
        Op::Symlink(Target::Up(_), p) => {
            let link = join(world, p);
            match link.parent().map(|parent| mem.canonicalize(parent)) {
                Some(Ok(parent)) => parent.starts_with(world) && parent != world,
                _ => true,
            }
        }
        _ => true,
    }
}

/// Runs `ops` on both adapters, each in a world of its own, comparing every outcome.
fn both_agree(ops: &[Op]) -> Result<(), proptest::test_runner::TestCaseError> {
    let tmp = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(tmp.path()).unwrap();
    let world = top.join("world");
    std::fs::create_dir(&world).unwrap();
    let mem = MemoryFs::new();
    mem.create_dir_all(&world).unwrap();
    for (i, op) in ops.iter().enumerate() {
        if !allowed(&mem, &world, op) {
            continue;
        }
        let real = apply(&StdFs, None, &world, op);
        let model = apply(&mem, Some(&mem), &world, op);
        prop_assert_eq!(&model, &real, "op #{} {:?}", i, op);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn memory_fs_agrees_with_the_real_one(ops in proptest::collection::vec(op(), 1..40)) {
        both_agree(&ops)?;
    }
}

/// Regression (found by the property test in CI): a set writes `l/l` through the symlink `l`
/// (to the world itself), which replaces `l` with a file; its next change (`l/x`) then fails,
/// and the path of the first no longer resolves, so it cannot be put back: the real adapter
/// leaves the file, and the model must too.
#[test]
fn a_set_that_replaces_a_symlink_its_own_paths_go_through_fails_as_on_disk() {
    let ops = [
        Op::CreateDirAll("b/l".into()),
        Op::Symlink(Target::Inside(String::new()), "l".into()),
        Op::WriteSet(vec![("l/l".into(), Some(Vec::new())), ("l/x".into(), None)]),
        Op::MetadataBeneath(String::new(), "l".into()),
    ];
    both_agree(&ops).unwrap();
}

/// Regression (found by the property test): a set removes `c/c` through the symlink `c` (to the
/// world itself), which removes `c`; the second name kept for it was made in `c/`, so it could
/// no longer be reached and was left behind. Temporaries and kept names are now made in the
/// physical folder.
#[test]
fn a_set_that_removes_a_symlink_its_own_path_goes_through_leaves_nothing_behind() {
    let ops = [
        Op::Symlink(Target::Inside(String::new()), "c".into()),
        Op::WriteSet(vec![("c/c".into(), None)]),
        Op::Walk(String::new()),
    ];
    both_agree(&ops).unwrap();
}

/// A real folder (a temp dir, canonical) and an in-memory one (`/world`), both empty, for a
/// test that does the same things in both.
fn worlds() -> (tempfile::TempDir, PathBuf, MemoryFs, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let real_world = tmp.path().canonicalize().unwrap();
    let mem = MemoryFs::new();
    let mem_world = PathBuf::from("/world");
    mem.create_dir_all(&mem_world).unwrap();
    (tmp, real_world, mem, mem_world)
}

// Permission bits agree too: private folders are 0700 only where they were created, files
// written atomically are 0600, and set_mode is read back (the real run assumes umask 022).
#[test]
fn modes_agree_with_the_real_filesystem() {
    let (_tmp, real_world, mem, mem_world) = worlds();
    let modes = |fs: &dyn FileSystem, w: &Path| {
        fs.create_dir_all(&w.join("shared")).unwrap();
        fs.set_mode(&w.join("shared"), 0o755).unwrap();
        fs.create_private_dir_all(&w.join("shared/private/deeper")).unwrap();
        fs.write_atomic(&w.join("shared/private/file"), b"x").unwrap();
        fs.set_mode(&w.join("shared/private/file"), 0o644).unwrap();
        fs.write_atomic(&w.join("shared/private/file2"), b"y").unwrap();
        ["shared", "shared/private", "shared/private/deeper", "shared/private/file", "shared/private/file2"]
            .map(|p| fs.mode(&w.join(p)).unwrap())
    };
    assert_eq!(modes(&StdFs::new(), &real_world), modes(&mem, &mem_world));
    assert_eq!(modes(&mem, &mem_world), [0o755, 0o700, 0o700, 0o644, 0o600]);
}

// Folder locks agree: one holder at a time (a second try answers `None`, a wait ends when the
// first drops its guard), a symlink to the folder reaches the same lock, and a file or a
// missing folder is an error of the same kind.
#[test]
fn folder_locks_agree_with_the_real_filesystem() {
    let (_tmp, real_world, mem, mem_world) = worlds();
    let locks = |fs: &dyn FileSystem, w: &Path, link: &dyn Fn(&Path, &Path)| {
        fs.create_dir_all(&w.join("g")).unwrap();
        fs.write_atomic(&w.join("f"), b"x").unwrap();
        link(&w.join("g"), &w.join("alias"));
        assert!(!fs.dir_locked(&w.join("g")).unwrap(), "a free folder is seen free");
        assert!(fs.lock_dir(&w.join("g"), false).unwrap().is_some(), "and the probe left it free");
        let held = fs.lock_dir(&w.join("g"), false).unwrap();
        assert!(held.is_some(), "a free folder is locked at once");
        assert!(fs.lock_dir(&w.join("g"), false).unwrap().is_none(), "a held one is not");
        assert!(fs.lock_dir(&w.join("alias"), false).unwrap().is_none(), "nor through a symlink");
        assert!(fs.dir_locked(&w.join("g")).unwrap(), "a held folder is seen held");
        assert!(fs.dir_locked(&w.join("alias")).unwrap(), "through a symlink too");
        let waited = std::thread::scope(|s| {
            let waiter = s.spawn(|| fs.lock_dir(&w.join("g"), true).map(|l| l.is_some()));
            std::thread::sleep(std::time::Duration::from_millis(100));
            assert!(!waiter.is_finished(), "a wait lasts while the folder is held");
            drop(held);
            waiter.join().unwrap()
        });
        assert_eq!(waited, Ok(true), "and ends when it is released");
        assert!(fs.lock_dir(&w.join("g"), false).unwrap().is_some(), "free again");
        assert!(!fs.dir_locked(&w.join("g")).unwrap(), "a released folder is seen free");
        let probes = [fs.dir_locked(&w.join("f")).map(drop), fs.dir_locked(&w.join("missing")).map(drop)];
        let locks = [fs.lock_dir(&w.join("f"), false).map(drop), fs.lock_dir(&w.join("missing"), false).map(drop)];
        [probes, locks].concat().into_iter().map(|r| r.map_err(|e| e.kind)).collect::<Vec<_>>()
    };
    let real = locks(&StdFs::new(), &real_world, &|to, at| std::os::unix::fs::symlink(to, at).unwrap());
    let model = locks(&mem, &mem_world, &|to, at| mem.symlink(to.to_str().unwrap(), at).unwrap());
    assert_eq!(real, model);
    let (not_a_dir, missing) = (Err(ports::fs::FsErrorKind::NotADirectory), Err(ports::fs::FsErrorKind::NotFound));
    assert_eq!(model, [not_a_dir, missing, not_a_dir, missing]);
}

// Held folders agree: which folders open (a plain one; not a symlink, a file, a missing one,
// nor one reached through a symlink), and what a held folder's set, listing and removal do,
// failures included (a name that is a path, a set that would replace a folder: nothing
// changes, nothing is left behind).
#[test]
fn held_folders_agree_with_the_real_filesystem() {
    use ports::fs::FsErrorKind;
    let (_tmp, real_world, mem, mem_world) = worlds();
    type Listing = Vec<(String, FileKind)>;
    let held = |fs: &dyn FileSystem, w: &Path, link: &dyn Fn(&str, &Path)| -> (Vec<Result<(), FsErrorKind>>, Listing) {
        fs.create_dir_all(&w.join("root/gen/sub")).unwrap();
        fs.write_atomic(&w.join("root/gen/old"), b"old").unwrap();
        fs.write_atomic(&w.join("root/file"), b"x").unwrap();
        link("gen", &w.join("root/alias"));
        let root = w.join("root");
        let mut results: Vec<Result<(), FsErrorKind>> = ["alias", "file", "missing", "alias/sub"]
            .iter()
            .map(|rel| fs.open_dir_beneath(&root, Path::new(rel)).map(drop).map_err(|e| e.kind))
            .collect();
        let dir = fs.open_dir_beneath(&root, Path::new("gen")).unwrap();
        assert_eq!(dir.path(), root.join("gen"));
        let set = |changes: &[Change<'_>]| dir.write_atomic_set(changes).map_err(|e| e.kind);
        results.push(set(&[Change::Write(Path::new("new"), b"new"), Change::Remove(Path::new("old"))]));
        results.push(set(&[Change::Write(Path::new("a"), b"a"), Change::Write(Path::new("sub/b"), b"b")]));
        results.push(set(&[Change::Remove(Path::new("new")), Change::Write(Path::new("sub"), b"over a folder")]));
        results.push(set(&[Change::Remove(Path::new("missing"))]));
        results.push(dir.remove_file("sub".as_ref()).map_err(|e| e.kind));
        results.push(dir.remove_file("gone".as_ref()).map_err(|e| e.kind));
        results.push(dir.write_new("fresh".as_ref(), b"fresh").map_err(|e| e.kind));
        results.push(dir.write_new("fresh".as_ref(), b"again").map_err(|e| e.kind));
        results.push(dir.write_new("sub".as_ref(), b"over a folder").map_err(|e| e.kind));
        results.push(dir.write_new("sub/x".as_ref(), b"a path").map_err(|e| e.kind));
        link("new", &root.join("gen/alias"));
        for name in ["made", "made", "sub", "fresh", "alias", "sub/x", ".."] {
            results.push(dir.create_private_dir(name.as_ref()).map_err(|e| e.kind));
        }
        assert_eq!(fs.mode(&root.join("gen/made")).unwrap() & 0o077, 0, "a made folder is the owner's only");
        assert_eq!(fs.read(&root.join("gen/fresh"), 10).unwrap(), b"fresh", "never replaced");
        assert_eq!(fs.read(&root.join("gen/new"), 10).unwrap(), b"new", "the failed set changed nothing");
        let listing = dir.read_dir().unwrap().into_iter().map(|e| (e.name.into_string().unwrap(), e.kind)).collect();
        (results, listing)
    };
    let real = held(&StdFs::new(), &real_world, &|to, at| std::os::unix::fs::symlink(to, at).unwrap());
    let model = held(&mem, &mem_world, &|to, at| mem.symlink(to, at).unwrap());
    assert_eq!(real, model);
    use FsErrorKind::*;
    let expected = [Err(Loop), Err(NotADirectory), Err(NotFound), Err(Loop), Ok(()), Err(InvalidPath)];
    assert_eq!(model.0[..6], expected);
    assert_eq!(model.0[6..10], [Err(IsADirectory), Ok(()), Err(IsADirectory), Err(NotFound)]);
    assert_eq!(model.0[10..14], [Ok(()), Err(AlreadyExists), Err(AlreadyExists), Err(InvalidPath)]);
    // create_private_dir: made, already a folder (twice), a file, a symlink, a path, `..`.
    let made = [Ok(()), Ok(()), Ok(()), Err(NotADirectory), Err(NotADirectory), Err(InvalidPath), Err(InvalidPath)];
    assert_eq!(model.0[14..], made);
    let names: Vec<_> = model.1.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["alias", "fresh", "made", "new", "sub"]);
}
