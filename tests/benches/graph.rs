//! Benchmark: the VitaeGraph at 10,000 and 100,000 records.
//!
//! Method: a generator writes a valid synthetic graph (every record type, parents, related
//! records, tags, ~600-byte bodies) into a temp dir. `graph index` runs as the release binary,
//! 3 times per size (the first run also creates `.generated/`); wall time is the median and peak
//! memory the child's max RSS (getrusage via python3's `resource`, as Rust's std has no wait4).
//! The cold first search is measured as a user meets it, from a fresh process: spawn
//! `vitaecontext mcp`, `initialize`, first `search_vitaegraph` (3 runs, median and spread; once
//! more with `search-index.bin` moved away, so the JSON is parsed). Then one `vitaecontext mcp`
//! process serves the graph: 1,000 varied queries are timed one by one over
//! stdio (median, p99), then 20 queries of 100,000 distinct terms (the search uses only the
//! first 64; the median must stay under `HUGE_QUERY_BOUND`), then 1,000
//! `vitaegraph://record/{id}` reads; its peak RSS (`VmHWM`) after all that is reported. Sizes can be chosen with
//! `VITAEGRAPH_BENCH_SIZES=10000,100000` (the default). Run with `scripts/bench`.
//! `VITAEGRAPH_BENCH_GENERATE=DIR:N` only writes a synthetic graph of N records into DIR.

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

#[path = "support.rs"]
mod support;

use std::time::{Duration, Instant};

/// The most the median 100,000-term query may take over stdio, at any size benched.
const HUGE_QUERY_BOUND: Duration = Duration::from_secs(1);

fn bench_size(n: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("graph");
    std::fs::create_dir_all(&root).expect("mkdir");
    let start = Instant::now();
    let written = support::generate(&root, n);
    println!("\n== {written} records (generated in {:.2?})", start.elapsed());

    let runs: Vec<(f64, f64)> = (0..3).map(|_| support::index_once(&root)).collect();
    let mut secs: Vec<f64> = runs.iter().map(|r| r.0).collect();
    secs.sort_by(f64::total_cmp);
    let peak = runs.iter().map(|r| r.1).fold(0.0, f64::max);
    let size = |f: &str| std::fs::metadata(root.join(".generated").join(f)).map_or(0, |m| m.len());
    println!(
        "graph index: median {:.3} s (runs: {:?}), peak RSS {:.1} MiB; graph.json {:.1} MiB, search-index.json {:.1} MiB",
        secs[1],
        secs.iter().map(|s| format!("{s:.3}")).collect::<Vec<_>>(),
        peak,
        size("graph.json") as f64 / 1048576.0,
        size("search-index.json") as f64 / 1048576.0
    );

    let search = |q: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"search_vitaegraph","arguments":{{"query":"{q}"}}}}}}"#
        )
    };
    let cold = || {
        let start = Instant::now();
        let mut server = support::McpChild::start(&["--root".as_ref(), root.as_os_str()], dir.path());
        server.call(&search("rust latency"));
        let took = start.elapsed();
        (took, support::status_kib(server.pid(), "VmHWM:"))
    };
    let runs: Vec<(Duration, u64)> = (0..3).map(|_| cold()).collect();
    let stats = support::Stats::of(runs.iter().map(|r| r.0).collect());
    println!(
        "{} (peak RSS {:.0} MiB)",
        stats.line("cold: start, initialize, first search"),
        runs.iter().map(|r| r.1).max().unwrap_or(0) as f64 / 1024.0
    );
    let bin = root.join(".generated/search-index.bin");
    let aside = root.join(".generated/search-index.bin.aside");
    if std::fs::rename(&bin, &aside).is_ok() {
        let (took, rss) = cold();
        println!(
            "{:<48} {took:>10.3?} (peak RSS {:.0} MiB)",
            "cold, without the sidecar (JSON parsed)",
            rss as f64 / 1024.0
        );
        std::fs::rename(&aside, &bin).expect("sidecar back");
    }
    let mut server = support::McpChild::start(&["--root".as_ref(), root.as_os_str()], dir.path());
    server.call(&search("rust latency"));
    let mut rng = support::Rng(42);
    let queries: Vec<String> =
        (0..1010).map(|_| format!("{} {}", rng.pick(support::WORDS), rng.pick(support::WORDS))).collect();
    let mut qi = queries.iter().cycle();
    let stats = support::time(1000, 10, || server.call(&search(qi.next().expect("cycle"))));
    println!("{}", stats.line("search_vitaegraph warm, 2-word queries"));
    // A pathological query: 100,000 distinct terms (~700 KB). Only the first MAX_QUERY_TERMS (64)
    // in sorted order are looked up; without that cap each term would scan every id and path
    // (minutes at 100,000 records). The bound leaves room for parsing and tokenizing the query.
    let huge: String = (0..100_000).map(|i| format!("w{i} ")).collect::<String>() + "rust";
    let stats = support::time(20, 2, || server.call(&search(&huge)));
    println!("{}", stats.line("search_vitaegraph warm, 100,000-term query"));
    let median = stats.samples[stats.samples.len() / 2];
    assert!(median < HUGE_QUERY_BOUND, "a 100,000-term query took {median:?} (bound {HUGE_QUERY_BOUND:?})");
    let mut rng = support::Rng(7);
    let groups = n.div_ceil(10) as u64;
    let ids: Vec<String> = (0..1010).map(|_| format!("project:p-{}-{}", rng.next() % groups, rng.next() % 2)).collect();
    let mut ii = ids.iter().cycle();
    let read = |id: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{"uri":"vitaegraph://record/{id}"}}}}"#)
    };
    let stats = support::time(1000, 10, || server.call(&read(ii.next().expect("cycle"))));
    println!("{}", stats.line("vitaegraph://record read"));
    println!(
        "server peak RSS after the searches and reads: {:.0} MiB",
        support::status_kib(server.pid(), "VmHWM:") as f64 / 1024.0
    );
}

fn main() {
    // `VITAEGRAPH_BENCH_GENERATE=DIR:N` only writes a synthetic graph of N records into DIR.
    if let Some((dir, n)) = std::env::var("VITAEGRAPH_BENCH_GENERATE").ok().and_then(|v| {
        let (d, n) = v.rsplit_once(':')?;
        Some((std::path::PathBuf::from(d), n.parse::<usize>().ok()?))
    }) {
        std::fs::create_dir_all(&dir).expect("mkdir");
        println!("wrote {} records to {}", support::generate(&dir, n), dir.display());
        return;
    }
    let sizes: Vec<usize> = std::env::var("VITAEGRAPH_BENCH_SIZES")
        .unwrap_or_else(|_| "10000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    for n in sizes {
        bench_size(n);
    }
}
