// Every MCP revision over real stdio: what `initialize` negotiates, the fields each handshake
// revision adds, batches where a revision allows them, and the 2026-07-28 stateless era.

use serde_json::{Value, json};

use std::fs;
use std::time::Duration;

use crate::util::{Server, copy_dir, example};

const HANDSHAKE: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn args() -> Vec<String> {
    let context = example("career-context.md");
    let root = example("vitaegraph");
    vec!["mcp".into(), "--context".into(), context.display().to_string(), "--root".into(), root.display().to_string()]
}

fn start() -> Server {
    let args = args();
    Server::start(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A server initialized at `revision`, and the `initialize` result.
fn handshake(revision: &str) -> (Server, Value) {
    let mut s = start();
    let r = s.request(
        0,
        "initialize",
        json!({"protocolVersion": revision, "capabilities": {}, "clientInfo": {"name": "eras", "version": "1"}}),
    );
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    (s, r["result"].clone())
}

fn envelope(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "eras", "version": "1"}
    })
}

/// `params` with the 2026-07-28 envelope added.
fn modern(mut params: Value) -> Value {
    params["_meta"] = envelope("2026-07-28");
    params
}

#[test]
fn initialize_echoes_each_handshake_revision_and_answers_the_latest_otherwise() {
    for revision in HANDSHAKE {
        assert_eq!(handshake(revision).1["protocolVersion"], revision);
    }
    for other in ["2026-07-28", "2099-12-31", "draft"] {
        assert_eq!(handshake(other).1["protocolVersion"], "2025-11-25", "{other}");
    }
}

#[test]
fn each_revision_gets_exactly_the_fields_it_defines() {
    let fields = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let (_, r) = handshake("2024-11-05");
    assert!(r.get("instructions").is_none() && r["capabilities"].get("completions").is_none(), "{r}");
    let (_, r) = handshake("2025-03-26");
    assert!(r["instructions"].as_str().unwrap().contains("get_career_context"), "{r}");
    assert_eq!(r["capabilities"]["completions"], json!({}));
    assert_eq!(fields(&r["serverInfo"]), ["name", "version"]);
    let (_, r) = handshake("2025-06-18");
    assert_eq!(fields(&r["serverInfo"]), ["name", "title", "version"]);
    let (_, r) = handshake("2025-11-25");
    assert_eq!(fields(&r["serverInfo"]), ["description", "name", "title", "version", "websiteUrl"]);
    assert_eq!(r["serverInfo"]["websiteUrl"], "https://github.com/vitaecontext/vitaecontext");
    for revision in HANDSHAKE {
        let caps = handshake(revision).1["capabilities"].clone();
        let later = revision != "2024-11-05";
        assert_eq!(caps["tools"]["listChanged"], later, "{revision}");
        assert_eq!(caps["resources"].get("subscribe").is_some(), later, "{revision}: {caps}");
    }
}

#[test]
fn tools_prompts_and_resources_grow_with_the_revision() {
    let (mut s, _) = handshake("2024-11-05");
    for t in s.ok("tools/list", json!({}))["tools"].as_array().unwrap() {
        let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "description", "inputSchema"], "{t}");
    }
    assert!(s.ok("prompts/list", json!({}))["prompts"][0].get("title").is_none());

    let (mut s, _) = handshake("2025-03-26");
    let tools = s.ok("tools/list", json!({}))["tools"].clone();
    for t in tools.as_array().unwrap() {
        assert_eq!(t["annotations"], json!({"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}));
        assert!(t.get("title").is_none() && t.get("outputSchema").is_none(), "{t}");
    }

    for revision in ["2025-06-18", "2025-11-25"] {
        let (mut s, _) = handshake(revision);
        let tools = s.ok("tools/list", json!({}))["tools"].clone();
        let by_name = |n: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == n).unwrap().clone();
        assert_eq!(by_name("search_vitaegraph")["title"], "Search the VitaeGraph");
        assert!(by_name("search_vitaegraph")["outputSchema"]["properties"]["records"].is_object());
        assert!(by_name("validate_career_context")["outputSchema"].is_object());
        assert!(by_name("get_career_context").get("outputSchema").is_none());
        assert!(s.ok("prompts/list", json!({}))["prompts"][0]["title"].is_string());
        let resources = s.ok("resources/list", json!({}))["resources"].clone();
        assert!(resources.as_array().unwrap().iter().all(|r| r["title"].is_string()), "{resources}");
        let templates = s.ok("resources/templates/list", json!({}))["resourceTemplates"].clone();
        assert!(templates.as_array().unwrap().iter().all(|r| r["title"].is_string()), "{templates}");
    }
}

#[test]
fn structured_content_and_resource_links_come_with_2025_06_18() {
    let call = json!({"name": "search_vitaegraph", "arguments": {"query": "cache"}});
    let (mut s, _) = handshake("2025-03-26");
    let r = s.ok("tools/call", call.clone());
    assert!(r.get("structuredContent").is_none());
    assert_eq!(r["content"].as_array().unwrap().len(), 1);

    let (mut s, _) = handshake("2025-06-18");
    let r = s.ok("tools/call", call);
    let structured = r["structuredContent"].clone();
    assert!(structured["matchCount"].as_u64().unwrap() > 0, "{r}");
    // The text block stays, and says the same as the structured content.
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, structured);
    let link = &r["content"][1];
    assert_eq!(link["type"], "resource_link");
    let id = structured["records"][0]["id"].as_str().unwrap();
    assert_eq!(link["uri"], format!("vitaegraph://record/{id}"));
    let read = s.ok("resources/read", json!({"uri": link["uri"]}));
    assert!(read["contents"][0]["text"].is_string());

    let v = s.ok("tools/call", json!({"name": "validate_career_context"}));
    assert_eq!(v["structuredContent"]["valid"], true, "{v}");
}

#[test]
fn batches_are_answered_up_to_2025_03_26_and_refused_after() {
    let batch =
        json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]);
    for revision in ["2024-11-05", "2025-03-26"] {
        let (mut s, _) = handshake(revision);
        s.send(&batch);
        assert_eq!(s.recv().as_array().map(Vec::len), Some(2), "{revision}");
    }
    for revision in ["2025-06-18", "2025-11-25"] {
        let (mut s, _) = handshake(revision);
        s.send(&batch);
        let r = s.recv();
        assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32600)), "{revision}: {r}");
        assert_eq!(s.ok("ping", json!({})), json!({}), "the server lives on");
    }
}

#[test]
fn server_discover_describes_the_modern_era() {
    let mut s = start();
    let d = s.ok("server/discover", json!({"_meta": envelope("2026-07-28")}));
    assert_eq!(d["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!((d["resultType"].clone(), d["cacheScope"].clone()), (json!("complete"), json!("private")));
    assert!(d["ttlMs"].is_u64() && d["instructions"].is_string() && d["capabilities"]["tools"].is_object());
    assert_eq!(d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "vitaecontext");
    let e = s.err("server/discover", json!({"_meta": envelope("2025-11-25")}));
    assert_eq!(e["code"], -32022);
    assert_eq!(e["data"]["supported"], d["supportedVersions"], "-32022 names the list discover gives");
    // An unknown version is -32022 whatever else `_meta` holds: a later revision may shape it
    // otherwise, and its client falls back only on -32022 (found in review: -32602).
    for meta in [
        json!({"io.modelcontextprotocol/protocolVersion": "2099-01-01"}),
        json!({"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": "x"}),
        json!({"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": "x"}),
    ] {
        let e = s.err("server/discover", json!({"_meta": meta}));
        assert_eq!((e["code"].clone(), e["data"]["requested"].clone()), (json!(-32022), json!("2099-01-01")), "{meta}");
    }
    let e = s.err("tools/list", json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}));
    assert_eq!(e["code"], -32602, "the served version still needs its capabilities: {e}");
}

#[test]
fn modern_requests_are_stateless_and_carry_result_type_and_cache_hints() {
    let mut s = start();
    for (method, key) in [
        ("tools/list", "tools"),
        ("prompts/list", "prompts"),
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
    ] {
        let r = s.ok(method, modern(json!({})));
        assert!(r[key].is_array(), "{method}: {r}");
        assert_eq!(r["resultType"], "complete", "{method}");
        assert_eq!(r["cacheScope"], "private", "{method}");
        assert!(r["ttlMs"].is_u64(), "{method}");
    }
    let cc = s.ok("resources/read", modern(json!({"uri": "career-context://current"})));
    assert_eq!((cc["ttlMs"].clone(), cc["cacheScope"].clone()), (json!(0), json!("private")), "read fresh");
    let wiki = s.ok("resources/read", modern(json!({"uri": "vitaecontext://wiki/build"})));
    assert!(wiki["ttlMs"].as_u64().unwrap() > 0);
    let call = s.ok("tools/call", modern(json!({"name": "validate_career_context", "arguments": {}})));
    assert_eq!(call["resultType"], "complete");
    assert!(call.get("ttlMs").is_none(), "tools/call is not cacheable: {call}");
    assert_eq!(call["structuredContent"]["valid"], true);
    let p = s.ok("prompts/get", modern(json!({"name": "linkedin_audit", "arguments": {}})));
    assert_eq!(p["resultType"], "complete");
    let c = s.ok(
        "completion/complete",
        modern(json!({"ref": {"type": "ref/resource", "uri": "vitaecontext://wiki/{module}"}, "argument": {"name": "module", "value": "b"}})),
    );
    assert_eq!((c["resultType"].clone(), c["completion"]["values"].clone()), (json!("complete"), json!(["build"])));
}

#[test]
fn modern_errors_follow_2026_07_28() {
    let mut s = start();
    // Resource not found is -32602 there (never -32002), and error.data.uri stays.
    for uri in ["vitaegraph://record/project:nope", "nope://x", "vitaecontext://wiki/nope"] {
        let e = s.err("resources/read", modern(json!({"uri": uri})));
        assert_eq!(e["code"], -32602, "{uri}: {e}");
        assert_eq!(e["data"]["uri"], uri);
    }
    let missing = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    assert_eq!(s.err("tools/list", missing)["code"], -32602);
    let e = s.err("tools/list", json!({"_meta": envelope("2024-11-05")}));
    assert_eq!(e["data"], json!({"supported": ["2026-07-28"], "requested": "2024-11-05"}));
    for removed in ["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"] {
        assert_eq!(s.err(removed, modern(json!({"uri": "career-context://current"})))["code"], -32601, "{removed}");
    }
    // Handshake-era requests are still refused before initialize, and the handshake still works
    // on the same process (one process serves both eras).
    assert_eq!(s.err("tools/list", json!({}))["code"], -32600);
    s.initialize();
    let legacy = s.ok("tools/list", json!({}));
    assert!(legacy.get("resultType").is_none() && legacy.get("ttlMs").is_none(), "{legacy}");
    let e = s.err("resources/read", json!({"uri": "nope://x"}));
    assert_eq!(e["code"], -32002, "2024-11-05 keeps its code");
}

/// A server over a copy of the example files, which the test then changes.
fn on_copies() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf, Server) {
    let tmp = tempfile::tempdir().unwrap();
    let context = tmp.path().join("career-context.md");
    fs::copy(example("career-context.md"), &context).unwrap();
    let root = tmp.path().join("vitaegraph");
    copy_dir(&example("vitaegraph"), &root);
    let s = Server::start(&["mcp", "--context", context.to_str().unwrap(), "--root", root.to_str().unwrap()]);
    (tmp, context, root, s)
}

/// Appends to a file so that its stamp and length change (the poller runs every 2 s).
fn touch(path: &std::path::Path) {
    std::thread::sleep(Duration::from_millis(20));
    let mut text = fs::read_to_string(path).unwrap();
    text.push('\n');
    fs::write(path, text).unwrap();
}

#[test]
fn a_subscribed_career_context_sends_resources_updated_when_its_file_changes() {
    let (_tmp, context, _root, mut s) = on_copies();
    s.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e", "version": "1"}}),
    );
    assert_eq!(s.ok("resources/subscribe", json!({"uri": "career-context://current"})), json!({}));
    let e = s.err("resources/subscribe", json!({"uri": "vitaecontext://wiki/build"}));
    assert_eq!((e["code"].clone(), e["data"]["uri"].clone()), (json!(-32602), json!("vitaecontext://wiki/build")));
    touch(&context);
    let n = s.recv();
    assert_eq!(
        n,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "career-context://current"}})
    );
}

#[test]
fn the_contract_revision_has_no_subscribe() {
    let (mut s, _) = handshake("2024-11-05");
    assert_eq!(s.err("resources/subscribe", json!({"uri": "career-context://current"}))["code"], -32601);
}

#[test]
fn a_listen_stream_gets_graph_changes_tagged_with_its_id() {
    let (_tmp, _context, root, mut s) = on_copies();
    s.send(&json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": modern(json!({
        "notifications": {"resourcesListChanged": true, "resourceSubscriptions": ["vitaegraph://index"]}
    }))}));
    let ack = s.recv();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-1");
    // Other requests are answered while the stream is open.
    assert!(s.ok("tools/list", modern(json!({})))["tools"].is_array());
    touch(&root.join(".generated/graph.json"));
    let mut got: Vec<String> = (0..2)
        .map(|_| {
            let n = s.recv();
            assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-1", "{n}");
            n["method"].as_str().unwrap().to_owned()
        })
        .collect();
    got.sort();
    assert_eq!(got, ["notifications/resources/list_changed", "notifications/resources/updated"]);
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "listen-1"}}));
    let (status, rest, _) = s.finish();
    assert!(status.success() && rest.is_empty(), "a cancelled stream gets no result: {rest:?}");
}

/// Guards the contract: a 2024-11-05 session answers byte for byte what the server answered
/// before it spoke other revisions. The responses were recorded from the build before this
/// change (the repository root written as `{ROOT}`), then re-recorded once for the deliberate
/// additions of the grounding work, which apply in every revision: the `check_claims` and
/// `match_job` tools, and the VitaeGraph digest in the career prompts; and once more for the
/// format guide's paragraph on the keys `check` reads (`never_claim`), and its sentence on what
/// `match` does with that key; and once more for the `career-context://json-resume` resource and
/// the career prompts' rule on private records. Each response is compared
/// as the harness re-serialises it, which keeps key order and number spelling. To re-record
/// after a deliberate change, run this test with `VITAECONTEXT_RECORD_GOLDEN=1` and review the
/// diff of the fixture.
#[test]
fn a_2024_11_05_session_answers_byte_for_byte_as_before() {
    let fixtures = crate::util::repo_root().join("tests/fixtures");
    let requests = fs::read_to_string(fixtures.join("mcp-2024-11-05.requests.jsonl")).unwrap();
    let golden = fs::read_to_string(fixtures.join("mcp-2024-11-05.responses.jsonl")).unwrap();
    let mut s = start();
    let mut lines = Vec::new();
    for request in requests.lines() {
        s.send_raw(format!("{request}\n").as_bytes());
        let response = s.recv();
        lines.push((response["id"].as_i64().unwrap(), serde_json::to_string(&response).unwrap()));
    }
    lines.sort();
    let root = crate::util::repo_root().display().to_string();
    let ours: String = lines.iter().map(|(_, l)| format!("{}\n", l.replace(&root, "{ROOT}"))).collect();
    if std::env::var_os("VITAECONTEXT_RECORD_GOLDEN").is_some() {
        fs::write(fixtures.join("mcp-2024-11-05.responses.jsonl"), &ours).unwrap();
    }
    for (i, (a, b)) in ours.lines().zip(golden.lines()).enumerate() {
        assert_eq!(a, b, "response {i} differs");
    }
    assert_eq!(ours.lines().count(), golden.lines().count());
}
