//! MCP resources: the list, the templates, and reads by URI.

use serde_json::{Value, json};

use super::jsonrpc::RpcError;
use super::revision::Revision;
use super::served::Served;
use crate::graph_store::{RecordError, Unavailable};
use crate::usecase::career::Current;
use domain::graph::is_valid_id;
use domain::graph::validate::decode_uri_component;
use domain::wiki::WikiModule;

pub const CAREER_CONTEXT_URI: &str = "career-context://current";
pub const JSON_RESUME_URI: &str = "career-context://json-resume";
/// The `_meta` key of a read of a record marked `visibility: private`.
pub const PRIVATE_META: &str = "vitaecontext/visibility";
pub const WIKI_PREFIX: &str = "vitaecontext://wiki/";
pub const WIKI_TEMPLATE: &str = "vitaecontext://wiki/{module}";
pub const GRAPH_INDEX_URI: &str = "vitaegraph://index";
pub const RECORD_PREFIX: &str = "vitaegraph://record/";
pub const RECORD_TEMPLATE: &str = "vitaegraph://record/{id}";

/// The fixed resources, then (2026-07-28, the skills extension) each skill's `SKILL.md`, then
/// every record of the graph (when it is indexed), paged.
pub fn list(m: &Served, revision: Revision, cursor: Option<&str>) -> Result<Value, RpcError> {
    let mut fixed = fixed(revision);
    if revision.has_skills_extension() {
        fixed.extend(super::skills_extension::resources(m));
    }
    let graph = m.graph().graph(m.fs()).ok();
    let records = graph.as_ref().map_or(0, |g| g.graph.nodes.len());
    super::pagination::lazy_page(cursor, "resources", fixed.len() + records, |i| {
        if i < fixed.len() {
            return fixed[i].clone();
        }
        let n = &graph.as_ref().expect("records exist only with a graph").graph.nodes[i - fixed.len()];
        let mut v = json!({
            "uri": format!("{RECORD_PREFIX}{}", n.id),
            "name": n.label,
            "description": format!("{} record {} ({})", n.kind, n.id, n.path),
            "mimeType": "text/markdown"
        });
        if revision.has_titles() {
            v["title"] = json!(n.label);
        }
        v
    })
}

/// Adds `title` (2025-06-18 and later) to each entry.
fn titled(revision: Revision, entries: Vec<(Value, &str)>) -> Vec<Value> {
    entries
        .into_iter()
        .map(|(mut v, title)| {
            if revision.has_titles() {
                v["title"] = json!(title);
            }
            v
        })
        .collect()
}

fn fixed(revision: Revision) -> Vec<Value> {
    let mut out = vec![(
        json!({
            "uri": CAREER_CONTEXT_URI,
            "name": "Current Career Context",
            "description": "The person's own Career Context file: their curated, self-declared career facts, read fresh on every request. When none is selected, a short notice says how to create or choose one.",
            "mimeType": "text/markdown"
        }),
        "Career Context",
    )];
    out.push((
        json!({
            "uri": JSON_RESUME_URI,
            "name": "Career as JSON Resume",
            "description": "The person's career as a JSON Resume (schema 1.0.0, ISO dates), made from the Career Context and VitaeGraph records on every read, for building a CV with a JSON Resume theme. Records marked private are left out, and so are the classes the server redacts.",
            "mimeType": "application/json"
        }),
        "JSON Resume",
    ));
    out.extend(WikiModule::ALL.iter().map(|w| {
        (
            json!({
                "uri": format!("{WIKI_PREFIX}{}", w.name()),
                "name": format!("vitaecontext wiki: {}", w.name()),
                "description": w.title(),
                "mimeType": "text/markdown"
            }),
            w.title(),
        )
    }));
    out.push((json!({
        "uri": GRAPH_INDEX_URI,
        "name": "VitaeGraph index",
        "description": "The generated graph of the person's records (.generated/graph.json): nodes with id, type, label, path, parent and tags, and CONTAINS / RELATED_TO edges.",
        "mimeType": "application/json"
    }), "VitaeGraph index"));
    titled(revision, out)
}

pub fn templates(revision: Revision) -> Vec<Value> {
    titled(
        revision,
        vec![
            (
                json!({
                    "uriTemplate": RECORD_TEMPLATE,
                    "name": "VitaeGraph record",
                    "description": "One record of the person's VitaeGraph (a project, role, degree, course, thesis, certification, award or publication) by its id, e.g. vitaegraph://record/project:cachewarden. Find ids with search_vitaegraph or the VitaeGraph index.",
                    "mimeType": "text/markdown"
                }),
                "VitaeGraph record",
            ),
            (
                json!({
                    "uriTemplate": WIKI_TEMPLATE,
                    "name": "vitaecontext wiki module",
                    "description": "User documentation packaged with the binary. Modules: vitaecontext (set-up, clients, every tool, prompt and resource), build (writing a Career Context, every diagnostic), vitaegraph (records, indexing, search).",
                    "mimeType": "text/markdown"
                }),
                "vitaecontext wiki module",
            ),
        ],
    )
}

/// Completion candidates for a resource template argument other than the wiki's: record ids
/// starting with the typed prefix.
pub fn complete(m: &Served, uri: &str, arg: &str, value: &str) -> Result<Vec<String>, RpcError> {
    if uri != RECORD_TEMPLATE || arg != "id" {
        return Err(RpcError::invalid_params(format!("no completion for argument {arg:?} of {uri:?}")));
    }
    let Ok(g) = m.graph().graph(m.fs()) else { return Ok(Vec::new()) };
    let start = g.sorted_ids.partition_point(|id| id.as_str() < value);
    Ok(g.sorted_ids[start..].iter().take_while(|id| id.starts_with(value)).cloned().collect())
}

const INDEX_MISSING: &str = "VitaeGraph index not found. Run `vitaecontext graph index` to generate it.";

/// What to do about files the server's user may not read: indexing again cannot help (it
/// runs as the same user), access given back does. No path: `doctor` names them.
pub const GIVE_ACCESS: &str = "Give the user the server runs as access to the VitaeGraph's folders and files again \
                               (`vitaecontext doctor` names what it cannot read).";

/// Why the index cannot be served, for the client. There but not usable (damaged, too large, a
/// folder, behind a folder that cannot be searched): said so, not "not found", which would send
/// the person looking for a file that is there.
///
/// Missing because the last index run found the graph invalid (it then writes only
/// `diagnostics.json`): said so, since indexing again cannot help until the records are fixed
/// (found in review: under `mcp --watch`, a record copied as a template left every read
/// saying to run `graph index`).
fn index_unavailable(m: &Served, uri: &str, e: &Unavailable) -> RpcError {
    if e.is_missing() {
        match m.graph().invalid_errors(m.fs()) {
            Some(errors) => RpcError::resource_not_found(
                uri,
                format!(
                    "VitaeGraph index not found: the VitaeGraph is invalid ({errors} error(s) in \
                     .generated/diagnostics.json), so `vitaecontext graph index` wrote only its diagnostics. Run \
                     `vitaecontext graph validate`, fix what it reports, then `vitaecontext graph index` (add \
                     `--root DIR` to both if the VitaeGraph is not in ~/.vitaecontext/vitaegraph)."
                ),
            ),
            None => RpcError::resource_not_found(uri, INDEX_MISSING),
        }
    } else if e.is_denied() {
        RpcError::resource_unavailable(uri, format!("VitaeGraph index unreadable: permission denied. {GIVE_ACCESS}"))
    } else {
        RpcError::resource_unavailable(
            uri,
            format!("VitaeGraph index unreadable: {}. Run `vitaecontext graph index` to write it again.", e.reason()),
        )
    }
}

fn graph_index(m: &Served, uri: &str) -> Result<Value, RpcError> {
    match m.graph().graph_text(m.fs()) {
        Ok(raw) => Ok(text(uri, "application/json", raw)),
        Err(e) => {
            tracing::warn!("vitaegraph://index unavailable: {e}");
            Err(index_unavailable(m, uri, &e))
        }
    }
}

/// `vitaegraph://record/{id}`: the id is decoded once, checked, and looked up only as an exact
/// key of the graph's nodes; the node's path must resolve inside the root. Any refusal is the
/// same -32002, without content or paths.
fn record(m: &Served, uri: &str, raw_id: &str) -> Result<Value, RpcError> {
    // A URI that cannot name a record (bad percent-encoding, a slash, nothing) names no
    // available record: -32002 with the URI, as the contract's errors section says of records,
    // and as every other refusal here.
    let id = decode_uri_component(raw_id).ok_or_else(|| {
        RpcError::resource_not_found(uri, "the record id is not valid percent-encoding; a record id is `type:slug`")
    })?;
    // A slash or backslash in the decoded id is a malformed parameter, as VitaeContext 2.3.0
    // answers it: -32602 in every revision (2024-11-05 to 2025-11-25 keep -32002 for an id
    // that is well formed but not in the graph).
    if id.contains('/') || id.contains('\\') {
        return Err(RpcError::invalid_params("a record id is `type:slug`, with no slash or backslash")
            .with_data(json!({ "uri": uri })));
    }
    if id.is_empty() {
        return Err(RpcError::resource_not_found(uri, "a record id is `type:slug`"));
    }
    let not_found = || RpcError::resource_not_found(uri, format!("VitaeGraph record {id:?} not found"));
    if !is_valid_id(&id) {
        return Err(not_found());
    }
    let g = m.graph().graph(m.fs()).map_err(|e| {
        tracing::warn!("record {id}: index unavailable: {e}");
        index_unavailable(m, uri, &e)
    })?;
    // A record changed since the index (with --watch) is where it now is: search lists it
    // before its index run lands.
    let pending = m.graph().pending();
    let path = match (pending.document(&id), g.by_id.get(&id)) {
        (Some(d), _) => d.path.clone(),
        // Not if its file is pending as another record (its id edited) or gone.
        (None, Some(i)) if !pending.hides(&g.graph.nodes[*i].path) => g.graph.nodes[*i].path.clone(),
        (None, _) => return Err(not_found()),
    };
    match m.graph().read_record(m.fs(), &path) {
        Ok(body) => {
            let private = domain::graph::frontmatter::is_private(&body);
            let mut v = text(uri, "text/markdown", body);
            if private {
                // Said beside the text too, so a client need not parse the front matter.
                v["_meta"] = json!({ PRIVATE_META: "private" });
            }
            Ok(v)
        }
        Err(e) => {
            // The reason goes to the server's log only: the client learns nothing about the disk,
            // except that a record the index lists is there but may not be read (the walk to it
            // never leaves the root): "not found" would send the person looking for it.
            tracing::warn!("record {id} not served: {e}");
            match e {
                RecordError::Unavailable(e) if e.is_denied() => Err(RpcError::resource_unavailable(
                    uri,
                    format!("VitaeGraph record {id:?} unreadable: permission denied. {GIVE_ACCESS}"),
                )),
                _ => Err(not_found()),
            }
        }
    }
}

fn text(uri: &str, mime: &str, text: String) -> Value {
    json!({ "contents": [{ "uri": uri, "mimeType": mime, "text": text }] })
}

pub fn read(m: &Served, uri: &str) -> Result<Value, RpcError> {
    if uri == CAREER_CONTEXT_URI {
        let body = match m.career_context() {
            Current::Loaded(loaded) => loaded.shared_text().into_owned(),
            Current::Unavailable(notice) => notice,
        };
        return Ok(text(uri, "text/markdown", body));
    }
    if uri == GRAPH_INDEX_URI {
        return graph_index(m, uri);
    }
    if uri == JSON_RESUME_URI {
        // Never the private records: what an assistant builds from this is for publication.
        return match crate::usecase::portable::export(m.fs(), m.sources(), false, &m.sources().redact) {
            Ok((resume, _)) => Ok(text(uri, "application/json", domain::portable::json_resume::to_json(&resume))),
            Err(e) => {
                tracing::warn!("{JSON_RESUME_URI}: {e}");
                Err(RpcError::resource_unavailable(uri, format!("the JSON Resume could not be made: {e}")))
            }
        };
    }
    if let Some(raw_id) = uri.strip_prefix(RECORD_PREFIX) {
        return record(m, uri, raw_id);
    }
    if let Some(name) = uri.strip_prefix(WIKI_PREFIX) {
        // Exact allowlist match on the raw text: no decoding, no case folding, no path.
        return match WikiModule::parse(name) {
            Some(w) => Ok(text(uri, "text/markdown", w.content().to_owned())),
            None => Err(RpcError::resource_not_found(
                uri,
                format!("no wiki module {name:?} (modules: vitaecontext, build, vitaegraph)"),
            )),
        };
    }
    Err(RpcError::resource_not_found(uri, format!("{uri} is not a resource of this server")))
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use fs_memory::MemoryFs;
    use ports::fs::FileSystem;

    use super::*;
    use crate::sources::Sources;

    const GRAPH: &str = r#"{"version":"2.0.0","source":"vitaegraph","nodes":[{"id":"project:a","type":"Project","label":"a","path":"projects/a.md","parent":null,"tags":[]}],"edges":[]}"#;

    /// With `.generated/` unsearchable (`chmod 000`, for a user other than root) its graph.json
    /// was answered "index not found", sending the person looking for a file that is there, and
    /// then "run graph index", which fails the same way. The index and every record now say it
    /// cannot be read and what to do, with no path; so does a record the user may not read.
    #[test]
    fn what_the_user_may_not_read_is_unreadable_not_missing() {
        let fs = Arc::new(MemoryFs::new());
        let generated = Path::new("/g/.generated");
        fs.create_dir_all(generated).unwrap();
        fs.create_dir_all(Path::new("/g/projects")).unwrap();
        fs.write_atomic(Path::new("/g/projects/a.md"), b"# a\n").unwrap();
        fs.write_atomic(&generated.join("graph.json"), GRAPH.as_bytes()).unwrap();
        fs.set_mode(generated, 0o000).unwrap();
        let sources = Sources { root_flag: Some("/g".into()), cwd: "/".into(), ..Sources::default() };
        let m = Served::new(Arc::clone(&fs) as Arc<dyn FileSystem>, sources);
        let record = "vitaegraph://record/project:a";
        for uri in [GRAPH_INDEX_URI, record] {
            let e = read(&m, uri).unwrap_err();
            assert_eq!(e.code, -32002, "{uri}");
            assert_eq!(
                e.message,
                format!("Resource unavailable: VitaeGraph index unreadable: permission denied. {GIVE_ACCESS}"),
                "{uri}"
            );
            assert!(!e.message.contains("/g"), "{}", e.message);
        }
        fs.set_mode(generated, 0o700).unwrap();
        assert!(read(&m, GRAPH_INDEX_URI).is_ok());
        assert!(read(&m, record).is_ok());
        fs.set_mode(Path::new("/g/projects"), 0o600).unwrap();
        let e = read(&m, record).unwrap_err();
        assert_eq!(e.code, -32002);
        assert_eq!(
            e.message,
            format!(
                "Resource unavailable: VitaeGraph record \"project:a\" unreadable: permission denied. {GIVE_ACCESS}"
            )
        );
        fs.set_mode(Path::new("/g/projects"), 0o700).unwrap();
        assert!(read(&m, record).is_ok());
        // A root that cannot be reached (a folder above it the user may not search) says the
        // same, not "index not found" (found in review, with `~/.vitaecontext` at 000).
        fs.set_mode(Path::new("/"), 0o000).unwrap();
        let fresh = Served::new(
            Arc::clone(&fs) as Arc<dyn FileSystem>,
            Sources { root_flag: Some("/g".into()), cwd: "/".into(), ..Sources::default() },
        );
        let e = read(&fresh, GRAPH_INDEX_URI).unwrap_err();
        assert_eq!(
            e.message,
            format!("Resource unavailable: VitaeGraph index unreadable: permission denied. {GIVE_ACCESS}")
        );
        fs.set_mode(Path::new("/"), 0o755).unwrap();
        // A record that is not there is still "not found".
        fs.write_atomic_set(&[ports::fs::Change::Remove(Path::new("/g/projects/a.md"))]).unwrap();
        assert!(read(&m, record).unwrap_err().message.contains("VitaeGraph record \"project:a\" not found"));
    }
}
