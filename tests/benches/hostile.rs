//! Benchmark: MCP requests and files shaped to make the server slow, each once quadratic.
//!
//! Method: a temp dir holds the fictional example person (examples/career-context.md and an
//! indexed copy of examples/vitaegraph), a copy of that Career Context with 16,000 `### x`
//! headings appended, and two skill layers: one prompt skill with 40,000 tags, and one tool
//! skill whose schema has 4,000 properties (`additionalProperties: false`). One
//! `vitaecontext mcp` process per setting answers, one at a time over stdio, each request 3
//! times; the median and the range are printed. The requests: `search_vitaegraph` for 40,000
//! `x` (the excerpt automaton; 5 s before), `match_job` of one requirement of 8,000 distinct
//! words (9 s), `check_claims` of a 62 KB number `1,000,000,...` (1.6 s) and of one claim
//! against the 16,000-heading Career Context (0.66 s), `skills:compose` asking 40,000 tags of
//! the 40,000-tag skill, and one it has (1.2 s), and a call of the tool skill with its 4,000 arguments
//! (0.14 s), `check_claims` of one claim of 20,000 numbers (3.3 s in a build of the day the
//! contradiction rules changed) and of 200 claims against a Career Context holding a
//! paragraph of 8,000 numbers (14 s then); then `graph validate` of a record whose
//! `related_records` is one line of 40,000 unknown ids (7 s and 666 MB: each finding rendered
//! that line); then `check`, `context validate` and `doctor` rendering 16,000 findings for a
//! person (134 s, 162 s and 65 s: each finding looked its lines up in its own copy of the
//! file). A request over `BOUND`
//! fails the bench. Run with `scripts/bench` (`BENCH=hostile`).

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

#[path = "support.rs"]
#[allow(dead_code, reason = "this bench needs the binary, the MCP child and the timing helper")]
mod support;

use std::ffi::OsStr;
use std::path::Path;
use std::time::{Duration, Instant};

/// Far above the linear code's time on a busy 2-core machine, far below the old code's.
const BOUND: Duration = Duration::from_secs(3);

/// A distinct lower-case word that no example file holds.
fn word(i: usize) -> String {
    let (mut i, mut w) = (i + 1000, String::new());
    while i > 0 {
        w.push(char::from(b'a' + (i % 26) as u8));
        i /= 26;
    }
    w + "xq"
}

fn request(id: usize, method: &str, params: serde_json::Value) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn tool(name: &str, arguments: serde_json::Value) -> (&'static str, serde_json::Value) {
    ("tools/call", serde_json::json!({"name": name, "arguments": arguments}))
}

/// Times each request 3 times on one server started with `args`; returns the slow ones.
fn run(args: &[&OsStr], home: &Path, cases: Vec<(&str, (&str, serde_json::Value))>) -> Vec<String> {
    let mut server = support::McpChild::start(args, home);
    let mut slow = Vec::new();
    for (what, (method, params)) in cases {
        let line = request(1, method, params);
        let stats = support::time(3, 0, || server.call(&line));
        println!("{}", stats.line(what));
        if stats.samples[1] > BOUND {
            slow.push(what.to_owned());
        }
    }
    slow
}

fn main() {
    let bin = support::bin();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path();
    let root = home.join("vitaegraph");
    let copy = std::process::Command::new("cp").arg("-r").arg(repo.join("examples/vitaegraph")).arg(&root).status();
    assert!(copy.expect("cp").success());
    let index = std::process::Command::new(&bin).args(["graph", "index", "--root"]).arg(&root).output();
    assert!(index.expect("graph index").status.success());
    let context = repo.join("examples/career-context.md");
    let text = std::fs::read_to_string(&context).expect("example");
    let headings = home.join("headings.md");
    std::fs::write(&headings, text.clone() + &"### x\n".repeat(16_000)).expect("write");
    let tags = home.join("tags");
    std::fs::create_dir_all(&tags).expect("mkdir");
    let many: Vec<String> = (0..40_000).map(word).collect();
    std::fs::write(tags.join("t.yaml"), format!("id: tagged\ntype: prompt\ntags: [{}]\nprompt: hi\n", many.join(", ")))
        .expect("write");
    let props = home.join("props");
    std::fs::create_dir_all(&props).expect("mkdir");
    let names: Vec<String> = (0..4_000).map(word).collect();
    let schema: String = names.iter().map(|n| format!("    {n}:\n      type: string\n      enum: [a, b]\n")).collect();
    std::fs::write(
        props.join("t.yaml"),
        format!("id: big-tool\ntype: tool\ninputSchema:\n  type: object\n  additionalProperties: false\n  properties:\n{schema}"),
    )
    .expect("write");

    let (ctx, root_arg) = (context.as_os_str(), root.as_os_str());
    let posting = format!("## Requirements\n- {}", (0..8_000).map(word).collect::<Vec<_>>().join(" "));
    let number =
        format!("- Raised {} users.\n", std::iter::once("1").chain(["000"; 16_000]).collect::<Vec<_>>().join(","));
    let counts: Vec<String> = (100..20_100).map(|i| format!("{i} engineers")).collect();
    let counted = format!("Led the platform group with {}.\n", counts.join(" "));
    let widgets: Vec<String> = (1..8_000).map(|i| format!("{i} widgets")).collect();
    let numbers = home.join("numbers.md");
    std::fs::write(&numbers, format!("{}\nAlpha beta gamma delta {}.\n", text, widgets.join(" "))).expect("write");
    let near: Vec<String> = (0..200).map(|i| format!("- Alpha beta gamma delta {i}.5 widgets.")).collect();
    let mut slow = run(
        &[OsStr::new("--context"), ctx, OsStr::new("--root"), root_arg],
        home,
        vec![
            (
                "search_vitaegraph, 40,000 x",
                tool("search_vitaegraph", serde_json::json!({"query": "x".repeat(40_000)})),
            ),
            ("match_job, one item of 8,000 words", tool("match_job", serde_json::json!({"posting": posting}))),
            ("check_claims, a 62 KB 1,000,...", tool("check_claims", serde_json::json!({"draft": number}))),
            ("check_claims, one claim of 20,000 numbers", tool("check_claims", serde_json::json!({"draft": counted}))),
        ],
    );
    slow.extend(run(
        &[OsStr::new("--context"), numbers.as_os_str(), OsStr::new("--root"), root_arg],
        home,
        vec![(
            "check_claims, 200 claims, 8,000 numbers in a passage",
            tool("check_claims", serde_json::json!({"draft": near.join("\n")})),
        )],
    ));
    slow.extend(run(
        &[OsStr::new("--context"), headings.as_os_str(), OsStr::new("--root"), root_arg],
        home,
        vec![(
            "check_claims, context of 16,000 headings",
            tool("check_claims", serde_json::json!({"draft": "- Led CI at Tideline Logistics in 2021."})),
        )],
    ));
    // 40,000 tags the skill lacks, then one it has (no match at all is an error answer).
    let asked: Vec<String> = (40_000..80_000).chain([0]).map(word).collect();
    slow.extend(run(
        &[OsStr::new("--skills"), tags.as_os_str()],
        home,
        vec![(
            "skills:compose, 40,000 tags of 40,000",
            ("prompts/get", serde_json::json!({"name": "skills:compose", "arguments": {"tags": asked.join(",")}})),
        )],
    ));
    let arguments: serde_json::Map<String, serde_json::Value> =
        names.iter().map(|n| (n.clone(), serde_json::json!("a"))).collect();
    slow.extend(run(
        &[OsStr::new("--skills"), props.as_os_str()],
        home,
        vec![("tool skill, 4,000 arguments", tool("big-tool", serde_json::Value::Object(arguments)))],
    ));

    let graph = home.join("long-line");
    std::fs::create_dir_all(graph.join("projects/x")).expect("mkdir");
    let ids: Vec<String> = (0..40_000).map(|i| format!("project:{}", word(i))).collect();
    let record =
        format!("---\ntype: project\nid: project:x\ntitle: X\nrelated_records: [{}]\n---\n# X\n", ids.join(", "));
    std::fs::write(graph.join("projects/x/project.md"), record).expect("write");
    let start = Instant::now();
    let out = std::process::Command::new(&bin).args(["graph", "validate", "--root"]).arg(&graph).output();
    let took = start.elapsed();
    assert_eq!(out.expect("graph validate").status.code(), Some(1), "40,000 unknown related records");
    println!("{:<48} {took:>10.3?}", "graph validate, one line of 40,000 unknown ids");
    if took > BOUND {
        slow.push("graph validate".to_owned());
    }

    // A finding on every line, rendered for a person (stop 36's review: each finding looked its
    // lines up from the start of a copy of the file; 134 s, 162 s and 65 s at 16,000).
    let draft = home.join("findings.md");
    let claims: String = (0..16_000).map(|i| format!("- Gain of {i}% in {}.\n", 1900 + i % 100)).collect();
    std::fs::write(&draft, claims).expect("write");
    let roles = home.join("roles.md");
    let headings: String = (0..16_000).map(|i| format!("### Role {i} [ROLE] - Org (2020-2010)\n")).collect();
    std::fs::write(&roles, text.clone() + &headings).expect("write");
    let draft_arg = draft.as_os_str();
    let roles_arg = roles.as_os_str();
    let runs: [(&str, Vec<&OsStr>); 3] = [
        (
            "check, 16,000 findings",
            vec!["check".as_ref(), draft_arg, "--context".as_ref(), ctx, "--root".as_ref(), root_arg],
        ),
        ("context validate, 16,000 findings", vec!["context".as_ref(), "validate".as_ref(), roles_arg]),
        ("doctor, 16,000 findings", vec!["doctor".as_ref(), "--context".as_ref(), roles_arg]),
    ];
    for (what, args) in runs {
        let start = Instant::now();
        let out = std::process::Command::new(&bin).args(args).env("HOME", home).output().expect(what);
        let took = start.elapsed();
        assert_eq!(out.status.code(), Some(1), "{what}: {}", String::from_utf8_lossy(&out.stderr));
        println!("{what:<48} {took:>10.3?}");
        if took > BOUND {
            slow.push(what.to_owned());
        }
    }
    assert!(slow.is_empty(), "over {BOUND:?}: {slow:?}");
}
