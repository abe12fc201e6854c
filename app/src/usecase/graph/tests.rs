use std::path::{Path, PathBuf};
use std::time::Duration;

use domain::graph::index::{Plan, Record};
use domain::graph::manifest::{self, Entries as _, MANIFEST_FILE, Seen};
use domain::graph::outputs::{self, OUTPUTS_FILE};
use domain::graph::set;
use domain::graph::sidecar::{SidecarBuilder, Source as SidecarSource};
use domain::graph::spans::{self, SPANS_FILE};
use domain::graph::{
    DIAGNOSTICS_FILE, GENERATED_DIR, GRAPH_FILE, MAX_RECORD_BYTES, RecordType, SEARCH_INDEX_FILE, SEARCH_SIDECAR_FILE,
};
use fs_memory::MemoryFs;
use ports::Clock;
use ports::fs::{Change, FileKind, FileSystem};

use super::indexing::make_generated;
use super::init::INDEX_MD;
use super::search_index::{MAX_DOCUMENT_BYTES, readable};
use super::*;

/// No progress output.
struct Quiet;

impl Progress for Quiet {
    fn update(&self, _: usize, _: usize, _: Duration) {}
}

struct FixedClock;

impl Clock for FixedClock {
    /// A day after the epoch: long after any file the in-memory filesystem writes in a
    /// test (its clock moves a second per write from the epoch), so none is racily clean.
    fn now(&self) -> std::time::SystemTime {
        std::time::UNIX_EPOCH + Duration::from_secs(86_400)
    }
    fn monotonic(&self) -> Duration {
        Duration::ZERO
    }
}

fn graph(fs: &MemoryFs, root: &Path) {
    init(fs, &FixedClock, root, false).unwrap();
    fs.create_dir_all(&root.join("projects/a")).unwrap();
    fs.write_atomic(
        &root.join("projects/a/project.md"),
        b"---\ntype: project\nid: project:a\ntitle: A\ntags: [z, b]\n---\n# A\nText 2024.\n",
    )
    .unwrap();
}

fn read(fs: &MemoryFs, p: &Path) -> Option<Vec<u8>> {
    fs.read(p, u64::MAX).ok()
}

/// A graph copied from elsewhere may hold a `.generated` that is a symlink to another
/// folder: the index would be written there, and an invalid graph's stale files removed
/// from it. Refused, with nothing written or removed there; so is a symlink that stays
/// inside (the manifest is read without following symlinks, so such an index would never
/// be incremental), a dangling one, and a file in its place.
#[test]
fn the_index_is_never_written_through_a_symlink_or_into_a_file() {
    let valid: &[u8] = b"---\ntype: project\nid: project:a\ntitle: A\n---\n";
    let link = |target: &'static str| move |fs: &MemoryFs, at: &Path| fs.symlink(target, at).unwrap();
    let file = |fs: &MemoryFs, at: &Path| fs.write_atomic(at, b"x").unwrap();
    type Make<'a> = &'a dyn Fn(&MemoryFs, &Path);
    let cases: [(&str, Make); 4] = [
        ("outside", &link("/elsewhere")),
        ("inside", &link("index-files")),
        ("dangling", &link("/elsewhere/new")),
        ("a file", &file),
    ];
    for (what, make) in cases {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        fs.create_dir_all(&root.join("index-files")).unwrap();
        fs.create_dir_all(&root.join("projects/a")).unwrap();
        fs.create_dir_all(Path::new("/elsewhere")).unwrap();
        fs.write_atomic(Path::new("/elsewhere/graph.json"), b"someone else's").unwrap();
        make(&fs, &root.join(GENERATED_DIR));
        // Valid or not, nothing is written: the check comes before the graph is read.
        for next in [valid, b"no front matter"] {
            fs.write_atomic(&root.join("projects/a/project.md"), next).unwrap();
            match index(&fs, &FixedClock, root, &Quiet) {
                Err(GraphError::NotAPlainFolder { path, .. }) => {
                    assert_eq!(path, root.join(GENERATED_DIR), "{what}")
                }
                other => panic!("{what}: {other:?}"),
            }
            let names: Vec<_> = fs.read_dir(Path::new("/elsewhere")).unwrap().into_iter().map(|e| e.name).collect();
            assert_eq!(names, ["graph.json"], "{what}: nothing written or removed there");
            assert_eq!(read(&fs, Path::new("/elsewhere/graph.json")).unwrap(), b"someone else's");
            assert!(fs.read_dir(&root.join("index-files")).unwrap().is_empty(), "{what}: nor inside");
        }
    }
}

/// A run killed while it wrote (Ctrl-C at 100,000 records) leaves its temporaries in
/// `.generated/`; the next run removes them, and nothing else: not a file of another name,
/// not a folder, not a leftover in a record's folder (no index run writes there).
#[test]
fn an_index_removes_what_an_interrupted_run_left_in_generated() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    fs.create_dir_all(&root.join("projects/a")).unwrap();
    fs.write_atomic(&root.join("projects/a/project.md"), b"---\ntype: project\nid: project:a\ntitle: A\n---\n")
        .unwrap();
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let dir = root.join(GENERATED_DIR);
    let names = |dir: &Path| {
        let mut names: Vec<_> = fs.read_dir(dir).unwrap().into_iter().map(|e| e.name.into_string().unwrap()).collect();
        names.sort();
        names
    };
    let clean = names(&dir);
    let leftovers = [".vitaecontext-Mw4sWH.tmp", ".vitaecontext-ORpupy.old", ".vitaecontext-17.tmp"];
    let others = [".vitaecontext-notes.txt", "vitaecontext-Mw4sWH.tmp", ".vitaecontext-a.b.tmp", ".vitaecontext-.tmp"];
    for name in leftovers.iter().chain(&others) {
        fs.write_atomic(&dir.join(name), b"half a file").unwrap();
    }
    fs.create_dir_all(&dir.join(".vitaecontext-folder.tmp")).unwrap();
    fs.write_atomic(&root.join("projects/a/.vitaecontext-Xy12ab.tmp"), b"not ours to sweep").unwrap();
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let mut expected: Vec<String> = clean.iter().cloned().chain(others.map(String::from)).collect();
    expected.push(".vitaecontext-folder.tmp".into());
    expected.sort();
    assert_eq!(names(&dir), expected);
    assert!(read(&fs, &root.join("projects/a/.vitaecontext-Xy12ab.tmp")).is_some());
}

/// Found in review: `graph init --force` backed up a symlinked `VITAEGRAPH.md` by copying
/// what it led to (outside the root) into the graph, then replaced the link. A symlinked
/// starter file is now kept as it is.
#[test]
fn init_force_leaves_a_symlinked_starter_file_alone() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    fs.create_dir_all(root).unwrap();
    fs.create_dir_all(Path::new("/elsewhere")).unwrap();
    fs.write_atomic(Path::new("/elsewhere/secret.md"), b"not the graph's").unwrap();
    fs.symlink("/elsewhere/secret.md", &root.join("VITAEGRAPH.md")).unwrap();
    let report = init(&fs, &FixedClock, root, true).unwrap();
    assert!(report.kept.contains(&root.join("VITAEGRAPH.md")), "{report:?}");
    assert!(report.replaced.is_empty(), "{report:?}");
    assert_eq!(fs.symlink_metadata(&root.join("VITAEGRAPH.md")).unwrap().kind, ports::fs::FileKind::Symlink);
    let names: Vec<_> = fs.read_dir(root).unwrap().into_iter().map(|e| e.name.to_string_lossy().into_owned()).collect();
    assert!(!names.iter().any(|n| n.contains("backup")), "no copy of the target: {names:?}");
    assert_eq!(read(&fs, Path::new("/elsewhere/secret.md")).unwrap(), b"not the graph's");
}

#[test]
fn a_record_is_never_added_through_a_symlink() {
    use domain::graph::new_record::NewRecord;
    for target in ["/elsewhere", "inside", "/nowhere"] {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        fs.create_dir_all(&root.join("inside")).unwrap();
        fs.create_dir_all(Path::new("/elsewhere")).unwrap();
        fs.symlink(target, &root.join("projects")).unwrap();
        let record = NewRecord::new(RecordType::Project, "evil", None, None, &[]).unwrap();
        match add(&fs, root, &record) {
            Err(GraphError::NotAPlainFolder { path, why }) => {
                assert_eq!(path, root.join("projects"));
                assert!(why.contains(target), "{why}");
            }
            other => panic!("{target}: {other:?}"),
        }
        assert!(fs.read_dir(Path::new("/elsewhere")).unwrap().is_empty(), "nothing created there");
        assert!(fs.read_dir(&root.join("inside")).unwrap().is_empty(), "nor inside");
        let record = NewRecord::new(RecordType::Award, "fine", None, None, &[]).unwrap();
        assert!(add(&fs, root, &record).is_ok(), "other folders are unaffected");
    }
}

/// The sidecar and the span file name the stamp the JSON has once the set put it in place
/// (on a real filesystem too, where the rename changes its change time): with any other, a
/// server would hash the whole JSON before its first answer, and the next run would copy
/// no document.
#[test]
fn the_caches_name_the_stamp_the_json_has_once_in_place() {
    let check = |fs: &dyn FileSystem, root: &Path| {
        let generated = root.join(GENERATED_DIR);
        let json = fs.metadata(&generated.join(SEARCH_INDEX_FILE)).unwrap();
        let sidecar = fs.read(&generated.join(domain::graph::SEARCH_SIDECAR_FILE), u64::MAX).unwrap();
        let named = domain::graph::sidecar::source(&sidecar).unwrap();
        assert_eq!((named.json_stamp, named.json_len), (json.stamp, json.len));
        assert_ne!(json.stamp, 0);
        assert!(domain::graph::sidecar::decode(sidecar).is_ok(), "the sidecar checks out whole");
        let spans = fs.read(&generated.join(SPANS_FILE), u64::MAX).unwrap();
        // After its magic (16 bytes), parser version (4) and the JSON's length (8).
        assert_eq!(&spans[28..44], &json.stamp.to_le_bytes(), "the span file names it too");
    };
    let memory = MemoryFs::new();
    graph_of(&memory, Path::new("/g"), 5);
    index(&memory, &FixedClock, Path::new("/g"), &Quiet).unwrap();
    check(&memory, Path::new("/g"));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("g");
    let real = fs_std::StdFs;
    init(&real, &FixedClock, &root, false).unwrap();
    for i in 0..5 {
        let text = format!("---\ntype: project\nid: project:p{i}\ntitle: P{i}\n---\nBody {i}.\n");
        real.create_dir_all(&root.join(format!("projects/p{i}"))).unwrap();
        real.write_atomic(&root.join(format!("projects/p{i}/project.md")), text.as_bytes()).unwrap();
    }
    index(&real, &FixedClock, &root, &Quiet).unwrap();
    check(&real, &root);
    let names: Vec<_> = std::fs::read_dir(root.join(GENERATED_DIR)).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 8, "no temporary is left: {names:?}");
    let listed = real.read(&root.join(GENERATED_DIR).join(OUTPUTS_FILE), u64::MAX).unwrap();
    let listed = outputs::decode(&listed).expect("the list of what was left decodes");
    let json = real.metadata(&root.join(GENERATED_DIR).join(SEARCH_INDEX_FILE)).unwrap();
    assert!(
        listed.files.contains(&(SEARCH_INDEX_FILE.into(), Some(outputs::Left { len: json.len, stamp: json.stamp })))
    );
    assert!(!index(&real, &FixedClock, &root, &Quiet).unwrap().written, "a rerun on a real filesystem keeps it all");
}

/// The sidecar `graph index` streams (documents pushed batch by batch from the render
/// threads, strings read back from the plan) is the one built from the documents as
/// values, over several batches and a partial last one.
#[test]
fn the_streamed_sidecar_is_the_one_built_from_the_documents() {
    let records: Vec<Record> = (0..600)
        .map(|i| {
            let text = format!(
                "---\nid: project:p{i:03}\ntype: project\ntitle: Project {i} build-cache\ntags: [rust, t{}]\n---\n# P{i}\n\nWorked on node.js {} and Ünïcode.\n",
                i % 7,
                "latency ".repeat(i % 5)
            );
            Record::parse(&format!("projects/p{i:03}/project.md"), &text)
        })
        .collect();
    let plan = Plan::new(&records);
    let mut json = Vec::new();
    let write = write_search_index(&plan, None, None, &mut json).unwrap().lay_out().writers(42, &[]).0;
    let mut streamed = Vec::new();
    write(&mut streamed).unwrap();
    let mut reference = SidecarBuilder::default();
    for i in 0..plan.graph.nodes.len() {
        reference.add(&plan.document(i));
    }
    let json_sum = domain::graph::checksum::checksum(&json);
    let reference = reference.finish(SidecarSource { json_len: json.len() as u64, json_sum, json_stamp: 42 });
    assert_eq!(plan.graph.nodes.len(), 600);
    assert!(streamed == reference, "the streamed sidecar differs from the reference");
}

#[test]
fn reruns_are_byte_identical() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let first: Vec<_> = [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE]
        .iter()
        .map(|f| read(&fs, &root.join(GENERATED_DIR).join(f)).unwrap())
        .collect();
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    for (f, before) in [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE].iter().zip(&first) {
        assert_eq!(&read(&fs, &root.join(GENERATED_DIR).join(f)).unwrap(), before, "{f}");
    }
    assert!(String::from_utf8_lossy(&first[0]).ends_with("}\n"));
}

#[test]
fn a_failing_write_leaves_the_old_index_intact() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let search = root.join(GENERATED_DIR).join(SEARCH_INDEX_FILE);
    let old = read(&fs, &search).unwrap();
    fs.write_atomic(&root.join("projects/a/project.md"), b"---\ntype: project\nid: project:a\ntitle: Changed\n---\n")
        .unwrap();
    let before = generated_state(&fs, root);
    fs.fail_writes_to(&search);
    assert!(index(&fs, &FixedClock, root, &Quiet).is_err(), "a full disk is reported");
    assert_eq!(read(&fs, &search).unwrap(), old, "the old search index is whole, not torn");
    assert_eq!(generated_state(&fs, root), before, "no new graph beside the old search index");
    fs.heal_writes_to(&search);
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(String::from_utf8_lossy(&read(&fs, &search).unwrap()).contains("Changed"));
}

/// The generated files (absent ones as `None`; the manifest aside), and every name in
/// `.generated/` that is neither one of them nor the manifest.
fn generated_state(fs: &MemoryFs, root: &Path) -> (Vec<Option<Vec<u8>>>, Vec<String>) {
    let dir = root.join(GENERATED_DIR);
    let files = GENERATED_FILES.iter().map(|f| read(fs, &dir.join(f))).collect();
    let others = fs
        .read_dir(&dir)
        .unwrap()
        .into_iter()
        .map(|e| e.name.to_string_lossy().into_owned())
        .filter(|n| !WRITTEN.contains(&n.as_str()))
        .collect();
    (files, others)
}

/// Every file `index` writes: the set, the generation marker, the sidecar and span file
/// after it, the list of what it left after them, and the manifest apart.
const WRITTEN: [&str; 8] = [
    GRAPH_FILE,
    SEARCH_INDEX_FILE,
    SEARCH_SIDECAR_FILE,
    DIAGNOSTICS_FILE,
    MANIFEST_FILE,
    SPANS_FILE,
    OUTPUTS_FILE,
    set::SET_FILE,
];

/// Regression: on a nearly full disk the new graph.json landed beside the old search index
/// and diagnostics, and the server served records that search could not find. Every step
/// of the set write, failing for any of the three files, from a valid index to a changed
/// valid graph and to an invalid one, must leave the previous three files byte-identical
/// and no temporary behind.
#[test]
fn a_failure_at_any_step_leaves_the_previous_set_whole() {
    use fs_memory::SetStep;
    let changed: &[u8] = b"---\ntype: project\nid: project:a\ntitle: Changed\n---\n";
    for next in [changed, b"no front matter"] {
        for step in SetStep::ALL {
            for file in WRITTEN {
                let fs = MemoryFs::new();
                let root = Path::new("/g");
                graph(&fs, root);
                index(&fs, &FixedClock, root, &Quiet).unwrap();
                let before = generated_state(&fs, root);
                assert!(before.0.iter().all(Option::is_some) && before.1.is_empty());
                let manifest_path = root.join(GENERATED_DIR).join(MANIFEST_FILE);
                let manifest_before = read(&fs, &manifest_path).expect("a manifest");
                fs.write_atomic(&root.join("projects/a/project.md"), next).unwrap();
                let target = root.join(GENERATED_DIR).join(file);
                fs.fail_set_step(step, &target);
                let failed = index(&fs, &FixedClock, root, &Quiet).is_err();
                let after = generated_state(&fs, root);
                if file == MANIFEST_FILE {
                    // A cache written apart: its failure fails nothing and leaves the old one.
                    assert!(!failed, "{step:?} on the manifest: the index is written all the same");
                    assert_eq!(after.0[0].is_some(), next == changed, "{step:?}: the new set landed");
                    assert!(after.1.is_empty(), "{step:?}: no temporary behind: {:?}", after.1);
                    let manifest_after = read(&fs, &manifest_path);
                    assert_eq!(manifest_after.as_ref(), Some(&manifest_before), "{step:?}: the old manifest is whole");
                    fs.heal_set_steps();
                    continue;
                }
                // An invalid graph writes no graph or search index: there is no temporary
                // to fail for them, only their kept names and their removal. The set only
                // removes the sidecar, the span file and the list of what was left
                // (written after the set), likewise.
                let after_the_set = [SEARCH_SIDECAR_FILE, SPANS_FILE, OUTPUTS_FILE].contains(&file);
                // The marker is written on its own once the set is in place: failing it
                // fails nothing (the server then compares the files' contents).
                let reaches = file != set::SET_FILE
                    && ((next == changed && !after_the_set)
                        || file == DIAGNOSTICS_FILE
                        || matches!(step, SetStep::Keep | SetStep::Apply));
                assert_eq!(failed, reaches, "{step:?} on {file}: the failure is reported");
                if reaches {
                    assert_eq!(after, before, "{step:?} on {file}: the previous set is untouched");
                }
                fs.heal_set_steps();
                index(&fs, &FixedClock, root, &Quiet).unwrap();
                let healed = generated_state(&fs, root);
                assert!(healed.1.is_empty(), "no temporary behind: {:?}", healed.1);
                assert_eq!(healed.0[0].is_some(), next == changed, "graph.json matches the graph's validity");
            }
        }
    }
}

/// The generation marker names the pair each run put in place, and only once it is in
/// place: a run whose set failed leaves the marker naming the pair still there.
#[test]
fn the_marker_names_the_pair_in_place() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    let dir = root.join(GENERATED_DIR);
    let verdict = || {
        let marker = read(&fs, &dir.join(set::SET_FILE)).and_then(|b| set::decode(&b));
        let piece = |f: &str| read(&fs, &dir.join(f)).map(|b| set::Piece::of(&b));
        (marker, set::verdict(marker.as_ref(), piece(GRAPH_FILE), piece(SEARCH_INDEX_FILE)))
    };
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let (first, said) = verdict();
    assert_eq!(said, set::Verdict::OneSet);
    fs.write_atomic(&root.join("projects/a/project.md"), b"---\ntype: project\nid: project:a\ntitle: New\n---\n")
        .unwrap();
    fs.fail_set_step(fs_memory::SetStep::Apply, dir.join(SEARCH_INDEX_FILE));
    assert!(index(&fs, &FixedClock, root, &Quiet).is_err());
    assert_eq!(verdict(), (first, set::Verdict::OneSet), "a failed set leaves the marker as it was");
    fs.heal_set_steps();
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let (second, said) = verdict();
    assert_eq!(said, set::Verdict::OneSet);
    assert_ne!(second, first);
    fs.write_atomic(&root.join("projects/a/project.md"), b"no front matter").unwrap();
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(verdict().0, Some(set::Marker { graph: None, search: None }), "an invalid run names no pair");
}

#[test]
fn an_invalid_graph_removes_the_stale_index_and_writes_diagnostics() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    fs.write_atomic(&root.join("projects/a/project.md"), b"no front matter").unwrap();
    let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(!done.validation.valid);
    assert!(read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).is_none());
    assert!(read(&fs, &root.join(GENERATED_DIR).join(SEARCH_INDEX_FILE)).is_none());
    let diag = String::from_utf8(read(&fs, &root.join(GENERATED_DIR).join(DIAGNOSTICS_FILE)).unwrap()).unwrap();
    assert!(diag.contains("missing_frontmatter") && diag.contains("\"valid\": false"));
}

/// Regression: indexing read records up to 8 MiB while the server served only 4 MiB; one
/// cap now holds, and a file over it is a finding about that file.
#[test]
fn a_record_over_the_cap_is_an_error_about_that_file() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let mut big = b"---\ntype: project\nid: project:big\ntitle: Big\n---\n".to_vec();
    big.resize(usize::try_from(MAX_RECORD_BYTES).unwrap() + 1, b'x');
    fs.create_dir_all(&root.join("projects/big")).unwrap();
    fs.write_atomic(&root.join("projects/big/project.md"), &big).unwrap();
    let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(!done.validation.valid);
    let codes: Vec<(&str, &str)> = done.validation.errors.iter().map(|d| (d.code.as_str(), d.path.as_str())).collect();
    assert_eq!(codes, [("record_too_large", "projects/big/project.md")]);
    assert!(read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).is_none());
    let diag = String::from_utf8(read(&fs, &root.join(GENERATED_DIR).join(DIAGNOSTICS_FILE)).unwrap()).unwrap();
    assert!(diag.contains("\"code\": \"record_too_large\"") && diag.contains("\"records\": 1"), "{diag}");
    big.truncate(usize::try_from(MAX_RECORD_BYTES).unwrap());
    fs.write_atomic(&root.join("projects/big/project.md"), &big).unwrap();
    assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().validation.valid, "exactly the cap is accepted");
}

/// The generated files and the span file, the JSON's stamp in the sidecar and the span
/// file zeroed (with the checksums that cover it): it names the file the run wrote (another
/// on every run and filesystem); every other byte must be the same.
fn generated(fs: &MemoryFs, root: &Path) -> Vec<Option<Vec<u8>>> {
    let read = |f: &&str| {
        let mut bytes = read(fs, &root.join(GENERATED_DIR).join(f))?;
        if *f == SEARCH_SIDECAR_FILE && bytes.len() >= domain::graph::sidecar::HEADER_LEN {
            // The checksum that follows the body sums the stamp too: zeroed with it when
            // it holds, so that a sidecar that does not decode differs from a full run's.
            if domain::graph::sidecar::decode(bytes.clone()).is_ok() {
                let body = u64::from_le_bytes(bytes[48..56].try_into().unwrap());
                let sum = domain::graph::sidecar::HEADER_LEN + usize::try_from(body).unwrap();
                bytes[sum..sum + domain::graph::sidecar::TRAILER_LEN].fill(0);
            }
            bytes[32..48].fill(0);
        }
        if *f == SPANS_FILE && bytes.len() >= 52 {
            bytes[28..44].fill(0);
            let end = bytes.len() - 8;
            bytes[end..].fill(0);
        }
        Some(bytes)
    };
    GENERATED_FILES.iter().chain(&[SPANS_FILE]).map(read).collect()
}

/// Record texts the edits choose from: valid records, links, a parent, a duplicate id, one
/// without front matter, and one over the size cap.
fn variant(slug: usize, v: usize) -> Vec<u8> {
    let id = format!("project:p{slug}");
    match v {
        0 => format!("---\ntype: project\nid: {id}\ntitle: P{slug}\ntags: [rust, x{v}]\n---\n# P\nRust and Bazel.\n"),
        1 => format!("---\ntype: project\nid: {id}\ntitle: Other {slug}\n---\nSee [a](../p0/project.md).\n"),
        2 => format!(
            "---\ntype: project\nid: {id}\ntitle: Child\nparent: project:p0\nrelated_records: [project:p1]\n---\nText\n"
        ),
        3 => "---\ntype: project\nid: project:p0\ntitle: Same id\n---\n".to_string(),
        4 => "no front matter".to_string(),
        // Variant 0's front matter and another body: the same id, type, title and path.
        5 => format!("---\ntype: project\nid: {id}\ntitle: P{slug}\ntags: [rust, x0]\n---\n# P\nGo and Make.\n"),
        // A link to a file that is not a record: valid only while it is there (`Edit::Asset`).
        6 => format!("---\ntype: project\nid: {id}\ntitle: P{slug}\n---\nSee [the CV](../../cv.pdf).\n"),
        // Guidance `graph add` wrote, left in: a `template_text` error while it stays, found
        // when the record is parsed and kept in the manifest for the runs after.
        8 => format!(
            "---\ntype: project\nid: {id}\ntitle: P{slug}\ntags: [rust, x0]\n---\n# P\n\n- The decisions and the work that were yours.\n"
        ),
        _ => {
            let mut big = format!("---\ntype: project\nid: {id}\ntitle: Big\n---\n").into_bytes();
            big.resize(usize::try_from(MAX_RECORD_BYTES).unwrap() + 1, b'x');
            return big;
        }
    }
    .into_bytes()
}

#[derive(Debug, Clone)]
enum Edit {
    Write(usize, usize),
    Touch(usize),
    Delete(usize),
    DropManifest,
    CorruptManifest,
    DropSpans,
    CorruptSpans,
    /// A byte of the search sidecar changed: it names the JSON in place still, and its
    /// checksum fails when it is read for the terms of the documents copied.
    CorruptSidecar,
    /// `search-index.json` rewritten with the same bytes: another stamp.
    TouchJson,
    /// `WRITTEN[file]` removed, or rewritten with the same bytes (another stamp).
    DropGenerated(usize),
    TouchGenerated(usize),
    /// The file that variant 6 links to, created (`true`) or removed: no record changes,
    /// the validation does.
    Asset(bool),
    /// An index run in which one step of writing one file fails (`WRITTEN[file]`,
    /// `SetStep::ALL[step]`): the set fails while the manifest lands, or the reverse.
    FailedRun(usize, usize),
}

/// A graph (see [`graph`]) with `records` more records, each in its first variant.
fn graph_of(fs: &MemoryFs, root: &Path, records: usize) {
    graph(fs, root);
    for slug in 0..records {
        apply(fs, root, &Edit::Write(slug, 0));
    }
}

fn apply(fs: &MemoryFs, root: &Path, edit: &Edit) {
    let file = |slug: usize| root.join(format!("projects/p{slug}/project.md"));
    match *edit {
        Edit::Write(slug, v) => {
            fs.create_dir_all(file(slug).parent().unwrap()).unwrap();
            fs.write_atomic(&file(slug), &variant(slug, v)).unwrap();
        }
        Edit::Touch(slug) => {
            if let Some(old) = read(fs, &file(slug)) {
                fs.write_atomic(&file(slug), &old).unwrap();
            }
        }
        Edit::Delete(slug) => {
            let _ = fs.write_atomic_set(&[Change::Remove(&file(slug))]);
        }
        Edit::FailedRun(file, step) => {
            fs.fail_set_step(fs_memory::SetStep::ALL[step], root.join(GENERATED_DIR).join(WRITTEN[file]));
            let _ = index(fs, &FixedClock, root, &Quiet);
            fs.heal_set_steps();
        }
        Edit::DropManifest => {
            let _ = fs.write_atomic_set(&[Change::Remove(&root.join(GENERATED_DIR).join(MANIFEST_FILE))]);
        }
        Edit::CorruptManifest | Edit::CorruptSpans | Edit::CorruptSidecar => {
            let name = match edit {
                Edit::CorruptManifest => MANIFEST_FILE,
                Edit::CorruptSpans => SPANS_FILE,
                _ => SEARCH_SIDECAR_FILE,
            };
            let m = root.join(GENERATED_DIR).join(name);
            if let Some(mut bytes) = read(fs, &m) {
                let at = bytes.len() / 2;
                bytes[at] ^= 1;
                fs.write_atomic(&m, &bytes).unwrap();
            }
        }
        Edit::DropSpans => {
            let _ = fs.write_atomic_set(&[Change::Remove(&root.join(GENERATED_DIR).join(SPANS_FILE))]);
        }
        Edit::TouchJson => apply(fs, root, &Edit::TouchGenerated(1)),
        Edit::DropGenerated(k) => {
            let _ = fs.write_atomic_set(&[Change::Remove(&root.join(GENERATED_DIR).join(WRITTEN[k]))]);
        }
        Edit::TouchGenerated(k) => {
            let path = root.join(GENERATED_DIR).join(WRITTEN[k]);
            if let Some(bytes) = read(fs, &path) {
                fs.write_atomic(&path, &bytes).unwrap();
            }
        }
        Edit::Asset(true) => fs.write_atomic(&root.join("cv.pdf"), b"%PDF").unwrap(),
        Edit::Asset(false) => {
            let _ = fs.write_atomic_set(&[Change::Remove(&root.join("cv.pdf"))]);
        }
    }
}

fn edit() -> impl proptest::strategy::Strategy<Value = Edit> {
    use proptest::prelude::*;
    prop_oneof![
        6 => (0usize..5, 0usize..9).prop_map(|(s, v)| Edit::Write(s, v)),
        2 => (0usize..5).prop_map(Edit::Touch),
        2 => (0usize..5).prop_map(Edit::Delete),
        1 => Just(Edit::DropManifest),
        1 => Just(Edit::CorruptManifest),
        1 => Just(Edit::DropSpans),
        1 => Just(Edit::CorruptSpans),
        1 => Just(Edit::CorruptSidecar),
        1 => Just(Edit::TouchJson),
        2 => (0..WRITTEN.len()).prop_map(Edit::DropGenerated),
        2 => (0..WRITTEN.len()).prop_map(Edit::TouchGenerated),
        2 => proptest::bool::ANY.prop_map(Edit::Asset),
        2 => (0..WRITTEN.len(), 0..fs_memory::SetStep::ALL.len()).prop_map(|(f, st)| Edit::FailedRun(f, st)),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// After any sequence of edits, an incremental index (with the manifest and the span
    /// file of the runs before) leaves exactly the bytes a full index (with neither)
    /// writes, whether it writes them or finds them already there (nothing changed). The
    /// in-memory clock moves one second per write, so files both trusted by their stamp
    /// and racily clean occur.
    #[test]
    fn an_incremental_index_equals_a_full_one(edits in proptest::collection::vec(edit(), 1..14)) {
        let clock: &dyn Clock = &FixedClock;
        let (inc, full) = (MemoryFs::new(), MemoryFs::new());
        let root = Path::new("/g");
        for fs in [&inc, &full] {
            graph(fs, root);
            index(fs, clock, root, &Quiet).unwrap();
        }
        for e in &edits {
            apply(&inc, root, e);
            apply(&full, root, e);
            apply(&full, root, &Edit::DropManifest);
            apply(&full, root, &Edit::DropSpans);
            let a = index(&inc, clock, root, &Quiet).unwrap();
            let b = index(&full, clock, root, &Quiet).unwrap();
            proptest::prop_assert_eq!(&a.validation, &b.validation, "after {:?}", e);
            proptest::prop_assert!(generated(&inc, root) == generated(&full, root), "files differ after {:?}", e);
        }
    }
}

/// Each file of `.generated/` with its stamp: any write or removal changes this.
fn stamps(fs: &MemoryFs, root: &Path) -> Vec<(String, u128, u64)> {
    let dir = root.join(GENERATED_DIR);
    let mut all: Vec<_> = fs
        .read_dir(&dir)
        .unwrap()
        .into_iter()
        .map(|e| {
            let m = fs.metadata(&dir.join(&e.name)).unwrap();
            (e.name.to_string_lossy().into_owned(), m.stamp, m.len)
        })
        .collect();
    all.sort();
    all
}

/// Guidance left in a record is found when it is parsed and kept in the manifest: a run that
/// takes the record from there, not parsing it, still reports it, and filling it in clears it.
#[test]
fn guidance_left_in_a_record_is_reported_by_every_run_until_filled_in() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph_of(&fs, root, 3);
    apply(&fs, root, &Edit::Write(2, 8));
    let template_errors = |done: &Indexed| {
        let e = &done.validation.errors;
        e.iter()
            .filter(|e| e.code == domain::graph::GraphCode::TemplateText)
            .map(|e| e.path.clone())
            .collect::<Vec<_>>()
    };
    let first = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(template_errors(&first), ["projects/p2/project.md"]);
    // Another record changed: p2 comes from the manifest, unparsed.
    apply(&fs, root, &Edit::Write(0, 5));
    let second = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(second.parsed, 1, "only the edited record is parsed");
    assert_eq!(template_errors(&second), ["projects/p2/project.md"]);
    assert!(!second.validation.valid);
    apply(&fs, root, &Edit::Write(2, 0));
    let filled = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(filled.validation.valid && template_errors(&filled).is_empty(), "{:?}", filled.validation);
}

/// A rerun with nothing changed writes nothing (at 100,000 records it rewrote 530 MB of
/// identical files); any output or cache removed or rewritten since (another stamp), or a
/// record changed, and it writes them all as a full run would.
#[test]
fn a_rerun_with_nothing_changed_writes_nothing() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph_of(&fs, root, 3);
    let first = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(first.written && first.validation.valid);
    let full = generated(&fs, root);
    let before = stamps(&fs, root);
    assert!(before.iter().any(|(name, ..)| name == OUTPUTS_FILE), "{before:?}");
    let again = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(!again.written, "nothing changed: nothing written");
    assert_eq!((again.nodes, again.parsed, &again.validation), (first.nodes, 0, &first.validation));
    assert_eq!(stamps(&fs, root), before, "no file of .generated/ was written or removed");
    for (k, name) in WRITTEN.iter().enumerate() {
        for disturb in [Edit::DropGenerated(k), Edit::TouchGenerated(k)] {
            apply(&fs, root, &disturb);
            let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
            // The list itself, rewritten with the same bytes, still vouches for the rest.
            let same_list = *name == OUTPUTS_FILE && matches!(disturb, Edit::TouchGenerated(_));
            assert_eq!(done.written, !same_list, "{disturb:?} ({name}): written again");
            assert_eq!(generated(&fs, root), full, "{disturb:?} ({name}): as a full run writes");
            let kept = stamps(&fs, root);
            assert!(!index(&fs, &FixedClock, root, &Quiet).unwrap().written, "{disturb:?}: then kept");
            assert_eq!(stamps(&fs, root), kept);
        }
    }
    // A sidecar zero-filled with its stamp kept (a crash, on a filesystem that does that).
    let sidecar = root.join(GENERATED_DIR).join(SEARCH_SIDECAR_FILE);
    let zeros = vec![0; read(&fs, &sidecar).unwrap().len()];
    fs.overwrite_in_the_same_tick(&sidecar, &zeros).unwrap();
    assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().written, "a torn sidecar is made again");
    assert_eq!(generated(&fs, root), full);
    apply(&fs, root, &Edit::Touch(1));
    assert!(!index(&fs, &FixedClock, root, &Quiet).unwrap().written, "a record rewritten with the same bytes");
    assert_eq!(generated(&fs, root), full);
    apply(&fs, root, &Edit::Write(1, 1));
    assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().written, "a record changed");
}

/// Regression (found in review, on ext2's one-second times): a run whose set failed still
/// rewrites the manifest, and the new one can take the old one's inode, length and second,
/// so its stamp comes back. The list of what was left named the manifest by stamp only, and
/// every later run kept outputs made from other records.
#[test]
fn a_manifest_rewritten_since_with_its_stamp_back_is_not_trusted() {
    let history = |fs: &MemoryFs, root: &Path| {
        graph_of(fs, root, 3);
        index(fs, &FixedClock, root, &Quiet).unwrap();
        // The same length, another title.
        let changed = String::from_utf8(variant(1, 0)).unwrap().replace("title: P1", "title: Q1");
        fs.write_atomic(&root.join("projects/p1/project.md"), changed.as_bytes()).unwrap();
    };
    let root = Path::new("/g");
    let (fs, other) = (MemoryFs::new(), MemoryFs::new());
    history(&fs, root);
    history(&other, root);
    // The manifest of the edited records (the in-memory stamps follow the same writes).
    index(&other, &FixedClock, root, &Quiet).unwrap();
    let manifest_path = root.join(GENERATED_DIR).join(MANIFEST_FILE);
    let edited = read(&other, &manifest_path).unwrap();
    fs.overwrite_in_the_same_tick(&manifest_path, &edited).unwrap();
    let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(done.parsed, 0, "the manifest describes the records as they are");
    assert!(done.written, "the outputs were made from other records");
    assert_eq!(generated(&fs, root), generated(&other, root));
}

/// A link to a file that is not a record is checked on every run, kept or not: the same
/// records can make an invalid graph and a valid one again.
#[test]
fn a_rerun_checks_links_to_files_that_are_not_records() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph_of(&fs, root, 2);
    apply(&fs, root, &Edit::Write(1, 6));
    apply(&fs, root, &Edit::Asset(true));
    assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().validation.valid);
    let full = generated(&fs, root);
    assert!(!index(&fs, &FixedClock, root, &Quiet).unwrap().written);
    apply(&fs, root, &Edit::Asset(false));
    let broken = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(broken.written && !broken.validation.valid, "the link is broken now");
    assert!(read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).is_none());
    assert!(index(&fs, &FixedClock, root, &Quiet).unwrap().written, "an invalid graph is written every run");
    apply(&fs, root, &Edit::Asset(true));
    let mended = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(mended.written && mended.validation.valid);
    assert_eq!(generated(&fs, root), full);
}

/// The manifest is written in the order it is searched in (bytes, the walk's), so a run
/// never sorts it: names that differ by a byte below `/` (`a-b`, `a.b`, a file `b.md` beside
/// a folder `b`) included.
#[test]
fn the_manifest_is_written_in_the_order_it_is_searched_in() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    for slug in ["a", "a-b", "a.b", "a b", "b", "é"] {
        let dir = root.join("projects").join(slug);
        fs.create_dir_all(&dir).unwrap();
        let id = format!("project:{}", slug.replace(['.', ' '], "-").replace('é', "e"));
        let text = format!("---\ntype: project\nid: {id}x\ntitle: T\n---\nText\n");
        fs.write_atomic(&dir.join("project.md"), text.as_bytes()).unwrap();
    }
    fs.write_atomic(&root.join("projects/b.md"), b"# Notes\n").unwrap();
    // Valid or not (a page in a record folder needs front matter), the files are cached.
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let bytes = read(&fs, &root.join(GENERATED_DIR).join(MANIFEST_FILE)).expect("a manifest");
    let mut previous = Previous::new(None);
    manifest::decode_from(&mut &bytes[..], bytes.len() as u64, &mut previous).expect("decodes");
    let names: Vec<&str> = (0..previous.entries.len()).map(|i| previous.name(i)).collect();
    assert!(names.contains(&"projects/a-b/project.md") && names.contains(&"projects/b.md"), "{names:?}");
    assert!(previous.is_in_order(), "{names:?}");
}

/// A manifest whose entries are out of order (written by hand, or walked elsewhere), one
/// path twice: every path is still found, the first entry for it kept.
#[test]
fn a_manifest_in_any_order_finds_every_path() {
    let seen = |len| Seen { len, stamp: 0, modified_ns: None, sha256: [0; 32] };
    let mut previous = Previous::new(None);
    // One path with a NUL where `a/z.md` has its `/` (no file has one: a crafted manifest).
    for (k, path) in ["b/x.md", "a-c/y.md", "a/z.md", "b/x.md", "a.md", "a\0z.md"].into_iter().enumerate() {
        previous.push(seen(k as u64), Record::parse(path, "# Page\n"));
    }
    let previous = previous.in_order();
    let names: Vec<&str> = (0..previous.entries.len()).map(|i| previous.name(i)).collect();
    assert_eq!(names, ["a\0z.md", "a-c/y.md", "a.md", "a/z.md", "b/x.md"], "in the walk's order, once each");
    for (path, len) in [("a.md", 4), ("a/z.md", 2), ("a-c/y.md", 1), ("b/x.md", 0), ("a\0z.md", 5)] {
        let (s, record) = previous.get(path).expect(path);
        assert_eq!(s.len, len, "{path}");
        assert_eq!(previous.take(path, |_| true).map(|r| r.page.path), Some(path.to_string()));
        assert!(record.lock().unwrap().is_none(), "taken once");
    }
    assert!(previous.get("a").is_none() && previous.get("c.md").is_none() && previous.get("").is_none());
}

/// The in-memory clock moves a second per write: three writes elsewhere put the records
/// written so far more than 2 s before the next manifest, so that none is racily clean
/// (each is trusted by its stamp).
fn let_three_seconds_pass(fs: &MemoryFs) {
    for n in 0..3 {
        fs.write_atomic(Path::new("/elsewhere"), &[n]).unwrap();
    }
}

/// Editing one record of many parses that record only; the rest come from the manifest.
#[test]
fn a_second_run_parses_only_what_changed() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph_of(&fs, root, 20);
    let_three_seconds_pass(&fs);
    let first = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!((first.parsed, first.files), (23, 23), "the first run parses everything");
    let manifest = root.join(GENERATED_DIR).join(MANIFEST_FILE);
    let written = fs.metadata(&manifest).unwrap().stamp;
    let again = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(again.parsed, 0, "nothing changed, nothing parsed");
    assert_eq!(fs.metadata(&manifest).unwrap().stamp, written, "an unchanged manifest is not rewritten");
    apply(&fs, root, &Edit::Write(7, 1));
    apply(&fs, root, &Edit::Touch(8));
    let reads = fs.reads();
    let edited = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(edited.parsed, 1, "one edited record parsed; the touched one is read but not parsed");
    let read = fs.reads() - reads;
    assert_eq!(
        read, 7,
        "the manifest, the span file, the JSON in place and the sidecar beside it, the edited and the touched \
         record, and the new manifest's checksum (for the list of what was left)"
    );
    assert_eq!((edited.nodes, edited.copied), (21, 20), "every document but the edited one is copied");
    let touched = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(touched.copied, 21, "an unchanged graph copies every document");
    // A record added among the others (by id) and one removed: the documents after them
    // are found as well as those before.
    apply(&fs, root, &Edit::Write(20, 0));
    let added = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!((added.nodes, added.copied), (22, 21), "every document but the new one is copied");
    apply(&fs, root, &Edit::Delete(5));
    let removed = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!((removed.nodes, removed.copied), (21, 21), "every document left is copied");
    apply(&fs, root, &Edit::TouchJson);
    assert_eq!(index(&fs, &FixedClock, root, &Quiet).unwrap().copied, 0, "a JSON touched since is not copied from");
    assert_eq!(index(&fs, &FixedClock, root, &Quiet).unwrap().copied, 21, "the run after copies again");
    apply(&fs, root, &Edit::CorruptSpans);
    assert_eq!(index(&fs, &FixedClock, root, &Quiet).unwrap().copied, 0, "a damaged span file is ignored");
    apply(&fs, root, &Edit::CorruptManifest);
    assert_eq!(index(&fs, &FixedClock, root, &Quiet).unwrap().parsed, 23, "a corrupt manifest is ignored");
}

/// A record file written again with the same bytes (an editor's save, a checkout): no
/// record changed, so no output is written again, only the manifest, which has the file's
/// new stamp, and the list of outputs that names it. Every output was rewritten before.
#[test]
fn a_touched_record_rewrites_the_manifest_alone() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph_of(&fs, root, 5);
    let_three_seconds_pass(&fs);
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let reads = fs.reads();
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let nothing_read = fs.reads() - reads;
    let stamps = |names: &[&str]| -> Vec<u128> {
        names.iter().map(|n| fs.metadata(&root.join(GENERATED_DIR).join(n)).unwrap().stamp).collect()
    };
    let outputs = [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE, SEARCH_SIDECAR_FILE, SPANS_FILE];
    let caches = [MANIFEST_FILE, OUTPUTS_FILE];
    let (made, listed) = (stamps(&outputs), stamps(&caches));
    apply(&fs, root, &Edit::Touch(2));
    let_three_seconds_pass(&fs);
    let touched = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!((touched.parsed, touched.written), (0, false), "read, found as it was");
    assert_eq!(stamps(&outputs), made, "no output is written again");
    let relisted = stamps(&caches);
    assert!(relisted.iter().zip(&listed).all(|(now, before)| now != before), "the manifest and its list are");
    let reads = fs.reads();
    let again = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!((again.parsed, again.written), (0, false));
    assert_eq!(fs.reads() - reads, nothing_read, "no record is read: the reads of a run with nothing changed");
    assert_eq!(stamps(&caches), relisted, "the record is trusted by its new stamp: nothing is written");
}

/// Found in review: a manifest that vouches for a record the file no longer holds (edited
/// by hand, or on a filesystem whose file times do not follow the content) is trusted by
/// every rerun, which then writes nothing; `doctor` finds the index stale and says to run
/// `graph index`. `--full` reads no cache, so it writes what the records hold.
#[test]
fn a_full_run_trusts_no_cache() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph_of(&fs, root, 3);
    let_three_seconds_pass(&fs);
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let truth = generated(&fs, root);
    // The manifest says p1 holds another title; its file is as it was.
    let manifest_path = root.join(GENERATED_DIR).join(MANIFEST_FILE);
    let mut m = manifest::decode(&read(&fs, &manifest_path).unwrap()).unwrap();
    let (_, record) = m.entries.iter_mut().find(|(_, r)| r.page.path == "projects/p1/project.md").unwrap();
    let forged = String::from_utf8(variant(1, 0)).unwrap().replace("title: P1", "title: Forged");
    *record = Record::parse("projects/p1/project.md", &forged);
    let bytes = manifest::encode(&m.root, m.entries.iter().map(|(s, r)| (s, &r.page, r.text.as_str(), r.template)));
    fs.write_atomic(&manifest_path, &bytes).unwrap();
    let trusted = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(trusted.parsed, 0, "the manifest vouches for every record");
    let graph = read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).unwrap();
    assert!(String::from_utf8(graph).unwrap().contains("Forged"), "the rerun served what the manifest said");

    let full = index_with(&fs, &FixedClock, root, &Quiet, Caches::Ignore).unwrap();
    assert_eq!((full.parsed, full.copied, full.written), (6, 0, true), "every file parsed, every document rendered");
    assert_eq!(generated(&fs, root), truth, "what the records hold");
    let again = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!((again.parsed, again.written), (0, false), "the caches written anew vouch for the records");
    assert_eq!(generated(&fs, root), truth);
}

/// Found in review: a folder at a cache's name (the span file, the search sidecar) failed
/// every run with "is a directory", leaving the index stale. A cache is never worth a run:
/// the folder is left alone, that cache is not written, and the index is, valid or not.
#[test]
fn a_folder_at_a_cache_name_fails_no_run() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph_of(&fs, root, 3);
    index(&fs, &FixedClock, root, &Quiet).unwrap();
    let generated = root.join(GENERATED_DIR);
    for cache in [SPANS_FILE, SEARCH_SIDECAR_FILE] {
        fs.write_atomic_set(&[Change::Remove(&generated.join(cache))]).unwrap();
        fs.create_dir_all(&generated.join(cache)).unwrap();
    }
    apply(&fs, root, &Edit::Write(1, 5));
    let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(done.validation.valid);
    let json = read(&fs, &generated.join(SEARCH_INDEX_FILE)).unwrap();
    assert!(String::from_utf8(json).unwrap().contains("Go and Make."), "the index follows the edit");
    for cache in [SPANS_FILE, SEARCH_SIDECAR_FILE] {
        assert_eq!(fs.metadata(&generated.join(cache)).unwrap().kind, FileKind::Dir, "{cache} left alone");
    }
    apply(&fs, root, &Edit::Write(2, 3));
    let invalid = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(!invalid.validation.valid, "a duplicate id");
    assert!(read(&fs, &generated.join(SEARCH_INDEX_FILE)).is_none(), "the stale index is removed");
}

/// A folder at an output's name fails the run at once, naming the folder, where it used
/// to fail after reading every record with "is a directory". Nothing is written: the other
/// outputs stay those of the last run, and the next run once the folder is gone is whole.
#[test]
fn a_folder_at_an_output_name_fails_the_run_before_reading() {
    for output in [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE] {
        let fs = MemoryFs::new();
        let root = Path::new("/g");
        graph_of(&fs, root, 3);
        index(&fs, &FixedClock, root, &Quiet).unwrap();
        let generated = root.join(GENERATED_DIR);
        let before: Vec<_> = GENERATED_FILES.iter().map(|f| read(&fs, &generated.join(f))).collect();
        apply(&fs, root, &Edit::Write(1, 5));
        let folder = generated.join(output);
        fs.write_atomic_set(&[Change::Remove(&folder)]).unwrap();
        fs.create_dir_all(&folder).unwrap();
        let e = index(&fs, &FixedClock, root, &Panicky).unwrap_err();
        assert!(matches!(&e, GraphError::OutputIsFolder(p) if *p == folder), "{output}: {e}");
        assert!(e.to_string().contains("move or remove the folder"), "{e}");
        for (f, was) in GENERATED_FILES.iter().zip(&before).filter(|(f, _)| **f != output) {
            assert_eq!(&read(&fs, &generated.join(f)), was, "{output}: {f} untouched");
        }
    }
}

/// Progress that fails the test when any record is read.
struct Panicky;

impl Progress for Panicky {
    fn update(&self, done: usize, total: usize, _: Duration) {
        panic!("{done} of {total} records read before the run failed");
    }
}

/// A clock at a second of the in-memory filesystem's time (which moves a second a write).
struct AtSecond(u64);

impl Clock for AtSecond {
    fn now(&self) -> std::time::SystemTime {
        std::time::UNIX_EPOCH + Duration::from_secs(self.0)
    }
    fn monotonic(&self) -> Duration {
        Duration::ZERO
    }
}

/// Regression (found in review): a record written, read by a run and written again in the
/// same tick of a coarse clock (same length, same stamp) was trusted by that stamp for
/// good, since the run's manifest, the reference for "racily clean", landed seconds after
/// the read. A file modified so close to its run is recorded with no time: the next run
/// reads it.
#[test]
fn a_write_in_the_tick_of_the_read_is_seen_by_the_next_run() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph_of(&fs, root, 3);
    let record = root.join("projects/p1/project.md");
    apply(&fs, root, &Edit::Write(1, 0));
    let second = |ns: Option<i64>| u64::try_from(ns.unwrap() / 1_000_000_000).unwrap();
    let written = second(fs.metadata(&record).unwrap().modified_ns);
    let_three_seconds_pass(&fs);
    // The run starts a second after the record was written; its manifest lands later still.
    index(&fs, &AtSecond(written + 1), root, &Quiet).unwrap();
    let manifest = fs.metadata(&root.join(GENERATED_DIR).join(MANIFEST_FILE)).unwrap();
    assert!(second(manifest.modified_ns) > written + 2, "the record is not racy by the manifest's time");
    let old = String::from_utf8(read(&fs, &record).unwrap()).unwrap();
    fs.overwrite_in_the_same_tick(&record, old.replace("Bazel", "Cargo").as_bytes()).unwrap();
    let later = AtSecond(written + 1000);
    let next = index(&fs, &later, root, &Quiet).unwrap();
    assert_eq!(next.parsed, 1, "the record written in the read's tick is read and parsed again");
    let json = read(&fs, &root.join(GENERATED_DIR).join(SEARCH_INDEX_FILE)).unwrap();
    assert!(String::from_utf8(json).unwrap().contains("Rust and Cargo."), "the search index has the new text");
    assert_eq!(index(&fs, &later, root, &Quiet).unwrap().parsed, 0, "long after, its stamp is trusted again");
}

/// Regression (found in review): a crafted span file could name a span as long as the
/// JSON in place (a sparse file of 64 GiB), and the copy allocated that much before
/// looking at it.
#[test]
fn a_span_longer_than_a_document_can_be_is_not_read() {
    let span = |start, len| spans::Span { path: "p.md", sha256: &[0; 32], start, len };
    let huge = 1 << 40;
    assert!(readable(&span(10, MAX_DOCUMENT_BYTES), huge));
    assert!(!readable(&span(10, MAX_DOCUMENT_BYTES + 1), huge), "longer than any document");
    assert!(!readable(&span(10, 100), 109), "past the JSON's end");
    assert!(!readable(&span(u64::MAX, 2), huge), "an overflowing end");
}

/// A record whose body changed and nothing else (the same id, type, title and path, so
/// its old document reads as its node's): its document is rendered, never copied.
#[test]
fn a_document_is_copied_only_for_an_unchanged_record() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph_of(&fs, root, 5);
    let first = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(first.validation.valid, "{:?}", first.validation);
    apply(&fs, root, &Edit::Write(2, 5));
    let edited = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(edited.copied, edited.nodes - 1, "all but the edited record's document are copied");
    let incremental = generated(&fs, root);
    let search = String::from_utf8(incremental[1].clone().unwrap()).unwrap();
    assert!(search.contains("Go and Make."), "the new body is indexed");
    apply(&fs, root, &Edit::DropManifest);
    apply(&fs, root, &Edit::DropSpans);
    let full = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert_eq!(full.copied, 0);
    assert!(generated(&fs, root) == incremental, "the incremental files are the full run's");
}

/// Keeps the paths and reasons `skipped` was told.
#[derive(Default)]
struct Skips(std::sync::Mutex<Vec<(PathBuf, String)>>);

impl Progress for Skips {
    fn update(&self, _: usize, _: usize, _: Duration) {}
    fn skipped(&self, path: &Path, why: &str) {
        self.0.lock().unwrap().push((path.to_path_buf(), why.to_owned()));
    }
}

/// A record with a NUL byte is left out of what validate and index read, with a warning;
/// one that is not UTF-8 is read as 2.x reads it (U+FFFD), as the server then serves it.
#[test]
fn a_record_with_a_nul_byte_is_left_out_and_said_so() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    fs.create_dir_all(&root.join("notes")).unwrap();
    fs.write_atomic(&root.join("notes/binary.md"), b"# Bin\nhas a \0 byte\n").unwrap();
    fs.write_atomic(&root.join("notes/latin1.md"), b"# Caf\xe9\n").unwrap();
    let skips = Skips::default();
    let records = read_records(&fs, &FixedClock, root, &skips).unwrap();
    let paths: Vec<&str> = records.iter().map(|r| r.page.path.as_str()).collect();
    assert!(!paths.contains(&"notes/binary.md") && paths.contains(&"notes/latin1.md"), "{paths:?}");
    let skipped = skips.0.into_inner().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0].0.ends_with("notes/binary.md") && skipped[0].1.contains("NUL byte"), "{skipped:?}");
}

/// Regression (issue 11): a symlinked record was left out without a word. One that stays
/// inside the root is read under its own path; the others are warnings, never read.
#[test]
fn symlinked_records_inside_the_root_are_read_under_their_own_path_and_others_are_warned() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    fs.create_dir_all(Path::new("/outside/folder")).unwrap();
    fs.write_atomic(Path::new("/outside/secret.md"), b"---\ntype: award\nid: award:secret\ntitle: S\n---\n").unwrap();
    fs.write_atomic(Path::new("/outside/folder/x.md"), b"x").unwrap();
    fs.create_dir_all(&root.join("notes")).unwrap();
    fs.write_atomic(&root.join("notes/draft.md"), b"# Draft\nPlain page.\n").unwrap();
    fs.symlink("draft.md", &root.join("notes/latest.md")).unwrap();
    fs.symlink("../../outside/secret.md", &root.join("awards/relative-escape.md")).unwrap();
    fs.symlink("/outside/secret.md", &root.join("awards/absolute-escape.md")).unwrap();
    fs.symlink("gone.md", &root.join("awards/dangling.md")).unwrap();
    fs.symlink("../projects", &root.join("awards/folder.md")).unwrap();
    fs.symlink("/outside/folder", &root.join("linked-folder")).unwrap();
    fs.symlink("../projects/a/project.md", &root.join("notes/copy.txt")).unwrap();
    let skips = Skips::default();
    let records = read_records(&fs, &FixedClock, root, &skips).unwrap();
    let paths: Vec<&str> = records.iter().map(|r| r.page.path.as_str()).collect();
    assert_eq!(paths, ["VITAEGRAPH.md", "index.md", "notes/draft.md", "projects/a/project.md"]);
    let skipped = skips.0.into_inner().unwrap();
    let why = |p: &str| skipped.iter().find(|(s, _)| s == &root.join(p)).map(|(_, w)| w.as_str());
    assert!(why("awards/relative-escape.md").unwrap().contains("outside the VitaeGraph root"), "{skipped:?}");
    assert!(why("awards/absolute-escape.md").unwrap().contains("outside the VitaeGraph root"), "{skipped:?}");
    assert!(why("awards/dangling.md").unwrap().contains("dangling"), "{skipped:?}");
    assert!(why("awards/folder.md").unwrap().contains("not a regular file"), "{skipped:?}");
    assert!(why("linked-folder").unwrap().contains("symlinked folder is not followed"), "{skipped:?}");
    assert!(why("notes/latest.md").unwrap().contains("notes/draft.md, which is indexed under its own path"));
    assert_eq!(skipped.len(), 6, "a link to a file that is not Markdown is no concern: {skipped:?}");
    let done = index(&fs, &FixedClock, root, &Quiet).unwrap();
    assert!(done.validation.valid, "{:?}", done.validation.errors);
    let graph = String::from_utf8(read(&fs, &root.join(GENERATED_DIR).join(GRAPH_FILE)).unwrap()).unwrap();
    assert!(!graph.contains("secret"), "nothing from outside the root is indexed: {graph}");
}

/// Found in review: the walk passes over a `.generated` folder at any depth, but a symlink
/// into a nested one was followed. A link into any `.generated` is passed over, with a word.
#[test]
fn a_symlink_into_any_generated_folder_is_not_followed() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    let hidden = b"---\ntype: project\nid: project:hidden\ntitle: H\n---\n";
    for dir in ["projects/.generated", ".generated"] {
        fs.create_dir_all(&root.join(dir)).unwrap();
        fs.write_atomic(&root.join(dir).join("hidden.md"), hidden).unwrap();
    }
    fs.create_dir_all(&root.join("notes")).unwrap();
    fs.symlink("../projects/.generated/hidden.md", &root.join("notes/nested.md")).unwrap();
    fs.symlink("../.generated/hidden.md", &root.join("notes/top.md")).unwrap();
    let skips = Skips::default();
    let records = read_records(&fs, &FixedClock, root, &skips).unwrap();
    assert!(records.iter().all(|r| !r.page.path.contains("hidden")), "neither is read");
    let skipped = skips.0.into_inner().unwrap();
    for link in ["notes/nested.md", "notes/top.md"] {
        let why = skipped.iter().find(|(s, _)| s == &root.join(link)).map(|(_, w)| w.as_str());
        assert!(why.is_some_and(|w| w.contains(".generated/ folder")), "{link}: {skipped:?}");
    }
}

/// A symlink to a record that is read under its own path too would be the same id twice
/// (a failed graph): it is read once, under the file's own path, and the link is named.
#[test]
fn a_symlink_to_a_record_inside_the_root_is_read_once() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    fs.create_dir_all(&root.join("projects/b")).unwrap();
    fs.symlink("../a/project.md", &root.join("projects/b/project.md")).unwrap();
    let skips = Skips::default();
    let done = index(&fs, &FixedClock, root, &skips).unwrap();
    assert!(done.validation.valid, "{:?}", done.validation.errors);
    assert_eq!(done.nodes, 1);
    let skipped = skips.0.into_inner().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].0, root.join("projects/b/project.md"));
    assert!(skipped[0].1.contains("projects/a/project.md, which is indexed under its own path"), "{skipped:?}");
}

#[test]
fn init_creates_only_what_is_missing_and_force_keeps_a_backup() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    fs.create_dir_all(&root.join("projects/a")).unwrap();
    fs.write_atomic(&root.join("index.md"), b"mine").unwrap();
    let report = init(&fs, &FixedClock, root, false).unwrap();
    assert_eq!(read(&fs, &root.join("index.md")).unwrap(), b"mine", "an existing file is kept");
    assert!(report.created.contains(&root.join("VITAEGRAPH.md")) && report.kept.contains(&root.join("index.md")));
    assert_eq!(fs.mode(&root.join("awards")).unwrap(), 0o700, "created folders are owner-only");
    let report = init(&fs, &FixedClock, root, true).unwrap();
    let (replaced, backup) = &report.replaced[0];
    assert_eq!(replaced, &root.join("index.md"));
    assert_eq!(backup, &root.join("index.md.vitaecontext-backup-19700102T000000Z"));
    assert_eq!(read(&fs, backup).unwrap(), b"mine", "--force keeps what it replaces");
    assert_eq!(read(&fs, &root.join("index.md")).unwrap(), INDEX_MD.as_bytes());
    assert!(init(&fs, &FixedClock, root, true).unwrap().replaced.is_empty(), "a starter file is not backed up");
}

/// What a child's run says, read back by the server, is the run: findings, counts and the
/// root gone (which ends live indexing) included.
#[test]
fn a_summary_reads_back_as_the_run() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    let done = index(&fs, &FixedClock, root, &Quiet);
    let json = serde_json::to_string(&Summary::of(&done)).unwrap();
    let back = serde_json::from_str::<Summary>(&json).unwrap().into_result(root).unwrap();
    let done = done.unwrap();
    assert_eq!(back.validation, done.validation);
    assert_eq!(
        (back.nodes, back.parsed, back.files, back.copied, back.written, &back.generated),
        (done.nodes, done.parsed, done.files, done.copied, done.written, &done.generated)
    );
    let gone = Summary::of(&index(&fs, &FixedClock, Path::new("/nowhere"), &Quiet));
    let back = serde_json::from_str::<Summary>(&serde_json::to_string(&gone).unwrap())
        .unwrap()
        .into_result(Path::new("/nowhere"));
    assert!(matches!(back, Err(GraphError::NoRoot(p)) if p == Path::new("/nowhere")));
}

/// A run whose root is gone by the time it writes makes nothing at the root's path: the run
/// says the root is gone (a watch then ends) rather than make it again with only an index.
#[test]
fn a_root_removed_before_the_write_is_not_made_again() {
    let fs = MemoryFs::new();
    let root = Path::new("/g");
    graph(&fs, root);
    assert!(matches!(
        make_generated(&fs, Path::new("/gone"), Path::new("/gone/.generated")),
        Err(GraphError::NoRoot(_))
    ));
    assert!(fs.symlink_metadata(Path::new("/gone")).is_err(), "nothing made");
    make_generated(&fs, root, &root.join(GENERATED_DIR)).unwrap();
    assert!(fs.symlink_metadata(&root.join(GENERATED_DIR)).is_ok_and(|m| m.kind == ports::fs::FileKind::Dir));
}
