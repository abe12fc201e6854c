//! Benchmark: `check_claims` on a two-page CV against a 10,000-record VitaeGraph.
//!
//! Method: a generator writes 10,000 synthetic records (experience, project and publication
//! records with ~600-byte bodies of varied words and numbers, so every query term has thousands
//! of postings) plus the fictional example person's 21 records into a temp dir, and `graph
//! index` indexes it. The draft is the four drafts of the evaluation corpus joined
//! (tests/fixtures/claims/: CV, LinkedIn About, profile README, cover letter): 65 claims in
//! 600 words, about two printed pages of CV. Then:
//! (1) `vitaecontext check --json` as a fresh process, 10 times (cold start: the process reads
//! and parses the search index each time, as a person at a terminal meets it), median and max;
//! (2) one `vitaecontext mcp` process, the first `check_claims` call (loads the index), then
//! 20 calls timed one by one over stdio;
//! (3) claims x context: a generated Career Context of 2 MB (role entries with measured bullets)
//! and a draft of 2,000 claims drawn from the same generator, `vitaecontext check --json` as a
//! fresh process 5 times (page cache warm: the files were just written), median and spread,
//! beside the floor (reading both files);
//! (4) memory: one `vitaecontext mcp` on a 16 MiB generated Career Context, one `check_claims`
//! of the two-page CV, then the server's peak RSS (`VmHWM`).
//! With `VITAECONTEXT_BENCH_BASELINE=/path/to/vitaecontext` (a previous build), (3) and (4) run it
//! too, alternately with this build, on the same files. Run with `scripts/bench`.

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

#[path = "support.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

const RECORDS: usize = 10_000;

/// Proper names this bench adds to the shared words, so claims have names to check.
const NAMES: &[&str] = &["engineers", "minutes", "Tideline", "Quayside", "Logistics", "Payments"];

/// Picks from the shared words and this bench's names.
struct Rng(support::Rng);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next()
    }
    fn pick(&mut self) -> &'static str {
        let i = (self.0.next() % (support::WORDS.len() + NAMES.len()) as u64) as usize;
        support::WORDS.get(i).copied().unwrap_or_else(|| NAMES[i - support::WORDS.len()])
    }
}

fn generate(root: &Path) {
    let mut rng = Rng(support::Rng(0x2545_F491_4F6C_DD1D));
    for i in 0..RECORDS {
        let (kind, dir) = match i % 3 {
            0 => ("experience", "experience"),
            1 => ("project", "projects"),
            _ => ("publication", "publications"),
        };
        let mut body = format!("# Synthetic {kind} {i} ({})\n\n", 2000 + rng.next() % 26);
        for _ in 0..6 {
            let words: Vec<&str> = (0..12).map(|_| rng.pick()).collect();
            body.push_str(&format!(
                "- {} by {}% for {} engineers.\n",
                words.join(" "),
                rng.next() % 100,
                rng.next() % 500
            ));
        }
        let path = root.join(dir).join(format!("r{i}")).join(format!("{kind}.md"));
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        let fm = format!(
            "type: {kind}\nid: {kind}:r{i}\ntitle: {} {i}\ntags: [{}, {}]\n",
            rng.pick(),
            rng.pick(),
            rng.pick()
        );
        std::fs::write(path, format!("---\n{fm}---\n\n{body}")).expect("write");
    }
}

/// A Career Context of about `bytes` bytes: a valid head, then role entries of six measured
/// bullets each; and the bullets, for drafts.
fn big_context(bytes: usize, seed: u64) -> (String, Vec<String>) {
    let mut rng = Rng(support::Rng(seed));
    let mut text = String::from(
        "# Bench Person - Engineer of generated roles\n\n## QUICK REFERENCE\n```yaml\nname: Bench Person\n\
         positioning_summary: Generated for the grounding bench.\nlocation: Lisbon, Portugal\nyears_experience: 12\n```\n\n\
         Scope: generated.\n\n<!-- VERIFIED FACTS: location=Lisbon -->\n\n## GOALS AND TARGETING\n\nMore of the same.\n\n\
         ## PROFESSIONAL EXPERIENCE\n\n",
    );
    let mut bullets = Vec::new();
    let mut k = 0;
    while text.len() < bytes {
        let start = 1990 + rng.next() % 30;
        text.push_str(&format!(
            "### Senior {} Engineer [ROLE] - {} Works {k} ({start}-{})\n\nTL;DR: {} {}.\n\n",
            rng.pick(),
            NAMES[k % NAMES.len()],
            start + 1 + rng.next() % 5,
            rng.pick(),
            rng.pick()
        ));
        for _ in 0..6 {
            let words: Vec<&str> = (0..10).map(|_| rng.pick()).collect();
            let bullet = format!(
                "- {} by {}% for {} engineers at Works {k}.",
                words.join(" "),
                rng.next() % 100,
                rng.next() % 500
            );
            text.push_str(&bullet);
            text.push('\n');
            bullets.push(bullet);
        }
        text.push('\n');
        k += 1;
    }
    text.push_str("## SKILLS INDEX\n\n- Generated\n");
    (text, bullets)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo").to_path_buf();
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("graph");
    copy_dir(&repo.join("examples/vitaegraph"), &root);
    generate(&root);
    let bin = support::bin();
    let out = Command::new(&bin).args(["graph", "index", "--root"]).arg(&root).output().expect("index");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let draft: String = ["cv.md", "linkedin.md", "readme.md", "cover.md"]
        .iter()
        .map(|f| std::fs::read_to_string(repo.join("tests/fixtures/claims").join(f)).expect("fixture"))
        .collect::<Vec<_>>()
        .join("\n");
    let draft_path = tmp.path().join("cv.md");
    std::fs::write(&draft_path, &draft).expect("write");
    let context = repo.join("examples/career-context.md");
    let run_check = || {
        let out = Command::new(&bin)
            .arg("check")
            .arg(&draft_path)
            .arg("--json")
            .arg("--context")
            .arg(&context)
            .arg("--root")
            .arg(&root)
            .env("HOME", tmp.path())
            .output()
            .expect("check");
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout.len()
    };
    let claims = {
        let out = Command::new(&bin)
            .args(["check", "--json", "--context"])
            .arg(&context)
            .arg("--root")
            .arg(&root)
            .arg(&draft_path)
            .env("HOME", tmp.path())
            .output()
            .expect("check");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        v["claims"].as_array().map_or(0, Vec::len)
    };
    println!("draft: {} words, {claims} claims; graph: {} records", draft.split_whitespace().count(), RECORDS + 21);
    println!("{}", support::time(10, 0, run_check).line("check (fresh process, loads the index)"));

    let mut server = support::McpChild::start(
        &[std::ffi::OsStr::new("--context"), context.as_os_str(), std::ffi::OsStr::new("--root"), root.as_os_str()],
        tmp.path(),
    );
    let request = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "check_claims", "arguments": { "draft": draft } }
    })
    .to_string();
    let start = Instant::now();
    server.call(&request);
    println!("check_claims over MCP, first call (loads the index): {:.3?}", start.elapsed());
    println!("{}", support::time(20, 0, || server.call(&request)).line("check_claims over MCP, index loaded"));
    drop(server);

    let baseline = std::env::var_os("VITAECONTEXT_BENCH_BASELINE").map(std::path::PathBuf::from);
    let builds: Vec<(&str, std::path::PathBuf)> =
        std::iter::once(("this build", bin.clone())).chain(baseline.map(|b| ("baseline", b))).collect();

    // (3) 2,000 claims against a 2 MB Career Context.
    let (big, bullets) = big_context(2 * 1024 * 1024, 0x9E37_79B9_7F4A_7C15);
    let big_path = tmp.path().join("big-career-context.md");
    std::fs::write(&big_path, &big).expect("write");
    let mut rng = support::Rng(7);
    let many: Vec<&str> = (0..2000).map(|_| bullets[(rng.next() % bullets.len() as u64) as usize].as_str()).collect();
    let many_path = tmp.path().join("many.md");
    std::fs::write(&many_path, many.join("\n")).expect("write");
    println!("\nclaims x context: {} claims, context {} KiB (page cache warm)", many.len(), big.len() / 1024);
    println!(
        "{}",
        support::time(5, 1, || std::fs::read(&big_path).expect("read").len()
            + std::fs::read(&many_path).expect("read").len())
        .line("floor: read both files")
    );
    for (name, b) in &builds {
        let stats = support::time(5, 0, || {
            let out = Command::new(b)
                .arg("check")
                .arg(&many_path)
                .arg("--json")
                .arg("--context")
                .arg(&big_path)
                .env("HOME", tmp.path())
                .output()
                .expect("check");
            assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
            out.stdout.len()
        });
        println!("{}", stats.line(&format!("check, 2,000 claims x 2 MB ({name})")));
    }

    // (4) Peak memory of one check_claims on a 16 MiB Career Context.
    let (huge, _) = big_context(16 * 1024 * 1024 - 256 * 1024, 0x2545_F491_4F6C_DD1D);
    let huge_path = tmp.path().join("huge-career-context.md");
    std::fs::write(&huge_path, &huge).expect("write");
    println!("\nmemory: one check_claims of the two-page CV, context {} MiB", huge.len() / 1024 / 1024);
    for (name, b) in &builds {
        let mut server = support::McpChild::start_with(
            b,
            &[
                std::ffi::OsStr::new("--context"),
                huge_path.as_os_str(),
                std::ffi::OsStr::new("--root"),
                root.as_os_str(),
            ],
            tmp.path(),
        );
        let before = support::status_kib(server.pid(), "VmHWM:");
        let start = Instant::now();
        server.call(&request);
        let took = start.elapsed();
        let peak = support::status_kib(server.pid(), "VmHWM:");
        println!("peak RSS {} MiB (before the call {} MiB), call {took:.2?} ({name})", peak / 1024, before / 1024);
    }
}
