// The MCP skills extension (io.modelcontextprotocol/skills) over real pipes, from a client that
// checks every digest and size against the bytes it reads: declaration in 2026-07-28 only,
// skills/list pages, skills/get, every file of an Agent Skills folder and a YAML skill's
// generated SKILL.md (stable across runs), directory reads, the -32602 cases, and the folders
// `skills export` writes.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::util::{Cmd, Server};

const SKILL_MD: &str = "---\nname: code-review\ndescription: Review code using the team's checklist.\nlicense: Apache-2.0\nallowed-tools: Read Grep\nmetadata:\n  version: \"2.1\"\n  owner: platform team\n---\n\n# Code review\n\nRead `references/checklist.md`, then run `scripts/run.sh`.\n";

/// Bytes that are not UTF-8: served as a base64 blob.
const LOGO: &[u8] = &[0x89, b'P', b'N', b'G', 0x00, 0xff, 0xfe, 0x10];

/// How many generated YAML skills fill the listing past one page (100).
const BULK: usize = 120;

/// A layer with an Agent Skills folder (supporting files in sub-folders, a hidden file and a
/// symlink that must not be served), a YAML skill, a folder of 150 files, a SKILL.md that only
/// has an `id`, and `BULK` more YAML skills. Returns the temp dir and the layer.
fn layer() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let layer = tmp.path().join("layer");
    let review = layer.join("code-review");
    for (rel, bytes) in [
        ("SKILL.md", SKILL_MD.as_bytes()),
        ("references/checklist.md", b"# Review checklist\n\nCheck correctness, tests and compatibility.\n".as_slice()),
        ("references/deep/notes.md", b"Deep notes \xc3\xa9t\xc3\xa9.\n".as_slice()),
        ("scripts/run.sh", b"#!/bin/sh\necho review\n".as_slice()),
        ("assets/logo.png", LOGO),
        (".DS_Store", b"hidden".as_slice()),
    ] {
        let p = review.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }
    fs::write(tmp.path().join("secret.md"), "outside the layer").unwrap();
    std::os::unix::fs::symlink(tmp.path().join("secret.md"), review.join("references/escape.md")).unwrap();
    fs::write(
        layer.join("cv-summary.yaml"),
        "id: cv-summary\ntype: prompt\nname: CV summary\ndescription: A summary from my facts\ntags: [cv, writing]\nversion: 1.0\nprompt: |\n  Summarise:\n  {{career_context.cv}}\n",
    )
    .unwrap();
    let many = layer.join("many-files");
    fs::create_dir_all(many.join("data")).unwrap();
    fs::write(
        many.join("SKILL.md"),
        "---\nname: many-files\ndescription: Lots of data files.\n---\nPick one from data/.\n",
    )
    .unwrap();
    for i in 0..150 {
        fs::write(many.join(format!("data/{i:03}.txt")), format!("{i}\n")).unwrap();
    }
    fs::create_dir_all(layer.join("by-id")).unwrap();
    fs::write(layer.join("by-id/SKILL.md"), "---\nid: by-id\ndescription: An id and no name.\n---\nbody\n").unwrap();
    let bulk = layer.join("bulk");
    fs::create_dir_all(&bulk).unwrap();
    for i in 0..BULK {
        fs::write(
            bulk.join(format!("bulk-{i:03}.yaml")),
            format!("id: bulk-{i:03}\ntype: prompt\ndescription: Bulk skill {i}\nprompt: Do {i}.\n"),
        )
        .unwrap();
    }
    (tmp, layer)
}

fn server(layer: &Path) -> Server {
    Server::start(&["mcp", "--skills", layer.to_str().unwrap()])
}

fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "skills-host", "version": "1"}
    });
    params
}

fn sha256(bytes: &[u8]) -> String {
    let sum = Sha256::digest(bytes);
    format!("sha256:{}", sum.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

/// RFC 4648 base64, as a host decodes a `blob`.
fn unbase64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for chunk in text.as_bytes().chunks(4) {
        let digits: Vec<u8> = chunk.iter().filter(|&&c| c != b'=').map(|&c| value(c)).collect();
        let n = digits.iter().enumerate().fold(0u32, |n, (i, d)| n | (u32::from(*d) << (18 - 6 * i)));
        out.extend(n.to_be_bytes()[1..digits.len()].iter());
    }
    out
}

/// What a verifying host does with a file: read it, take the bytes (text or blob), and check
/// them against the manifest's size and digest. Returns the bytes and the content item.
fn read_verified(s: &mut Server, file: &Value) -> (Vec<u8>, Value) {
    let uri = file["uri"].as_str().unwrap();
    let r = s.ok("resources/read", modern(json!({"uri": uri})));
    assert_eq!((r["resultType"].clone(), r["cacheScope"].clone()), (json!("complete"), json!("private")), "{r}");
    assert!(r["ttlMs"].is_u64(), "{r}");
    let content = r["contents"][0].clone();
    assert_eq!(content["uri"], uri);
    let bytes = match (content["text"].as_str(), content["blob"].as_str()) {
        (Some(text), None) => text.as_bytes().to_vec(),
        (None, Some(blob)) => unbase64(blob),
        _ => panic!("a content has text or blob: {content}"),
    };
    assert_eq!(bytes.len() as u64, file["size"].as_u64().unwrap(), "size of {uri}");
    assert_eq!(sha256(&bytes), file["digest"], "digest of {uri}");
    (bytes, content)
}

/// Every entry of `skills/list`, following `nextCursor`; checks each page's result shape.
fn list_all(s: &mut Server) -> (Vec<Value>, usize) {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = s.ok("skills/list", modern(params));
        pages += 1;
        assert_eq!(r["resultType"], "complete", "{r}");
        assert_eq!(r["cacheScope"], "private");
        assert!(r["ttlMs"].is_u64());
        all.extend(r["skills"].as_array().unwrap().iter().cloned());
        match r["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    (all, pages)
}

fn entry<'a>(all: &'a [Value], name: &str) -> &'a Value {
    let uri = format!("skill://{name}/SKILL.md");
    all.iter().find(|e| e["uri"] == uri).unwrap_or_else(|| panic!("no entry {uri}"))
}

fn uris(entry: &Value) -> BTreeSet<String> {
    entry["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn discover_declares_the_extension_and_handshake_revisions_are_not_offered_it() {
    let (_tmp, layer) = layer();
    let mut s = server(&layer);
    let d = s.ok("server/discover", modern(json!({})));
    assert_eq!(d["capabilities"]["extensions"], json!({"io.modelcontextprotocol/skills": {"directoryRead": true}}));
    assert!(d["capabilities"]["resources"].is_object(), "the extension needs resources: {d}");
    // An initialize of 2025-11-25 (the latest handshake revision) is not offered it, and its
    // methods and URIs are unknown there: the extension is defined against 2026-07-28.
    let init = s.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert!(init["result"]["capabilities"].get("extensions").is_none(), "{init}");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    for (method, params) in [
        ("skills/list", json!({})),
        ("skills/get", json!({"uri": "skill://code-review/SKILL.md"})),
        ("resources/directory/read", json!({"uri": "skill://code-review"})),
    ] {
        assert_eq!(s.err(method, params)["code"], -32601, "{method}");
    }
    let e = s.err("resources/read", json!({"uri": "skill://code-review/SKILL.md"}));
    assert_eq!(e["code"], -32002, "an unknown resource there: {e}");
    let listed = s.ok("resources/list", json!({}));
    assert!(!listed.to_string().contains("skill://"), "{listed}");
    // The same process still serves the extension to a 2026-07-28 request.
    assert!(s.ok("skills/list", modern(json!({})))["skills"].is_array());
}

#[test]
fn a_host_pages_the_listing_and_every_digest_and_size_matches_the_bytes_it_reads() {
    let (_tmp, layer) = layer();
    let mut s = server(&layer);
    let (all, pages) = list_all(&mut s);
    // code-review, cv-summary, many-files and the bulk skills; by-id is no Agent Skill (its
    // front matter has no `name`) and is left out, not split or half-listed.
    assert_eq!(all.len(), 3 + BULK, "{pages} pages");
    assert_eq!(pages, 2);
    let listed: BTreeSet<&str> = all.iter().map(|e| e["uri"].as_str().unwrap()).collect();
    assert_eq!(listed.len(), all.len(), "each skill once across pages");
    assert!(!listed.contains("skill://by-id/SKILL.md"));
    for e in &all {
        let name = e["frontmatter"]["name"].as_str().unwrap();
        assert_eq!(e["uri"], format!("skill://{name}/SKILL.md"), "the last segment is the name");
        assert!(e["frontmatter"]["description"].is_string());
    }

    // The Agent Skills folder: every file but the hidden one and the symlink, each verified.
    let review = entry(&all, "code-review").clone();
    let expected: BTreeSet<String> =
        ["SKILL.md", "assets/logo.png", "references/checklist.md", "references/deep/notes.md", "scripts/run.sh"]
            .iter()
            .map(|p| format!("skill://code-review/{p}"))
            .collect();
    assert_eq!(uris(&review), expected);
    assert_eq!(
        review["frontmatter"],
        json!({
            "name": "code-review",
            "description": "Review code using the team's checklist.",
            "license": "Apache-2.0",
            "allowed-tools": "Read Grep",
            "metadata": {"version": "2.1", "owner": "platform team"}
        }),
        "the front matter, every field as written"
    );
    for file in review["resources"].as_array().unwrap() {
        let (bytes, content) = read_verified(&mut s, file);
        let rel = file["uri"].as_str().unwrap().strip_prefix("skill://code-review/").unwrap();
        assert_eq!(bytes, fs::read(layer.join("code-review").join(rel)).unwrap(), "{rel} as it is on disk");
        let mime = match rel {
            "assets/logo.png" => "image/png",
            "scripts/run.sh" => "text/x-shellscript",
            _ => "text/markdown",
        };
        assert_eq!(content["mimeType"], mime, "{rel}");
        assert_eq!(content.get("blob").is_some(), rel == "assets/logo.png", "{content}");
    }
    // skills/get answers the same entry as the listing.
    let got = s.ok("skills/get", modern(json!({"uri": "skill://code-review/SKILL.md"})));
    assert_eq!(got["skill"], review);
    assert_eq!((got["resultType"].clone(), got["cacheScope"].clone()), (json!("complete"), json!("private")));
    assert!(got["ttlMs"].is_u64() && got.get("nextCursor").is_none(), "{got}");

    // An edited supporting file: the next entry has the new digest, and the read matches it.
    fs::write(layer.join("code-review/references/checklist.md"), "# Review checklist\n\nAlso security.\n").unwrap();
    let got = s.ok("skills/get", modern(json!({"uri": "skill://code-review/SKILL.md"})));
    let checklist = got["skill"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "skill://code-review/references/checklist.md")
        .unwrap()
        .clone();
    assert_ne!(checklist, review["resources"][2]);
    let (bytes, _) = read_verified(&mut s, &checklist);
    assert!(String::from_utf8(bytes).unwrap().contains("Also security."));
}

/// The generated SKILL.md of `cv-summary` from a fresh server: its entry and its bytes.
fn generated(layer: &Path) -> (Value, Vec<u8>) {
    let mut s = server(layer);
    let got = s.ok("skills/get", modern(json!({"uri": "skill://cv-summary/SKILL.md"})))["skill"].clone();
    let (bytes, content) = read_verified(&mut s, &got["resources"][0]);
    assert_eq!(content["mimeType"], "text/markdown");
    (got, bytes)
}

#[test]
fn a_yaml_skill_is_a_generated_skill_md_whose_digest_is_stable_across_runs() {
    let (_tmp, layer) = layer();
    let (first, bytes) = generated(&layer);
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        "---\nname: cv-summary\ndescription: A summary from my facts\nmetadata:\n  type: prompt\n  title: CV \
         summary\n  version: \"1\"\n  tags: cv, writing\n---\n\nSummarise:\n{{career_context.cv}}\n"
    );
    assert_eq!(
        first["frontmatter"],
        json!({"name": "cv-summary", "description": "A summary from my facts",
               "metadata": {"type": "prompt", "title": "CV summary", "version": "1", "tags": "cv, writing"}})
    );
    assert_eq!(first["resources"].as_array().unwrap().len(), 1);
    let (second, again) = generated(&layer);
    assert_eq!(second, first, "the same entry, digest included, from another server run");
    assert_eq!(again, bytes);
}

#[test]
fn directory_reads_list_direct_children_with_sub_folders_as_directories() {
    let (_tmp, layer) = layer();
    let mut s = server(&layer);
    let children = |s: &mut Server, uri: &str| -> Vec<(String, String, String)> {
        let r = s.ok("resources/directory/read", modern(json!({"uri": uri})));
        assert_eq!(r["resultType"], "complete", "{r}");
        assert!(r.get("nextCursor").is_none());
        r["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["uri"].as_str().unwrap().to_owned(),
                    c["name"].as_str().unwrap().to_owned(),
                    c["mimeType"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let t = |u: &str, n: &str, m: &str| (u.to_owned(), n.to_owned(), m.to_owned());
    assert_eq!(
        children(&mut s, "skill://code-review"),
        [
            // SKILL.md as a Resource takes its name from the front matter ("Resource Metadata").
            t("skill://code-review/SKILL.md", "code-review", "text/markdown"),
            t("skill://code-review/assets", "assets", "inode/directory"),
            t("skill://code-review/references", "references", "inode/directory"),
            t("skill://code-review/scripts", "scripts", "inode/directory"),
        ]
    );
    assert_eq!(
        children(&mut s, "skill://code-review/references"),
        [
            t("skill://code-review/references/checklist.md", "checklist.md", "text/markdown"),
            t("skill://code-review/references/deep", "deep", "inode/directory"),
        ]
    );
    assert_eq!(
        children(&mut s, "skill://code-review/references/deep"),
        [t("skill://code-review/references/deep/notes.md", "notes.md", "text/markdown")]
    );
    // A generated skill is a folder of one file.
    assert_eq!(
        children(&mut s, "skill://cv-summary"),
        [t("skill://cv-summary/SKILL.md", "cv-summary", "text/markdown")]
    );
    // 150 files in one folder: two pages, each file once.
    let first = s.ok("resources/directory/read", modern(json!({"uri": "skill://many-files/data"})));
    let mut names: Vec<String> =
        first["resources"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_owned()).collect();
    let cursor = first["nextCursor"].as_str().expect("a second page").to_owned();
    let second = s.ok("resources/directory/read", modern(json!({"uri": "skill://many-files/data", "cursor": cursor})));
    assert!(second.get("nextCursor").is_none());
    names.extend(second["resources"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_owned()));
    assert_eq!(names, (0..150).map(|i| format!("{i:03}.txt")).collect::<Vec<_>>());
}

/// Found in review: a folder of a skill with no file served in it (empty, or holding only hidden
/// files or symlinks) answered -32602, where the extension says an empty folder is an empty list.
#[test]
fn an_empty_folder_of_a_skill_is_an_empty_list() {
    let (_tmp, layer) = layer();
    let review = layer.join("code-review");
    fs::create_dir_all(review.join("empty")).unwrap();
    fs::create_dir_all(review.join("references/only-hidden")).unwrap();
    fs::write(review.join("references/only-hidden/.x"), "hidden").unwrap();
    fs::create_dir_all(review.join(".hidden-dir")).unwrap();
    std::os::unix::fs::symlink(review.join("empty"), review.join("linked")).unwrap();
    let mut s = server(&layer);
    for uri in ["skill://code-review/empty", "skill://code-review/references/only-hidden"] {
        let r = s.ok("resources/directory/read", modern(json!({"uri": uri})));
        assert_eq!(r["resources"], json!([]), "{uri}: {r}");
    }
    // Still not folders of the skill: hidden, a symlink, a file, nothing there.
    for uri in [
        "skill://code-review/.hidden-dir",
        "skill://code-review/linked",
        "skill://code-review/SKILL.md",
        "skill://code-review/nothing",
    ] {
        let e = s.err("resources/directory/read", modern(json!({"uri": uri})));
        assert_eq!(e["code"], -32602, "{uri}: {e}");
    }
}

#[test]
fn unknown_skills_files_and_directories_are_invalid_params() {
    let (_tmp, layer) = layer();
    let mut s = server(&layer);
    let invalid = |s: &mut Server, method: &str, uri: &str| -> String {
        let e = s.err(method, modern(json!({"uri": uri})));
        assert_eq!(e["code"], -32602, "{method} {uri}: {e}");
        assert_eq!(e["data"]["uri"], uri, "{e}");
        e["message"].as_str().unwrap().to_owned()
    };
    assert!(invalid(&mut s, "skills/get", "skill://nope/SKILL.md").contains("no skill \"nope\""));
    assert!(invalid(&mut s, "skills/get", "skill://code-review/references/checklist.md").contains("SKILL.md"));
    assert!(invalid(&mut s, "skills/get", "vitaegraph://index").contains("not a skill resource"));
    let why = invalid(&mut s, "skills/get", "skill://by-id/SKILL.md");
    assert!(why.contains("not served as an Agent Skill") && why.contains("no `name`"), "{why}");
    for uri in [
        "skill://nope/SKILL.md",
        "skill://code-review/missing.md",
        "skill://code-review/.DS_Store",
        "skill://code-review/references/escape.md",
        "skill://code-review/references/../../secret.md",
        "skill://code-review/references",
        "skill://code-review/",
    ] {
        invalid(&mut s, "resources/read", uri);
    }
    for uri in [
        "skill://code-review/SKILL.md",
        "skill://code-review/references/checklist.md",
        "skill://code-review/nope",
        "skill://code-review/references/",
        "skill://nope",
        "career-context://current",
    ] {
        invalid(&mut s, "resources/directory/read", uri);
    }
    let e = s.err("skills/list", modern(json!({"cursor": "bogus"})));
    assert_eq!(e["code"], -32602, "{e}");
}

#[test]
fn a_listen_stream_is_told_when_the_skills_change() {
    let (_tmp, layer) = layer();
    let mut s = server(&layer);
    s.send(&json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
        "params": modern(json!({"notifications": {"resourcesListChanged": true}}))}));
    let ack = s.recv();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    fs::write(layer.join("added.yaml"), "id: added-skill\ntype: prompt\ndescription: New\nprompt: Hi.\n").unwrap();
    let n = s.recv();
    assert_eq!(n["method"], "notifications/resources/list_changed", "{n}");
    assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-1");
    let got = s.ok("skills/get", modern(json!({"uri": "skill://added-skill/SKILL.md"})));
    assert_eq!(got["skill"]["frontmatter"]["description"], "New");
}

#[test]
fn export_writes_the_bytes_the_server_serves() {
    let (tmp, layer) = layer();
    let out = tmp.path().join("exported");
    let run = |force: bool| {
        let mut args = vec![
            "skills".to_owned(),
            "export".into(),
            "--skills".into(),
            layer.display().to_string(),
            "--agent-skills".into(),
            out.display().to_string(),
        ];
        if force {
            args.push("--force".into());
        }
        Cmd::new(&args).output()
    };
    let (status, stdout, stderr) = run(false);
    // by-id is not an Agent Skill: named, with why, and the exit code says so.
    assert_eq!(status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("skill by-id was not exported") && stderr.contains("no `name`"), "{stderr}");
    assert!(stdout.contains("exported code-review ->"), "{stdout}");
    let mut s = server(&layer);
    let (all, _) = list_all(&mut s);
    for name in ["code-review", "cv-summary", "many-files"] {
        let e = entry(&all, name);
        let mut on_disk = BTreeSet::new();
        for file in e["resources"].as_array().unwrap() {
            let rel = file["uri"].as_str().unwrap().strip_prefix(&format!("skill://{name}/")).unwrap().to_owned();
            let bytes = fs::read(out.join(name).join(&rel)).unwrap();
            assert_eq!(sha256(&bytes), file["digest"], "{name}/{rel}");
            on_disk.insert(rel);
        }
        let walked: BTreeSet<String> = walk(&out.join(name)).into_iter().collect();
        assert_eq!(walked, on_disk, "{name}: exactly the served files");
    }
    // Again without --force: nothing replaced, and each skill says which file is in the way.
    fs::write(out.join("cv-summary/SKILL.md"), "edited by hand").unwrap();
    let (status, _, stderr) = run(false);
    assert_eq!(status.code(), Some(1));
    assert!(stderr.contains("cv-summary/SKILL.md already exists; pass --force"), "{stderr}");
    assert_eq!(fs::read_to_string(out.join("cv-summary/SKILL.md")).unwrap(), "edited by hand");
    let (_, stdout, _) = run(true);
    assert!(stdout.contains("exported cv-summary -> ") && stdout.contains("1 replaced"), "{stdout}");
    assert!(fs::read_to_string(out.join("cv-summary/SKILL.md")).unwrap().starts_with("---\nname: cv-summary\n"));
}

/// Found in review: a tool skill without a template (not exportable by design) failed the run,
/// a re-run onto identical files failed with "nothing was written", an empty layer printed
/// nothing, and an export into the layer itself took its YAML skills off the server.
#[test]
fn export_says_what_it_did_and_refuses_a_skill_layer() {
    let tmp = tempfile::tempdir().unwrap();
    let layer = tmp.path().join("layer");
    fs::create_dir_all(&layer).unwrap();
    let export = |layer: &Path, out: &Path| {
        Cmd::new(["skills", "export", "--skills", layer.to_str().unwrap(), "--agent-skills", out.to_str().unwrap()])
            .output()
    };
    let out = tmp.path().join("out");
    let (status, stdout, stderr) = export(&layer, &out);
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("0 skill(s) to ") && stdout.contains("0 exported"), "{stdout}");
    fs::write(layer.join("tool.yaml"), "id: a-tool\ntype: tool\n").unwrap();
    fs::write(layer.join("cv.yaml"), "id: cv-summary\ntype: prompt\ndescription: Sum up\nprompt: Go.\n").unwrap();
    let (status, stdout, stderr) = export(&layer, &out);
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("skill a-tool was skipped"), "{stderr}");
    assert!(stdout.contains("2 skill(s) to ") && stdout.contains("1 exported, 0 up to date, 1 skipped, 0 failed"));
    let (status, stdout, stderr) = export(&layer, &out);
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("up to date cv-summary") && stdout.contains("0 exported, 1 up to date"), "{stdout}");
    for inside in [layer.clone(), layer.join("sub"), tmp.path().to_path_buf()] {
        let (status, stdout, stderr) = export(&layer, &inside);
        assert_eq!(status.code(), Some(2), "{}: {stdout}\n{stderr}", inside.display());
        assert!(stderr.contains("the skill layer") && stderr.contains(layer.to_str().unwrap()), "{stderr}");
    }
    assert!(!layer.join("cv-summary").exists() && !layer.join("sub").exists(), "nothing written in the layer");
    let mut s = server(&layer);
    let (all, _) = list_all(&mut s);
    assert!(entry(&all, "cv-summary")["uri"] == "skill://cv-summary/SKILL.md");
}

/// Found in review: 2026-07-28 resources/list named the SKILL.md of skills that are not served
/// (over the limits, front matter without a `name`), and each read of one answered -32602.
#[test]
fn resources_list_names_only_skills_that_read() {
    let (_tmp, layer) = layer();
    let big = layer.join("too-many");
    fs::create_dir_all(&big).unwrap();
    fs::write(big.join("SKILL.md"), "---\nname: too-many\ndescription: Over the limit.\n---\nx\n").unwrap();
    for i in 0..512 {
        fs::write(big.join(format!("{i}.txt")), "x").unwrap();
    }
    let mut s = server(&layer);
    let mut uris = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut params = json!({});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let page = s.ok("resources/list", modern(params));
        for r in page["resources"].as_array().unwrap() {
            let uri = r["uri"].as_str().unwrap();
            if uri.starts_with("skill://") {
                uris.push(uri.to_owned());
            }
        }
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert!(uris.contains(&"skill://code-review/SKILL.md".to_owned()), "{uris:?}");
    for gone in ["skill://by-id/SKILL.md", "skill://too-many/SKILL.md"] {
        assert!(!uris.contains(&gone.to_owned()), "{gone} is not served");
    }
    for uri in &uris {
        s.ok("resources/read", modern(json!({"uri": uri})));
    }
}

/// Found in review: a skills/list cursor was accepted by a directory read.
#[test]
fn a_cursor_of_one_list_is_refused_by_another() {
    let (_tmp, layer) = layer();
    let mut s = server(&layer);
    let listed = s.ok("skills/list", modern(json!({})));
    let cursor = listed["nextCursor"].as_str().expect("two pages").to_owned();
    let e = s.err("resources/directory/read", modern(json!({"uri": "skill://many-files/data", "cursor": cursor})));
    assert_eq!(e["code"], -32602, "{e}");
    let first = s.ok("resources/directory/read", modern(json!({"uri": "skill://many-files/data"})));
    let dir_cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let e = s.err("skills/list", modern(json!({"cursor": dir_cursor})));
    assert_eq!(e["code"], -32602, "{e}");
}

/// Every file below `dir`, as `/`-separated paths.
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()).into_iter().map(|p| format!("{name}/{p}")));
        } else {
            out.push(name);
        }
    }
    out
}
