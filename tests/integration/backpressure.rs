// Backpressure over real pipes: a client that floods the server and does not read its stdout.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::Cmd;

/// A field of `/proc/<pid>/status` in KiB (Linux).
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

// Regression: with stdout not read, 200,000 small requests took the server to 1.95 GB and a
// client reading large answers slowly took it to 4.7 GB. Here 110 reads of a 1 MiB
// `vitaegraph://index`, none read for seconds: the server must stay under 100 MB plus one
// answer, and answer every request once stdout is drained.
#[test]
fn a_flood_with_stdout_unread_stays_bounded_and_every_request_is_answered() {
    const N: u64 = 110;
    const ANSWER: usize = 1024 * 1024;
    const LIMIT_KIB: u64 = (100 * 1024 * 1024 + ANSWER as u64) / 1024;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".generated")).expect("mkdir");
    let graph = format!(r#"{{"version":"1","source":"{}","nodes":[],"edges":[]}}"#, "x".repeat(ANSWER));
    std::fs::write(dir.path().join(".generated/graph.json"), graph).expect("write graph.json");
    let mut cmd = Cmd::new(["mcp".as_ref(), "--root".as_ref(), dir.path().as_os_str()]);
    let mut child =
        cmd.cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("spawn vitaecontext");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let writer = std::thread::spawn(move || {
        let mut all = Vec::new();
        all.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n");
        all.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        for id in 1..=N {
            all.extend_from_slice(
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"resources/read\",\"params\":{{\"uri\":\"vitaegraph://index\"}}}}\n"
                )
                .as_bytes(),
            );
        }
        // May block while the server does not read; that is the point.
        let _ = stdin.write_all(&all);
    });

    // Do not read stdout for a while (less if the bound is already broken).
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) && status_kib(pid, "VmHWM:") < LIMIT_KIB {
        std::thread::sleep(Duration::from_millis(50));
    }
    let stalled_peak = status_kib(pid, "VmHWM:");
    if stalled_peak >= LIMIT_KIB {
        let _ = child.kill();
        let _ = child.wait();
        panic!("peak RSS {stalled_peak} KiB while stdout was not read (limit {LIMIT_KIB})");
    }

    let reader = std::thread::spawn(move || {
        let mut ids: Vec<u64> = Vec::with_capacity(N as usize + 1);
        // Only the id is parsed: parsing ~110 MB of JSON would dominate the test's time.
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("read");
            let rest = line.strip_prefix("{\"jsonrpc\":\"2.0\",\"id\":").unwrap_or_else(|| panic!("{line:.200}"));
            let (id, rest) = rest.split_once(',').unwrap_or_else(|| panic!("{line:.200}"));
            assert!(rest.starts_with("\"result\":"), "{line:.200}");
            ids.push(id.parse().expect("numeric id"));
        }
        ids
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(reader.is_finished() && writer.is_finished()) {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the flood was not answered within the deadline");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let peak = status_kib(pid, "VmHWM:").max(stalled_peak);
    writer.join().expect("writer");
    let mut ids = reader.join().expect("reader");
    let status = child.wait().expect("wait");
    eprintln!("peak RSS while stalled {stalled_peak} KiB, overall {peak} KiB, in {:.1?}", start.elapsed());

    assert!(stalled_peak > 0, "VmHWM was not readable");
    assert!(peak < LIMIT_KIB, "peak RSS {peak} KiB (limit {LIMIT_KIB})");
    assert!(status.success(), "{status:?}");
    ids.sort_unstable();
    assert!(ids.iter().copied().eq(0..=N), "every id answered exactly once: {} answers", ids.len());
}

/// A client that pipes stderr and never reads it still gets every answer: log lines past the
/// queue are dropped, never waited for (found in review: the server stopped answering once
/// 64 KB of warnings about refused reads had filled the pipe). Each read of a record whose
/// path leads outside the root logs a warning.
#[test]
fn a_stderr_nobody_reads_never_stops_the_answers() {
    const N: usize = 3000;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("vg");
    std::fs::create_dir_all(root.join(".generated")).expect("mkdir");
    std::fs::write(dir.path().join("secret.md"), "outside").expect("write");
    let graph = r#"{"version":"1","source":"x","nodes":[{"id":"award:evil","type":"Award","label":"e","path":"../secret.md","parent":null,"tags":[]}],"edges":[]}"#;
    std::fs::write(root.join(".generated/graph.json"), graph).expect("write graph.json");
    let mut cmd = Cmd::new(["mcp".as_ref(), "--root".as_ref(), root.as_os_str()]);
    let mut child = cmd
        .cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn vitaecontext");
    // Held open, never read.
    let _stderr = child.stderr.take().expect("stderr");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let writer = std::thread::spawn(move || {
        let mut all = Vec::new();
        all.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n");
        for id in 1..=N {
            all.extend_from_slice(
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"resources/read\",\"params\":{{\"uri\":\"vitaegraph://record/award:evil\"}}}}\n")
                    .as_bytes(),
            );
        }
        stdin.write_all(&all).expect("write requests");
        stdin
    });
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let lines: Vec<String> = BufReader::new(stdout).lines().map_while(Result::ok).collect();
        let _ = tx.send(lines);
    });
    let stdin = writer.join().expect("writer");
    drop(stdin);
    let lines = rx.recv_timeout(Duration::from_secs(60)).expect("the server stopped answering");
    assert_eq!(lines.len(), N + 1);
    assert!(lines.iter().skip(1).all(|l| l.contains("\"error\"") && !l.contains("outside")), "{}", lines[1]);
    let _ = child.kill();
    let _ = child.wait();
}

/// A long request never takes every handler slot, and a cancelled one stops its work (found in
/// review: four check_claims on a 1 MiB draft against a 2 MB context, cancelled after 2 s, held
/// every slot, and a search sent next waited 226 s). Four long checks run; a search sent after
/// them is answered first; once they are cancelled, a fifth check (which needs one of the slots
/// they held) is answered within the response timeout, which their work would outlast by
/// minutes in this debug build. Their answers are never sent.
#[test]
fn long_checks_leave_a_slot_for_quick_requests_and_stop_when_cancelled() {
    use serde_json::json;
    let tmp = tempfile::tempdir().unwrap();
    let mut context = String::from(
        "# Bench Person - Engineer\n\n## QUICK REFERENCE\n```yaml\nname: Bench Person\npositioning_summary: Generated.\n```\n\n\
         Scope: generated.\n\n## GOALS AND TARGETING\n\nMore.\n\n## PROFESSIONAL EXPERIENCE\n\n",
    );
    let mut k = 0;
    while context.len() < 2 * 1024 * 1024 {
        context.push_str(&format!("### Senior Engineer [ROLE] - Works {k} (2010-2014)\n\nTL;DR: Built things.\n\n"));
        for j in 0..6 {
            context.push_str(&format!("- Cut latency by {}% for {} engineers at Works {k}.\n", (k + j) % 100, j * 7));
        }
        context.push('\n');
        k += 1;
    }
    context.push_str("## SKILLS INDEX\n\n- Rust\n");
    let context_path = tmp.path().join("career-context.md");
    std::fs::write(&context_path, &context).unwrap();
    let root = tmp.path().join("graph");
    crate::util::copy_dir(&crate::util::example("vitaegraph"), &root);
    let draft: String =
        (0..15_000).map(|i| format!("- Cut latency by {}% for {} engineers at Works {i}.\n", i % 97, i % 13)).collect();
    let mut s =
        crate::util::Server::mcp(&["--context", context_path.to_str().unwrap(), "--root", root.to_str().unwrap()]);
    for id in 1..=4 {
        s.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "check_claims", "arguments": {"draft": draft}}}));
    }
    s.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "search_vitaegraph", "arguments": {"query": "rust"}}}));
    let first = s.recv();
    assert_eq!(first["id"], 5, "the search is answered while the checks run: {first}");
    for id in 1..=4 {
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}));
    }
    let r = s.request(6, "tools/call", json!({"name": "check_claims", "arguments": {"draft": "- Cut latency by 5%."}}));
    assert!(r["result"].is_object(), "{r}");
    assert_eq!(s.request(7, "ping", json!({}))["result"], json!({}), "no answer of a cancelled check came first");
}
