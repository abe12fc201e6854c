// The MCP handshake, ping, the order rules around initialize, and the empty lists.

use serde_json::json;

use crate::util::Server;

fn contract_initialize_result() -> serde_json::Value {
    json!({
        "protocolVersion": "2024-11-05",
        "capabilities": {
            "resources": { "listChanged": false },
            "tools": { "listChanged": false },
            "prompts": { "listChanged": false }
        },
        "serverInfo": { "name": "vitaecontext", "version": "2.3.0" }
    })
}

#[test]
fn initialize_answers_exactly_the_contract() {
    let mut s = Server::start(&["mcp"]);
    let r = s.initialize();
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": 0, "result": contract_initialize_result()}));
}

#[test]
fn a_newer_protocol_request_gets_its_own_revision() {
    let mut s = Server::start(&["mcp"]);
    let r = s.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
    );
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn initialize_without_params_is_treated_like_empty_params() {
    let mut s = Server::start(&["mcp"]);
    s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}));
    assert_eq!(s.recv()["result"], contract_initialize_result());
}

#[test]
fn initialized_notification_is_silent_and_ping_works_any_time() {
    let mut s = Server::start(&["mcp"]);
    assert_eq!(s.request(1, "ping", json!({}))["result"], json!({}));
    s.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(s.recv()["result"], json!({}));
    s.initialize();
    // The initialized notification sent by `initialize()` produced nothing: the next frame is
    // the ping's answer.
    assert_eq!(s.request("p", "ping", json!({}))["result"], json!({}));
}

#[test]
fn requests_before_initialize_get_a_clear_error_and_the_server_keeps_running() {
    let mut s = Server::start(&["mcp"]);
    // server/discover (2026-07-28) is answered before initialize: it is how dual-era clients
    // probe; the handshake still works after it.
    assert_eq!(s.ok("server/discover", json!({}))["supportedVersions"], json!(["2026-07-28"]));
    let e = s.err("tools/list", json!({}));
    assert_eq!(e["code"], -32600);
    assert!(e["message"].as_str().unwrap().contains("initialize"), "{e}");
    s.initialize();
    assert!(s.ok("tools/list", json!({}))["tools"].is_array());
}

#[test]
fn a_second_initialize_is_refused() {
    let mut s = Server::mcp(&[]);
    let r = s.request(
        9,
        "initialize",
        json!({"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
    );
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(s.ok("ping", json!({})), json!({}));
}

#[test]
fn every_list_exists_accepts_a_cursor_and_missing_params_equal_empty_ones() {
    let mut s = Server::mcp(&[]);
    for (method, key) in [
        ("tools/list", "tools"),
        ("prompts/list", "prompts"),
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
    ] {
        let with_empty = s.ok(method, json!({}));
        s.send(&json!({"jsonrpc": "2.0", "id": "bare", "method": method}));
        let bare = s.recv();
        assert_eq!(bare["result"], with_empty, "{method}");
        assert!(with_empty[key].is_array(), "{method}: {with_empty}");
        assert!(with_empty.get("nextCursor").is_none(), "{method}");
        // A cursor we never issued is refused, not silently ignored.
        assert_eq!(s.err(method, json!({"cursor": "not-a-cursor"}))["code"], -32602, "{method}");
        assert_eq!(s.err(method, json!({"cursor": 5}))["code"], -32602, "{method}");
    }
}
