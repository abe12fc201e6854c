//! Benchmark: loading 5,000 skills across 5 layers, and what noticing edits costs per request.
//!
//! Method: a generator writes 5 layers x 1,000 YAML skills (~1 KB each: tags, two arguments, a
//! multi-line prompt with placeholders) into a temp dir, 10 sub-folders per layer, with every
//! 5th id repeated in the next layer so precedence has work to do. The app's skills use case is
//! compiled in as it is (`app/src/usecase/skills.rs`, through `#[path]`, as the app crate has no
//! library) and driven over the real filesystem (`fs-std`).
//! - cold load: a fresh `Skills` (empty cache: every folder listed, every file read and parsed,
//!   the set built), 10 runs after 1 warm-up; the OS page cache is warm (dropping it needs
//!   privileges a developer does not have). Plus `vitaecontext skills list --json` as a process,
//!   5 runs, when the release binary exists.
//! - per request, unchanged tree, inside the re-check interval: `snapshot()` (clock read, lock,
//!   Arc clone), 100,000 calls.
//! - per re-check, unchanged tree: `snapshot()` with a zero interval, so each call stats every
//!   folder and file (no reads), 50 calls.
//! - noticing one edited file: rewrite one file, then one `snapshot()` with a zero interval
//!   (stats, one read and parse, set rebuilt), 20 runs.
//! - `prompts/list` over stdio against `vitaecontext mcp --skills-config` (the bench-profile
//!   binary): the first page (100 prompts), 50 runs on a warm server; every page (4,200+
//!   prompts, 43 pages, following `nextCursor`), 5 runs; and a cold server (spawn, `initialize`,
//!   first page), 5 runs.
//!
//! Figures (2-core dev machine, otherwise idle, page cache warm, release build, 2026-11-30):
//! cold load median 177 ms (min 173 ms); snapshot() inside the interval 47 ns; re-check of the
//! unchanged tree median 14.5 ms, i.e. ~29 µs per request amortised at one request per ms;
//! noticing one edit median 25 ms; prompts/list first page median 0.35 ms (11.4 ms before the
//! list was cached per skill set), every page (43) 36 ms (459 ms before); a cold server (spawn,
//! initialize, first page) 258 ms; `skills list --json` process median 209 ms.
//! Run with `scripts/bench`.

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

#[allow(dead_code, reason = "the stdio client is for the other benches")]
#[path = "support.rs"]
mod support;

#[allow(dead_code, reason = "only the skills sources are used here")]
#[path = "../../app/src/sources.rs"]
mod sources;

#[allow(dead_code, reason = "the MCP-facing JSON shapes are the server's, not the bench's")]
#[path = "../../app/src/usecase/skills.rs"]
mod skills;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sources::SkillSources;

const LAYERS: usize = 5;
const PER_LAYER: usize = 1_000;

fn skill(id: &str, layer: usize, n: usize) -> String {
    format!(
        "# generated for the skills benchmark\nid: {id}\nname: Skill {id}\ndescription: Generated skill {n} of layer {layer} for timing the loader\ntype: prompt\ntags: [bench, layer-{layer}, group-{}]\narguments:\n  - name: topic\n    description: What to write about\n    required: true\n  - name: tone\n    description: Optional tone\nprompt: |\n  You are helping with {{{{topic}}}} in a {{{{tone}}}} tone.\n  Ground every claim in these facts:\n  {{{{career_context.cv}}}}\n  Rules:\n  - Use only facts from the packet above; never invent numbers.\n  - Keep each bullet under 25 words and lead with the outcome.\n  - Offer three variants, then explain which fits best and why.\n  - Ask for missing facts instead of guessing them.\n",
        n % 7
    )
}

fn generate(root: &Path) -> String {
    let mut config = String::from("layers:\n");
    for layer in 0..LAYERS {
        let dir = root.join(format!("layer-{layer}"));
        config.push_str(&format!("  - name: layer-{layer}\n    path: layer-{layer}\n    priority: {}\n", layer * 10));
        for n in 0..PER_LAYER {
            let sub = dir.join(format!("group-{:02}", n % 10));
            std::fs::create_dir_all(&sub).expect("mkdir");
            // Every 5th skill overrides the one with the same number in the layer below.
            let id = if n % 5 == 0 && layer > 0 { format!("shared-{n:04}") } else { format!("l{layer}-skill-{n:04}") };
            let id = if n % 5 == 0 && layer == 0 { format!("shared-{n:04}") } else { id };
            std::fs::write(sub.join(format!("{id}.yaml")), skill(&id, layer, n)).expect("write");
        }
    }
    config
}

#[derive(Debug, Default)]
struct Mono(std::sync::Mutex<Option<Instant>>);

impl ports::Clock for Mono {
    fn now(&self) -> std::time::SystemTime {
        std::time::SystemTime::now()
    }
    fn monotonic(&self) -> Duration {
        self.0.lock().unwrap().get_or_insert_with(Instant::now).elapsed()
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("skills.yaml");
    std::fs::write(&config, generate(dir.path())).expect("config");
    let sources = SkillSources { config: Some(config.clone()), config_named: true, dirs: Vec::new() };
    let fs: Arc<dyn ports::fs::FileSystem> = Arc::new(fs_std::StdFs::new());
    let clock: Arc<dyn ports::Clock> = Arc::new(Mono::default());

    let first = skills::Skills::new(fs.clone(), clock.clone(), sources.clone()).snapshot();
    assert!(first.skipped().is_empty() && first.conflicts().is_empty(), "{:?}", skills::warnings(&first));
    let served = first.entries().len();
    println!("{} skill files in {LAYERS} layers, {served} served (the rest shadowed)", LAYERS * PER_LAYER);

    let cold = support::time(10, 1, || skills::Skills::new(fs.clone(), clock.clone(), sources.clone()).snapshot());
    println!("{}", cold.line("cold load (fresh cache, 5,000 files)"));

    let hot = skills::Skills::new(fs.clone(), clock.clone(), sources.clone());
    let n = 100_000;
    let start = Instant::now();
    for _ in 0..n {
        std::hint::black_box(hot.snapshot());
    }
    println!("{:<48} {:>10.1?} per call", "snapshot() inside the interval", start.elapsed() / n);

    let every = skills::Skills::with_interval(fs.clone(), clock.clone(), sources.clone(), Duration::ZERO);
    let before = every.snapshot();
    let recheck = support::time(50, 2, || every.snapshot());
    assert!(Arc::ptr_eq(&before, &every.snapshot()), "an unchanged tree keeps its set");
    println!("{}", recheck.line("re-check, unchanged tree (stats only)"));
    println!(
        "  amortised over the {:?} interval at one request per ms: {:.2?} per request",
        skills::RECHECK_INTERVAL,
        recheck.samples[recheck.samples.len() / 2] / skills::RECHECK_INTERVAL.as_millis() as u32
    );

    let edited = dir.path().join("layer-2/group-03/l2-skill-0003.yaml");
    let mut round = 0;
    let notice = support::time(20, 1, || {
        round += 1;
        std::fs::write(&edited, skill("l2-skill-0003", 2, round)).expect("edit");
        let set = every.snapshot();
        assert!(set.get("l2-skill-0003").unwrap().skill.description.contains(&format!("skill {round} ")));
        set
    });
    println!("{}", notice.line("notice one edited file (stats, 1 parse, rebuild)"));

    let home = tempfile::tempdir().expect("home");
    let args = [std::ffi::OsStr::new("--skills-config"), config.as_os_str()];
    let mut server = support::McpChild::start(&args, home.path());
    let first_page = r#"{"jsonrpc":"2.0","id":1,"method":"prompts/list"}"#;
    let page = support::time(50, 3, || server.call(first_page));
    println!("{}", page.line("prompts/list, first page (100), warm server"));
    let walk = support::time(5, 1, || {
        let mut pages = 0;
        let mut request = first_page.to_owned();
        loop {
            server.call(&request);
            pages += 1;
            let v: serde_json::Value = serde_json::from_str(server.last()).expect("json");
            match v["result"]["nextCursor"].as_str() {
                Some(c) => {
                    request =
                        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{{"cursor":"{c}"}}}}"#)
                }
                None => break pages,
            }
        }
    });
    println!("{}", walk.line("prompts/list, every page, warm server"));
    drop(server);
    let cold = support::time(5, 0, || support::McpChild::start(&args, home.path()).call(first_page));
    println!("{}", cold.line("cold server: spawn, initialize, first page"));

    let bin = support::bin();
    let list = support::time(5, 1, || {
        let out = std::process::Command::new(&bin)
            .args(["skills", "list", "--json", "--skills-config"])
            .arg(&config)
            .output()
            .expect("spawn");
        assert!(out.status.success());
        out.stdout.len()
    });
    println!("{}", list.line("`skills list --json` process, 5,000 files"));
}
