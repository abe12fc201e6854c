// Grounding: `check_claims` and `match_job` over stdio, `vitaecontext check | match`, and the
// honest evaluation of the checker on hand-labelled drafts (tests/fixtures/claims/).

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::util::{Cmd, Server, copy_dir, example, repo_root, tool_text};

/// The example person: the Career Context and an indexed copy of the example VitaeGraph.
struct Person {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Person {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("vitaegraph");
        copy_dir(&example("vitaegraph"), &root);
        let (status, _, stderr) = Cmd::new(["graph", "index", "--root", root.to_str().unwrap()]).output();
        assert!(status.success(), "{stderr}");
        Person { _tmp: tmp, root }
    }

    fn files_args(&self) -> Vec<String> {
        vec![
            "--context".into(),
            example("career-context.md").display().to_string(),
            "--root".into(),
            self.root.display().to_string(),
        ]
    }

    fn cli(&self, cmd: &str, file: &std::path::Path, extra: &[&str]) -> (i32, String, String) {
        let mut args: Vec<String> = vec![cmd.into(), file.display().to_string()];
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend(self.files_args());
        let (status, out, err) = Cmd::new(args).output();
        (status.code().unwrap_or(-1), out, err)
    }

    fn server(&self) -> Server {
        let args = self.files_args();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Server::mcp(&args)
    }
}

fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/claims").join(name)
}

/// The checker's verdict as one of the label classes: partly supported and unsupported are both
/// "something in it is invented".
pub(crate) fn class(status: &str) -> &'static str {
    match status {
        "supported" => "supported",
        "contradicted" => "contradicted",
        "unsupported" | "partly_supported" => "invented",
        "no_checkable_facts" => "none",
        other => panic!("unknown status {other}"),
    }
}

/// Measured on this corpus (65 claims; the drafts and labels were written before the checker
/// first ran on them and are never edited to fit it): supported 36/36 precision, 36/37 recall;
/// contradicted 6/6, 6/6; invented 12/12, 12/12 (contradicted was 6/8 precision and invented
/// 10/12 recall until a contradiction had to count the same thing, of the entry the claim
/// names). The test fails if a change makes any figure worse. `none` (no checkable facts) is
/// printed, not asserted.
const MIN_PRECISION_RECALL: &[(&str, f64, f64)] =
    &[("supported", 1.0, 0.97), ("contradicted", 1.0, 1.0), ("invented", 1.0, 1.0), ("none", 0.0, 0.0)];

#[test]
fn the_checker_is_measured_on_hand_labelled_drafts() {
    let person = Person::new();
    let labels = fs::read_to_string(fixture("labels.tsv")).unwrap();
    let mut by_draft: BTreeMap<&str, Vec<(usize, &str, &str)>> = BTreeMap::new();
    for l in labels.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let cols: Vec<&str> = l.split('\t').collect();
        assert_eq!(cols.len(), 4, "bad label line {l:?}");
        by_draft.entry(cols[0]).or_default().push((cols[1].parse().unwrap(), cols[2], cols[3]));
    }
    // (label, predicted) -> count
    let mut confusion: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (draft, labels) in &by_draft {
        let (code, out, err) = person.cli("check", &fixture(draft), &["--json"]);
        assert!(code == 0 || code == 1, "{draft}: exit {code}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{draft}: {e}: {out}"));
        let claims = v["claims"].as_array().unwrap();
        let mut used = vec![false; labels.len()];
        for c in claims {
            let text = c["text"].as_str().unwrap();
            let line = c["line"].as_u64().unwrap() as usize;
            let i = labels
                .iter()
                .position(|(l, prefix, _)| *l == line && text.starts_with(prefix))
                .unwrap_or_else(|| panic!("{draft}:{line}: claim {text:?} has no label"));
            assert!(!used[i], "{draft}:{line}: two claims match the label {:?}", labels[i].1);
            used[i] = true;
            let (label, predicted) = (labels[i].2, class(c["status"].as_str().unwrap()));
            *confusion.entry((label, predicted)).or_default() += 1;
            if label != predicted {
                wrong.push(format!("{draft}:{line} {label} -> {predicted}: {text}"));
            }
        }
        for (i, u) in used.iter().enumerate() {
            assert!(u, "{draft}: label {:?} matches no claim", labels[i]);
        }
    }
    let total: usize = confusion.values().sum();
    let mut table = format!("claims: {total}\n{:<14}{:>10}{:>8}{:>8}\n", "class", "precision", "recall", "n");
    let mut worse = Vec::new();
    for &(class, min_p, min_r) in MIN_PRECISION_RECALL {
        let tp = confusion.get(&(class, class)).copied().unwrap_or(0);
        let predicted: usize = confusion.iter().filter(|((_, p), _)| *p == class).map(|(_, n)| n).sum();
        let actual: usize = confusion.iter().filter(|((l, _), _)| *l == class).map(|(_, n)| n).sum();
        let p = if predicted == 0 { 0.0 } else { tp as f64 / predicted as f64 };
        let r = if actual == 0 { 0.0 } else { tp as f64 / actual as f64 };
        table.push_str(&format!("{class:<14}{p:>10.2}{r:>8.2}{actual:>8}\n"));
        if p < min_p || r < min_r {
            worse.push(format!("{class}: precision {p:.2} (min {min_p}), recall {r:.2} (min {min_r})"));
        }
    }
    eprintln!("{table}\nmisclassified:\n{}", wrong.join("\n"));
    assert!(worse.is_empty(), "{}", worse.join("\n"));
}

#[test]
fn check_exits_1_and_labels_the_exact_spans() {
    let person = Person::new();
    let (code, out, err) = person.cli("check", &fixture("cv.md"), &[]);
    assert_eq!(code, 1, "{out}{err}");
    // Findings and summary on stdout; stderr is for errors only.
    assert!(out.contains("claims in") && out.contains("contradicted"), "{out}");
    assert!(out.contains("vitaecontext::check::contradicted"), "{out}");
    assert!(out.contains("your files say 88%"), "{out}");
    assert!(err.is_empty(), "{err}");
    let tmp = tempfile::tempdir().unwrap();
    let copied = tmp.path().join("copied.md");
    fs::write(&copied, "- Designed flaky-test quarantine that removed 1,900 reruns a week.\n- I like tidy builds.\n")
        .unwrap();
    let (code, out, err) = person.cli("check", &copied, &["--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["counts"]["supported"], 1, "{v}");
    assert_eq!(v["counts"]["no_checkable_facts"], 1, "{v}");
    assert_eq!(v["claims"][0]["line"], 1);
    assert_eq!(v["claims"][0]["facts"][0]["evidence"]["file"], "career-context.md", "{v}");
    let (code, _, err) = person.cli("check", &tmp.path().join("missing.md"), &[]);
    assert_eq!(code, 2, "{err}");
    // Found in review: a binary file was checked as thousands of claims, and Latin-1 silently.
    let binary = tmp.path().join("photo.md");
    fs::write(&binary, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR 2019 55%").unwrap();
    for command in ["check", "match"] {
        let (code, out, err) = person.cli(command, &binary, &[]);
        assert_eq!((code, out.as_str()), (2, ""), "{command}: {err}");
        assert!(err.contains("is not text (it holds NUL bytes)"), "{command}: {err}");
    }
    let latin = tmp.path().join("latin.md");
    fs::write(&latin, b"- Designed flaky-test quarantine that removed 1,900 reruns a week (caf\xe9).\n").unwrap();
    let (code, out, err) = person.cli("check", &latin, &["--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("is not UTF-8 text; its invalid bytes were read as U+FFFD"), "{err}");
}

#[test]
fn match_prints_a_coverage_table_without_a_score() {
    let person = Person::new();
    let tmp = tempfile::tempdir().unwrap();
    let posting = tmp.path().join("posting.md");
    fs::write(
        &posting,
        "# Staff Platform Engineer\n\n## Requirements\n- Bazel and remote caching\n- Kafka and Flink\n\n## Nice to have\n- Rust\n",
    )
    .unwrap();
    let (code, out, err) = person.cli("match", &posting, &["--json"]);
    // Terms are shown as written, in the posting's order.
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["counts"]["must_have"], json!({"covered": 1, "partial": 0, "missing": 1}), "{v}");
    assert_eq!(v["counts"]["nice_to_have"]["covered"], 1, "{v}");
    assert_eq!(v["requirements"][1]["missing"], json!(["Kafka", "Flink"]), "{v}");
    assert_eq!(v["requirements"][1]["explanation"], "none of 2 terms found", "{v}");
    let (_, text, _) = person.cli("match", &posting, &[]);
    assert!(text.contains("| Line | Requirement | Coverage |") && !text.to_lowercase().contains("score"), "{text}");
    // What each verdict rests on is said to the model, in the table and the JSON.
    let levels = tmp.path().join("levels.md");
    fs::write(&levels, "## Requirements\n- 12+ years of Go\n- Fluent Spanish\n").unwrap();
    let (_, out, _) = person.cli("match", &levels, &["--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let why: Vec<&str> =
        v["requirements"].as_array().unwrap().iter().map(|r| r["explanation"].as_str().unwrap()).collect();
    assert!(why[0].starts_with("asks 12+ years; files: 8 years") && why[1].contains("files: Spanish B2"), "{why:?}");
    let (_, text, _) = person.cli("match", &levels, &[]);
    assert!(text.contains("| Not found | Compared |") && text.contains("asks Spanish C1 (Fluent)"), "{text}");
}

#[test]
fn both_tools_over_stdio() {
    let person = Person::new();
    let mut s = person.server();
    let list = s.ok("tools/list", json!({}));
    let names: Vec<&str> = list["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"check_claims") && names.contains(&"match_job"), "{names:?}");
    let r = s.ok(
        "tools/call",
        json!({"name": "check_claims", "arguments": {"draft": "- Raised the cache hit rate to 95% with Bazel remote caching.\n- Led the Kafka migration at Stripe.", "for": "cv"}}),
    );
    assert!(r.get("isError").is_none(), "{r}");
    let text = tool_text(&r);
    let contradicted = text.find("## Contradicted").expect(text);
    let unsupported = text.find("## Unsupported").expect(text);
    assert!(contradicted < unsupported, "{text}");
    assert!(text.contains("\"95%\": the files say \"88%\" (career-context.md:43)"), "{text}");
    assert!(text.contains("\"Kafka\": not found"), "{text}");
    let r = s.ok(
        "tools/call",
        json!({"name": "match_job", "arguments": {"posting": "Requirements:\n- Kubernetes\n- Erlang\n"}}),
    );
    let text = tool_text(&r);
    assert!(text.contains("| covered |") && text.contains("| missing |"), "{text}");
    // Argument errors are -32602 naming the argument.
    for (args, needle) in [
        (json!({"name": "check_claims", "arguments": {}}), "draft"),
        (json!({"name": "check_claims", "arguments": {"draft": 5}}), "draft"),
        (json!({"name": "check_claims", "arguments": {"draft": "  "}}), "draft"),
        (json!({"name": "check_claims", "arguments": {"draft": "x", "for": "resume"}}), "for"),
        (json!({"name": "check_claims", "arguments": {"draft": "x", "tone": "bold"}}), "tone"),
        (json!({"name": "match_job", "arguments": {}}), "posting"),
        (json!({"name": "match_job", "arguments": {"posting": "x", "draft": "y"}}), "draft"),
    ] {
        let e = s.err("tools/call", args.clone());
        assert_eq!(e["code"], -32602, "{args}: {e}");
        assert!(e["message"].as_str().unwrap().contains(needle), "{args}: {e}");
    }
}

#[test]
fn without_any_files_check_claims_says_so() {
    let mut s = Server::mcp(&[]);
    let r =
        s.ok("tools/call", json!({"name": "check_claims", "arguments": {"draft": "Led CI at Tideline Logistics."}}));
    let text = tool_text(&r);
    assert!(text.contains("No Career Context was read") && text.contains("No VitaeGraph search index"), "{text}");
    // One note, not two that each say the other source was the one searched (found in review).
    assert!(text.contains("so nothing was searched") && !text.contains("so only the"), "{text}");
    assert!(text.contains("1 unsupported"), "{text}");
}

fn prompt(s: &mut Server, name: &str, args: Value) -> String {
    let r = s.ok("prompts/get", json!({"name": name, "arguments": args}));
    r["messages"][0]["content"]["text"].as_str().unwrap().to_owned()
}

#[test]
fn prompts_use_the_vitaegraph_when_it_is_indexed() {
    let person = Person::new();
    let mut s = person.server();
    let t = prompt(
        &mut s,
        "cv_tailoring",
        json!({"targetRole": "Staff Platform Engineer", "jobDescription": "Bazel remote caching and flaky tests"}),
    );
    assert!(t.contains("## VitaeGraph: the person's detailed records") && t.contains("`search_vitaegraph`"), "{t}");
    assert!(t.contains("- project:ci-rebuild (Project)") && t.contains("`match_job`"), "{t}");
    let t = prompt(&mut s, "github_showcase", json!({}));
    let digest = &t[t.find("matching records by the server's own search").expect(&t)..];
    assert!(digest.contains("- project:") && !digest.contains("- experience:"), "{digest}");
    // Without a graph, the prompts stay as they are.
    let args = ["--context".to_owned(), example("career-context.md").display().to_string()];
    let mut bare = Server::mcp(&[args[0].as_str(), args[1].as_str()]);
    let t = prompt(&mut bare, "cv_tailoring", json!({"targetRole": "Staff Platform Engineer"}));
    assert!(!t.contains("VitaeGraph") && !t.contains("search_vitaegraph"), "{t}");
}

/// Every document's text in `.generated/search-index.bin` damaged in place (the file's tail,
/// which a torn write loses first), its header and body whole.
fn damage_the_sidecar_texts(root: &std::path::Path) {
    let path = root.join(".generated/search-index.bin");
    let mut bytes = fs::read(&path).unwrap();
    let header = domain::graph::sidecar::HEADER_LEN;
    let body = u64::from_le_bytes(bytes[header - 8..header].try_into().unwrap()) as usize;
    let texts = header + body + 8;
    assert!(bytes.len() > texts, "the sidecar has a text area");
    for b in &mut bytes[texts..] {
        *b ^= 0x20;
    }
    fs::write(&path, bytes).unwrap();
}

/// The sidecar's texts are read when an answer needs one, each checked then. Found in review:
/// `check` and `match` (and their tools) used the damaged sidecar's answer, calling supported
/// claims unsupported and covered requirements missing. Every answer is now made from the JSON
/// instead, so it is the answer an intact index gives.
#[test]
fn a_damaged_sidecar_changes_no_answer() {
    let person = Person::new();
    let tmp = tempfile::tempdir().unwrap();
    let posting = tmp.path().join("posting.md");
    fs::write(&posting, "# Staff Platform Engineer\n\n## Requirements\n- Bazel and remote caching\n- Kubernetes\n")
        .unwrap();
    let draft = "- Designed flaky-test quarantine that removed 1,900 reruns a week.\n- Led the Kafka migration.\n";
    let calls = [
        json!({"name": "search_vitaegraph", "arguments": {"query": "flaky tests bazel"}}),
        json!({"name": "check_claims", "arguments": {"draft": draft}}),
        json!({"name": "match_job", "arguments": {"posting": fs::read_to_string(&posting).unwrap()}}),
    ];
    let answers = |person: &Person| {
        let cli = [person.cli("check", &fixture("cv.md"), &["--json"]), person.cli("match", &posting, &["--json"])];
        // A server each, so that each tool is the first to read a text.
        let tools: Vec<Value> = calls.iter().map(|c| person.server().ok("tools/call", c.clone())).collect();
        (cli, tools)
    };
    let (cli, tools) = answers(&person);
    assert!(tool_text(&tools[0]).contains("flaky"), "{}", tools[0]);
    damage_the_sidecar_texts(&person.root);
    let (damaged_cli, damaged_tools) = answers(&person);
    for (intact, damaged) in cli.iter().zip(&damaged_cli) {
        assert_eq!((intact.0, &intact.1), (damaged.0, &damaged.1), "{}", damaged.2);
    }
    assert_eq!(tools, damaged_tools);
}

/// On the command line a file named with `--context` or `--root` that cannot be read, or no
/// file at all, is exit 2 naming it: a typo must not make a true draft "unsupported".
#[test]
fn check_and_match_refuse_to_answer_from_files_they_could_not_read() {
    let person = Person::new();
    let tmp = tempfile::tempdir().unwrap();
    let draft = tmp.path().join("draft.md");
    fs::write(&draft, "- Designed flaky-test quarantine that removed 1,900 reruns a week.\n").unwrap();
    let context = example("career-context.md").display().to_string();
    let root = person.root.display().to_string();
    let missing = tmp.path().join("nope.md").display().to_string();
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let run = |args: &[&str]| {
        let (status, out, err) = Cmd::new(args).env("HOME", &home).output();
        (status.code().unwrap_or(-1), out, err)
    };
    let d = draft.to_str().unwrap();
    for cmd in ["check", "match"] {
        let (code, out, err) = run(&[cmd, d, "--context", &missing, "--root", &root]);
        assert_eq!(code, 2, "{cmd}: {out}{err}");
        assert!(err.contains("nothing was checked") && err.contains("nope.md"), "{cmd}: {err}");
        let (code, out, err) = run(&[cmd, d, "--context", &context, "--root", &missing]);
        assert_eq!(code, 2, "{cmd}: {out}{err}");
        assert!(err.contains("no VitaeGraph search index"), "{cmd}: {err}");
        let (status, out, err) = Cmd::new([cmd, d, "--root", &root])
            .env("HOME", &home)
            .env("VITAECONTEXT_CAREER_CONTEXT", &missing)
            .output();
        assert_eq!(status.code(), Some(2), "{cmd}, a mistyped variable: {out}{err}");
        let (code, out, err) = run(&[cmd, d]);
        assert_eq!(code, 2, "{cmd} with no files at all: {out}{err}");
    }
    // A source not named and not there is a note; the other is checked.
    let (code, out, err) = run(&["check", d, "--context", &context]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("note: ") && out.contains("only the Career Context was searched"), "{out}");
}

/// Ctrl-C stops a long `check` at once: no handler holds the signal back while the draft is
/// checked (a draft of 8,000 claims takes seconds, more in a debug build).
#[test]
fn ctrl_c_stops_a_long_check_at_once() {
    use std::os::unix::process::ExitStatusExt;
    use std::time::{Duration, Instant};
    let tmp = tempfile::tempdir().unwrap();
    let draft = tmp.path().join("draft.md");
    let lines: Vec<String> = (0..8000)
        .map(|i| {
            format!(
                "- Led a team of {} engineers at Kontor Bank to cut latency by {}% in {}.",
                i % 37 + 2,
                i % 89 + 5,
                2010 + i % 15
            )
        })
        .collect();
    fs::write(&draft, lines.join("\n")).unwrap();
    let mut child = std::process::Command::new(crate::util::bin())
        .args(["check", draft.to_str().unwrap(), "--context", example("career-context.md").to_str().unwrap()])
        .env_clear()
        .env("HOME", tmp.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert!(child.try_wait().unwrap().is_none(), "the check is still at work when interrupted");
    let sent = Instant::now();
    assert!(std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(sent.elapsed() < Duration::from_secs(1), "still running 1 s after Ctrl-C");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.signal(), Some(2), "ended by the interrupt, as a shell reports it: {status:?}");
}

/// `check --explain` says how every claim was read, supported ones too: the typed assertions
/// with the entity they were judged against, and each fact with the file and line it was
/// found at; it does not go with `--json`.
#[test]
fn check_explain_says_how_every_claim_was_read() {
    let person = Person::new();
    let tmp = tempfile::tempdir().unwrap();
    let draft = tmp.path().join("cv.md");
    fs::write(
        &draft,
        "- Senior Platform Engineer at Tideline Logistics (2021-2026)\n- Designed flaky-test quarantine that removed 1,900 reruns a week.\n- Staff Engineer at Tideline Logistics\n",
    )
    .unwrap();
    let (code, out, err) = person.cli("check", &draft, &["--explain"]);
    assert_eq!(code, 1, "a contradicted title: {out}{err}");
    let explained = out.split("How each claim was read:").nth(1).unwrap_or_else(|| panic!("{out}"));
    assert!(
        explained.contains("line 1: - Senior Platform Engineer at Tideline Logistics (2021-2026) (supported)"),
        "{explained}"
    );
    assert!(explained.contains("title \"Senior Platform Engineer\": supported by career-context.md:"), "{explained}");
    assert!(explained.contains("number \"1,900\": found at career-context.md:"), "{explained}");
    assert!(explained.contains("line 3: - Staff Engineer at Tideline Logistics (contradicted)"), "{explained}");
    let (code, _, err) = person.cli("check", &draft, &["--explain", "--json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--json") && err.contains("--explain"), "{err}");
}
