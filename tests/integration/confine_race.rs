// Confinement under attack: a folder on a record's path, or `.generated`, or a record itself is
// swapped for a symlink to an outside folder (renameat2 RENAME_EXCHANGE, in a loop on another
// thread) while the server serves reads or `graph index` runs; no outside byte may come out.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::{Value, json};

use crate::util::{Cmd, Server, copy_dir, example};

/// Only the outside copies hold this; any response or generated file holding it leaked.
const MARKER: &str = "zqxoutsidemarkerzqx";
/// Upper bounds that keep each race a few seconds at most.
const MAX_READS: usize = 6000;
const MAX_RACE: Duration = Duration::from_secs(3);

struct World {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("root");
    copy_dir(&example("vitaegraph"), &root);
    World { _tmp: tmp, base, root }
}

/// Exchanges `inside` (inside the root) with a symlink to `outside` again and again until
/// stopped; returns the number of exchanges. An even count leaves the tree as it was.
struct Swapper {
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicUsize>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Swapper {
    fn start(inside: PathBuf, outside: &Path, base: &Path) -> Swapper {
        let decoy = base.join(format!("decoy-{}", inside.file_name().unwrap().to_string_lossy()));
        std::os::unix::fs::symlink(outside, &decoy).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let swaps = Arc::new(AtomicUsize::new(0));
        let (s, n) = (Arc::clone(&stop), Arc::clone(&swaps));
        let handle = std::thread::spawn(move || {
            let mut count = 0usize;
            while !s.load(Ordering::Relaxed) || count % 2 == 1 {
                renameat_with(CWD, &inside, CWD, &decoy, RenameFlags::EXCHANGE).expect("renameat2 exchange");
                count += 1;
                n.store(count, Ordering::Relaxed);
            }
        });
        Swapper { stop, swaps, handle: Some(handle) }
    }

    fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.take().unwrap().join().unwrap();
        self.swaps.load(Ordering::Relaxed)
    }
}

struct Tally {
    reads: usize,
    served: usize,
    leaks: usize,
    leaked_bytes: usize,
}

/// Reads `uri` up to `MAX_READS` times in pipelined batches, for at most `MAX_RACE`.
fn hammer(server: &mut Server, uri: &str, outside_len: usize) -> Tally {
    let mut t = Tally { reads: 0, served: 0, leaks: 0, leaked_bytes: 0 };
    let start = Instant::now();
    while t.reads < MAX_READS && start.elapsed() < MAX_RACE {
        const BATCH: usize = 100;
        for i in 0..BATCH {
            server.send(
                &json!({"jsonrpc": "2.0", "id": t.reads + i, "method": "resources/read", "params": {"uri": uri}}),
            );
        }
        for _ in 0..BATCH {
            let r = server.recv();
            if let Some(text) = r["result"]["contents"][0]["text"].as_str() {
                t.served += 1;
                if text.contains(MARKER) {
                    t.leaks += 1;
                    t.leaked_bytes += outside_len;
                }
            }
        }
        t.reads += BATCH;
    }
    t
}

fn race_reads(swap: &str, outside_rel: &str, uri: &str, make_outside: impl FnOnce(&World, &Path) -> usize) {
    let w = world();
    let outside = w.base.join("outside").join(outside_rel);
    let outside_len = make_outside(&w, &outside);
    let mut server = Server::mcp(&["--root", w.root.to_str().unwrap()]);
    // Warm the graph cache: the record lookups need graph.json.
    assert!(server.ok("resources/read", json!({"uri": uri}))["contents"][0]["text"].is_string());
    let swapper = Swapper::start(w.root.join(swap), &outside, &w.base);
    let t = hammer(&mut server, uri, outside_len);
    let swaps = swapper.finish();
    eprintln!(
        "{swap}: {} reads, {} served, {} leaked ({} bytes), {swaps} swaps",
        t.reads, t.served, t.leaks, t.leaked_bytes
    );
    assert!(swaps > 100, "the swapper barely ran ({swaps})");
    assert!(t.served > 0, "no read succeeded: the race never reached the file");
    assert_eq!(t.leaked_bytes, 0, "{swap}: {} of {} reads served the outside file", t.leaks, t.reads);
}

/// An outside copy of the record folder whose record holds the marker.
fn outside_record_dir(dir: &Path) -> usize {
    fs::create_dir_all(dir).unwrap();
    let text = format!("---\ntype: project\nid: project:cachewarden\ntitle: x\n---\n# {MARKER}\n");
    fs::write(dir.join("project.md"), &text).unwrap();
    text.len()
}

#[test]
fn confine_race_record_folder_swapped_for_a_symlink() {
    race_reads("projects/cachewarden", "cachewarden", "vitaegraph://record/project:cachewarden", |_, out| {
        outside_record_dir(out)
    });
}

#[test]
fn confine_race_projects_folder_swapped_for_a_symlink() {
    race_reads("projects", "projects", "vitaegraph://record/project:cachewarden", |_, out| {
        outside_record_dir(&out.join("cachewarden"))
    });
}

#[test]
fn confine_race_generated_folder_swapped_for_a_symlink() {
    race_reads(".generated", "generated", "vitaegraph://index", |w, out| {
        copy_dir(&w.root.join(".generated"), out);
        let file = out.join("graph.json");
        let mut g: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
        g["nodes"][0]["label"] = json!(MARKER);
        let text = serde_json::to_string_pretty(&g).unwrap();
        fs::write(&file, &text).unwrap();
        text.len()
    });
}

/// Runs `graph index` again and again while `swap` is exchanged with a symlink to an outside
/// record-shaped file or folder; the generated files must never hold the marker.
fn race_index(swap: &str, make_outside: impl FnOnce(&Path) -> PathBuf) {
    let w = world();
    let outside = make_outside(&w.base.join("outside"));
    let swapper = Swapper::start(w.root.join(swap), &outside, &w.base);
    let (mut runs, mut leaks, mut leaked_bytes) = (0, 0, 0);
    let start = Instant::now();
    // At least a handful of runs even on a loaded machine, never more than three race lengths.
    while (runs < 8 || start.elapsed() < MAX_RACE) && runs < 200 && start.elapsed() < 3 * MAX_RACE {
        let _ = Cmd::new(["graph", "index", "--root", w.root.to_str().unwrap()]).output();
        runs += 1;
        for f in ["graph.json", "search-index.json"] {
            let text = fs::read_to_string(w.root.join(".generated").join(f)).unwrap_or_default();
            if text.contains(MARKER) {
                leaks += 1;
                leaked_bytes += text.matches(MARKER).count() * MARKER.len();
            }
        }
    }
    let swaps = swapper.finish();
    eprintln!("index {swap}: {runs} runs, {leaks} leaked files ({leaked_bytes} marker bytes), {swaps} swaps");
    assert!(swaps > 100, "the swapper barely ran ({swaps})");
    assert_eq!(leaked_bytes, 0, "{swap}: {leaks} generated files hold outside text");
}

#[test]
fn confine_race_index_record_swapped_for_a_symlink() {
    race_index("projects/cachewarden/project.md", |out| {
        fs::create_dir_all(out).unwrap();
        outside_record_dir(out);
        out.join("project.md")
    });
}

#[test]
fn confine_race_index_record_folder_swapped_for_a_symlink() {
    race_index("projects/cachewarden", |out| {
        let dir = out.join("cachewarden");
        outside_record_dir(&dir);
        dir
    });
}

/// Runs `graph index` again and again while `.generated` is exchanged with a symlink to an
/// outside folder holding files of the generated names; every other run the graph is invalid,
/// so the run removes its stale index. Nothing outside may be written, replaced or removed.
#[test]
fn confine_race_index_writes_stay_in_generated_when_it_is_swapped_for_a_symlink() {
    let w = world();
    let outside = w.base.join("outside");
    fs::create_dir_all(&outside).unwrap();
    let victims =
        ["graph.json", "search-index.json", "search-index.bin", "diagnostics.json", "manifest.bin", "documents.bin"];
    for f in victims {
        fs::write(outside.join(f), MARKER).unwrap();
    }
    let _ = Cmd::new(["graph", "index", "--root", w.root.to_str().unwrap()]).output();
    let swapper = Swapper::start(w.root.join(".generated"), &outside, &w.base);
    let bad = w.root.join("projects/no-front-matter.md");
    let (mut runs, start) = (0, Instant::now());
    while (runs < 8 || start.elapsed() < MAX_RACE) && runs < 200 && start.elapsed() < 3 * MAX_RACE {
        if runs % 2 == 0 {
            fs::write(&bad, "no front matter\n").unwrap();
        } else {
            let _ = fs::remove_file(&bad);
        }
        let _ = Cmd::new(["graph", "index", "--root", w.root.to_str().unwrap()]).output();
        runs += 1;
    }
    let swaps = swapper.finish();
    let mut found: Vec<_> = fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
    found.sort();
    let mut expected = victims.map(std::ffi::OsString::from).to_vec();
    expected.sort();
    eprintln!("index .generated: {runs} runs, {swaps} swaps, outside holds {found:?}");
    assert!(swaps > 100, "the swapper barely ran ({swaps})");
    assert_eq!(found, expected, "nothing made or removed outside");
    for f in victims {
        assert_eq!(fs::read_to_string(outside.join(f)).unwrap(), MARKER, "{f} replaced outside the root");
    }
}

/// Runs `graph add` again and again (a new slug each time, so each run makes a folder) while
/// `projects` is exchanged with a symlink to an outside folder: no folder or record may be
/// made there, whatever moment the swap hits.
#[test]
fn confine_race_graph_add_makes_nothing_outside_when_a_folder_is_swapped_for_a_symlink() {
    let w = world();
    let outside = w.base.join("outside");
    fs::create_dir_all(&outside).unwrap();
    let swapper = Swapper::start(w.root.join("projects"), &outside, &w.base);
    let (mut runs, mut added, start) = (0, 0, Instant::now());
    while (runs < 8 || start.elapsed() < MAX_RACE) && runs < 400 && start.elapsed() < 3 * MAX_RACE {
        let slug = format!("raced-{runs}");
        let (status, _, _) = Cmd::new(["graph", "add", "project", &slug, "--root", w.root.to_str().unwrap()]).output();
        added += usize::from(status.success());
        runs += 1;
    }
    let swaps = swapper.finish();
    let found: Vec<_> = fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
    eprintln!("graph add: {runs} runs, {added} added, {swaps} swaps, outside holds {found:?}");
    assert!(swaps > 100, "the swapper barely ran ({swaps})");
    assert!(found.is_empty(), "made outside the root: {found:?}");
    assert!(added > 0, "no run added a record ({runs} runs)");
}
