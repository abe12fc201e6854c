//! Timing helpers shared by the bench binaries: repeated runs, then min / median / p99.

use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct Stats {
    pub samples: Vec<Duration>,
}

impl Stats {
    pub fn of(mut samples: Vec<Duration>) -> Self {
        samples.sort_unstable();
        Stats { samples }
    }

    fn at(&self, q: f64) -> Duration {
        let i = ((self.samples.len() as f64 - 1.0) * q).round() as usize;
        self.samples[i]
    }

    pub fn line(&self, what: &str) -> String {
        format!(
            "{what:<48} n={:<5} min={:>10.3?} median={:>10.3?} p99={:>10.3?} max={:>10.3?}",
            self.samples.len(),
            self.samples[0],
            self.at(0.5),
            self.at(0.99),
            self.samples[self.samples.len() - 1]
        )
    }
}

/// Times `f` `n` times after `warmup` untimed runs.
pub fn time<T>(n: usize, warmup: usize, mut f: impl FnMut() -> T) -> Stats {
    for _ in 0..warmup {
        std::hint::black_box(f());
    }
    let samples = (0..n)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    Stats::of(samples)
}

/// The binary under test. The benches are targets of the package that defines it, so
/// `cargo bench` builds it first (bench profile, optimised like release) and names it here: a
/// stale build can never be measured.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_vitaecontext"))
}

/// A field of `/proc/<pid>/status` in KiB (Linux; 0 when unreadable).
#[allow(dead_code, reason = "only the search and graph benches read memory")]
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// A `vitaecontext mcp` child spoken to one request line at a time.
pub struct McpChild {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    line: String,
}

impl McpChild {
    /// Starts the binary with `args` (after `mcp`) and initializes it.
    pub fn start(args: &[&std::ffi::OsStr], home: &std::path::Path) -> Self {
        use std::process::{Command, Stdio};
        let mut child = Command::new(bin())
            .arg("mcp")
            .args(args)
            .env("HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn vitaecontext");
        let stdin = child.stdin.take();
        let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut me = McpChild { child, stdin, stdout, line: String::new() };
        me.call(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#);
        me
    }

    /// The child's process id (for `/proc/<pid>/status`).
    #[allow(dead_code, reason = "only the search and graph benches read memory")]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The last response line read.
    #[allow(dead_code, reason = "only the skills bench pages through answers")]
    pub fn last(&self) -> &str {
        &self.line
    }

    /// Sends one request line and reads one response line; returns its length.
    pub fn call(&mut self, request: &str) -> usize {
        use std::io::{BufRead, Write};
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{request}").expect("write");
        stdin.flush().expect("flush");
        self.line.clear();
        self.stdout.read_line(&mut self.line).expect("read");
        assert!(self.line.contains("\"result\""), "{}", self.line);
        self.line.len()
    }
}

impl Drop for McpChild {
    fn drop(&mut self) {
        self.stdin.take();
        let _ = self.child.wait();
    }
}

/// The words generated records are made of (shared by the benches that generate text).
#[allow(dead_code, reason = "not every bench generates text")]
pub const WORDS: &[&str] = &[
    "rust",
    "go",
    "kubernetes",
    "bazel",
    "postgresql",
    "latency",
    "pipeline",
    "cache",
    "compiler",
    "distributed",
    "consensus",
    "observability",
    "terraform",
    "migration",
    "throughput",
    "scheduler",
    "storage",
    "query",
    "index",
    "search",
    "mentoring",
    "platform",
    "api",
    "security",
    "testing",
    "release",
    "monorepo",
    "profiling",
    "network",
    "database",
    "streaming",
    "kafka",
    "python",
    "typescript",
    "react",
    "design",
    "research",
    "paper",
    "award",
];

/// A small deterministic generator (xorshift), so every run generates the same data.
#[allow(dead_code, reason = "not every bench generates text")]
pub struct Rng(pub u64);

#[allow(dead_code, reason = "not every bench generates text")]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}
