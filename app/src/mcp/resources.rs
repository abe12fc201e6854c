//! MCP resources: the list, the templates, and reads by URI.

use serde_json::{Value, json};

use super::jsonrpc::RpcError;
use super::methods::Methods;
use crate::career;
use domain::career::Selection;
use domain::wiki::WikiModule;

pub const CAREER_CONTEXT_URI: &str = "career-context://current";
pub const WIKI_PREFIX: &str = "vitaecontext://wiki/";
pub const WIKI_TEMPLATE: &str = "vitaecontext://wiki/{module}";

pub fn list(_m: &Methods) -> Vec<Value> {
    let mut out = vec![json!({
        "uri": CAREER_CONTEXT_URI,
        "name": "Current Career Context",
        "description": "The person's own Career Context file: their curated, self-declared career facts, read fresh on every request. When none is selected, a short notice says how to create or choose one.",
        "mimeType": "text/markdown"
    })];
    out.extend(WikiModule::ALL.iter().map(|w| {
        json!({
            "uri": format!("{WIKI_PREFIX}{}", w.name()),
            "name": format!("vitaecontext wiki: {}", w.name()),
            "description": w.title(),
            "mimeType": "text/markdown"
        })
    }));
    out
}

pub fn templates(_m: &Methods) -> Vec<Value> {
    vec![json!({
        "uriTemplate": WIKI_TEMPLATE,
        "name": "vitaecontext wiki module",
        "description": "User documentation packaged with the binary. Modules: vitaecontext (set-up, clients, every tool, prompt and resource), build (writing a Career Context, every diagnostic), vitaegraph (records, indexing, search).",
        "mimeType": "text/markdown"
    })]
}

/// Completion candidates for a resource template argument other than the wiki's.
pub fn complete(_m: &Methods, uri: &str, arg: &str, _value: &str) -> Result<Vec<String>, RpcError> {
    Err(RpcError::invalid_params(format!("no completion for argument {arg:?} of {uri:?}")))
}

fn text(uri: &str, mime: &str, text: String) -> Value {
    json!({ "contents": [{ "uri": uri, "mimeType": mime, "text": text }] })
}

pub fn read(m: &Methods, uri: &str) -> Result<Value, RpcError> {
    if uri == CAREER_CONTEXT_URI {
        let body = match career::select(m.fs(), m.sources()) {
            Selection::Selected { path, .. } => {
                career::read_text(m.fs(), &path).unwrap_or_else(|e| career::load_notice(&path, &e))
            }
            other => career::selection_notice(&other).unwrap_or_default(),
        };
        return Ok(text(uri, "text/markdown", body));
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
