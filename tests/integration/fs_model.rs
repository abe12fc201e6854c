// The in-memory filesystem behaves like the real one: the same random operations on both,
// in a temp dir, give the same results (values equal, errors of the same kind).

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
    /// `write_atomic_set`: a write (bytes) or a removal (`None`) per distinct path.
    WriteSet(Vec<(String, Option<Vec<u8>>)>),
    Read(String, u64),
    Metadata(String),
    SymlinkMetadata(String),
    ReadLink(String),
    Canonicalize(String),
    ReadDir(String),
    Walk(String),
}

fn rel() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof![Just("a"), Just("b"), Just("c"), Just("l")], 0..4)
        .prop_map(|parts| parts.join("/"))
}

fn nonempty_rel() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof![Just("a"), Just("b"), Just("c"), Just("l")], 1..4)
        .prop_map(|parts| parts.join("/"))
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
        2 => proptest::collection::vec((nonempty_rel(), proptest::option::of(bytes)), 1..4).prop_map(|mut set| {
            let mut seen = std::collections::BTreeSet::new();
            set.retain(|(p, _)| seen.insert(p.clone()));
            Op::WriteSet(set)
        }),
        2 => (rel(), 0u64..50).prop_map(|(p, c)| Op::Read(p, c)),
        1 => rel().prop_map(Op::Metadata),
        1 => rel().prop_map(Op::SymlinkMetadata),
        1 => rel().prop_map(Op::ReadLink),
        2 => rel().prop_map(Op::Canonicalize),
        1 => rel().prop_map(Op::ReadDir),
        1 => rel().prop_map(Op::Walk),
    ]
}

/// A result reduced to what both filesystems must agree on.
#[derive(Debug, PartialEq)]
enum Outcome {
    Unit,
    Bytes(Vec<u8>),
    Meta(FileKind, u64),
    Path(PathBuf),
    Entries(Vec<(String, FileKind)>),
    Paths(Vec<PathBuf>),
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
    if rel.is_empty() { world.to_path_buf() } else { world.join(rel) }
}

fn apply(fs: &dyn FileSystem, mem: Option<&MemoryFs>, world: &Path, op: &Op) -> Outcome {
    let sibling = PathBuf::from(format!("{}-sibling", world.display()));
    match op {
        Op::CreateDirAll(p) => outcome(fs.create_dir_all(&join(world, p)), |()| Outcome::Unit),
        Op::WriteAtomic(p, b) => outcome(fs.write_atomic(&join(world, p), b), |()| Outcome::Unit),
        Op::WriteNew(p, b) => outcome(fs.write_new(&join(world, p), b), |()| Outcome::Unit),
        Op::Symlink(t, p) => {
            let target = match t {
                Target::Relative(r) => PathBuf::from(r),
                Target::Up(r) => PathBuf::from("..").join(r),
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
        Op::WriteSet(set) => {
            let paths: Vec<PathBuf> = set.iter().map(|(p, _)| join(world, p)).collect();
            let changes: Vec<Change<'_>> = set
                .iter()
                .zip(&paths)
                .map(|((_, bytes), path)| match bytes {
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
        Op::Canonicalize(p) => outcome(fs.canonicalize(&join(world, p)), Outcome::Path),
        Op::ReadDir(p) => outcome(fs.read_dir(&join(world, p)), |es| {
            Outcome::Entries(es.into_iter().map(|e| (e.name, e.kind)).collect())
        }),
        Op::Walk(p) => outcome(fs.walk_files(&join(world, p), &[".generated"]), Outcome::Paths),
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn memory_fs_agrees_with_the_real_one(ops in proptest::collection::vec(op(), 1..40)) {
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
    }
}
