//! Benchmark: validating and packeting a large Career Context, and the `get_career_context`
//! round trip over stdio.
//!
//! Method: a generated valid Career Context of about 1 MB with 5,000 tagged sections; the domain
//! functions are timed in-process (30 runs after 3 warm-ups); the round trip spawns the release
//! binary once and times 200 sequential `tools/call` requests (after 10 warm-ups), each from
//! writing the request line to reading the response line. Run with `scripts/bench`.

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

#[path = "support.rs"]
mod support;

use std::time::Instant;

use domain::career::{FileFacts, Surface, packet, validate};

/// A valid Career Context with `sections` H2 sections, each a tagged role of about 200 bytes.
fn large_context(sections: usize) -> String {
    let mut s = String::from(
        "<!-- FICTIONAL EXAMPLE: generated for benchmarks -->\n# Bench Person - Generated profile for timing\n\n## QUICK REFERENCE\n```yaml\nname: Bench Person\npositioning_summary: A generated file\ntarget_roles:\n  - Engineer\n```\n\nScope: generated.\n\n<!-- VERIFIED FACTS: a=1, b=2 -->\n\n## GOALS AND TARGETING\n\nGrow.\n\n## SKILLS INDEX\n\n- Rust\n",
    );
    for i in 0..sections {
        let kind = ["PROFESSIONAL EXPERIENCE", "PROJECTS", "EDUCATION", "LANGUAGES"][i % 4];
        s.push_str(&format!(
            "\n## {kind} {i}\n\n### Role number {i} [ROLE] - Company {i} (2010-2020)\n\nTL;DR: Did measurable thing {i} for 40 people over three years with care.\n\n- Shipped feature {i} used by 1,000 people.\n"
        ));
    }
    s
}

fn main() {
    let text = large_context(5_000);
    println!("Career Context: {} bytes, {} lines, 5,000 H2 sections", text.len(), text.lines().count());
    let v = validate(&text, FileFacts::default());
    assert!(v.valid, "{:?}", v.errors.first());
    assert_eq!(v.sections.len(), 5_003);

    println!("{}", support::time(30, 3, || validate(&text, FileFacts::default())).line("validate (1 MB)"));
    println!(
        "{}",
        support::time(30, 3, || packet(&v, &text, "bench.md", Surface::General))
            .line("packet general (from a validation)")
    );
    println!(
        "{}",
        support::time(30, 3, || packet(&v, &text, "bench.md", Surface::Cv)).line("packet cv (from a validation)")
    );
    println!(
        "{}",
        support::time(30, 3, || {
            let v = validate(&text, FileFacts::default());
            packet(&v, &text, "bench.md", Surface::Cv)
        })
        .line("validate + packet cv")
    );

    // A QUICK REFERENCE of 100,000 keys, 20,000 of them empty: key lookups and the places of
    // empty values were linear each (13.7 s for the keys; minutes for the empty values).
    let mut quick = String::from("name: A\npositioning_summary: B\n");
    for i in 0..100_000 {
        quick.push_str(&if i % 5 == 0 { format!("e{i}: TODO\n") } else { format!("k{i}: v{i}\n") });
    }
    let keys = format!(
        "# A Person - Engineer\n\n## QUICK REFERENCE\n```yaml\n{quick}```\n\nScope: x.\n\n## GOALS AND TARGETING\n\nx\n\n## SKILLS INDEX\n\n- x\n"
    );
    println!(
        "{}",
        support::time(5, 1, || validate(&keys, FileFacts::default())).line("validate, QUICK REFERENCE of 100,000 keys")
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("bench-career-context.md");
    std::fs::write(&file, &text).expect("write");
    let mut server = support::McpChild::start(&["--context".as_ref(), file.as_os_str()], dir.path());
    let req = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_career_context","arguments":{"for":"cv"}}}"#;
    let bytes = server.call(req);
    let start = Instant::now();
    let stats = support::time(200, 10, || server.call(req));
    println!("{}", stats.line(&format!("get_career_context cv over stdio ({bytes} B)")));
    println!("  200 round trips in {:.2?}", start.elapsed());
}
