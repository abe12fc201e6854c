//! Benchmark: the board's pages at 10,000 records (issue 43: each under 50 ms server time).
//!
//! Method: a synthetic graph of `BOARD_BENCH_RECORDS` records (default 10,000; the generator of
//! `support.rs`), indexed once with the binary under test, the example Career Context, one
//! skill layer of 20 skills. `vitaecontext board --port 0` serves it; each page is asked
//! `RUNS` times over HTTP/1.1 after one untimed warm-up, and the figure is the board's own
//! `Server-Timing: app;dur=...` (the handler's time from the request reaching it to the page
//! made, the guard aside), median and spread (min-max), page cache warm. The bench fails when a
//! median is 50 ms or more. Run: `BENCH=board scripts/bench` or
//! `cargo bench -p vitaecontext --bench board`.

#![allow(clippy::print_stdout, reason = "a benchmark reports on stdout")]

#[path = "support.rs"]
#[allow(dead_code, reason = "the board reads its own Server-Timing figures, not support's timers")]
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

const RUNS: usize = 15;

/// One request; the `Server-Timing` duration in ms and the status.
fn ask(port: u16, cookie: &str, method: &str, path: &str, body: Option<&str>) -> (u16, f64, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let host = format!("127.0.0.1:{port}");
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nCookie: {cookie}\r\n");
    if let Some(b) = body {
        req.push_str(&format!(
            "Origin: http://{host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{b}",
            b.len()
        ));
    } else {
        req.push_str("\r\n");
    }
    s.write_all(req.as_bytes()).expect("send");
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("read");
    let status = raw.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let ms = raw
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("server-timing: app;dur=").map(str::to_owned))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN);
    let set_cookie = raw
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("set-cookie:")
                .then(|| l[11..].trim().split(';').next().unwrap_or("").to_owned())
        })
        .unwrap_or_default();
    (status, ms, set_cookie)
}

fn main() {
    let n: usize = std::env::var("BOARD_BENCH_RECORDS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("graph");
    std::fs::create_dir_all(&root).expect("mkdir");
    let records = support::generate(&root, n);
    support::index_once(&root);
    let skills = dir.path().join("skills");
    std::fs::create_dir_all(&skills).expect("mkdir");
    for i in 0..20 {
        std::fs::write(
            skills.join(format!("s{i}.yaml")),
            format!("id: s{i}\ntype: prompt\ndescription: skill {i}\narguments:\n  - name: who\nprompt: \"Hello {{{{who}}}} {{{{career_context.cv}}}}\"\n"),
        )
        .expect("write");
    }
    let context = support::bin().parent().expect("dir").join("../../examples/career-context.md");
    let context = if context.exists() {
        context
    } else {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/career-context.md")
    };
    std::fs::create_dir_all(dir.path().join("home")).expect("mkdir");
    let mut child = Command::new(support::bin())
        .args(["board", "--port", "0", "--context"])
        .arg(&context)
        .arg("--root")
        .arg(&root)
        .arg("--skills")
        .arg(&skills)
        .env("HOME", dir.path().join("home"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn board");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("URL");
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("URL").to_owned();
    let port: u16 = url["http://127.0.0.1:".len()..].split('/').next().and_then(|p| p.parse().ok()).expect("port");
    let (_, _, cookie) = ask(port, "", "GET", &url[format!("http://127.0.0.1:{port}").len()..], None);
    let draft = "text=At+Tideline+Logistics+I+cut+the+median+pipeline+time+from+41+to+15+minutes.%0A%0AI+mentored+four+engineers.&kind=draft";
    let posting = "text=%23%23+Requirements%0A%0A-+5%2B+years+of+Rust%0A-+Kubernetes%0A-+Fluent+Spanish&kind=posting";
    let pages: [(&str, &str, &str, Option<&str>); 9] = [
        ("overview", "GET", "/", None),
        ("skills", "GET", "/skills", None),
        ("skill editor", "GET", "/skills/edit?layer=0&file=s3.yaml", None),
        ("skill preview", "GET", "/skills/preview?id=s3&go=1&arg.who=Ann", None),
        ("records (search)", "GET", "/records?q=rust+latency", None),
        ("records (type filter)", "GET", "/records?type=project", None),
        ("record", "GET", "/records/view?id=project%3Ap-17-0", None),
        ("check a draft", "POST", "/check", Some(draft)),
        ("check a posting", "POST", "/check", Some(posting)),
    ];
    println!("board pages at {records} records: server time (Server-Timing), median (min-max) of {RUNS}, warm");
    let mut slow = Vec::new();
    for (name, method, path, body) in pages {
        let (status, _, _) = ask(port, &cookie, method, path, body);
        assert_eq!(status, 200, "{name}: {path}");
        let mut v: Vec<f64> = (0..RUNS).map(|_| ask(port, &cookie, method, path, body).1).collect();
        v.sort_by(f64::total_cmp);
        let median = v[v.len() / 2];
        println!("{name:<24} {median:>8.2} ms ({:.2}-{:.2})", v[0], v[v.len() - 1]);
        if median >= 50.0 {
            slow.push(name);
        }
    }
    // The doctor report the overview shows is made in the background (it reads every record):
    // how long the last one took, as the page says.
    let page = {
        let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        write!(s, "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nCookie: {cookie}\r\n\r\n")
            .expect("send");
        let mut raw = String::new();
        s.read_to_string(&mut raw).expect("read");
        raw
    };
    let took = page.split(", in ").nth(1).and_then(|r| r.split(" ms").next()).unwrap_or("?");
    println!("{:<24} {took:>8} ms (the last background doctor report, not a page)", "doctor report");
    let _ = child.kill();
    let _ = child.wait();
    assert!(slow.is_empty(), "pages over 50 ms: {slow:?}");
}
