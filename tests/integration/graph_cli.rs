// `vitaecontext graph init | validate | index` as a person runs them.

use std::fs;

use serde_json::Value;

use crate::util::{Cmd, GENERATED_FILES, copy_dir, example, repo_root};

fn fixture() -> std::path::PathBuf {
    repo_root().join("tests/fixtures/graph-every-code")
}

#[test]
fn init_creates_the_layout_and_never_replaces_without_a_backup() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    let (st, out, err) = Cmd::new(["graph", "init", "--root", root.to_str().unwrap()]).output();
    assert!(st.success(), "{err}");
    assert!(out.contains("Initialized VitaeGraph"));
    assert!(err.contains("graph add") && err.contains("graph index"), "the next step is printed: {err}");
    for p in
        ["VITAEGRAPH.md", "index.md", "projects", "experience", "education", "certifications", "awards", "publications"]
    {
        assert!(root.join(p).exists(), "{p}");
    }
    assert_eq!(fs::metadata(root.join("projects")).unwrap().permissions().mode() & 0o777, 0o700);
    let (st, _, err) = Cmd::new(["graph", "validate", "--root", root.to_str().unwrap()]).output();
    assert!(st.success(), "a fresh graph validates: {err}");
    // Regression: a person's own index.md and a missing VITAEGRAPH.md. `graph init` restores only
    // what is missing; it used to need --force, which replaced index.md silently.
    fs::write(root.join("index.md"), "mine").unwrap();
    fs::remove_file(root.join("VITAEGRAPH.md")).unwrap();
    let (st, out, err) = Cmd::new(["graph", "init", "--root", root.to_str().unwrap()]).output();
    assert!(st.success(), "{err}");
    assert!(out.contains("created") && out.contains("VITAEGRAPH.md"), "{out}");
    assert_eq!(fs::read_to_string(root.join("index.md")).unwrap(), "mine");
    let (st, out, _) = Cmd::new(["graph", "init", "--root", root.to_str().unwrap(), "--force"]).output();
    assert!(st.success());
    assert_ne!(fs::read_to_string(root.join("index.md")).unwrap(), "mine");
    let backup = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("index.md.vitaecontext-backup-"))
        .expect("a backup of the replaced index.md");
    assert_eq!(fs::read_to_string(&backup).unwrap(), "mine");
    assert!(out.contains(backup.to_str().unwrap()), "the backup is named: {out}");
}

#[test]
fn every_validation_code_matches_vitaecontext_2() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    copy_dir(&fixture(), &root);
    let (st, out, _) = Cmd::new(["graph", "validate", "--root", root.to_str().unwrap(), "--json"]).output();
    assert_eq!(st.code(), Some(1));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["valid"], false);
    let (st, _, err) = Cmd::new(["graph", "index", "--root", root.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("wrote only") && err.contains("diagnostics.json"), "{err}");
    let ours = fs::read(root.join(".generated/diagnostics.json")).unwrap();
    let golden = fs::read(repo_root().join("tests/fixtures/graph-every-code.diagnostics.json")).unwrap();
    assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(golden).unwrap());
    assert!(!root.join(".generated/graph.json").exists());
    let codes: std::collections::BTreeSet<String> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v["warnings"].as_array().unwrap())
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect();
    for code in [
        "missing_required_file",
        "missing_frontmatter",
        "missing_id",
        "invalid_id",
        "duplicate_id",
        "missing_field",
        "invalid_record_type",
        "record_id_type_mismatch",
        "record_type_directory_mismatch",
        "invalid_visibility",
        "invalid_list_field",
        "self_record_reference",
        "missing_record_reference",
        "invalid_parent_reference",
        "missing_parent_reference",
        "self_parent_reference",
        "invalid_parent_type",
        "missing_parent",
        "parent_cycle",
        "invalid_internal_link",
        "broken_internal_link",
        "legacy_record_layout",
    ] {
        assert!(codes.contains(code), "{code} not raised");
    }
}

#[test]
fn human_output_names_the_file_line_and_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    copy_dir(&fixture(), &root);
    let (st, _, err) = Cmd::new(["graph", "validate", "--root", root.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("vitaecontext::graph::invalid_visibility"), "{err}");
    assert!(err.contains("projects/vis/project.md:5"), "the front-matter line is named: {err}");
    assert!(err.contains("visibility: secret"), "the offending line is shown: {err}");
    assert!(err.contains("Use `visibility: private` or `visibility: public`"), "{err}");
}

#[test]
fn index_reruns_are_byte_identical_and_match_the_committed_example() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    copy_dir(&example("vitaegraph"), &root);
    let files = ["graph.json", "search-index.json", "diagnostics.json"];
    let committed: Vec<Vec<u8>> = files.iter().map(|f| fs::read(root.join(".generated").join(f)).unwrap()).collect();
    fs::remove_dir_all(root.join(".generated")).unwrap();
    for _ in 0..2 {
        let (st, out, err) = Cmd::new(["graph", "index", "--root", root.to_str().unwrap()]).output();
        assert!(st.success(), "{err}");
        assert!(out.contains("Indexed 21"), "{out}");
        for (f, bytes) in files.iter().zip(&committed) {
            assert_eq!(&fs::read(root.join(".generated").join(f)).unwrap(), bytes, "{f}");
        }
    }
}

/// A rerun with nothing changed writes nothing and says so (at 100,000 records it rewrote
/// 530 MB of identical files); a cache removed, or a record edited, is written again.
#[test]
fn a_rerun_with_nothing_changed_writes_nothing_and_says_so() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    copy_dir(&example("vitaegraph"), &root);
    fs::remove_dir_all(root.join(".generated")).unwrap();
    // Records modified an hour ago: trusted by their stamp (not "racily clean") from the start.
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for e in fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                dirs.push(e.path());
            } else {
                fs::File::options().append(true).open(e.path()).unwrap().set_modified(hour_ago).unwrap();
            }
        }
    }
    let generated = root.join(".generated");
    let state = || {
        let mut files: Vec<_> = fs::read_dir(&generated)
            .unwrap()
            .map(|e| {
                let name = e.unwrap().file_name();
                let m = fs::symlink_metadata(generated.join(&name)).unwrap();
                (name, m.ino(), m.len(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec())
            })
            .collect();
        files.sort();
        files
    };
    let index = || {
        let (st, out, err) = Cmd::new(["graph", "index", "--root", root.to_str().unwrap()]).output();
        assert!(st.success(), "{err}");
        out
    };
    let first = index();
    assert!(first.contains("rendered: 21 of 21"), "{first}");
    let json = fs::read(generated.join("search-index.json")).unwrap();
    let before = state();
    let again = index();
    assert!(again.contains("Indexed 21 VitaeGraph node(s)"), "{again}");
    assert!(again.contains("parsed: 0 of"), "{again}");
    assert!(again.contains("written: no output; no record changed"), "{again}");
    assert_eq!(state(), before, "no file of .generated/ was written, replaced or removed");
    fs::remove_file(generated.join("search-index.bin")).unwrap();
    let remade = index();
    assert!(remade.contains("rendered: 0 of 21"), "copied, not rendered: {remade}");
    assert!(generated.join("search-index.bin").is_file(), "the removed sidecar is made again");
    assert_eq!(fs::read(generated.join("search-index.json")).unwrap(), json);
    assert!(index().contains("written: no output"), "then kept");
    let record = root.join("projects/booking-api/project.md");
    let mut text = fs::read_to_string(&record).unwrap();
    text.push_str("\nOne more line.\n");
    fs::write(&record, text).unwrap();
    let edited = index();
    assert!(edited.contains("parsed: 1 of") && edited.contains("rendered: 1 of 21"), "{edited}");
    let json = fs::read(generated.join("search-index.json")).unwrap();
    // `--full` trusts no cache: everything parsed, rendered and written, the same bytes.
    let (st, full, err) = Cmd::new(["graph", "index", "--full", "--root", root.to_str().unwrap()]).output();
    assert!(st.success(), "{err}");
    assert!(full.contains("rendered: 21 of 21"), "{full}");
    assert!(!full.contains("the others"), "nothing came from a cache: {full}");
    assert_eq!(fs::read(generated.join("search-index.json")).unwrap(), json);
    assert!(index().contains("written: no output"), "the caches it wrote are trusted by the next run");
    let (st, _, err) = Cmd::new(["graph", "index", "--full", "--watch", "--root", root.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn usage_errors() {
    let (st, _, err) = Cmd::new(["graph", "validate", "--root", "/no/such graph"]).output();
    assert_eq!(st.code(), Some(2));
    // The hint pastes as it is: it names the root, quoted.
    assert!(err.contains("does not exist") && err.contains("graph init --root '/no/such graph'"), "{err}");
    let (st, _, _) = Cmd::new(["graph", "index", "--root", "a", "--vitaegraph", "b"]).output();
    assert_eq!(st.code(), Some(2));
    // Without --root: $VITAEGRAPH_ROOT, then ~/.vitaecontext/vitaegraph.
    let (st, out, _) = Cmd::new(["graph", "validate"]).env("VITAEGRAPH_ROOT", example("vitaegraph")).output();
    assert!(st.success(), "{out}");
}

/// Regression: `graph index` read records up to 8 MiB while the server refused them over 4 MiB;
/// a record over the one cap is now an error naming its file, and nothing is indexed.
#[test]
fn a_record_over_4_mib_is_reported_with_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    copy_dir(&example("vitaegraph"), &root);
    let big_dir = root.join("projects/huge");
    fs::create_dir_all(&big_dir).unwrap();
    let mut big = b"---\ntype: project\nid: project:huge\ntitle: Huge\n---\n".to_vec();
    big.resize(5 * 1024 * 1024, b'a');
    fs::write(big_dir.join("project.md"), &big).unwrap();

    let (st, out, _) = Cmd::new(["graph", "validate", "--root", root.to_str().unwrap(), "--json"]).output();
    assert_eq!(st.code(), Some(1));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["errors"],
        serde_json::json!([{
            "code": "record_too_large",
            "path": "projects/huge/project.md",
            "message": "File is larger than 4 MiB and was not read"
        }])
    );
    let (st, _, err) = Cmd::new(["graph", "validate", "--root", root.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("vitaecontext::graph::record_too_large") && err.contains("projects/huge/project.md"), "{err}");
    assert!(err.contains("the limit is 4 MiB"), "the help names the cap: {err}");

    let (st, _, err) = Cmd::new(["graph", "index", "--root", root.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("wrote only"), "{err}");
    assert!(!root.join(".generated/graph.json").exists() && !root.join(".generated/search-index.json").exists());
    let diag: Value = serde_json::from_slice(&fs::read(root.join(".generated/diagnostics.json")).unwrap()).unwrap();
    assert_eq!(diag["valid"], false);
    assert_eq!(diag["errors"][0]["code"], "record_too_large");
    assert_eq!(diag["errors"][0]["path"], "projects/huge/project.md");
}

#[test]
fn add_writes_a_record_that_validates_and_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    let r = root.to_str().unwrap();
    assert!(Cmd::new(["graph", "init", "--root", r]).output().0.success());
    let (st, out, err) = Cmd::new([
        "graph",
        "add",
        "project",
        "build-cache",
        "--title",
        "Rust: the hard parts",
        "--tags",
        "rust,ci",
        "--root",
        r,
    ])
    .output();
    assert!(st.success(), "{err}");
    assert!(out.contains("project:build-cache") && err.contains("graph index"), "{out}{err}");
    let text = fs::read_to_string(root.join("projects/build-cache/project.md")).unwrap();
    assert!(text.contains("title: Rust: the hard parts") && text.contains("tags: [rust, ci]"), "{text}");
    let (st, _, _) = Cmd::new(["graph", "add", "education", "msc-cs", "--root", r]).output();
    assert!(st.success());
    let (st, _, err) = Cmd::new(["graph", "add", "course", "databases", "--root", r]).output();
    assert_eq!(st.code(), Some(2));
    assert!(err.contains("--parent"), "a course needs its degree: {err}");
    let (st, _, err) =
        Cmd::new(["graph", "add", "course", "databases", "--parent", "education:msc-cs", "--root", r]).output();
    assert!(st.success(), "{err}");
    assert!(root.join("education/msc-cs/courses/databases.md").is_file());
    // Each added record's front matter validates; its guidance lines are an error until they
    // are replaced with the person's facts, as a Career Context's placeholders are.
    let (st, out, err) = Cmd::new(["graph", "index", "--root", r]).output();
    assert!(!st.success() && err.contains("template_text"), "guidance is not a fact: {out}{err}");
    fill_in_records(&root);
    let (st, out, err) = Cmd::new(["graph", "index", "--root", r]).output();
    assert!(st.success(), "every added record validates once filled in: {out}{err}");
    fs::write(root.join("projects/build-cache/project.md"), "mine").unwrap();
    let (st, _, err) = Cmd::new(["graph", "add", "project", "build-cache", "--root", r]).output();
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(fs::read_to_string(root.join("projects/build-cache/project.md")).unwrap(), "mine");
    let (st, _, err) = Cmd::new(["graph", "add", "podcast", "x", "--root", r]).output();
    assert_eq!(st.code(), Some(2));
    assert!(err.contains("project") && err.contains("publication"), "the types are listed: {err}");
}

/// `graph add` writes nothing `graph validate` would refuse (found in review): an id the graph
/// has elsewhere, a parent no record has, or a title the front matter would read as something
/// else.
#[test]
fn add_refuses_a_duplicate_id_and_a_missing_parent_and_keeps_any_title() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    let r = root.to_str().unwrap();
    assert!(Cmd::new(["graph", "init", "--root", r]).output().0.success());
    let add = |args: &[&str]| {
        let mut all = vec!["graph", "add"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--root", r]);
        Cmd::new(all).output()
    };
    let (st, _, err) = add(&["course", "c1", "--parent", "education:nope"]);
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("education:nope") && err.contains("graph add education nope"), "{err}");
    assert!(!root.join("education/nope").exists(), "nothing was made for it");
    assert!(add(&["education", "msc"]).0.success());
    assert!(add(&["education", "bsc"]).0.success());
    assert!(add(&["course", "c1", "--parent", "education:msc"]).0.success());
    let (st, _, err) = add(&["course", "c1", "--parent", "education:bsc"]);
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("course:c1") && err.contains("education/msc/courses/c1.md"), "{err}");
    assert!(!root.join("education/bsc/courses").exists());
    for (slug, title) in [("a", "true"), ("b", "null"), ("c", "'single'"), ("d", "\"Quoted\" title")] {
        let (st, _, err) = add(&["award", slug, "--title", title]);
        assert!(st.success(), "{err}");
    }
    fill_in_records(&root);
    let (st, out, err) = Cmd::new(["graph", "index", "--root", r]).output();
    assert!(st.success(), "every added record validates once filled in: {out}{err}");
    let graph: serde_json::Value =
        serde_json::from_slice(&fs::read(root.join(".generated/graph.json")).unwrap()).unwrap();
    let label = |id: &str| graph["nodes"].as_array().unwrap().iter().find(|n| n["id"] == id).unwrap()["label"].clone();
    assert_eq!(label("award:a"), "true");
    assert_eq!(label("award:b"), "null");
    assert_eq!(label("award:c"), "'single'");
    assert_eq!(label("award:d"), "\"Quoted\" title");
}

/// Regression: on a nearly full disk `graph index` wrote the new graph.json beside the old
/// search index and diagnostics. On a real 1 MiB tmpfs (mounted in a user namespace, so no root
/// is needed) a graph that grew past the free space must fail to index and leave the previous
/// three files byte-identical, with no temporary behind. Skipped, saying so, where user
/// namespaces are not allowed.
#[test]
fn a_full_disk_leaves_the_previous_index_whole() {
    let probe = std::process::Command::new("unshare").args(["-rm", "true"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: `unshare -rm` is not allowed here, so no small filesystem can be mounted");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (mnt, out) = (tmp.path().join("mnt"), tmp.path().join("out"));
    fs::create_dir_all(&mnt).unwrap();
    fs::create_dir_all(&out).unwrap();
    // A record of ~600 KiB: it fits on the disk, but its text in a new search index does not.
    let big = format!(
        "---\ntype: project\nid: project:big\ntitle: Big\n---\n# Big\n{}\n",
        "lorem ipsum dolor sit amet ".repeat(600 * 1024 / 27)
    );
    fs::write(tmp.path().join("big.md"), big).unwrap();
    let script = r#"set -e
        mount -t tmpfs -o size=1m tmpfs "$MNT"
        cp -r "$EXAMPLE"/. "$MNT"/
        "$BIN" graph index --root "$MNT"
        cp -r "$MNT/.generated" "$OUT/before"
        mkdir -p "$MNT/projects/big"
        cp "$TMP/big.md" "$MNT/projects/big/project.md"
        if "$BIN" graph index --root "$MNT" 2>"$OUT/stderr"; then echo indexed > "$OUT/second"; fi
        cp -r "$MNT/.generated" "$OUT/after"
        ls -A "$MNT/.generated" > "$OUT/names""#;
    let status = std::process::Command::new("unshare")
        .args(["-rm", "sh", "-c", script])
        .env("MNT", &mnt)
        .env("OUT", &out)
        .env("TMP", tmp.path())
        .env("EXAMPLE", example("vitaegraph"))
        .env("BIN", crate::util::bin())
        .env("HOME", tmp.path())
        .status()
        .unwrap();
    assert!(status.success(), "the script in the namespace failed");
    let stderr = fs::read_to_string(out.join("stderr")).unwrap();
    assert!(!out.join("second").exists(), "the second index should not fit on the disk");
    assert!(stderr.to_lowercase().contains("space"), "the failure names the full disk: {stderr}");
    for f in GENERATED_FILES {
        let (before, after) = (fs::read(out.join("before").join(f)).unwrap(), fs::read(out.join("after").join(f)));
        assert_eq!(after.ok(), Some(before), "{f} is the previous one");
    }
    let names = fs::read_to_string(out.join("names")).unwrap();
    assert_eq!(names.lines().collect::<Vec<_>>(), GENERATED_FILES, "no temporary behind");
}

/// Regression: printing findings re-read and re-rendered the whole file for every finding
/// (50,000 findings did not print in two minutes). Each file is now read once, and past 200
/// findings the rest are one line each: every finding is still reported.
#[test]
fn many_findings_print_every_one_and_snippets_for_the_first_200() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    let r = root.to_str().unwrap();
    assert!(Cmd::new(["graph", "init", "--root", r]).output().0.success());
    for i in 0..300 {
        fs::create_dir_all(root.join(format!("projects/p{i}"))).unwrap();
        let text = format!("---\ntype: project\nid: project:p{i}\ntitle: P\nvisibility: secret\n---\n");
        fs::write(root.join(format!("projects/p{i}/project.md")), text).unwrap();
    }
    let (st, _, err) = Cmd::new(["graph", "validate", "--root", r]).output();
    assert_eq!(st.code(), Some(1));
    assert_eq!(err.matches("vitaecontext::graph::invalid_visibility").count(), 300, "every finding is printed");
    assert_eq!(err.matches(" here").count(), 200, "snippets for the first 200 only");
}

/// Regression (issue 11): a symlinked record was skipped without a word. With real symlinks:
/// one leading outside the root is a warning and is not indexed (the exit code is that of the
/// graph); one that stays inside is read under the link's own path.
#[test]
fn symlinked_records_are_indexed_inside_the_root_and_warned_outside() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    let r = root.to_str().unwrap();
    assert!(Cmd::new(["graph", "init", "--root", r]).output().0.success());
    fs::create_dir_all(root.join("projects/a")).unwrap();
    fs::write(root.join("projects/a/project.md"), "---\ntype: project\nid: project:a\ntitle: A\n---\n# A\n").unwrap();
    fs::create_dir_all(tmp.path().join("outside/folder")).unwrap();
    fs::write(tmp.path().join("outside/secret.md"), "---\ntype: award\nid: award:secret\ntitle: Secret\n---\n")
        .unwrap();
    symlink("../../outside/secret.md", root.join("awards/secret.md")).unwrap();
    symlink(tmp.path().join("outside/folder"), root.join("publications/linked")).unwrap();

    let (st, out, err) = Cmd::new(["graph", "index", "--root", r]).output();
    assert!(st.success(), "a warning does not fail the run: {err}");
    assert!(out.contains("Indexed 1 VitaeGraph node(s)"), "{out}");
    let secret = root.join("awards/secret.md");
    assert!(
        err.contains(&format!(
            "warning: skipped {}: it is a symlink that leads outside the VitaeGraph root",
            secret.display()
        )),
        "{err}"
    );
    assert!(err.contains("publications/linked: a symlinked folder is not followed"), "{err}");
    let graph = fs::read_to_string(root.join(".generated/graph.json")).unwrap();
    assert!(!graph.contains("secret"), "{graph}");
    let (st, _, err) = Cmd::new(["graph", "validate", "--root", r]).output();
    assert!(st.success() && err.contains("warning: skipped"), "validate walks the same way: {err}");

    // Inside, to a record the walk reads under its own path: read once, there, and the link
    // is named (the same file twice would fail the graph as one id twice).
    fs::create_dir_all(root.join("projects/b")).unwrap();
    symlink("../a/project.md", root.join("projects/b/project.md")).unwrap();
    let (st, out, _) = Cmd::new(["graph", "validate", "--root", r, "--json"]).output();
    assert_eq!(st.code(), Some(0), "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["records"], 1, "{v}");
    let (_, _, err) = Cmd::new(["graph", "validate", "--root", r]).env("NO_COLOR", "1").output();
    assert!(err.contains("it is a symlink to projects/a/project.md, which is indexed under its own path"), "{err}");

    // Two files with one id: the rendered error names both.
    fs::remove_file(root.join("projects/b/project.md")).unwrap();
    fs::copy(root.join("projects/a/project.md"), root.join("projects/b/project.md")).unwrap();
    let (st, _, err) = Cmd::new(["graph", "validate", "--root", r]).env("NO_COLOR", "1").output();
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("projects/b/project.md:3 and projects/a/project.md:3 use the same id"), "{err}");
    assert!(err.contains("first used here"), "the first file's id line is shown: {err}");
}

// Two indexers of one graph (`graph index` beside `mcp --watch`, or two of either) take turns:
// the second waits, says so, and writes only once the first is done.
#[test]
fn a_second_indexer_waits_for_the_first() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    copy_dir(&example("vitaegraph"), &root);
    let _ = fs::remove_dir_all(root.join(".generated"));
    // What an index run under way holds: an exclusive flock on the root folder.
    let first = fs::File::open(&root).unwrap();
    first.lock().unwrap();
    let mut second = Cmd::new(["graph", "index", "--root", root.to_str().unwrap()]).spawn();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !second.stderr().contains("waiting for another index") {
        assert!(std::time::Instant::now() < deadline, "no word of waiting: {}", second.stderr());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(second.child.try_wait().unwrap().is_none(), "it waits while the other holds the graph");
    assert!(!root.join(".generated/graph.json").exists(), "and writes nothing meanwhile");
    first.unlock().unwrap();
    let status = second.child.wait().unwrap();
    assert!(status.success(), "{}", second.stderr());
    assert!(root.join(".generated/graph.json").exists(), "then it indexes");
}

/// Replaces the body of every record below `root` (a file opening with front matter that names
/// a `type`) with facts of the person's own, as one fills in what `graph add` wrote.
fn fill_in_records(root: &std::path::Path) {
    for entry in fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == ".generated") {
            continue;
        }
        if path.is_dir() {
            fill_in_records(&path);
            continue;
        }
        let Ok(text) = fs::read_to_string(&path) else { continue };
        if !text.starts_with("---\n") || !text.contains("\ntype: ") {
            continue;
        }
        let end = text[3..].find("\n---\n").map(|i| i + 3 + 5).unwrap();
        fs::write(&path, format!("{}\n# Mine\n\nWhat I did, with numbers.\n", &text[..end])).unwrap();
    }
}

/// `graph index --summary-json`, what `mcp --watch` runs in a child process: one JSON line on
/// stdout saying how the run went (a valid graph, an invalid one with its findings, a root
/// that is not there), and the same files as a plain run.
#[test]
fn index_summary_json_says_how_the_run_went() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("g");
    copy_dir(&example("vitaegraph"), &root);
    let committed = fs::read(root.join(".generated/search-index.json")).unwrap();
    fs::remove_dir_all(root.join(".generated")).unwrap();
    let summary = |root: &std::path::Path| {
        let (st, out, err) = Cmd::new(["graph", "index", "--summary-json", "--root", root.to_str().unwrap()]).output();
        assert_eq!(out.lines().count(), 1, "one line: {out}");
        (st, serde_json::from_str::<Value>(&out).unwrap_or_else(|e| panic!("{e}: {out}")), err)
    };
    let (st, v, err) = summary(&root);
    assert!(st.success(), "{err}");
    let done = &v["indexed"];
    assert_eq!(
        (done["valid"].as_bool(), done["nodes"].as_u64(), done["written"].as_bool()),
        (Some(true), Some(21), Some(true)),
        "{v}"
    );
    assert_eq!(fs::read(root.join(".generated/search-index.json")).unwrap(), committed);
    let (_, again, _) = summary(&root);
    assert_eq!(again["indexed"]["written"], false, "nothing changed: {again}");
    // Invalid: a run that succeeded, with its findings.
    let bad = tmp.path().join("bad");
    copy_dir(&fixture(), &bad);
    let (st, v, _) = summary(&bad);
    assert!(st.success());
    assert_eq!(v["indexed"]["valid"], false, "{v}");
    assert!(
        v["indexed"]["errors"]
            .as_array()
            .is_some_and(|e| e.iter().all(|d| d["code"].is_string() && d["path"].is_string()))
    );
    let (st, v, _) = summary(&tmp.path().join("missing"));
    assert!(!st.success());
    assert_eq!(v["failed"]["noRoot"], true, "{v}");
}
