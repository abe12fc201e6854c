// Newline-delimited framing over real pipes: tolerance, limits, pipelining, EOF, closed stdout.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::util::{Cmd, Server, bin};

#[test]
fn crlf_bom_and_blank_lines_are_tolerated() {
    let mut s = Server::start(&["mcp"]);
    s.send_raw(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\r\n\n   \n");
    assert_eq!(s.recv()["id"], 1);
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n");
    assert_eq!(s.recv()["id"], 2);
}

#[test]
fn a_message_split_across_two_writes_is_one_message() {
    let mut s = Server::start(&["mcp"]);
    assert_eq!(s.request(0, "ping", json!({}))["result"], json!({}));
    let head = b"{\"jsonrpc\":\"2.0\",\"id\":\"sp";
    let before = s.bytes_read();
    s.send_raw(head);
    // The second half is written only once the server has read the first: two reads, one message.
    s.wait_until("the server read the first half", |s| s.bytes_read() >= before + head.len() as u64);
    s.send_raw(b"lit\",\"method\":\"ping\"}\n");
    assert_eq!(s.recv()["id"], "split");
}

#[test]
fn an_overlong_line_is_a_parse_error_and_the_next_line_is_read() {
    let mut s = Server::start(&["mcp", "--max-frame-bytes", "4096"]);
    s.initialize();
    let mut long =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}", "x".repeat(9000));
    long.push('\n');
    s.send_raw(long.as_bytes());
    let r = s.recv();
    assert_eq!(r["error"]["code"], -32700);
    assert_eq!(r["id"], serde_json::Value::Null);
    assert_eq!(s.request(2, "ping", json!({}))["result"], json!({}));
}

#[test]
fn an_endless_line_keeps_memory_bounded() {
    let mut s = Server::start(&["mcp", "--max-frame-bytes", "1048576"]);
    s.initialize();
    let before = s.rss_kib();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..64 {
        s.send_raw(&chunk);
    }
    // The cap was crossed long ago: the error is already owed, without any newline.
    assert_eq!(s.recv()["error"]["code"], -32700);
    let after = s.rss_kib();
    assert!(after < before + 16 * 1024, "RSS grew from {before} KiB to {after} KiB on 64 MiB without newline");
    s.send_raw(b"\n");
    assert_eq!(s.request(3, "ping", json!({}))["result"], json!({}));
}

#[test]
fn two_hundred_pipelined_requests_are_each_answered_once() {
    let mut s = Server::mcp(&[]);
    let mut all = Vec::new();
    for id in 0..200 {
        let method = if id % 2 == 0 { "ping" } else { "tools/list" };
        all.extend(serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method})).unwrap());
        all.push(b'\n');
    }
    s.send_raw(&all);
    let mut seen = BTreeSet::new();
    for _ in 0..200 {
        let r = s.recv();
        let id = r["id"].as_i64().expect("integer id");
        assert!(r.get("result").is_some(), "{r}");
        assert!(seen.insert(id), "id {id} answered twice");
    }
    assert_eq!(seen, (0..200).collect());
    // At end of input the server answers everything owed and exits: no second answer is owed.
    let (status, rest, _) = s.finish();
    assert!(status.success() && rest.is_empty(), "{status}: {rest:?}");
}

#[test]
fn eof_right_after_a_request_still_answers_it_and_exits_zero() {
    let mut s = Server::start(&["mcp"]);
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n");
    let (status, frames, _stderr) = s.finish();
    assert!(status.success(), "{status}");
    let ids: Vec<_> = frames.iter().map(|f| f["id"].clone()).collect();
    assert_eq!(ids.len(), 2, "{frames:?}");
    assert!(ids.contains(&json!(1)) && ids.contains(&json!(2)));
}

#[test]
fn a_last_line_without_newline_is_answered_at_eof() {
    let mut s = Server::start(&["mcp"]);
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    let (status, frames, _) = s.finish();
    assert!(status.success());
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["id"], 1);
}

#[test]
fn a_closed_stdout_ends_the_server_quietly() {
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin())
        .arg("mcp")
        .env("HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    // Keep talking until it exits: a response that cannot be written must end the process.
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "server kept running with stdout closed");
        let _ = writeln!(stdin, "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}");
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(status.success(), "exit {status}, stderr: {stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"), "{stderr}");
}

#[test]
fn logs_go_to_stderr_and_stdout_stays_protocol_only() {
    let mut s = Cmd::new(["--log-level", "trace", "mcp"]).spawn();
    s.initialize();
    s.send_raw(b"garbage\n");
    assert_eq!(s.recv()["error"]["code"], -32700);
    let (status, frames, stderr) = s.finish();
    assert!(status.success());
    assert!(frames.is_empty(), "{frames:?}");
    assert!(stderr.contains("serving Career Context"), "expected the start-up line on stderr, got: {stderr}");
    assert!(stderr.contains("TRACE") || stderr.contains("DEBUG"), "expected trace logs on stderr, got: {stderr}");
}
