//! The harness: spawn the built `vitaecontext` binary and speak JSON-RPC to it over real pipes.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any single expected response may take before the test fails.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(20);

/// The binary under test. This test binary is a target of the package that defines it, so cargo
/// builds `vitaecontext` first and names it here: a stale build can never be tested.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_vitaecontext"))
}

/// The repository root (for example data and client scripts); the manifest is `app/Cargo.toml`.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// Every file a valid graph's `.generated/` holds after `graph index`, sorted: the three JSON
/// outputs, the caches and the generation marker, no temporary.
pub const GENERATED_FILES: [&str; 8] = [
    "diagnostics.json",
    "documents.bin",
    "graph.json",
    "manifest.bin",
    "outputs.bin",
    "search-index.bin",
    "search-index.json",
    "set.bin",
];

/// A file of the bundled example data.
pub fn example(rel: &str) -> PathBuf {
    repo_root().join("examples").join(rel)
}

/// Copies a folder tree (plain files and folders).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

/// The text of the first content item of a tool result.
pub fn tool_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content: {result}"))
}

/// A command for the binary with a clean, isolated environment: HOME is a fresh temp dir, so
/// nothing on the developer's machine is picked up.
pub struct Cmd {
    pub cmd: Command,
    pub home: tempfile::TempDir,
}

impl Cmd {
    pub fn new<I, S>(args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let home = tempfile::tempdir().expect("temp HOME");
        let mut cmd = Command::new(bin());
        cmd.args(args)
            .env_clear()
            .env("HOME", home.path())
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("NO_COLOR", "1");
        Self { cmd, home }
    }

    pub fn env(mut self, k: &str, v: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.env(k, v);
        self
    }

    pub fn current_dir(mut self, dir: &Path) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    /// Runs to completion with no stdin; returns (status, stdout, stderr).
    pub fn output(mut self) -> (ExitStatus, String, String) {
        let out = self.cmd.stdin(Stdio::null()).output().expect("spawn");
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub fn spawn(mut self) -> Server {
        let mut child = self
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn vitaecontext");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut err_pipe = child.stderr.take().expect("stderr");
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = err_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let stdin = child.stdin.take();
        Server { child, stdin, lines: rx, stderr, _home: self.home }
    }
}

pub struct Server {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    _home: tempfile::TempDir,
}

/// Checks that a stdout line is exactly one JSON-RPC response (or a batch of them), or one
/// notification from the server (list changes, resource updates, listen acknowledgements), and
/// returns it parsed.
pub fn check_frame(line: &[u8]) -> Value {
    assert!(line.ends_with(b"\n"), "stdout line without newline: {:?}", String::from_utf8_lossy(line));
    let body = &line[..line.len() - 1];
    assert!(!body.contains(&b'\n'), "a frame spans lines");
    let v: Value = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {:?}", String::from_utf8_lossy(line)));
    match &v {
        Value::Array(items) => {
            assert!(!items.is_empty(), "empty batch response");
            items.iter().for_each(check_response);
        }
        single if single.get("method").is_some() => check_notification(single),
        single => check_response(single),
    }
    v
}

fn check_notification(v: &Value) {
    let obj = v.as_object().unwrap_or_else(|| panic!("notification is not an object: {v}"));
    assert_eq!(obj.get("jsonrpc"), Some(&json!("2.0")), "{v}");
    assert!(!obj.contains_key("id"), "a server notification has no id: {v}");
    let method = obj["method"].as_str().unwrap_or_else(|| panic!("method is not a string: {v}"));
    assert!(method.starts_with("notifications/"), "the server sends no requests: {v}");
    assert!(obj.keys().all(|k| ["jsonrpc", "method", "params"].contains(&k.as_str())), "{v}");
}

fn check_response(v: &Value) {
    let obj = v.as_object().unwrap_or_else(|| panic!("response is not an object: {v}"));
    assert_eq!(obj.get("jsonrpc"), Some(&json!("2.0")), "{v}");
    assert!(obj.contains_key("id"), "response without id: {v}");
    let has_result = obj.contains_key("result");
    let has_error = obj.contains_key("error");
    assert!(has_result ^ has_error, "exactly one of result/error: {v}");
    assert_eq!(obj.len(), 3, "only jsonrpc, id and result|error: {v}");
    if let Some(e) = obj.get("error") {
        assert!(e["code"].is_i64(), "{v}");
        assert!(e["message"].is_string(), "{v}");
    }
}

impl Server {
    pub fn start(args: &[&str]) -> Server {
        Cmd::new(args).spawn()
    }

    /// Spawns and initializes a prepared command.
    pub fn init(cmd: Cmd) -> Server {
        let mut s = cmd.spawn();
        s.initialize();
        s
    }

    /// `vitaecontext mcp` with the given extra arguments, initialized.
    pub fn mcp(extra: &[&str]) -> Server {
        let mut args = vec!["mcp"];
        args.extend_from_slice(extra);
        let mut s = Server::start(&args);
        s.initialize();
        s
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush to server");
    }

    pub fn send(&mut self, v: &Value) {
        let mut bytes = serde_json::to_vec(v).expect("serialise");
        bytes.push(b'\n');
        self.send_raw(&bytes);
    }

    /// The next stdout frame, checked and parsed.
    pub fn recv(&mut self) -> Value {
        match self.lines.recv_timeout(RESPONSE_TIMEOUT) {
            Ok(line) => check_frame(&line),
            Err(e) => panic!("no response ({e:?}); stderr:\n{}", self.stderr()),
        }
    }

    pub fn request(&mut self, id: impl Into<Value>, method: &str, params: Value) -> Value {
        let id = id.into();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let r = self.recv();
        assert_eq!(r["id"], id, "response to another request: {r}");
        r
    }

    /// `result` of a request that must succeed.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(json!(format!("ok-{method}")), method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    /// `error` of a request that must fail.
    pub fn err(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(json!(format!("err-{method}")), method, params);
        assert!(r.get("result").is_none(), "{method} unexpectedly succeeded: {r}");
        r["error"].clone()
    }

    pub fn initialize(&mut self) -> Value {
        let r = self.request(
            0,
            "initialize",
            json!({"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "harness", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Closes stdin, waits for exit (bounded), returns the status and the remaining frames.
    pub fn finish(mut self) -> (ExitStatus, Vec<Value>, String) {
        self.close_stdin();
        let status = self.wait_exit(RESPONSE_TIMEOUT);
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(200)) {
            rest.push(check_frame(&line));
        }
        let stderr = self.stderr();
        (status, rest, stderr)
    }

    pub fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                panic!("server did not exit within {limit:?}; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Resident memory of the server process in KiB (Linux).
    pub fn rss_kib(&self) -> u64 {
        self.proc_field("status", "VmRSS:")
    }

    /// Bytes the server process has read so far, all threads and files together (Linux
    /// `rchar`); after start-up a `mcp` server without files reads only its stdin.
    pub fn bytes_read(&self) -> u64 {
        self.proc_field("io", "rchar:")
    }

    fn proc_field(&self, file: &str, key: &str) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/{file}", self.child.id())).unwrap_or_default();
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// Polls `done` until it holds; fails the test after [`RESPONSE_TIMEOUT`].
    pub fn wait_until(&self, what: &str, mut done: impl FnMut(&Self) -> bool) {
        let start = Instant::now();
        while !done(self) {
            assert!(start.elapsed() < RESPONSE_TIMEOUT, "timed out waiting until {what}; stderr:\n{}", self.stderr());
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
