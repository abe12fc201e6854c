// Skills over MCP, through the real binary: skill-central 0.4's files served unchanged and its
// recorded answers reproduced, the reference's error table, live edits, grounding in the
// person's packet, and `get_prompt` for clients without prompts.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{Server, copy_dir, example, repo_root};

fn fixture() -> PathBuf {
    repo_root().join("tests/fixtures/skill-central-0.4")
}

fn transcript(prefix: &str) -> Value {
    let dir = fixture().join("transcripts");
    let file = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .unwrap_or_else(|| panic!("no transcript {prefix}"));
    serde_json::from_slice(&fs::read(file).unwrap()).unwrap()
}

fn with_fixture(extra: &[&str]) -> Server {
    let config = fixture().join("init-project/skill-central.yaml");
    let mut args = vec!["--skills-config", config.to_str().unwrap()];
    args.extend_from_slice(extra);
    Server::mcp(&args)
}

/// skill-central heads composed parts `## Name  (id)`; the issue asks for `## id`.
fn id_headings(text: &str) -> String {
    text.split('\n')
        .map(|line| match (line.strip_prefix("## "), line.rfind("  ("), line.strip_suffix(')')) {
            (Some(_), Some(open), Some(_)) => format!("## {}", &line[open + 3..line.len() - 1]),
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn skills_are_listed_after_the_built_ins_exactly_as_skill_central_lists_them() {
    let mut s = with_fixture(&[]);
    let prompts = s.ok("prompts/list", json!({}))["prompts"].as_array().unwrap().clone();
    let names: Vec<&str> = prompts.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names[..4], ["cv_tailoring", "linkedin_audit", "github_showcase", "career_context_intake"]);
    assert_eq!(names.last(), Some(&"skills:compose"));
    assert_eq!(
        Value::Array(prompts[4..prompts.len() - 1].to_vec()),
        transcript("03-")["response"]["result"]["prompts"]
    );
    let tools = s.ok("tools/list", json!({}))["tools"].as_array().unwrap().clone();
    let builtin = tools.iter().take_while(|t| !t["name"].as_str().unwrap().contains('-')).count();
    assert_eq!(tools[..builtin][0]["name"], "get_career_context", "the built-in tools come first");
    assert_eq!(Value::Array(tools[builtin..].to_vec()), transcript("09-")["response"]["result"]["tools"]);
    assert!(!tools.iter().any(|t| t["name"] == "get_prompt"), "get_prompt only with --prompt-tools");
}

#[test]
fn recorded_answers_are_reproduced_over_stdio() {
    let mut s = with_fixture(&[]);
    for prefix in ["04-", "05-", "10-", "12-", "13-", "14-", "15-", "16-"] {
        let t = transcript(prefix);
        let r = s.ok(t["request"]["method"].as_str().unwrap(), t["request"]["params"].clone());
        assert_eq!(r, t["response"]["result"], "{prefix}");
    }
    for prefix in ["06-", "07-"] {
        let t = transcript(prefix);
        let r = s.ok("prompts/get", t["request"]["params"].clone());
        let theirs = &t["response"]["result"];
        assert_eq!(r["description"], theirs["description"], "{prefix}");
        let text = theirs["messages"][0]["content"]["text"].as_str().unwrap();
        assert_eq!(r["messages"][0]["content"]["text"], id_headings(text), "{prefix}");
    }
}

#[test]
fn the_reference_error_table_holds() {
    let mut s = with_fixture(&[]);
    // Unknown prompt, and compose that matches nothing: -32602 with skill-central's words.
    for prefix in ["17-", "19-", "20-", "21-"] {
        let t = transcript(prefix);
        let e = s.err("prompts/get", t["request"]["params"].clone());
        assert_eq!(e["code"], -32602, "{prefix}");
        assert_eq!(e["message"], t["response"]["error"]["message"], "{prefix}");
    }
    let e = s.err("tools/call", json!({"name": "no-such-tool"}));
    assert_eq!((e["code"].clone(), e["message"].clone()), (json!(-32602), json!("Unknown tool: no-such-tool")));
    // A tool skill is not a prompt, nor a prompt skill a tool.
    let e = s.err("prompts/get", json!({"name": "commit-conventions"}));
    assert!(e["code"] == -32602 && e["message"].as_str().unwrap().contains("tool skill"), "{e}");
    let e = s.err("tools/call", json!({"name": "debugging-expert"}));
    assert!(e["code"] == -32602 && e["message"].as_str().unwrap().contains("prompt skill"), "{e}");
    // Prompt arguments are strings, for skills as for the career prompts: -32602 naming one.
    let e = s.err("prompts/get", json!({"name": "debugging-expert", "arguments": {"context": 5}}));
    assert_eq!(
        (e["code"].clone(), e["message"].clone()),
        (json!(-32602), json!("Argument \"context\" expected string, got number"))
    );
    let e = s.err("prompts/get", json!({"name": "skills:compose", "arguments": {"tags": ["debug"]}}));
    assert_eq!(
        (e["code"].clone(), e["message"].clone()),
        (json!(-32602), json!("Argument \"tags\" expected string, got array"))
    );
    // Missing required tool argument: an isError result naming it.
    let r = s.ok("tools/call", json!({"name": "commit-conventions", "arguments": {"type": "feat"}}));
    assert_eq!(r["isError"], true);
    assert_eq!(r["content"][0]["text"], "Missing required argument: \"summary\"");
    // The built-in surface is untouched.
    let r = s.ok("tools/call", json!({"name": "validate_career_context", "arguments": {}}));
    assert_eq!(r["isError"], true, "no Career Context here: a notice, as before");
}

#[test]
fn a_grounded_skill_gets_the_persons_packet_and_arguments_are_never_reinterpreted() {
    let tmp = tempfile::tempdir().unwrap();
    let layer = tmp.path().join("mine");
    fs::create_dir_all(&layer).unwrap();
    fs::write(
        layer.join("bullet.yaml"),
        "id: cv-bullet\ntype: prompt\ndescription: Rewrite a bullet\narguments:\n  - name: bullet\n    required: true\nprompt: |\n  Rewrite {{bullet}} using only:\n  {{career_context.cv}}\n",
    )
    .unwrap();
    let ctx = example("career-context.md");
    let mut s = Server::mcp(&["--context", ctx.to_str().unwrap(), "--skills", layer.to_str().unwrap()]);
    let r =
        s.ok("prompts/get", json!({"name": "cv-bullet", "arguments": {"bullet": "{{career_context.x}} shipped it"}}));
    let text = r["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(text.contains("{{career_context.x}} shipped it"), "argument text is inserted verbatim: {text}");
    assert!(text.contains("QUICK REFERENCE"), "the cv packet is filled in: {text}");
    let e = s.err("prompts/get", json!({"name": "cv-bullet"}));
    assert!(e["code"] == -32602 && e["message"].as_str().unwrap().contains("bullet"), "{e}");
}

#[test]
fn edits_additions_and_deletions_are_served_without_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let layer = tmp.path().join("layer");
    fs::create_dir_all(&layer).unwrap();
    let skill = |id: &str, body: &str| format!("id: {id}\ntype: prompt\ntags: [t]\nprompt: {body}\n");
    fs::write(layer.join("a.yaml"), skill("a", "first")).unwrap();
    let mut s = Server::mcp(&["--skills", layer.to_str().unwrap()]);
    let text =
        |s: &mut Server, id: &str| s.ok("prompts/get", json!({"name": id}))["messages"][0]["content"]["text"].clone();
    assert_eq!(text(&mut s, "a"), "first");
    fs::write(layer.join("a.yaml"), skill("a", "second")).unwrap();
    fs::write(layer.join("b.yaml"), skill("b", "new")).unwrap();
    // Picked up on a request after the re-check interval (500 ms); poll under a deadline.
    let deadline = Instant::now() + Duration::from_secs(10);
    while text(&mut s, "a") != "second" {
        assert!(Instant::now() < deadline, "the edit was never served");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(text(&mut s, "b"), "new");
    fs::remove_file(layer.join("b.yaml")).unwrap();
    while s.request(99, "prompts/get", json!({"name": "b"})).get("error").is_none() {
        assert!(Instant::now() < deadline, "the deletion was never noticed");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn get_prompt_serves_every_prompt_to_clients_without_prompts() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    copy_dir(&fixture().join("init-project"), &project);
    let ctx = example("career-context.md");
    let config = project.join("skill-central.yaml");
    let mut s = Server::mcp(&[
        "--context",
        ctx.to_str().unwrap(),
        "--skills-config",
        config.to_str().unwrap(),
        "--prompt-tools",
    ]);
    let tools = s.ok("tools/list", json!({}))["tools"].clone();
    let get_prompt = tools.as_array().unwrap().iter().find(|t| t["name"] == "get_prompt").expect("listed");
    let names = get_prompt["inputSchema"]["properties"]["name"]["enum"].as_array().unwrap();
    for n in ["cv_tailoring", "debugging-expert", "skills:compose"] {
        assert!(names.contains(&json!(n)), "{n} in {names:?}");
    }
    let call = |s: &mut Server, args: Value| s.ok("tools/call", json!({"name": "get_prompt", "arguments": args}));
    let r = call(&mut s, json!({"name": "cv_tailoring", "arguments": {"targetRole": "Staff Engineer"}}));
    assert!(r.get("isError").is_none() && r["content"][0]["text"].as_str().unwrap().contains("Staff Engineer"), "{r}");
    // Bad arguments are -32602, as `prompts/get` answers them (contract, errors section).
    let err = |s: &mut Server, args: Value| s.err("tools/call", json!({"name": "get_prompt", "arguments": args}));
    for (args, says) in [
        (json!({"name": "cv_tailoring"}), "targetRole"),
        (json!({}), "Missing required argument: \"name\""),
        (json!({"name": 5}), "Argument \"name\" expected string, got number"),
        (json!({"name": "nope"}), "nope"),
        (json!({"name": "commit-conventions"}), "commit-conventions"),
        (json!({"name": "debugging-expert", "arguments": {"context": 5}}), "expected string"),
        (json!({"name": "debugging-expert", "extra": 1}), "Unexpected argument: \"extra\""),
    ] {
        let e = err(&mut s, args.clone());
        assert_eq!(e["code"], -32602, "{args}: {e}");
        assert!(e["message"].as_str().unwrap().contains(says), "{args}: {e}");
    }
    let r = call(&mut s, json!({"name": "debugging-expert", "arguments": {"context": "x"}}));
    assert_eq!(
        r["content"][0]["text"],
        transcript("04-")["response"]["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .replace("TypeError in foo.ts", "x")
    );
    let r = call(&mut s, json!({"name": "skills:compose", "arguments": {"tags": "debug"}}));
    assert!(
        r.get("isError").is_none() && r["content"][0]["text"].as_str().unwrap().contains("## debugging-expert"),
        "{r}"
    );
}

/// From 2025-03-26 a skill edit is announced with `list_changed`, and only for the list it
/// changed: a tool skill added leaves `prompts/list` as it was, so no prompt notice is sent.
#[test]
fn a_skill_change_announces_only_the_list_it_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let layer = tmp.path().join("layer");
    fs::create_dir_all(&layer).unwrap();
    fs::write(layer.join("p.yaml"), "id: p\ntype: prompt\nprompt: hi\n").unwrap();
    let mut s = Server::start(&["mcp", "--skills", layer.to_str().unwrap()]);
    let r = s.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(r["result"]["capabilities"]["prompts"]["listChanged"], true, "{r}");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    fs::write(layer.join("t.yaml"), "id: t\ntype: tool\ninputSchema:\n  type: object\n").unwrap();
    assert_eq!(s.recv()["method"], "notifications/tools/list_changed");
    // Nothing else was sent for that change: the next frame is this answer.
    assert_eq!(s.request(1, "ping", json!({}))["result"], json!({}));
    fs::write(layer.join("q.yaml"), "id: q\ntype: prompt\nprompt: there\n").unwrap();
    assert_eq!(s.recv()["method"], "notifications/prompts/list_changed");
    assert_eq!(s.request(2, "ping", json!({}))["result"], json!({}));
}
