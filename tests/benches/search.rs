//! Benchmark: search on crafted input, and what a loaded search index costs in memory.
//!
//! Method, part 1 (time): 20 records of ~4 MB of body text each are indexed in-process with the
//! domain's own `term_counts`, then a 64-term query (one term in every title, 63 absent from
//! every body, so each excerpt scans a whole record) is answered 5 times after one warm-up run;
//! the median must stay under one second (it took 28-30 s when each term scanned every window
//! of each record). Part 2 (memory): a synthetic graph of 10,000 records (the generator of the
//! `graph` bench) is indexed by the release binary; one `vitaecontext mcp` process is started
//! and initialized, its VmRSS read from `/proc`, then one `search_vitaegraph` call loads the
//! index, and VmRSS and VmHWM are read again. The ratio is (RSS after - RSS before) divided by
//! the size of `search-index.json`; the peak ratio uses VmHWM. Run with `scripts/bench`.

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

#[path = "support.rs"]
mod support;

use std::time::Duration;

use domain::graph::index::{Document, SearchIndex, Tag, term_counts};
use domain::graph::search::{MAX_QUERY_TERMS, Query, Searcher};

fn crafted_search() {
    let body = "lorem ipsum dolor sit amet consectetur ".repeat(4_000_000 / 39);
    let documents: Vec<Document> = (0..20)
        .map(|i| {
            let title = format!("common record {i}");
            Document {
                id: format!("project:r{i}"),
                kind: "Project".into(),
                title: title.clone(),
                path: format!("projects/r{i}.md"),
                terms: term_counts(&format!("{title} {body}")),
                text: body.clone(),
                tags: vec![Tag::Str("crafted".into())],
            }
        })
        .collect();
    let searcher =
        Searcher::new(SearchIndex { version: "2.0.0".into(), algorithm: "lexical-term-frequency".into(), documents });
    let query: String = std::iter::once("common".to_owned())
        .chain((1..MAX_QUERY_TERMS).map(|i| format!("absent{i}")))
        .collect::<Vec<_>>()
        .join(" ");
    let stats = support::time(5, 1, || {
        let r = searcher.search(&Query { text: Some(&query), ..Default::default() });
        assert_eq!(r.records.len(), 20);
        r
    });
    println!("{}", stats.line("64-term query over 20 x 4 MB records"));
    let median = stats.samples[stats.samples.len() / 2];
    assert!(median < Duration::from_secs(1), "median {median:?}: the excerpt scan is no longer one pass");
}

fn index_memory(n: usize) {
    let bin = support::bin();
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("graph");
    std::fs::create_dir_all(&root).expect("mkdir");
    let written = support::generate(&root, n);
    let out = std::process::Command::new(&bin).args(["graph", "index", "--root"]).arg(&root).output().expect("index");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = std::fs::metadata(root.join(".generated/search-index.json")).expect("search index").len();
    let mut server = support::McpChild::start(&["--root".as_ref(), root.as_os_str()], dir.path());
    let pid = server.pid();
    let before = support::status_kib(pid, "VmRSS:");
    server.call(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_vitaegraph","arguments":{"query":"rust latency"}}}"#,
    );
    let after = support::status_kib(pid, "VmRSS:");
    let peak = support::status_kib(pid, "VmHWM:");
    let mib = |kib: u64| kib as f64 / 1024.0;
    let ratio = |kib: u64| (kib.saturating_sub(before) * 1024) as f64 / file as f64;
    println!(
        "search index of {written} records: file {:.1} MiB; RSS {:.1} -> {:.1} MiB (x{:.2} the file), peak {:.1} MiB (x{:.2})",
        file as f64 / 1048576.0,
        mib(before),
        mib(after),
        ratio(after),
        mib(peak),
        ratio(peak)
    );
}

fn main() {
    crafted_search();
    index_memory(10_000);
}
