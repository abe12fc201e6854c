//! Timing helpers shared by the bench binaries: repeated runs, then min / median / p99.

use std::path::{Path, PathBuf};
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
    #[allow(dead_code, reason = "the scale bench names its binaries")]
    pub fn start(args: &[&std::ffi::OsStr], home: &std::path::Path) -> Self {
        Self::start_with(&bin(), args, home)
    }

    /// [`McpChild::start`] of another binary (a baseline build to compare with).
    pub fn start_with(bin: &Path, args: &[&std::ffi::OsStr], home: &std::path::Path) -> Self {
        use std::process::{Command, Stdio};
        let mut child = Command::new(bin)
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
    #[allow(dead_code, reason = "only the skills and scale benches read answers")]
    pub fn last(&self) -> &str {
        &self.line
    }

    /// Sends one request line and reads one response line; returns its length.
    /// Notifications the server sends meanwhile (`mcp --watch` re-indexing) are skipped.
    pub fn call(&mut self, request: &str) -> usize {
        use std::io::{BufRead, Write};
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{request}").expect("write");
        stdin.flush().expect("flush");
        loop {
            self.line.clear();
            assert!(self.stdout.read_line(&mut self.line).expect("read") > 0, "the server closed its output");
            if !self.line.starts_with(r#"{"jsonrpc":"2.0","method":"#) {
                break;
            }
        }
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

/// Writes a valid graph of about `n` records: per group of 10, 1 education with 2 courses and
/// a thesis, 1 experience with 2 projects, 1 certification, 1 award, 1 publication.
#[allow(dead_code, reason = "only the graph benches generate graphs")]
pub fn generate(root: &Path, n: usize) -> usize {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    std::fs::write(root.join("VITAEGRAPH.md"), "# Synthetic VitaeGraph\n").expect("write");
    std::fs::write(root.join("index.md"), "# Index\n").expect("write");
    let mut count = 0;
    let body = |rng: &mut Rng, title: &str| -> String {
        let mut b = format!("# {title}\n\n");
        for _ in 0..8 {
            let line: Vec<&str> = (0..10).map(|_| rng.pick(WORDS)).collect();
            b.push_str(&format!("- Worked on {} with {}% improvement.\n", line.join(" "), rng.next() % 100));
        }
        b
    };
    let mut write = |rel: String, fm: String, text: String| {
        let path = root.join(&rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, format!("---\n{fm}---\n\n{text}")).expect("write");
        count += 1;
    };
    for g in 0..n.div_ceil(10) {
        let tags = |rng: &mut Rng| format!("tags: [{}, {}]\n", rng.pick(WORDS), rng.pick(WORDS));
        let edu = format!("education:edu-{g}");
        write(
            format!("education/edu-{g}/education.md"),
            format!("type: education\nid: {edu}\ntitle: Degree {g}\n{}", tags(&mut rng)),
            body(&mut rng, "Degree"),
        );
        for c in 0..2 {
            write(
                format!("education/edu-{g}/courses/c{c}.md"),
                format!("type: course\nid: course:c{g}-{c}\ntitle: Course {g} {c}\nparent: {edu}\n{}", tags(&mut rng)),
                body(&mut rng, "Course"),
            );
        }
        write(
            format!("education/edu-{g}/thesis.md"),
            format!("type: thesis\nid: thesis:t-{g}\ntitle: Thesis {g}\nparent: {edu}\n"),
            body(&mut rng, "Thesis"),
        );
        let exp = format!("experience:job-{g}");
        write(
            format!("experience/job-{g}/experience.md"),
            format!("type: experience\nid: {exp}\ntitle: Role {g}\n{}", tags(&mut rng)),
            body(&mut rng, "Role"),
        );
        for p in 0..2 {
            write(
                format!("projects/p-{g}-{p}/project.md"),
                format!(
                    "type: project\nid: project:p-{g}-{p}\ntitle: Project {g} {p} {}\nparent: {exp}\nrelated_records: [publication:pub-{g}]\n{}",
                    rng.pick(WORDS),
                    tags(&mut rng)
                ),
                body(&mut rng, "Project"),
            );
        }
        write(
            format!("certifications/cert-{g}.md"),
            format!("type: certification\nid: certification:cert-{g}\ntitle: Cert {g}\n"),
            body(&mut rng, "Cert"),
        );
        write(
            format!("awards/award-{g}.md"),
            format!("type: award\nid: award:award-{g}\ntitle: Award {g}\nrelated_records: [project:p-{g}-0]\n"),
            body(&mut rng, "Award"),
        );
        write(
            format!("publications/pub-{g}.md"),
            format!(
                "type: publication\nid: publication:pub-{g}\ntitle: Paper {g} on {}\n{}",
                rng.pick(WORDS),
                tags(&mut rng)
            ),
            body(&mut rng, "Paper"),
        );
    }
    count
}

/// Runs `graph index --root ROOT` as the release binary and returns (wall seconds, peak RSS in
/// MiB), the RSS from `getrusage` via python3 (Rust's std has no wait4).
#[allow(dead_code, reason = "only the graph benches index")]
pub fn index_once(root: &Path) -> (f64, f64) {
    index_once_with(&bin(), root)
}

/// [`index_once`] with another binary (a baseline build to compare with).
#[allow(dead_code, reason = "only the scale bench compares builds")]
pub fn index_once_with(bin: &Path, root: &Path) -> (f64, f64) {
    let script = "import resource,subprocess,sys,time\nt=time.perf_counter()\nr=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)\nd=time.perf_counter()-t\nassert r.returncode==0, r.returncode\nprint(d, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(bin)
        .args(["graph", "index", "--root"])
        .arg(root)
        .output()
        .expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace().map(|s| s.parse::<f64>().expect("a number"));
    (parts.next().expect("seconds"), parts.next().expect("rss") / 1024.0)
}
