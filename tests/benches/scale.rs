//! Benchmark: the VitaeGraph at scale, as a table (issue 12's figures, ours only).
//!
//! Method, per size (default 1,000, 10,000 and 100,000 records; `VITAEGRAPH_BENCH_SIZES` picks):
//! a synthetic graph (the generator of `support.rs`: every record type, ~600-byte bodies) is
//! written to a temp dir, then each figure is the median of `RUNS` runs with the spread
//! (min-max), wall time, measured around the release binary as a child process:
//! - read floor: every record file read once in-process (walk + `std::fs::read`), nothing else;
//! - walk floor: every record file's metadata taken once (walk + `symlink_metadata`), nothing
//!   read: the least an incremental run does to learn what changed;
//! - write floor: the files this build's full run left in `.generated/`, held in memory, written
//!   again to new files in a folder beside the graph, the JSON files synced as `graph index`
//!   syncs them (its caches are not): the least a run that writes that output does;
//! - `graph index`, full: no caches (`.generated/manifest.bin` and `documents.bin` removed
//!   before each run: every record parsed, every search document rendered);
//! - `graph index` after one edit: one record's body changed before each run (the caches of
//!   the run before are used; only that record is parsed and its document rendered);
//! - `graph index` with nothing changed: a rerun after the last edit's run (this build writes
//!   nothing; a build before `outputs.bin` rewrites every file);
//! - peak RSS of `graph index` (full and incremental), from `getrusage` via python3;
//! - first search: spawn `vitaecontext mcp`, `initialize`, first `search_vitaegraph`, timed from
//!   the spawn to the answer;
//! - warm search: 200 two-word queries on one server, median;
//! - server peak RSS: `VmHWM` after the searches;
//! - live edit: with `vitaecontext mcp --watch` serving the graph (started, then left for
//!   1 s plus twice a full warm index, so its first index is done), a new word is appended to
//!   one record and `search_vitaegraph` is asked for it every 10 ms: the time from the write to
//!   the first answer that finds it (a different record and word each run); that server's
//!   peak RSS (`VmHWM`) after the edits;
//! - spawn to `initialize` answered, with and without `--watch` (the server's input then
//!   closed: with `--watch` it ends after the index at start);
//! - the full index's median over the read floor's, and over the read and write floors' sum;
//!   one edit's median over the walk and write floors' sum; all warm.
//!
//! "cold" runs drop the page cache first (`echo 3 > /proc/sys/vm/drop_caches`, root only; the
//! column says "n/a" when it cannot be dropped), "warm" runs follow a run that read everything.
//! Run on an idle machine: `BENCH=scale scripts/bench`.
//!
//! `VITAEGRAPH_BENCH_BASELINE=PATH` also measures another build (a `vitaecontext` binary, say
//! the previous commit's) in the same run: on its own copy of each graph, every measurement
//! alternating between the two builds, so that both meet the same machine state; a second
//! table follows for it. A figure compares only with one from the same run.

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

#[path = "support.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 3;

/// Median and spread of a few samples.
#[derive(Debug, Clone, Default)]
struct Figure(Vec<f64>);

impl Figure {
    fn show(&self, unit: &str) -> String {
        if self.0.is_empty() {
            return "n/a".into();
        }
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        let fmt = |x: f64| match unit {
            "s" if x < 0.01 => format!("{:.2} ms", x * 1000.0),
            "s" if x < 1.0 => format!("{:.0} ms", x * 1000.0),
            "s" => format!("{x:.2} s"),
            _ => format!("{x:.0} MB"),
        };
        format!("{} ({}-{})", fmt(v[v.len() / 2]), fmt(v[0]), fmt(v[v.len() - 1]))
    }
}

impl Figure {
    fn median(&self) -> Option<f64> {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    }

    /// This figure's median over `floor`'s, as `1.23x`.
    fn ratio(&self, floor: &Figure) -> String {
        match (self.median(), floor.median()) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
            _ => "n/a".into(),
        }
    }
}

/// The page-cache states to measure, each with its column: cold (0) only when the cache can
/// be dropped, then warm (1).
fn states(can_drop: bool) -> Vec<(usize, bool)> {
    [(0, true), (1, false)].into_iter().filter(|&(_, cold)| can_drop || !cold).collect()
}

fn drop_caches() -> bool {
    Command::new("sync").status().is_ok_and(|s| s.success())
        && std::fs::write("/proc/sys/vm/drop_caches", "3\n").is_ok()
}

/// Every `.md` file below `dir`, `.generated/` aside.
fn records(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let (path, kind) = (entry.path(), entry.file_type().expect("file type"));
        if kind.is_dir() && entry.file_name() != ".generated" {
            out.extend(records(&path));
        } else if kind.is_file() && path.extension().is_some_and(|x| x == "md") {
            out.push(path);
        }
    }
    out
}

/// The walk floor: every record's metadata taken once, nothing read.
fn walk_floor(root: &Path) -> f64 {
    let start = Instant::now();
    let found = records(root).iter().filter(|p| std::fs::symlink_metadata(p).is_ok()).count();
    std::hint::black_box(found);
    start.elapsed().as_secs_f64()
}

/// The write floor: the files of `generated` (held in memory first) written to new files in
/// `to`, the JSON ones synced, as `graph index` writes them (its caches unsynced).
fn write_floor(generated: &Path, to: &Path) -> f64 {
    use std::io::Write;
    let files: Vec<(std::ffi::OsString, Vec<u8>)> = std::fs::read_dir(generated)
        .expect("read .generated")
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| (e.file_name(), std::fs::read(e.path()).expect("read output")))
        .collect();
    std::fs::create_dir_all(to).expect("mkdir");
    let start = Instant::now();
    for (name, bytes) in &files {
        let mut f = std::fs::File::create(to.join(name)).expect("create");
        f.write_all(bytes).expect("write");
        if Path::new(name).extension().is_some_and(|x| x == "json") {
            f.sync_all().expect("sync");
        }
    }
    let took = start.elapsed().as_secs_f64();
    std::fs::remove_dir_all(to).expect("remove");
    took
}

/// The floor: every record read once, and nothing else.
fn read_floor(root: &Path) -> f64 {
    let start = Instant::now();
    let bytes: usize = records(root).iter().map(|p| std::fs::read(p).map_or(0, |b| b.len())).sum();
    std::hint::black_box(bytes);
    start.elapsed().as_secs_f64()
}

fn search(q: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"search_vitaegraph","arguments":{{"query":"{q}"}}}}}}"#
    )
}

/// Spawn, initialize, first search: seconds from the spawn to the answer.
fn first_search(bin: &Path, root: &Path, home: &Path) -> f64 {
    let start = Instant::now();
    let mut server = support::McpChild::start_with(bin, &["--root".as_ref(), root.as_os_str()], home);
    server.call(&search("rust latency"));
    start.elapsed().as_secs_f64()
}

/// The `matchCount` of a `search_vitaegraph` answer (its first content item is the JSON).
fn match_count(line: &str) -> u64 {
    let answer: serde_json::Value = serde_json::from_str(line).expect("a JSON-RPC line");
    let text = answer["result"]["content"][0]["text"].as_str().expect("a text result");
    let result: serde_json::Value = serde_json::from_str(text).expect("the result's JSON");
    result["matchCount"].as_u64().expect("matchCount")
}

/// Seconds from appending a new word to a record (one per run) to the first search that finds
/// it, with `mcp --watch` serving the graph.
fn live_edits(b: &Build, home: &Path, files: &[PathBuf], settle: Duration) -> (Vec<f64>, f64) {
    let args = ["--watch".as_ref(), "--root".as_ref(), b.root.as_os_str()];
    let mut server = support::McpChild::start_with(&b.bin, &args, home);
    std::thread::sleep(settle);
    let mut found = Vec::new();
    for i in 0..RUNS {
        let word = format!("zqlive{i}x{}", files.len());
        let mut ask = || {
            server.call(&search(&word));
            match_count(server.last())
        };
        assert_eq!(ask(), 0, "{word} is new");
        let file = b.root.join(&files[(i * 104_729 + 17) % files.len()]);
        let mut text = std::fs::read_to_string(&file).expect("record");
        text.push_str(&format!("\n{word}\n"));
        let start = Instant::now();
        std::fs::write(&file, text).expect("edit");
        while ask() == 0 {
            assert!(start.elapsed() < Duration::from_secs(60), "{word} was never found");
            std::thread::sleep(Duration::from_millis(10));
        }
        found.push(start.elapsed().as_secs_f64());
        // Past the racily-clean window, as a person's next edit would be.
        std::thread::sleep(Duration::from_millis(2100));
    }
    (found, support::status_kib(server.pid(), "VmHWM:") as f64 / 1024.0)
}

/// Seconds from the spawn of `vitaecontext mcp` (with `extra` arguments) to its `initialize`
/// answer, over the graph of `b`.
fn spawn_to_initialize(b: &Build, home: &Path, extra: &[&std::ffi::OsStr]) -> f64 {
    let mut args: Vec<&std::ffi::OsStr> = extra.to_vec();
    args.extend(["--root".as_ref(), b.root.as_os_str()]);
    let start = Instant::now();
    let server = support::McpChild::start_with(&b.bin, &args, home);
    let took = start.elapsed().as_secs_f64();
    // Closing its input ends it (with `--watch`, after the index at start).
    drop(server);
    took
}

/// A build measured: its binary, and its own copy of the graph.
struct Build {
    bin: PathBuf,
    root: PathBuf,
}

/// A copy of the records below `from` at `to` (`.generated/` left out).
fn copy_records(from: &Path, to: &Path) {
    for file in records(from) {
        let target = to.join(file.strip_prefix(from).expect("below the root"));
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("mkdir");
        std::fs::copy(&file, &target).expect("copy");
    }
}

#[derive(Default)]
struct Row {
    floor: [Figure; 2],
    walk_floor: Figure,
    write_floor: Figure,
    full: [Figure; 2],
    full_rss: Figure,
    edit: Figure,
    edit_rss: Figure,
    rerun: Figure,
    first: [Figure; 2],
    warm_search: Figure,
    server_rss: Figure,
    live: Figure,
    watch_rss: Figure,
    initialize: Figure,
    initialize_watch: Figure,
}

/// One row per build (this one first), measured alternately.
fn bench(n: usize, baseline: Option<&Path>) -> (usize, Vec<Row>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("graph");
    std::fs::create_dir_all(&root).expect("mkdir");
    let written = support::generate(&root, n);
    eprintln!("== {written} records");
    let mut builds = vec![Build { bin: support::bin(), root: root.clone() }];
    if let Some(bin) = baseline {
        let copy = dir.path().join("graph-baseline");
        copy_records(&root, &copy);
        builds.push(Build { bin: bin.to_path_buf(), root: copy });
    }
    let mut rows: Vec<Row> = builds.iter().map(|_| Row::default()).collect();
    let can_drop = drop_caches();
    for (c, cold) in states(can_drop) {
        for _ in 0..RUNS {
            if cold {
                drop_caches();
            } else {
                read_floor(&root);
            }
            let floor = read_floor(&root);
            rows.iter_mut().for_each(|r| r.floor[c].0.push(floor));
        }
        for _ in 0..RUNS {
            for (b, row) in builds.iter().zip(&mut rows) {
                let _ = std::fs::remove_file(b.root.join(".generated/manifest.bin"));
                let _ = std::fs::remove_file(b.root.join(".generated/documents.bin"));
                if cold {
                    drop_caches();
                }
                let (secs, rss) = support::index_once_with(&b.bin, &b.root);
                row.full[c].0.push(secs);
                row.full_rss.0.push(rss);
            }
        }
    }
    // A changed body in one record per run (the first run after the full ones writes the
    // manifest; it is not counted).
    for b in &builds {
        support::index_once_with(&b.bin, &b.root);
    }
    for _ in 0..RUNS {
        let walked = walk_floor(&root);
        let written = write_floor(&root.join(".generated"), &dir.path().join("floor-out"));
        rows.iter_mut().for_each(|r| {
            r.walk_floor.0.push(walked);
            r.write_floor.0.push(written);
        });
    }
    let files: Vec<PathBuf> =
        records(&root).into_iter().map(|f| f.strip_prefix(&root).expect("below").to_path_buf()).collect();
    for i in 0..RUNS {
        let file = &files[(i * 7919) % files.len()];
        for b in &builds {
            let mut text = std::fs::read_to_string(b.root.join(file)).expect("record");
            text.push_str(&format!("\nEdited in run {i}.\n"));
            std::fs::write(b.root.join(file), text).expect("edit");
        }
        // Past the racily-clean window of the run before, as a person's next edit would be.
        std::thread::sleep(Duration::from_millis(2100));
        for (b, row) in builds.iter().zip(&mut rows) {
            let (secs, rss) = support::index_once_with(&b.bin, &b.root);
            row.edit.0.push(secs);
            row.edit_rss.0.push(rss);
        }
    }
    for _ in 0..RUNS {
        for (b, row) in builds.iter().zip(&mut rows) {
            row.rerun.0.push(support::index_once_with(&b.bin, &b.root).0);
        }
    }
    for (c, cold) in states(can_drop) {
        for _ in 0..RUNS {
            for (b, row) in builds.iter().zip(&mut rows) {
                if cold {
                    drop_caches();
                }
                row.first[c].0.push(first_search(&b.bin, &b.root, dir.path()));
            }
        }
    }
    for (b, row) in builds.iter().zip(&mut rows) {
        let mut server = support::McpChild::start_with(&b.bin, &["--root".as_ref(), b.root.as_os_str()], dir.path());
        let mut rng = support::Rng(42);
        let queries: Vec<String> =
            (0..210).map(|_| format!("{} {}", rng.pick(support::WORDS), rng.pick(support::WORDS))).collect();
        let mut qi = queries.iter().cycle();
        let stats = support::time(200, 10, || server.call(&search(qi.next().expect("cycle"))));
        eprintln!("{}", stats.line(&format!("search_vitaegraph warm, 2-word queries, {}", b.bin.display())));
        row.warm_search.0.push(stats.samples[stats.samples.len() / 2].as_secs_f64());
        row.server_rss.0.push(support::status_kib(server.pid(), "VmHWM:") as f64 / 1024.0);
    }
    for (b, row) in builds.iter().zip(&mut rows) {
        let full = row.full[1].0.iter().copied().fold(0.0, f64::max);
        let settle = Duration::from_secs_f64(1.0 + 2.0 * full);
        let (found, rss) = live_edits(b, dir.path(), &files, settle);
        row.live.0 = found;
        row.watch_rss.0.push(rss);
    }
    for _ in 0..RUNS {
        for (b, row) in builds.iter().zip(&mut rows) {
            row.initialize.0.push(spawn_to_initialize(b, dir.path(), &[]));
            row.initialize_watch.0.push(spawn_to_initialize(b, dir.path(), &["--watch".as_ref()]));
        }
    }
    (written, rows)
}

/// The table of one build's rows.
fn table(title: &str, rows: &[(usize, &Row)]) {
    let header: Vec<String> = rows.iter().map(|(n, _)| format!("{n} records")).collect();
    println!("\n{title}\n\n| median (min-max) of {RUNS} | {} |", header.join(" | "));
    println!("|---|{}", "---|".repeat(rows.len()));
    let line = |what: &str, cell: &dyn Fn(&Row) -> String| {
        let cells: Vec<String> = rows.iter().map(|(_, r)| cell(r)).collect();
        println!("| {what} | {} |", cells.join(" | "));
    };
    line("read floor, cold", &|r| r.floor[0].show("s"));
    line("read floor, warm", &|r| r.floor[1].show("s"));
    line("walk floor (every record's metadata), warm", &|r| r.walk_floor.show("s"));
    line("write floor (a full run's outputs, JSON synced), warm", &|r| r.write_floor.show("s"));
    line("`graph index` (full), cold", &|r| r.full[0].show("s"));
    line("`graph index` (full), warm", &|r| r.full[1].show("s"));
    line("`graph index` peak RSS, full", &|r| r.full_rss.show("MB"));
    line("`graph index` after one edit, warm", &|r| r.edit.show("s"));
    line("`graph index` peak RSS, after one edit", &|r| r.edit_rss.show("MB"));
    line("`graph index`, nothing changed, warm", &|r| r.rerun.show("s"));
    line("first search from a fresh start, cold", &|r| r.first[0].show("s"));
    line("first search from a fresh start, warm", &|r| r.first[1].show("s"));
    line("warm search, median of 200", &|r| r.warm_search.show("s"));
    line("server peak RSS after searches", &|r| r.server_rss.show("MB"));
    line("live edit found by search (`mcp --watch`)", &|r| r.live.show("s"));
    line("server peak RSS with `--watch`, after the live edits", &|r| r.watch_rss.show("MB"));
    line("spawn to `initialize` answered, warm", &|r| r.initialize.show("s"));
    line("spawn to `initialize` answered, `mcp --watch`, warm", &|r| r.initialize_watch.show("s"));
    line("`graph index` (full) / read floor, warm (medians)", &|r| r.full[1].ratio(&r.floor[1]));
    let sum = |a: &Figure, b: &Figure| Figure(a.0.iter().zip(&b.0).map(|(x, y)| x + y).collect());
    line("`graph index` (full) / (read + write floors), warm (medians)", &|r| {
        r.full[1].ratio(&sum(&r.floor[1], &r.write_floor))
    });
    line("`graph index` after one edit / (walk + write floors), warm (medians)", &|r| {
        r.edit.ratio(&sum(&r.walk_floor, &r.write_floor))
    });
}

fn main() {
    let sizes: Vec<usize> = std::env::var("VITAEGRAPH_BENCH_SIZES")
        .unwrap_or_else(|_| "1000,10000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let baseline = std::env::var_os("VITAEGRAPH_BENCH_BASELINE").map(PathBuf::from);
    if let Some(bin) = &baseline {
        assert!(bin.is_file(), "VITAEGRAPH_BENCH_BASELINE={} is not a file", bin.display());
    }
    let rows: Vec<(usize, Vec<Row>)> = sizes.iter().map(|&n| bench(n, baseline.as_deref())).collect();
    let of = |b: usize| rows.iter().map(|(n, r)| (*n, &r[b])).collect::<Vec<_>>();
    table(&format!("This build ({})", support::bin().display()), &of(0));
    if let Some(bin) = &baseline {
        table(&format!("Baseline ({}), measured alternately with this build", bin.display()), &of(1));
    }
}
