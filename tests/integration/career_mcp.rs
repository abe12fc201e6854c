// The Career Context over MCP: the resource, get_career_context and validate_career_context,
// with every selection rule and error path, over real stdio.

use std::fs;

use serde_json::{Value, json};

use crate::util::{Cmd, Server, example, tool_text};

fn call(s: &mut Server, name: &str, args: Value) -> Value {
    s.ok("tools/call", json!({"name": name, "arguments": args}))
}

fn read_context(s: &mut Server) -> String {
    let r = s.ok("resources/read", json!({"uri": "career-context://current"}));
    assert_eq!(r["contents"][0]["uri"], "career-context://current");
    assert_eq!(r["contents"][0]["mimeType"], "text/markdown");
    r["contents"][0]["text"].as_str().unwrap().to_owned()
}

fn with_context(path: &std::path::Path) -> Server {
    Server::mcp(&["--context", path.to_str().unwrap()])
}

#[test]
fn tools_and_resource_are_listed_with_the_contract_schemas() {
    let mut s = Server::mcp(&[]);
    let tools = s.ok("tools/list", json!({}))["tools"].clone();
    let get = tools.as_array().unwrap().iter().find(|t| t["name"] == "get_career_context").unwrap();
    assert_eq!(
        get["inputSchema"],
        json!({"type": "object", "properties": {"for": {"type": "string", "enum": ["cv", "github", "linkedin", "portfolio", "x", "general"], "default": "general"}}, "additionalProperties": false})
    );
    assert!(get["description"].as_str().unwrap().contains("before writing"));
    let validate = tools.as_array().unwrap().iter().find(|t| t["name"] == "validate_career_context").unwrap();
    assert_eq!(validate["inputSchema"], json!({"type": "object", "properties": {}, "additionalProperties": false}));
    let resources = s.ok("resources/list", json!({}))["resources"].clone();
    let r = resources.as_array().unwrap().iter().find(|r| r["uri"] == "career-context://current").unwrap();
    assert_eq!(r["mimeType"], "text/markdown");
}

#[test]
fn the_resource_is_the_file_read_fresh_on_each_request() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.md");
    fs::copy(example("career-context.md"), &path).unwrap();
    let mut s = with_context(&path);
    assert_eq!(read_context(&mut s), fs::read_to_string(&path).unwrap());
    fs::write(&path, "# Edited - now\n").unwrap();
    assert_eq!(read_context(&mut s), "# Edited - now\n");
}

#[test]
fn missing_context_gives_a_notice_not_an_error() {
    let mut s = Server::mcp(&[]);
    let text = read_context(&mut s);
    assert!(text.contains("not found") && text.contains("vitaecontext context init"), "{text}");
    assert!(text.contains("--context") && text.contains("VITAECONTEXT_CAREER_CONTEXT"), "{text}");
    let r = call(&mut s, "get_career_context", json!({}));
    assert_eq!(r["isError"], true);
    assert!(tool_text(&r).contains("context init"));
    let r = call(&mut s, "validate_career_context", json!({}));
    assert_eq!(r["isError"], true);
}

#[test]
fn ambiguous_home_files_are_named_and_nothing_is_chosen() {
    let cmd = Cmd::new(["mcp"]);
    let dir = cmd.home.path().join(".vitaecontext");
    fs::create_dir(&dir).unwrap();
    fs::copy(example("career-context.md"), dir.join("ada-career-context.md")).unwrap();
    fs::copy(example("career-context.md"), dir.join("work.context.md")).unwrap();
    let mut s = Server::init(cmd);
    let text = read_context(&mut s);
    assert!(text.contains("ada-career-context.md") && text.contains("work.context.md"), "{text}");
    assert!(!text.contains("Rowan Vale"), "no file may be chosen");
    let r = call(&mut s, "get_career_context", json!({"for": "cv"}));
    assert_eq!(r["isError"], true);
    assert!(tool_text(&r).contains("work.context.md"));
}

#[test]
fn selection_order_flag_env_canonical_single_candidate() {
    let write = |p: &std::path::Path, name: &str| {
        let text = fs::read_to_string(example("career-context.md")).unwrap().replace("Rowan Vale", name);
        fs::write(p, text).unwrap();
    };
    let cmd = Cmd::new(["mcp"]);
    let vc = cmd.home.path().join(".vitaecontext");
    fs::create_dir(&vc).unwrap();
    write(&vc.join("only-career-context.md"), "Only Candidate");
    let mut s = Server::init(cmd);
    assert!(read_context(&mut s).contains("Only Candidate"));
    drop(s);

    let home_dir = tempfile::tempdir().unwrap();
    let home = home_dir.path().to_path_buf();
    let vc = home.join(".vitaecontext");
    fs::create_dir(&vc).unwrap();
    write(&vc.join("only-career-context.md"), "Only Candidate");
    write(&vc.join("career-context.md"), "Canonical Person");
    let env_file = home.join("env.md");
    write(&env_file, "Env Person");
    let flag_file = home.join("flag.md");
    write(&flag_file, "Flag Person");
    let mut s = Server::init(Cmd::new(["mcp"]).env("HOME", &home));
    assert!(read_context(&mut s).contains("Canonical Person"));
    drop(s);

    let mut s = Server::init(Cmd::new(["mcp"]).env("HOME", &home).env("VITAECONTEXT_CAREER_CONTEXT", &env_file));
    assert!(read_context(&mut s).contains("Env Person"));
    drop(s);

    let mut s = Server::init(
        Cmd::new(["mcp", "--context-path", flag_file.to_str().unwrap()])
            .env("HOME", &home)
            .env("VITAECONTEXT_CAREER_CONTEXT", &env_file),
    );
    assert!(read_context(&mut s).contains("Flag Person"));
    drop(s);

    // `~` expands in the environment value too.
    let mut s = Server::init(Cmd::new(["mcp"]).env("HOME", &home).env("VITAECONTEXT_CAREER_CONTEXT", "~/env.md"));
    assert!(read_context(&mut s).contains("Env Person"));
}

#[test]
fn a_missing_configured_file_is_explained() {
    let mut s = Server::mcp(&["--context", "/nonexistent/ctx.md"]);
    let text = read_context(&mut s);
    assert!(text.contains("does not exist") && text.contains("/nonexistent/ctx.md"), "{text}");
    let r = call(&mut s, "get_career_context", json!({}));
    assert_eq!(r["isError"], true);
}

#[test]
fn get_career_context_returns_the_packet_for_each_surface() {
    let mut s = with_context(&example("career-context.md"));
    for surface in ["cv", "github", "linkedin", "portfolio", "x", "general"] {
        let r = call(&mut s, "get_career_context", json!({"for": surface}));
        assert!(r.get("isError").is_none_or(|e| e == false), "{r}");
        let text = tool_text(&r);
        assert!(text.starts_with(&format!("# Career Context packet - {surface}\n")), "{text}");
        assert!(text.contains("name: \"Rowan Vale\""));
    }
    let default = call(&mut s, "get_career_context", json!({}));
    assert!(tool_text(&default).starts_with("# Career Context packet - general\n"));
    let cv = call(&mut s, "get_career_context", json!({"for": "cv"}));
    assert!(tool_text(&cv).contains("## LANGUAGES") && !tool_text(&cv).contains("## PUBLIC PROFILE SNAPSHOT"));
}

#[test]
fn an_invalid_file_is_an_error_result_naming_the_first_errors() {
    let mut s = with_context(&example("broken/reversed_date_range.md"));
    let r = call(&mut s, "get_career_context", json!({"for": "cv"}));
    assert_eq!(r["isError"], true);
    let text = tool_text(&r);
    assert!(text.contains("line 38") && text.contains("reversed_date_range"), "{text}");
}

#[test]
fn bad_arguments_are_invalid_params() {
    let mut s = with_context(&example("career-context.md"));
    for args in [
        json!({"for": "tiktok"}),
        json!({"for": 3}),
        json!({"for": "cv", "extra": 1}),
        json!({"for": "CV"}),
        json!({"for": {"cv": null}}),
    ] {
        let e = s.err("tools/call", json!({"name": "get_career_context", "arguments": args}));
        assert_eq!(e["code"], -32602, "{args}");
    }
    let e = s.err("tools/call", json!({"name": "validate_career_context", "arguments": {"path": "/etc/passwd"}}));
    assert_eq!(e["code"], -32602);
    let e = s.err("tools/call", json!({"name": "validate_career_context", "arguments": "x"}));
    assert_eq!(e["code"], -32602);
}

#[test]
fn validate_career_context_returns_both_result_shapes() {
    let mut s = with_context(&example("broken/placeholder.md"));
    let r = call(&mut s, "validate_career_context", json!({}));
    assert!(r.get("isError").is_none(), "an invalid file is a result, not a tool error: {r}");
    let v: Value = serde_json::from_str(tool_text(&r)).unwrap();
    assert_eq!(v["schemaVersion"], 2);
    assert_eq!(v["valid"], false);
    assert_eq!(v["path"], example("broken/placeholder.md").to_str().unwrap());
    assert_eq!(v["sections"], v["sectionNames"]);
    assert_eq!(v["sectionNames"][0], "quick reference");
    let e = &v["errors"][0];
    assert_eq!(
        (e["code"].as_str(), e["line"].as_u64(), e["severity"].as_str()),
        (Some("placeholder"), Some(105), Some("error"))
    );
    assert!(e["column"].as_u64().unwrap() >= 1 && e["endColumn"].as_u64() > e["column"].as_u64());
    assert_eq!(v["warnings"], json!([]));
}
