//! Benchmark: `graph index` on crafted records that once made indexing quadratic.
//!
//! Method: for each shape, a temp dir holds `VITAEGRAPH.md`, `index.md` and one record
//! (`projects/x/project.md`) whose body or front matter is the crafted part: 1 MiB and 8 MiB
//! (the read cap) of `[`, 1 MiB of `![`, of `[a](` and of `[](`, 100,000 distinct front-matter
//! keys, 100,000 lines of one repeated key, 100,000 list items, and 50,000 keys with 50,000
//! unknown related records (50,000 diagnostics, each naming its line). The release binary runs
//! `graph index` once per shape (the work is deterministic; the point is the order of
//! magnitude), except for the last shape, run as `graph validate --json`: the human rendering of
//! 50,000 findings (each re-reads and re-renders the whole file) is still quadratic, a known
//! issue outside this bench; the wall time is printed and must stay under a generous bound (`BOUND`), which
//! fails the bench where the old quadratic code took from 50 s to an hour. Run with
//! `scripts/bench` (or `cargo bench -p tests --bench crafted` after `cargo build --release`).

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

#[path = "support.rs"]
#[allow(dead_code, reason = "this bench needs only the release binary's path")]
mod support;

use std::time::{Duration, Instant};

/// Far above the linear code's time on a busy 2-core machine, far below the old code's.
const BOUND: Duration = Duration::from_secs(10);

const MIB: usize = 1024 * 1024;

fn front(extra: &str) -> String {
    format!("---\ntype: project\nid: project:x\ntitle: X\n{extra}---\n# X\n")
}

fn lines(n: usize, line: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| line(i) + "\n").collect()
}

fn shapes() -> Vec<(&'static str, String)> {
    let body = |unit: &str, bytes: usize| front("") + &unit.repeat(bytes / unit.len());
    vec![
        ("1 MiB of [", body("[", MIB)),
        ("8 MiB of [ (the read cap)", body("[", 8 * MIB - 100)),
        ("1 MiB of ![", body("![", MIB)),
        ("1 MiB of [a](", body("[a](", MIB)),
        ("1 MiB of [](", body("[](", MIB)),
        ("100,000 distinct keys", front(&lines(100_000, |i| format!("k{i}: v")))),
        ("100,000 lines of one key", front(&lines(100_000, |_| "k: v".into()))),
        ("100,000 list items", front(&(String::from("tags:\n") + &lines(100_000, |i| format!("  - t{i}"))))),
        (
            "50,000 keys, 50,000 unknown related records",
            front(
                &(lines(50_000, |i| format!("k{i}: v"))
                    + &format!(
                        "related_records: [{}]\n",
                        (0..50_000).map(|i| format!("project:r{i}")).collect::<Vec<_>>().join(", ")
                    )),
            ),
        ),
    ]
}

fn main() {
    let bin = support::bin();
    let mut slow = Vec::new();
    for (name, record) in shapes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let init =
            std::process::Command::new(&bin).args(["graph", "init", "--root"]).arg(root).env("HOME", root).output();
        assert!(init.expect("graph init").status.success(), "graph init");
        std::fs::create_dir_all(root.join("projects/x")).expect("mkdir");
        std::fs::write(root.join("projects/x/project.md"), &record).expect("write record");
        let args: &[&str] = if name.contains("related") {
            &["graph", "validate", "--json", "--root"]
        } else {
            &["graph", "index", "--root"]
        };
        let start = Instant::now();
        let out =
            std::process::Command::new(&bin).args(args).arg(root).env("HOME", root).output().expect("graph index");
        let took = start.elapsed();
        // A crafted record may be valid (exit 0) or not (exit 1); anything else is a failure.
        assert!(matches!(out.status.code(), Some(0 | 1)), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        println!("{name:<45} {:>7.1} KiB  {} {:>8.3} s", record.len() as f64 / 1024.0, args[1], took.as_secs_f64());
        if took > BOUND {
            slow.push(name);
        }
    }
    assert!(slow.is_empty(), "over {BOUND:?}: {slow:?}");
}
