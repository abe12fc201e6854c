// The VitaeGraph over MCP: the index resource, records with every confinement case, listing,
// completion and search, over real stdio.

use std::fs;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::util::{Cmd, Server, copy_dir, example, tool_text};

const SECRET: &str = "TOP-SECRET-CONTENT";

/// A copy of the example graph, indexed, inside a temp dir that also holds an `outside` folder
/// with a secret and a `root-sib` folder whose name starts with the root's.
struct Fixture {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("root");
        copy_dir(&example("vitaegraph"), &root);
        for d in ["outside", "root-sib"] {
            fs::create_dir_all(base.join(d)).unwrap();
            fs::write(base.join(d).join("secret.md"), SECRET).unwrap();
        }
        Fixture { _tmp: tmp, base, root }
    }

    fn server(&self) -> Server {
        Server::mcp(&["--root", self.root.to_str().unwrap()])
    }

    /// Rewrites graph.json with extra nodes pointing at `path`s, one per (id, path).
    fn add_nodes(&self, nodes: &[(&str, &str)]) {
        let file = self.root.join(".generated/graph.json");
        let mut g: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
        for (id, path) in nodes {
            g["nodes"].as_array_mut().unwrap().push(json!({
                "id": id, "type": "Project", "label": id, "path": path, "parent": null, "tags": []
            }));
        }
        fs::write(&file, serde_json::to_string_pretty(&g).unwrap()).unwrap();
    }
}

fn read(s: &mut Server, uri: &str) -> Value {
    let id = json!(format!("read {uri}"));
    s.request(id, "resources/read", json!({"uri": uri}))
}

fn assert_refused(r: &Value, uri: &str, code: i64) {
    let e = &r["error"];
    assert_eq!(e["code"], code, "{uri}: {r}");
    assert_eq!(e["data"]["uri"], uri, "{uri}");
    let text = r.to_string();
    assert!(!text.contains(SECRET), "{uri} leaked content");
    assert!(!text.contains("/tmp") && !text.contains("/root/"), "{uri} leaked a path: {text}");
}

#[test]
fn index_and_records_are_served() {
    let f = Fixture::new();
    let mut s = f.server();
    let r = read(&mut s, "vitaegraph://index");
    assert_eq!(r["result"]["contents"][0]["mimeType"], "application/json");
    let text = r["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(text, fs::read_to_string(f.root.join(".generated/graph.json")).unwrap());
    let r = read(&mut s, "vitaegraph://record/project:cachewarden");
    assert_eq!(r["result"]["contents"][0]["mimeType"], "text/markdown");
    assert!(r["result"]["contents"][0]["text"].as_str().unwrap().contains("# cachewarden"));
    // Percent-decoded once.
    let r = read(&mut s, "vitaegraph://record/project%3Acachewarden");
    assert!(r["result"]["contents"][0]["text"].as_str().unwrap().contains("# cachewarden"));
}

#[test]
fn a_missing_index_says_how_to_build_it() {
    let f = Fixture::new();
    fs::remove_dir_all(f.root.join(".generated")).unwrap();
    let mut s = f.server();
    let r = read(&mut s, "vitaegraph://index");
    assert_refused(&r, "vitaegraph://index", -32002);
    assert!(r["error"]["message"].as_str().unwrap().contains("vitaecontext graph index"));
    assert_refused(
        &read(&mut s, "vitaegraph://record/project:cachewarden"),
        "vitaegraph://record/project:cachewarden",
        -32002,
    );
    let r = s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": {"query": "rust"}}));
    assert_eq!(r["isError"], true);
    assert!(tool_text(&r).contains("vitaecontext graph index"));
}

/// Found in review: after an index run of an invalid graph (which writes only its
/// diagnostics), a search told the model to have `graph index` run, which cannot help. It now
/// says the graph is invalid and points at `graph validate`.
#[test]
fn a_search_of_an_invalid_graph_says_to_fix_it() {
    let f = Fixture::new();
    let twin = f.root.join("projects/twin/project.md");
    fs::create_dir_all(twin.parent().unwrap()).unwrap();
    fs::write(&twin, "---\ntype: project\nid: project:cachewarden\ntitle: Twin\n---\nSame id.\n").unwrap();
    let (st, _, _) = Cmd::new(["graph", "index", "--root", f.root.to_str().unwrap()]).output();
    assert!(!st.success(), "an invalid graph is a failed index");
    let mut s = f.server();
    let r = s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": {"query": "rust"}}));
    assert_eq!(r["isError"], true);
    let text = tool_text(&r);
    assert!(text.contains("invalid") && text.contains("vitaecontext graph validate"), "{text}");
    assert!(!text.contains("/tmp"), "no path of the machine: {text}");
    // The resources say the same (found in review: they said to run `graph index`).
    for uri in ["vitaegraph://index", "vitaegraph://record/project:cachewarden"] {
        let r = read(&mut s, uri);
        assert_refused(&r, uri, -32002);
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains("is invalid (") && message.contains("vitaecontext graph validate"), "{message}");
        assert!(message.contains("--root DIR"), "a graph elsewhere is named by its root: {message}");
        assert!(!message.contains("/tmp"), "no path of the machine: {message}");
    }
}

/// Found in review: a torn `search-index.json` was answered as "not found", with nothing on
/// stderr at the default log level. The answer now says the file cannot be loaded and why
/// (with no path of the machine), and the server logs it once as a warning.
#[test]
fn a_damaged_search_index_is_named_as_damaged_not_missing() {
    let f = Fixture::new();
    let generated = f.root.join(".generated");
    let _ = fs::remove_file(generated.join("search-index.bin"));
    let json = generated.join("search-index.json");
    let torn = fs::read(&json).unwrap()[..1000].to_vec();
    fs::write(&json, torn).unwrap();
    let mut s = f.server();
    for _ in 0..2 {
        let r = s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": {"query": "rust"}}));
        assert_eq!(r["isError"], true);
        let text = tool_text(&r);
        assert!(text.contains("cannot be loaded: it is not valid JSON") && !text.contains("not found"), "{text}");
        assert!(text.contains("vitaecontext graph index") && !text.contains("/tmp"), "{text}");
    }
    let (_, _, stderr) = s.finish();
    let warned: Vec<&str> = stderr.lines().filter(|l| l.contains("WARN") && l.contains("search-index.json")).collect();
    assert_eq!(warned.len(), 1, "warned once, on the first load: {stderr}");
}

/// A `graph.json` that is there but cannot be served (torn, or a folder) was answered "not
/// found", which sends the person looking for a file that is there. The answer says why, with
/// no path of the machine, and still how to write it again.
#[test]
fn an_unreadable_graph_is_named_as_such_not_missing() {
    let f = Fixture::new();
    let graph = f.root.join(".generated/graph.json");
    fs::write(&graph, "{\"nodes\": 3").unwrap();
    let mut s = f.server();
    let r = read(&mut s, "vitaegraph://index");
    assert_refused(&r, "vitaegraph://index", -32002);
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("unreadable: it is not valid JSON") && !message.contains("index not found"), "{message}");
    assert!(message.contains("vitaecontext graph index"), "{message}");
    drop(s);
    // Nothing of the file is quoted, however long (found in review: a 100 KB answer).
    let value = "INSIDE-VALUE-".repeat(10_000);
    fs::write(
        &graph,
        format!("{{\"version\":\"2.0.0\",\"source\":\"vitaegraph\",\"nodes\":\"{value}\",\"edges\":[]}}"),
    )
    .unwrap();
    let mut s = f.server();
    let r = read(&mut s, "vitaegraph://index");
    let message = r["error"]["message"].as_str().unwrap();
    // The kind of error, and no parser position: that goes to the server's stderr.
    assert!(message.contains("a value of the wrong type or shape"), "{message}");
    assert!(!message.contains("line") && !message.contains("column"), "{message}");
    assert!(!message.contains("INSIDE-VALUE") && message.len() < 300, "{message}");
    drop(s);
    fs::remove_file(&graph).unwrap();
    fs::create_dir(&graph).unwrap();
    let mut s = f.server();
    let r = read(&mut s, "vitaegraph://index");
    assert_refused(&r, "vitaegraph://index", -32002);
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("unreadable: refused: not a regular file"), "{message}");
}

#[test]
fn ids_are_checked_before_any_lookup() {
    let f = Fixture::new();
    let mut s = f.server();
    for uri in [
        "vitaegraph://record/project/cachewarden",
        "vitaegraph://record/project%2Fcachewarden",
        "vitaegraph://record/..%5C..%5Csecret",
    ] {
        // A slash or backslash after one percent-decoding is a malformed id: -32602, as
        // VitaeContext 2.3.0 answers it, with the URI.
        assert_refused(&read(&mut s, uri), uri, -32602);
    }
    for uri in ["vitaegraph://record/", "vitaegraph://record/%zz"] {
        // No record is available at a URI that cannot name one: -32002 with the URI (contract
        // section 6), as for an id the graph does not have.
        assert_refused(&read(&mut s, uri), uri, -32002);
    }
    for uri in [
        "vitaegraph://record/Project:cachewarden",
        "vitaegraph://record/project:",
        "vitaegraph://record/project:nope",
        "vitaegraph://record/..",
        "vitaegraph://record/project%253Acachewarden",
    ] {
        assert_refused(&read(&mut s, uri), uri, -32002);
    }
}

#[test]
fn stored_paths_that_escape_are_refused() {
    let f = Fixture::new();
    let outside = f.base.join("outside/secret.md");
    fs::write(f.root.join("nul.md"), b"has a \0 byte").unwrap();
    fs::write(f.root.join("latin1.md"), b"caf\xe9").unwrap();
    fs::write(f.root.join("big.md"), vec![b'x'; 5 * 1024 * 1024]).unwrap();
    std::os::unix::fs::symlink(&outside, f.root.join("link-out.md")).unwrap();
    std::os::unix::fs::symlink(f.base.join("outside"), f.root.join("dir-out")).unwrap();
    std::os::unix::fs::symlink("loop-b.md", f.root.join("loop-a.md")).unwrap();
    std::os::unix::fs::symlink("loop-a.md", f.root.join("loop-b.md")).unwrap();
    std::process::Command::new("mkfifo").arg(f.root.join("fifo.md")).status().unwrap();
    fs::create_dir(f.root.join("folder.md")).unwrap();
    let cases = [
        ("project:dotdot", "../outside/secret.md"),
        ("project:absolute", outside.to_str().unwrap()),
        ("project:sibling", "../root-sib/secret.md"),
        ("project:link-file", "link-out.md"),
        ("project:link-dir", "dir-out/secret.md"),
        ("project:loop", "loop-a.md"),
        ("project:fifo", "fifo.md"),
        ("project:folder", "folder.md"),
        ("project:big", "big.md"),
        ("project:nul", "nul.md"),
        ("project:hidden-dotdot", "projects/../../outside/secret.md"),
    ];
    f.add_nodes(&cases);
    let mut s = f.server();
    for (id, _) in cases {
        let uri = format!("vitaegraph://record/{id}");
        assert_refused(&read(&mut s, &uri), &uri, -32002);
    }
    // A refusal does not poison the rest.
    assert!(read(&mut s, "vitaegraph://record/project:cachewarden")["result"].is_object());
    // A record that is not UTF-8 is served as the index read it (U+FFFD), not "not found".
    f.add_nodes(&[("project:latin1", "latin1.md")]);
    let mut s = f.server();
    let r = read(&mut s, "vitaegraph://record/project:latin1");
    assert_eq!(r["result"]["contents"][0]["text"], "caf\u{fffd}", "{r}");
}

#[test]
fn a_symlinked_generated_folder_or_graph_leading_outside_is_not_served() {
    let f = Fixture::new();
    let out_gen = f.base.join("outside/.generated");
    fs::rename(f.root.join(".generated"), &out_gen).unwrap();
    std::os::unix::fs::symlink(&out_gen, f.root.join(".generated")).unwrap();
    let mut s = f.server();
    assert_refused(&read(&mut s, "vitaegraph://index"), "vitaegraph://index", -32002);
    drop(s);

    let f = Fixture::new();
    let moved = f.base.join("outside/graph.json");
    fs::rename(f.root.join(".generated/graph.json"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, f.root.join(".generated/graph.json")).unwrap();
    let mut s = f.server();
    assert_refused(&read(&mut s, "vitaegraph://index"), "vitaegraph://index", -32002);
}

#[test]
fn a_symlinked_root_works() {
    let f = Fixture::new();
    let alias = f.base.join("alias");
    std::os::unix::fs::symlink(&f.root, &alias).unwrap();
    let mut s = Server::mcp(&["--vitaegraph", alias.to_str().unwrap()]);
    assert!(read(&mut s, "vitaegraph://record/project:cachewarden")["result"].is_object());
}

#[test]
fn the_index_reloads_when_it_changes_on_disk() {
    let f = Fixture::new();
    let mut s = f.server();
    let search = |s: &mut Server, q: &str| -> Value {
        let r = s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": {"query": q}}));
        serde_json::from_str(tool_text(&r)).unwrap()
    };
    assert_eq!(search(&mut s, "zeppelin")["matchCount"], 0);
    assert!(read(&mut s, "vitaegraph://record/project:zeppelin")["error"].is_object());
    fs::create_dir_all(f.root.join("projects/zeppelin")).unwrap();
    fs::write(
        f.root.join("projects/zeppelin/project.md"),
        "---\ntype: project\nid: project:zeppelin\ntitle: Zeppelin\n---\n# Zeppelin\nAirships.\n",
    )
    .unwrap();
    let (st, _, err) = Cmd::new(["graph", "index", "--root", f.root.to_str().unwrap()]).output();
    assert!(st.success(), "{err}");
    assert_eq!(search(&mut s, "zeppelin")["records"][0]["id"], "project:zeppelin");
    assert!(read(&mut s, "vitaegraph://record/project:zeppelin")["result"].is_object());
}

#[test]
fn records_are_listed_paged_and_completed() {
    let f = Fixture::new();
    let mut s = f.server();
    let first = s.ok("resources/list", json!({}));
    let items = first["resources"].as_array().unwrap();
    assert!(items.iter().any(|r| r["uri"] == "vitaegraph://index"));
    let rec = items.iter().find(|r| r["uri"] == "vitaegraph://record/project:cachewarden").expect("records are listed");
    assert_eq!(rec["name"], "cachewarden: remote build-cache auditing");
    let templates = s.ok("resources/templates/list", json!({}));
    assert!(
        templates["resourceTemplates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["uriTemplate"] == "vitaegraph://record/{id}")
    );
    let c = s.ok(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "vitaegraph://record/{id}"}, "argument": {"name": "id", "value": "course:"}}),
    );
    assert_eq!(
        c["completion"]["values"],
        json!(["course:compilers", "course:databases", "course:distributed-systems"])
    );
}

#[test]
fn large_graphs_page_by_one_hundred() {
    let f = Fixture::new();
    for i in 0..230 {
        let dir = f.root.join(format!("projects/p{i:03}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("project.md"), format!("---\ntype: project\nid: project:p{i:03}\ntitle: P{i}\n---\nbody\n"))
            .unwrap();
    }
    let (st, _, err) = Cmd::new(["graph", "index", "--root", f.root.to_str().unwrap()]).output();
    assert!(st.success(), "{err}");
    let mut s = f.server();
    let mut cursor: Option<String> = None;
    let mut seen = Vec::new();
    loop {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let page = s.ok("resources/list", params);
        let items = page["resources"].as_array().unwrap();
        assert!(items.len() <= 100);
        seen.extend(items.iter().map(|r| r["uri"].as_str().unwrap().to_owned()));
        match page.get("nextCursor") {
            Some(c) => cursor = Some(c.as_str().unwrap().to_owned()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 6 + 21 + 230);
    let unique: std::collections::BTreeSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len());
}

#[test]
fn search_ranks_filters_and_validates_arguments() {
    let f = Fixture::new();
    let mut s = f.server();
    let search = |s: &mut Server, args: Value| -> Value {
        let r = s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": args}));
        assert!(r.get("isError").is_none(), "{r}");
        serde_json::from_str(tool_text(&r)).unwrap()
    };
    let ids = |v: &Value| -> Vec<String> {
        v["records"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect()
    };

    // Known order on the example: the records titled or tagged with the term come first.
    let r = search(&mut s, json!({"query": "flaky"}));
    assert_eq!(ids(&r)[..2], ["publication:flaky-tests-supply-chain", "project:flaky-quarantine"]);
    let r = search(&mut s, json!({"query": "cachewarden"}));
    assert_eq!(ids(&r)[0], "project:cachewarden");
    let hit = &r["records"][0];
    for key in ["id", "type", "title", "path", "tags", "score", "excerpt"] {
        assert!(hit.get(key).is_some(), "{key} missing: {hit}");
    }
    assert_eq!(hit["type"], "Project");

    let r = search(&mut s, json!({"type": "course"}));
    assert_eq!(ids(&r), ["course:compilers", "course:databases", "course:distributed-systems"]);
    assert_eq!(search(&mut s, json!({"type": "Course"}))["matchCount"], 3);
    let r = search(&mut s, json!({"tag": "RUST"}));
    assert!(ids(&r).contains(&"project:cachewarden".to_string()) && r["matchCount"].as_u64().unwrap() >= 3);
    let r = search(&mut s, json!({"query": "rust", "type": "publication"}));
    assert_eq!(ids(&r), ["publication:cache-poisoning-talk"]);
    let r = search(&mut s, json!({}));
    assert_eq!(r["matchCount"], 21);
    assert_eq!(r["records"].as_array().unwrap().len(), 20);
    let all = ids(&r);
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "no query lists in id order");

    for args in [json!({"type": "talk"}), json!({"query": 5}), json!({"limit": 3}), json!({"tag": ["a"]})] {
        assert_eq!(
            s.err("tools/call", json!({"name": "search_vitaegraph", "arguments": args.clone()}))["code"],
            -32602,
            "{args}"
        );
    }
    let tools = s.ok("tools/list", json!({}));
    let def = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "search_vitaegraph").unwrap();
    assert_eq!(
        def["inputSchema"],
        json!({"type": "object", "properties": {"query": {"type": "string"}, "type": {"type": "string"}, "tag": {"type": "string"}}, "additionalProperties": false})
    );
}

/// Every query's whole answer from a fresh server over `root`.
fn answers(root: &std::path::Path, queries: &[Value]) -> Vec<Value> {
    let mut s = Server::mcp(&["--root", root.to_str().unwrap()]);
    queries
        .iter()
        .map(|args| {
            let r = s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": args}));
            serde_json::from_str(tool_text(&r)).unwrap()
        })
        .collect()
}

// `graph index` writes the search-index sidecar; a server answers the same with it, without
// it, and with a damaged or stale one (which it ignores: the JSON is the contract).
#[test]
fn a_search_answers_the_same_with_and_without_the_sidecar() {
    let f = Fixture::new();
    let (st, _, err) = Cmd::new(["graph", "index", "--root", f.root.to_str().unwrap()]).output();
    assert!(st.success(), "{err}");
    let bin = f.root.join(".generated/search-index.bin");
    let sidecar = fs::read(&bin).expect("graph index writes the sidecar");
    assert_eq!(&sidecar[..8], b"VCSIDX\r\n");
    let queries = [
        json!({"query": "rust"}),
        json!({"query": "cache build"}),
        json!({"query": "ci", "type": "project"}),
        json!({"tag": "rust"}),
        json!({"query": "cachewarden"}),
        json!({}),
    ];
    let with = answers(&f.root, &queries);
    assert!(with[0]["matchCount"].as_u64().unwrap() > 0, "{}", with[0]);
    fs::remove_file(&bin).unwrap();
    assert_eq!(answers(&f.root, &queries), with, "without the sidecar");
    let mut damaged = sidecar.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 0x55;
    fs::write(&bin, &damaged).unwrap();
    assert_eq!(answers(&f.root, &queries), with, "with a damaged sidecar");
    // A sidecar of another graph, written after the JSON: its length does not match.
    let json = f.root.join(".generated/search-index.json");
    let compact: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    fs::write(&json, serde_json::to_vec(&compact).unwrap()).unwrap();
    fs::write(&bin, &sidecar).unwrap();
    assert_eq!(answers(&f.root, &queries), with, "with a stale sidecar");
}

/// graph.json and search-index.json from two index runs (as a kill between their renames
/// leaves them): search is refused with how to mend it, not answered with records the graph
/// cannot serve; the next index run mends it.
#[test]
fn a_mixed_generated_set_is_refused_until_indexed_again() {
    let f = Fixture::new();
    let root = f.root.to_str().unwrap();
    let index = || assert!(Cmd::new(["graph", "index", "--root", root]).output().0.success());
    index();
    let search = f.root.join(".generated/search-index.json");
    let old = fs::read(&search).unwrap();
    fs::create_dir_all(f.root.join("projects/newer")).unwrap();
    fs::write(
        f.root.join("projects/newer/project.md"),
        "---\ntype: project\nid: project:newer\ntitle: Rust newer\n---\nRust.\n",
    )
    .unwrap();
    index();
    fs::write(&search, &old).unwrap();
    let mut s = f.server();
    let r = s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": {"query": "rust"}}));
    assert_eq!(r["isError"], true, "{r}");
    let text = tool_text(&r);
    assert!(text.contains("do not match") && text.contains("vitaecontext graph index"), "{text}");
    drop(s);
    index();
    let mut s = f.server();
    let r = s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": {"query": "rust"}}));
    assert_ne!(r["isError"], true, "{r}");
}

/// What a run killed between its two renames leaves: its new graph.json beside the search
/// index and generation marker of the run before. The records are the same ones (the same
/// ids, one title changed), so only the marker tells: search is refused. A `touch` of the
/// files (another stamp, the same bytes) is still one set.
#[test]
fn a_run_killed_between_its_renames_is_refused_by_the_marker() {
    let f = Fixture::new();
    let root = f.root.to_str().unwrap();
    let index = || assert!(Cmd::new(["graph", "index", "--root", root]).output().0.success());
    index();
    let generated = f.root.join(".generated");
    let before = ["search-index.json", "set.bin"].map(|n| (n, fs::read(generated.join(n)).unwrap()));
    let record = fs::read_dir(f.root.join("projects"))
        .unwrap()
        .map(|e| e.unwrap().path().join("project.md"))
        .find(|p| p.is_file())
        .expect("an example project");
    let text = fs::read_to_string(&record).unwrap();
    let retitled = text.replacen("\ntitle: ", "\ntitle: Renamed ", 1);
    assert_ne!(text, retitled, "{}", record.display());
    fs::write(&record, retitled).unwrap();
    index();
    let search =
        |s: &mut Server| s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": {"query": "renamed"}}));
    // Touched only: the same bytes under another stamp.
    let touched = |name: &str| {
        let p = generated.join(name);
        let bytes = fs::read(&p).unwrap();
        fs::remove_file(&p).unwrap();
        fs::write(&p, bytes).unwrap();
    };
    touched("graph.json");
    touched("search-index.json");
    let mut s = f.server();
    let r = search(&mut s);
    assert_ne!(r["isError"], true, "{r}");
    drop(s);
    // Without the marker, the contents agree (same count, same ids): served.
    fs::rename(generated.join("set.bin"), f.base.join("set.bin")).unwrap();
    for (name, bytes) in &before {
        if *name == "search-index.json" {
            fs::write(generated.join(name), bytes).unwrap();
        }
    }
    fs::remove_file(generated.join("search-index.bin")).ok();
    let mut s = f.server();
    assert_ne!(search(&mut s)["isError"], true, "no marker: the contents are compared, and they agree");
    drop(s);
    // With the marker the killed run left (the one before it), refused.
    for (name, bytes) in &before {
        fs::write(generated.join(name), bytes).unwrap();
    }
    let mut s = f.server();
    let r = search(&mut s);
    assert_eq!(r["isError"], true, "{r}");
    let said = tool_text(&r);
    assert!(said.contains("do not match") && said.contains("vitaecontext graph index"), "{said}");
    drop(s);
    index();
    let mut s = f.server();
    assert_ne!(search(&mut s)["isError"], true, "indexed again");
}

/// `mcp` without `--watch` serves the index as it was: a search says when records changed,
/// were added or removed since (`stale` and its reason in the JSON, and a line of text), and
/// says nothing once the graph is indexed again.
#[test]
fn a_search_says_the_index_is_stale_when_records_changed_since() {
    let f = Fixture::new();
    let root = f.root.to_str().unwrap();
    let index = || assert!(Cmd::new(["graph", "index", "--root", root]).output().0.success());
    index();
    let search =
        |s: &mut Server| s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": {"query": "kubernetes"}}));
    // The JSON answer, from the first text block (this session's revision has no structured
    // content).
    let answer = |r: &Value| -> Value { serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap() };
    let mut s = f.server();
    let r = search(&mut s);
    assert_ne!(r["isError"], true, "{r}");
    assert!(answer(&r).get("stale").is_none(), "just indexed: {r}");
    assert_eq!(r["content"].as_array().unwrap().iter().filter(|c| c["type"] == "text").count(), 1, "{r}");
    // Added while the server runs: the next search says so.
    fs::create_dir_all(f.root.join("projects/newer")).unwrap();
    fs::write(
        f.root.join("projects/newer/project.md"),
        "---\ntype: project\nid: project:newer\ntitle: Newer\n---\nKubernetes.\n",
    )
    .unwrap();
    let r = search(&mut s);
    assert_eq!(answer(&r)["stale"], true, "{r}");
    let reason = answer(&r)["staleReason"].as_str().unwrap().to_owned();
    assert!(reason.contains("1 record file(s) added") && reason.contains("projects/newer/project.md"), "{reason}");
    let texts: Vec<&str> = r["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect();
    assert!(texts[1].contains("stale") && texts[1].contains("vitaecontext graph index"), "{texts:?}");
    drop(s);
    // Removed: said too.
    fs::remove_dir_all(f.root.join("projects/newer")).unwrap();
    let listed = fs::read_dir(f.root.join("certifications")).unwrap().next().unwrap().unwrap().path();
    fs::remove_file(&listed).unwrap();
    let mut s = f.server();
    let r = search(&mut s);
    let reason = answer(&r)["staleReason"].as_str().unwrap_or_default().to_owned();
    assert!(reason.contains("1 record file(s) removed"), "{r}");
    drop(s);
    index();
    let mut s = f.server();
    let r = search(&mut s);
    assert!(answer(&r).get("stale").is_none(), "indexed again: {r}");
    // Written again with the same bytes (a save, a checkout): not a change.
    let record = f.root.join("projects/ci-rebuild/project.md");
    let bytes = fs::read(&record).unwrap();
    fs::remove_file(&record).unwrap();
    fs::write(&record, &bytes).unwrap();
    let r = search(&mut s);
    assert!(answer(&r).get("stale").is_none(), "the same bytes: {r}");
    fs::write(&record, [bytes.as_slice(), b"\nPassed again in 2025.\n"].concat()).unwrap();
    // A look that took over 20 ms (the one just made reads the manifest and hashes the file:
    // in a debug build, on a busy machine, it can) is reused for a second or more, so the
    // change is said by a search within that window, not necessarily the next one.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let r = loop {
        let r = search(&mut s);
        if answer(&r).get("stale").is_some() || std::time::Instant::now() > deadline {
            break r;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let reason = answer(&r)["staleReason"].as_str().unwrap_or_default().to_owned();
    assert!(reason.starts_with("1 record file(s) changed") && reason.contains("projects/ci-rebuild/project.md"), "{r}");
}
