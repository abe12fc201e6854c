//! `vitaecontext board`: the HTTP guard and every route's errors over raw HTTP (requests a
//! browser would never send: a rebound Host, a forged Origin), and the pages in a real
//! headless Chromium driven over WebDriver (`chromedriver`), each test saving a screenshot.
//!
//! The browser tests need Debian's `chromium` and `chromium-driver`; without `chromedriver`
//! on PATH they are skipped with a note, unless `VITAECONTEXT_REQUIRE_BROWSER=1` (set by
//! `scripts/test`), which makes a missing browser a failure.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{bin, copy_dir, example};

const GREET: &str = "id: greet\ntype: prompt\nname: Greet\ndescription: Say hello\narguments:\n  - name: who\n    required: true\nprompt: \"Hello {{who}}, here is my CV: {{career_context.cv}}\"\n";

const DRAFT: &str = "At Tideline Logistics I cut the median pipeline time from 41 to 15 minutes.\n\nI mentored four engineers at Tideline Logistics.\n";

/// A running board over a copy of the example files, with one skill layer.
struct Board {
    child: Child,
    dir: tempfile::TempDir,
    /// `http://127.0.0.1:PORT/?token=...`
    login: String,
    port: u16,
}

impl Drop for Board {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Board {
    fn start() -> Board {
        Self::start_with(&[])
    }

    fn start_with(extra: &[&str]) -> Board {
        Self::start_prepared(extra, |_| {})
    }

    /// `prepare` runs on the folder (HOME is `home/` in it) before the board starts.
    fn start_prepared(extra: &[&str], prepare: impl FnOnce(&Path)) -> Board {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        copy_dir(&example("vitaegraph"), &d.join("graph"));
        std::fs::copy(example("career-context.md"), d.join("cc.md")).expect("copy");
        std::fs::create_dir_all(d.join("skills")).expect("mkdir");
        std::fs::create_dir_all(d.join("home")).expect("mkdir");
        std::fs::write(d.join("skills/greet.yaml"), GREET).expect("write");
        let indexed = Command::new(bin())
            .args(["graph", "index", "--root"])
            .arg(d.join("graph"))
            .env_clear()
            .env("HOME", d.join("home"))
            .output()
            .expect("graph index");
        assert!(indexed.status.success(), "{}", String::from_utf8_lossy(&indexed.stderr));
        prepare(d);
        let extra: Vec<String> = extra.iter().map(|a| a.replace("{dir}", &d.display().to_string())).collect();
        let mut child = Command::new(bin())
            .args(["board", "--port", "0", "--context"])
            .arg(d.join("cc.md"))
            .arg("--root")
            .arg(d.join("graph"))
            .arg("--skills")
            .arg(d.join("skills"))
            .args(extra)
            .env_clear()
            .env("HOME", d.join("home"))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn board");
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut first).expect("read URL");
        let login = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {first:?}"))
            .to_owned();
        let port = login["http://127.0.0.1:".len()..].split('/').next().and_then(|p| p.parse().ok()).expect("port");
        Board { child, dir, login, port }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Exchanges the token for the session cookie (`name=value`).
    fn cookie(&self) -> String {
        let token_path = &self.login[self.origin().len()..];
        let r = http(self.port, "GET", token_path, &[("Host", &self.host())], None);
        assert_eq!(r.status, 303, "{}", r.body);
        let set = r.header("set-cookie").expect("set-cookie").to_owned();
        set.split(';').next().expect("cookie").to_owned()
    }

    /// A GET with the cookie and the right Host.
    fn get(&self, cookie: &str, path: &str) -> Reply {
        http(self.port, "GET", path, &[("Host", &self.host()), ("Cookie", cookie)], None)
    }

    /// A form POST as the board's own page sends it.
    fn post(&self, cookie: &str, path: &str, form: &[(&str, &str)]) -> Reply {
        let body = encode_form(form);
        http(
            self.port,
            "POST",
            path,
            &[
                ("Host", &self.host()),
                ("Cookie", cookie),
                ("Origin", &self.origin()),
                ("Sec-Fetch-Site", "same-origin"),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            Some(&body),
        )
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

fn encode_form(form: &[(&str, &str)]) -> String {
    let enc = |s: &str| {
        s.bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
                b' ' => "+".to_owned(),
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    form.iter().map(|(k, v)| format!("{}={}", enc(k), enc(v))).collect::<Vec<_>>().join("&")
}

/// One HTTP/1.1 request on its own connection, headers exactly as given (no Host added).
fn http(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(b) = body {
        req.push_str(&format!("Content-Length: {}\r\n", b.len()));
    }
    req.push_str("\r\n");
    req.push_str(body.unwrap_or_default());
    s.write_all(req.as_bytes()).expect("send");
    // Read the head, then as many bytes as it announces: a server may keep the connection
    // open whatever `Connection: close` asked (chromedriver does).
    let mut raw = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        let n = s.read(&mut buf).expect("read");
        raw.extend_from_slice(&buf[..n]);
        if n == 0 || complete(&raw) {
            break;
        }
    }
    parse_reply(&raw)
}

/// Whether `raw` holds a whole response: its head and the body its length or chunks announce.
fn complete(raw: &[u8]) -> bool {
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let body = &raw[split + 4..];
    if let Some(len) =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse::<usize>().ok())
    {
        return body.len() >= len;
    }
    if head.contains("transfer-encoding: chunked") {
        return body.ends_with(b"0\r\n\r\n");
    }
    false
}

fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("header end");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("status");
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned())).collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
            let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..eol]).trim(), 16).unwrap_or(0);
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
            rest = &rest[eol + 2 + size + 2..];
        }
        body = out;
    }
    Reply { status, headers, body: String::from_utf8_lossy(&body).into_owned() }
}

fn assert_hardened(r: &Reply) {
    let csp = r.header("content-security-policy").unwrap_or_else(|| panic!("no CSP on {r:?}"));
    for part in ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"] {
        assert!(csp.contains(part), "{csp}");
    }
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
}

/// The hidden `hash` of the editor page.
fn hash_in(page: &str) -> String {
    let at = page.find(r#"name="hash" value=""#).expect("hash field") + r#"name="hash" value=""#.len();
    page[at..at + 64].to_owned()
}

#[test]
fn board_without_the_token_refuses_and_the_token_becomes_a_strict_cookie() {
    let b = Board::start();
    for path in ["/", "/skills", "/records", "/check", "/assets/board.css", "/records/view?id=x"] {
        let r = http(b.port, "GET", path, &[("Host", &b.host())], None);
        assert_eq!(r.status, 401, "{path}: {}", r.body);
        assert_hardened(&r);
        assert!(!r.body.contains("Rowan"), "{path} leaked the files");
    }
    let wrong = http(b.port, "GET", &format!("/?token={}", "0".repeat(64)), &[("Host", &b.host())], None);
    assert_eq!(wrong.status, 401);
    assert!(wrong.header("set-cookie").is_none());
    let login = http(b.port, "GET", &b.login[b.origin().len()..], &[("Host", &b.host())], None);
    assert_eq!(login.status, 303);
    assert_eq!(login.header("location"), Some("/"), "the token leaves the address bar");
    let cookie = login.header("set-cookie").expect("cookie");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    let c = b.cookie();
    let page = b.get(&c, "/");
    assert_eq!(page.status, 200);
    assert_hardened(&page);
    assert!(page.body.contains("Setup check") && page.body.contains("VitaeGraph"));
    // A forged cookie value is no session.
    let forged = b.get(&format!("{}={}", c.split('=').next().unwrap(), "f".repeat(64)), "/");
    assert_eq!(forged.status, 401);
}

#[test]
fn board_refuses_a_host_it_is_not_bound_to() {
    let b = Board::start();
    let c = b.cookie();
    for host in ["evil.example", "evil.example:80", &format!("rebind.test:{}", b.port), "127.0.0.1:1"] {
        let r = http(b.port, "GET", "/", &[("Host", host), ("Cookie", &c)], None);
        assert_eq!(r.status, 421, "{host}");
        assert_hardened(&r);
        assert!(!r.body.contains("Rowan"));
    }
    let no_host = http(b.port, "GET", "/", &[("Cookie", &c)], None);
    assert!(no_host.status == 421 || no_host.status == 400, "{}", no_host.status);
    // The token itself is refused under a rebound name: no cookie is handed out there.
    let r = http(b.port, "GET", &b.login[b.origin().len()..], &[("Host", &format!("rebind.test:{}", b.port))], None);
    assert_eq!(r.status, 421);
    assert!(r.header("set-cookie").is_none());
    let local = http(b.port, "GET", "/", &[("Host", &format!("localhost:{}", b.port)), ("Cookie", &c)], None);
    assert_eq!(local.status, 200);
}

#[test]
fn board_refuses_a_post_from_another_origin_and_changes_nothing() {
    let b = Board::start();
    let c = b.cookie();
    let skill = b.path("skills/greet.yaml");
    let hash = hash_in(&b.get(&c, "/skills/edit?layer=0&file=greet.yaml").body);
    let form = encode_form(&[
        ("layer", "0"),
        ("file", "greet.yaml"),
        ("hash", &hash),
        ("content", "id: greet\ntype: prompt\nprompt: pwned\n"),
    ]);
    let base =
        [("Host", b.host()), ("Cookie", c.clone()), ("Content-Type", "application/x-www-form-urlencoded".to_owned())];
    let cases: [(&str, Vec<(&str, String)>); 4] = [
        ("no Origin", vec![]),
        ("another origin", vec![("Origin", "http://evil.example".to_owned())]),
        ("another port", vec![("Origin", "http://127.0.0.1:1".to_owned())]),
        ("cross-site fetch", vec![("Origin", b.origin()), ("Sec-Fetch-Site", "cross-site".to_owned())]),
    ];
    for (what, extra) in cases {
        let headers: Vec<(&str, &str)> = base.iter().chain(extra.iter()).map(|(k, v)| (*k, v.as_str())).collect();
        for path in ["/skills/save", "/reindex"] {
            let r = http(b.port, "POST", path, &headers, Some(&form));
            assert_eq!(r.status, 403, "{what} {path}: {}", r.body);
            assert_hardened(&r);
        }
    }
    assert_eq!(std::fs::read_to_string(&skill).unwrap(), GREET, "a refused save changed the file");
    let r = http(b.port, "PUT", "/skills/save", &[("Host", &b.host()), ("Cookie", &c)], Some(""));
    assert_eq!(r.status, 405);
}

#[test]
fn board_routes_answer_bad_requests_with_a_page_saying_what_to_do() {
    let b = Board::start();
    let c = b.cookie();
    let cases = [
        ("/nowhere", 404),
        ("/records/view?id=project:nope", 404),
        ("/records/view", 400),
        ("/records?type=spaceship", 400),
        ("/skills/edit?layer=7&file=greet.yaml", 404),
        ("/skills/edit?layer=0&file=..%2Fcc.md", 400),
        ("/skills/edit?layer=0&file=%2Fetc%2Fpasswd", 400),
        ("/skills/edit?layer=0&file=notes.txt", 400),
        ("/skills/edit?layer=0&file=missing.yaml", 404),
        ("/skills/edit?layer=x&file=greet.yaml", 400),
        ("/skills/preview", 400),
        ("/skills/preview?id=nope", 404),
    ];
    for (path, status) in cases {
        let r = b.get(&c, path);
        assert_eq!(r.status, status, "{path}: {}", r.body);
        assert_hardened(&r);
    }
    // A skill file reached through a symlink is not edited (the board follows none).
    std::os::unix::fs::symlink(b.path("cc.md"), b.path("skills/linked.yaml")).unwrap();
    assert_eq!(b.get(&c, "/skills/edit?layer=0&file=linked.yaml").status, 404);
    let r = b.post(&c, "/skills/save", &[("layer", "0"), ("file", "linked.yaml"), ("hash", "x"), ("content", GREET)]);
    assert_eq!(r.status, 404);
    assert!(std::fs::read_to_string(b.path("cc.md")).unwrap().contains("Rowan Vale"));
    // Check: blank, unknown kind, missing field.
    assert_eq!(b.post(&c, "/check", &[("text", "  "), ("kind", "draft")]).status, 422);
    assert_eq!(b.post(&c, "/check", &[("text", "x"), ("kind", "poem")]).status, 400);
    assert_eq!(b.post(&c, "/check", &[("text", "x")]).status, 422);
    let big = "a".repeat(1024 * 1024 + 1);
    assert_eq!(b.post(&c, "/check", &[("text", &big), ("kind", "draft")]).status, 413);
    // Restore: a name that is not a backup of this file.
    let r = b.post(&c, "/skills/restore", &[("layer", "0"), ("file", "greet.yaml"), ("backup", "../cc.md")]);
    assert_eq!(r.status, 404);
    // Every page answers.
    for path in ["/", "/skills", "/records", "/records?q=cache", "/check", "/skills/edit?layer=0&file=greet.yaml"] {
        assert_eq!(b.get(&c, path).status, 200, "{path}");
    }
}

#[test]
fn board_saves_a_skill_only_when_it_parses_and_did_not_change_elsewhere() {
    let b = Board::start();
    let c = b.cookie();
    let skill = b.path("skills/greet.yaml");
    let hash = hash_in(&b.get(&c, "/skills/edit?layer=0&file=greet.yaml").body);
    // Invalid: 422 with the problem's line, file untouched.
    let bad = b.post(
        &c,
        "/skills/save",
        &[
            ("layer", "0"),
            ("file", "greet.yaml"),
            ("hash", &hash),
            ("content", "id: greet\ntype: prompt\nprompt: [unclosed\n"),
        ],
    );
    assert_eq!(bad.status, 422, "{}", bad.body);
    assert!(bad.body.contains("Not saved"));
    assert_eq!(std::fs::read_to_string(&skill).unwrap(), GREET);
    // Saved, with a backup of what it replaced.
    let new = GREET.replace("Hello", "Goodbye");
    let ok = b.post(
        &c,
        "/skills/save",
        &[("layer", "0"), ("file", "greet.yaml"), ("hash", &hash), ("content", &new.replace('\n', "\r\n"))],
    );
    assert_eq!(ok.status, 303, "{}", ok.body);
    assert_eq!(std::fs::read_to_string(&skill).unwrap(), new, "CRLF from the browser is saved as LF");
    let backups: Vec<_> = std::fs::read_dir(b.path("skills"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("greet.yaml.vitaecontext-backup-"))
        .collect();
    assert_eq!(backups.len(), 1);
    assert_eq!(std::fs::read_to_string(backups[0].path()).unwrap(), GREET);
    let preview = b.get(&c, "/skills/preview?id=greet&go=1&arg.who=Ann");
    assert!(preview.body.contains("Goodbye Ann"), "{}", preview.body);
    assert!(preview.body.contains("Rowan Vale"), "the cv packet is filled in");
    // A save over the old hash: 409 with the diff; the file keeps the other change.
    let stale = b.post(
        &c,
        "/skills/save",
        &[("layer", "0"), ("file", "greet.yaml"), ("hash", &hash), ("content", &GREET.replace("Hello", "Hi"))],
    );
    assert_eq!(stale.status, 409, "{}", stale.body);
    assert!(stale.body.contains("changed since you opened it"));
    assert!(stale.body.contains("class=\"del\"") && stale.body.contains("class=\"ins\""), "a diff");
    assert_eq!(std::fs::read_to_string(&skill).unwrap(), new);
    // Restore the backup: the file is as before, and the text it replaced is kept too.
    let name = backups[0].file_name().to_string_lossy().into_owned();
    let r = b.post(&c, "/skills/restore", &[("layer", "0"), ("file", "greet.yaml"), ("backup", &name)]);
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(std::fs::read_to_string(&skill).unwrap(), GREET);
}

#[test]
fn board_check_answers_as_check_and_match_do() {
    let b = Board::start();
    let c = b.cookie();
    let r = b.post(&c, "/check", &[("text", DRAFT), ("kind", "draft")]);
    assert_eq!(r.status, 200);
    let contradicted = r.body.find("claim v-contradicted").expect("a contradicted claim");
    let supported = r.body.find("claim v-supported").expect("a supported claim");
    assert!(contradicted < supported, "contradictions first");
    assert!(r.body.contains("cc.md:41"), "the cited fact's place");
    assert!(r.body.contains("12 minutes"), "what the files say");
    let posting = "## Requirements\n\n- 5+ years of experience with Rust\n- Fluent Japanese\n";
    let r = b.post(&c, "/check", &[("text", posting), ("kind", "posting")]);
    assert_eq!(r.status, 200);
    assert!(r.body.contains("cov-covered") && r.body.contains("cov-missing"), "{}", r.body);
}

#[test]
fn board_refuses_a_nonlocal_address_without_consent() {
    let out = Command::new(bin())
        .args(["board", "--host", "0.0.0.0", "--port", "0"])
        .env_clear()
        .env("HOME", "/nonexistent")
        .output()
        .expect("spawn");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--i-understand-nonlocal"));
}

// ---------------------------------------------------------------------------------------------
// The browser.

/// Where the screenshots go (under target/, git-ignored).
fn shots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("board-screenshots");
    std::fs::create_dir_all(&dir).expect("mkdir");
    dir
}

/// A chromedriver and one headless Chromium session; `None` (skipped) when not installed.
struct Browser {
    driver: Child,
    port: u16,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() && !std::thread::panicking() {
            let _ = std::panic::catch_unwind(|| wd(self.port, "DELETE", &format!("/session/{}", self.session), None));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("port")
}

/// One WebDriver command; the `value` of its answer.
fn wd(port: u16, method: &str, path: &str, body: Option<Value>) -> Value {
    let body = body.map(|b| b.to_string());
    let mut headers = vec![("Host", "127.0.0.1")];
    if body.is_some() {
        headers.push(("Content-Type", "application/json"));
    }
    let r = http(port, method, path, &headers, body.as_deref());
    let v: Value = serde_json::from_str(&r.body).unwrap_or_else(|_| panic!("{method} {path}: {}", r.body));
    if r.status != 200 {
        panic!("{method} {path}: {} {}", r.status, v);
    }
    v["value"].clone()
}

impl Browser {
    fn start() -> Option<Browser> {
        let found = Command::new("chromedriver").arg("--version").output().is_ok_and(|o| o.status.success());
        if !found {
            if std::env::var_os("VITAECONTEXT_REQUIRE_BROWSER").is_some_and(|v| v == "1") {
                panic!("chromedriver is not installed (apt-get install chromium chromium-driver)");
            }
            eprintln!("skipped: chromedriver is not installed (apt-get install chromium chromium-driver)");
            return None;
        }
        let port = free_port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().expect("profile");
        let mut args = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-quic".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--window-size=1100,900".to_owned(),
            // A name that resolves to the board, as DNS rebinding makes one.
            "--host-resolver-rules=MAP rebind.test 127.0.0.1".to_owned(),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        if let Ok(extra) = std::env::var("VITAECONTEXT_CHROMIUM_ARGS") {
            args.extend(extra.split_whitespace().map(str::to_owned));
        }
        let mut options = json!({ "args": args });
        if Path::new("/usr/bin/chromium").exists() {
            options["binary"] = json!("/usr/bin/chromium");
        }
        let caps =
            json!({ "capabilities": { "alwaysMatch": { "browserName": "chrome", "goog:chromeOptions": options } } });
        let mut browser = Browser { driver, port, session: String::new(), _profile: profile };
        let v = wd(port, "POST", "/session", Some(caps));
        browser.session = v["sessionId"].as_str().expect("session").to_owned();
        Some(browser)
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        wd(self.port, method, &format!("/session/{}{path}", self.session), body)
    }

    fn go(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    fn find(&self, css: &str) -> String {
        let v = self.cmd("POST", "/element", Some(json!({ "using": "css selector", "value": css })));
        v.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).expect("element").to_owned()
    }

    fn text(&self, css: &str) -> String {
        let e = self.find(css);
        self.cmd("GET", &format!("/element/{e}/text"), None).as_str().unwrap_or_default().to_owned()
    }

    fn click(&self, css: &str) {
        let e = self.find(css);
        self.cmd("POST", &format!("/element/{e}/click"), Some(json!({})));
    }

    fn displayed(&self, css: &str) -> bool {
        let e = self.find(css);
        self.cmd("GET", &format!("/element/{e}/displayed"), None).as_bool().unwrap_or(false)
    }

    /// Sets a form field's value (as typing it would).
    fn fill(&self, css: &str, value: &str) {
        let e = self.find(css);
        self.cmd("POST", &format!("/element/{e}/clear"), Some(json!({})));
        self.cmd("POST", &format!("/element/{e}/value"), Some(json!({ "text": value })));
    }

    fn title(&self) -> String {
        self.cmd("GET", "/title", None).as_str().unwrap_or_default().to_owned()
    }

    fn url(&self) -> String {
        self.cmd("GET", "/url", None).as_str().unwrap_or_default().to_owned()
    }

    /// Saves a PNG of the window as `name.png` and prints where.
    fn shot(&self, name: &str) -> PathBuf {
        use base64_decode as decode;
        let png = decode(self.cmd("GET", "/screenshot", None).as_str().expect("screenshot"));
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        let path = shots().join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write screenshot");
        eprintln!("screenshot: {}", path.display());
        path
    }

    /// Waits until `css`'s text contains `what`.
    fn wait_text(&self, css: &str, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self.cmd("POST", "/elements", Some(json!({ "using": "css selector", "value": css })));
            if let Some(id) =
                v.as_array().and_then(|a| a.first()).and_then(|o| o.as_object()?.values().next()?.as_str())
            {
                let t = self.cmd("GET", &format!("/element/{id}/text"), None).as_str().unwrap_or_default().to_owned();
                if t.contains(what) {
                    return t;
                }
            }
            if Instant::now() > deadline {
                let shot = self.shot("failed");
                panic!(
                    "{css} never said {what:?}; the page at {} says {:?} ({})",
                    self.url(),
                    self.text("body"),
                    shot.display()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Standard base64 (the screenshot), without a crate for one call.
fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = s.bytes().filter(|c| *c != b'=' && !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, c)| acc | (u32::from(val(*c)) << (18 - 6 * i)));
        let take = chunk.len() - 1;
        for i in 0..take {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

#[test]
fn browser_without_the_token_is_refused_and_with_it_the_url_loses_it() {
    let Some(w) = Browser::start() else { return };
    let b = Board::start();
    w.go(&format!("{}/", b.origin()));
    assert!(w.text("h1").contains("Open the board with its link"));
    assert!(!w.text("main").contains("Rowan"));
    w.shot("refused-no-token");
    w.go(&b.login);
    assert_eq!(w.url(), format!("{}/", b.origin()), "the token left the address bar");
    assert_eq!(w.text("h1"), "Overview");
    w.shot("overview");
    // On a narrow window (a phone, a side panel) the page reflows: nothing wider than the window.
    w.cmd("POST", "/window/rect", Some(json!({ "width": 420, "height": 900 })));
    let inner = w.cmd("GET", "/window/rect", None)["width"].as_f64().unwrap_or(420.0);
    for css in ["main", "header", "#reindex", "table"] {
        let e = w.find(css);
        let rect = w.cmd("GET", &format!("/element/{e}/rect"), None);
        let right = rect["x"].as_f64().unwrap() + rect["width"].as_f64().unwrap();
        assert!(right <= inner, "{css} reaches {right} px in a {inner} px window");
    }
    w.shot("overview-narrow");
    // Keyboard: the first Tab reaches the skip link, which leads to the main content.
    w.cmd(
        "POST",
        "/actions",
        Some(json!({ "actions": [{ "type": "key", "id": "kb", "actions": [
        { "type": "keyDown", "value": "\u{E004}" }, { "type": "keyUp", "value": "\u{E004}" }] }] })),
    );
    let active = w.cmd("GET", "/element/active", None);
    let id = active.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).unwrap().to_owned();
    assert_eq!(w.cmd("GET", &format!("/element/{id}/text"), None), json!("Skip to content"));
}

#[test]
fn browser_on_a_rebound_name_is_refused() {
    let Some(w) = Browser::start() else { return };
    let b = Board::start();
    // rebind.test resolves to 127.0.0.1 in this browser, as an attacker's DNS would make it.
    let rebound = b.login.replace("127.0.0.1", "rebind.test");
    w.go(&rebound);
    assert!(w.text("h1").contains("Wrong address"), "{}", w.title());
    assert!(!w.text("main").contains("Rowan"));
    w.shot("refused-wrong-host");
}

#[test]
fn browser_cross_origin_post_is_refused() {
    let Some(w) = Browser::start() else { return };
    let b = Board::start();
    w.go(&b.login);
    assert_eq!(w.text("h1"), "Overview");
    // Another page on this machine (another port: same site, so the strict cookie goes with
    // it) posts a form to the board: the Origin check refuses it.
    let evil = TcpListener::bind("127.0.0.1:0").expect("bind");
    let evil_port = evil.local_addr().unwrap().port();
    let page = format!(
        "<!doctype html><title>evil</title><form id=f method=post action=\"{}/skills/save\">\
         <input name=layer value=0><input name=file value=greet.yaml><input name=hash value=x>\
         <input name=content value=\"id: greet\ntype: prompt\nprompt: pwned\"></form>\
         <script>document.getElementById('f').submit()</script>",
        b.origin()
    );
    let server = std::thread::spawn(move || {
        if let Ok((mut s, _)) = evil.accept() {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    w.go(&format!("http://127.0.0.1:{evil_port}/"));
    w.wait_text("h1", "Refused");
    server.join().unwrap();
    w.shot("refused-cross-origin-post");
    assert_eq!(std::fs::read_to_string(b.path("skills/greet.yaml")).unwrap(), GREET);
}

#[test]
fn browser_edit_a_skill_and_see_the_preview_change() {
    let Some(w) = Browser::start() else { return };
    let b = Board::start();
    w.go(&b.login);
    w.go(&format!("{}/skills", b.origin()));
    assert!(w.text("main").contains("greet"));
    w.shot("skills");
    w.go(&format!("{}/skills/preview?id=greet", b.origin()));
    w.fill("#arg-who", "Ann");
    w.click("#render");
    assert!(w.wait_text("#preview", "Hello Ann").contains("Rowan Vale"));
    w.shot("preview-before");
    w.click("nav a[href='/skills']");
    w.click("a[aria-label='Edit greet']");
    w.fill("#content", &GREET.replace("Hello", "Goodbye"));
    w.shot("edit");
    w.click("#save");
    w.wait_text("#backups-h", "Backups");
    assert!(w.text("section[aria-labelledby=backups-h]").contains("greet.yaml.vitaecontext-backup-"));
    w.go(&format!("{}/skills/preview?id=greet&go=1&arg.who=Ann", b.origin()));
    w.wait_text("#preview", "Goodbye Ann");
    w.shot("preview-after");
}

#[test]
fn browser_conflicting_save_shows_the_409_view() {
    let Some(w) = Browser::start() else { return };
    let b = Board::start();
    w.go(&b.login);
    w.go(&format!("{}/skills/edit?layer=0&file=greet.yaml", b.origin()));
    w.fill("#content", &GREET.replace("Hello", "Hi there"));
    // Meanwhile another editor saves the file.
    let elsewhere = GREET.replace("Say hello", "Say hello politely");
    std::fs::write(b.path("skills/greet.yaml"), &elsewhere).unwrap();
    w.click("#save");
    let said = w.wait_text("#conflict", "changed since you opened it");
    assert!(w.text("pre.diff").contains("politely"), "{said}");
    w.shot("conflict-409");
    assert_eq!(std::fs::read_to_string(b.path("skills/greet.yaml")).unwrap(), elsewhere);
}

#[test]
fn browser_draft_with_a_contradicted_claim_is_highlighted_with_its_citation() {
    let Some(w) = Browser::start() else { return };
    let b = Board::start();
    w.go(&b.login);
    w.go(&format!("{}/check", b.origin()));
    w.fill("#text", DRAFT);
    w.click("#check-submit");
    w.wait_text("#results-h", "Claims");
    // The first claim listed is the contradicted one; its citation shows on focus.
    let first = w.find("ol.claims li:first-child");
    let class = w.cmd("GET", &format!("/element/{first}/attribute/class"), None);
    assert!(class.as_str().unwrap_or_default().contains("v-contradicted"), "{class}");
    assert!(!w.displayed("ol.claims li:first-child .why"));
    w.click("ol.claims li:first-child mark");
    assert!(w.displayed("ol.claims li:first-child .why"));
    let why = w.text("ol.claims li:first-child .why");
    assert!(why.contains("cc.md:41") && why.contains("12 minutes"), "{why}");
    w.shot("check-draft");
    w.go(&format!("{}/check", b.origin()));
    w.click("input[value=posting]");
    w.fill("#text", "## Requirements\n\n- 5+ years of experience with Rust\n- Fluent Japanese\n- Bazel\n");
    w.click("#check-submit");
    w.wait_text("table.coverage", "Japanese");
    w.shot("check-posting");
}

#[test]
fn browser_reindex_from_the_overview() {
    let Some(w) = Browser::start() else { return };
    let b = Board::start();
    std::fs::create_dir_all(b.path("graph/projects/board-test")).unwrap();
    std::fs::write(
        b.path("graph/projects/board-test/project.md"),
        "---\ntype: project\nid: project:board-test\ntitle: Board test project\nstatus: active\nvisibility: public\n---\n\n# Board test project\n\nBuilt for the board's re-index test.\n",
    )
    .unwrap();
    w.go(&b.login);
    w.click("#reindex");
    let note = w.wait_text("#index-note", "Indexed");
    assert!(note.contains("22 record(s)"), "{note}");
    w.shot("reindexed");
    w.go(&format!("{}/records?q=board+test", b.origin()));
    w.click("ol.hits li:first-child a");
    assert_eq!(w.text("h1"), "Board test project");
    w.shot("record");
}

#[test]
fn board_overview_shows_an_invalid_career_context_with_each_diagnostic_on_its_line() {
    let b = Board::start();
    std::fs::copy(example("broken/missing_quick_field.md"), b.path("cc.md")).unwrap();
    let c = b.cookie();
    let page = b.get(&c, "/").body;
    assert!(page.contains("invalid"), "{page}");
    // The marked line holds the file's text and the diagnostic under it.
    let marked = page.find(r#"class="marked""#).expect("a marked line");
    let item = &page[marked..page[marked..].find("</li>").map_or(page.len(), |e| marked + e)];
    assert!(item.contains("<code>") && item.contains(r#"class="diag error""#), "{item}");
    let value = page[..marked].rfind("<li value=\"").map(|at| &page[at + 11..marked]).unwrap();
    let line: usize = value.split('"').next().unwrap().parse().unwrap();
    let text = std::fs::read_to_string(b.path("cc.md")).unwrap();
    let shown_line = text.lines().nth(line - 1).unwrap();
    assert!(
        item.contains(
            &shown_line.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
        ),
        "line {line}: {item}"
    );
    // The same finding, with its fix, in the setup check.
    assert!(page.contains("Fix: "));
}

#[test]
fn board_record_page_renders_markdown_without_raw_html_and_shows_links_and_diagnostics() {
    let b = Board::start();
    let record = b.path("graph/projects/cachewarden/project.md");
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(
        &record,
        format!("{text}\n<script>alert('x')</script>\n\n[evil](javascript:alert(1)) [talk](../../publications/cache-poisoning-talk.md)\n"),
    )
    .unwrap();
    let c = b.cookie();
    let page = b.get(&c, "/records/view?id=project%3Acachewarden");
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("<script>alert"), "raw HTML passed through");
    assert!(page.body.contains("&lt;script&gt;alert"));
    assert!(!page.body.contains("javascript:"));
    assert!(page.body.contains("RELATED_TO"), "its links");
    assert!(page.body.contains("/records/view?id=publication%3Acache-poisoning-talk"));
    // A record with a finding of the last index run (a warning: the graph stays valid) shows it.
    std::fs::write(
        b.path("graph/projects/flat.md"),
        "---\ntype: project\nid: project:flat\ntitle: Flat project\nstatus: active\nvisibility: public\n---\n\n# Flat project\n",
    )
    .unwrap();
    assert_eq!(b.post(&c, "/reindex", &[]).status, 303);
    let note = b.get(&c, "/").body;
    assert!(
        note.contains("Indexed 22 record(s)"),
        "{}",
        &note[note.find("index-note").unwrap_or(0)..][..300.min(note.len() - note.find("index-note").unwrap_or(0))]
    );
    let page = b.get(&c, "/records/view?id=project%3Aflat").body;
    assert!(page.contains("Diagnostics") && page.contains("legacy_record_layout"), "{page}");
    // An invalid graph: the re-index says so, and writes only the diagnostics.
    let bad = b.path("graph/projects/ci-rebuild/project.md");
    let t = std::fs::read_to_string(&bad).unwrap();
    std::fs::write(&bad, t.replace("related_records: [project:cachewarden]", "related_records: [project:nowhere]"))
        .unwrap();
    assert_eq!(b.post(&c, "/reindex", &[]).status, 303);
    let overview = b.get(&c, "/").body;
    assert!(overview.contains("The records are invalid (1 error(s))"), "{overview}");
    assert_eq!(b.get(&c, "/records/view?id=project%3Aflat").status, 503, "no index to open records from");
}

/// Runs the binary with HOME in `d/home`, working in `d`; asserts success.
fn run_in(d: &Path, args: &[&str]) -> String {
    let out = Command::new(bin())
        .args(args)
        .current_dir(d)
        .env_clear()
        .env("HOME", d.join("home"))
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .expect("spawn");
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn board_skills_page_shows_shadows_conflicts_parse_errors_and_installed_skills_against_their_lock() {
    let b = Board::start_prepared(&["--skills", "{dir}/team=50"], |d| {
        // A lower layer that greet shadows, a conflict and a file that does not parse.
        let team = d.join("team");
        std::fs::create_dir_all(&team).unwrap();
        std::fs::write(team.join("greet.yaml"), GREET.replace("Hello", "Yo")).unwrap();
        std::fs::write(team.join("dup-a.yaml"), "id: dup\ntype: prompt\nprompt: a\n").unwrap();
        std::fs::write(team.join("dup-b.yaml"), "id: dup\ntype: prompt\nprompt: b\n").unwrap();
        std::fs::write(team.join("broken.yaml"), "id: broken\ntype: prompt\nprompt: [unclosed\n").unwrap();
        // An installed skill: ~/.vitaecontext/skills.yaml's personal layer and the user's lock.
        run_in(d, &["skills", "init"]);
        let source = d.join("source/review");
        std::fs::create_dir_all(&source).unwrap();
        std::fs::write(source.join("SKILL.md"), "---\nname: code-review\ndescription: Reviews code\n---\nReview it.\n")
            .unwrap();
        run_in(d, &["skills", "install", d.join("source").to_str().unwrap(), "--layer", "personal", "--yes"]);
    });
    let c = b.cookie();
    let page = b.get(&c, "/skills").body;
    // Layers highest first: skills (100), personal, team (50).
    let (at_skills, at_team) =
        (page.find("/skills</strong>").expect("skills layer"), page.find("/team</strong>").expect("team layer"));
    assert!(at_skills < at_team, "{page}");
    let greet_row = &page[page.find("<code>greet</code>").unwrap()..];
    let greet_row = &greet_row[..greet_row.find("</tr>").unwrap()];
    assert!(greet_row.contains("team/greet.yaml"), "greet shadows the team's: {greet_row}");
    assert!(page.contains("conflict") && page.contains("dup-a.yaml") && page.contains("dup-b.yaml"), "{page}");
    assert!(page.contains("broken.yaml:4: not valid YAML"), "the parse error with its line: {page}");
    let installed = &page[page.find("installed-h").unwrap()..];
    assert!(installed.contains("<code>code-review</code>") && installed.contains("/source"), "{installed}");
    assert!(installed.contains("<td>yes</td>"), "{installed}");
    // An edit of the installed file: it no longer matches the lock.
    let skill_md = b.path("home/.vitaecontext/skills/50-personal/code-review/SKILL.md");
    let text = std::fs::read_to_string(&skill_md).unwrap_or_else(|e| panic!("{}: {e}", skill_md.display()));
    std::fs::write(&skill_md, text.replace("Review it.", "Review it twice.")).unwrap();
    let page = b.get(&c, "/skills").body;
    let installed = &page[page.find("installed-h").unwrap()..];
    assert!(installed.contains("no: SKILL.md"), "{installed}");
}

#[test]
fn board_overview_checks_again_in_the_background_after_a_view() {
    let b = Board::start();
    let c = b.cookie();
    let first = b.get(&c, "/").body;
    assert!(first.contains("readable_by_others"), "the copy is 0644: {first}");
    assert!(first.contains(r#"id="checked""#));
    std::fs::set_permissions(b.path("cc.md"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let page = b.get(&c, "/").body;
        if !page.contains("readable_by_others") {
            break;
        }
        assert!(Instant::now() < deadline, "the overview never checked again");
        std::thread::sleep(Duration::from_millis(200));
    }
}
