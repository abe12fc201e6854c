//! MCP resources: the list, the templates, and reads by URI.

use serde_json::{Value, json};

use super::jsonrpc::RpcError;
use super::methods::Methods;
use crate::career;
use domain::career::Selection;

pub const CAREER_CONTEXT_URI: &str = "career-context://current";

pub fn list(_m: &Methods) -> Vec<Value> {
    vec![json!({
        "uri": CAREER_CONTEXT_URI,
        "name": "Current Career Context",
        "description": "The person's own Career Context file: their curated, self-declared career facts, read fresh on every request. When none is selected, a short notice says how to create or choose one.",
        "mimeType": "text/markdown"
    })]
}

pub fn templates(_m: &Methods) -> Vec<Value> {
    Vec::new()
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
    Err(RpcError::resource_not_found(uri, format!("{uri} is not a resource of this server")))
}
