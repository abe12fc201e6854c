//! MCP tools: definitions (`tools/list`) and calls (`tools/call`).
//!
//! Bad arguments (an unknown property, a wrong type, a value outside an enum) are protocol
//! errors (-32602); a problem with the person's files is a tool result with `isError`, in words
//! a model can pass on.

use serde_json::{Map, Value, json};

use super::jsonrpc::RpcError;
use super::methods::Methods;
use crate::usecase::career;
use domain::career::{Selection, Surface};

/// A tool's outcome: text, and whether it reports a problem.
pub struct ToolResult {
    pub text: String,
    pub is_error: bool,
}

impl ToolResult {
    pub fn ok(text: String) -> Self {
        Self { text, is_error: false }
    }
    pub fn error(text: String) -> Self {
        Self { text, is_error: true }
    }
    pub fn into_value(self) -> Value {
        let mut v = json!({ "content": [{ "type": "text", "text": self.text }] });
        if self.is_error {
            v["isError"] = json!(true);
        }
        v
    }
}

pub fn definitions() -> Vec<Value> {
    vec![
        json!({
            "name": "get_career_context",
            "description": "Get the person's Career Context: their own curated, self-declared career facts, cut to one surface (cv, github, linkedin, portfolio, x, or general). Call this before writing or reviewing a CV, LinkedIn section, GitHub profile README, portfolio page or X bio, and use only the facts it returns. If it reports a problem (no file, several files, an invalid file), tell the person what it says instead of inventing facts.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "for": {
                        "type": "string",
                        "enum": ["cv", "github", "linkedin", "portfolio", "x", "general"],
                        "default": "general"
                    }
                },
                "additionalProperties": false
            }
        }),
        json!({
            "name": "search_vitaegraph",
            "description": "Search the person's VitaeGraph: their detailed career records (projects, roles, degrees, courses, theses, certifications, awards, publications). Rank by `query` (keywords; title and tag matches count most, ids and paths match too), filter by record `type` and `tag`, or give no query to list records in id order. Returns JSON {matchCount, records: [{id, type, title, path, tags, score, excerpt}]} with the top 20; read a full record with the resource vitaegraph://record/{id}.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": { "type": "string" },
                    "type": { "type": "string" },
                    "tag": { "type": "string" }
                },
                "additionalProperties": false
            }
        }),
        json!({
            "name": "validate_career_context",
            "description": "Check the person's Career Context file against the format and return JSON: valid, path, title, section names, and errors and warnings with line numbers and codes. Call it after the person edits their Career Context, or when get_career_context reports that the file is invalid, to explain exactly what to fix.",
            "inputSchema": {
                "type": "object",
                "properties": {},
                "additionalProperties": false
            }
        }),
    ]
}

pub fn known(name: &str) -> bool {
    matches!(name, "get_career_context" | "validate_career_context" | "search_vitaegraph")
}

fn optional_str<'a>(args: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, RpcError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(RpcError::invalid_params(format!("\"{key}\" must be a string, got {other}"))),
    }
}

fn search(m: &Methods, args: &Map<String, Value>) -> Result<ToolResult, RpcError> {
    use domain::graph::search::{Query, parse_type};
    only(args, "search_vitaegraph", &["query", "type", "tag"])?;
    let text = optional_str(args, "query")?;
    let kind = optional_str(args, "type")?.map(parse_type).transpose().map_err(RpcError::invalid_params)?;
    let tag = optional_str(args, "tag")?;
    let searcher = match m.graph().searcher(m.fs()) {
        Ok(s) => s,
        Err(e) => {
            tracing::debug!("search index unavailable: {e}");
            return Ok(ToolResult::error(
                "The VitaeGraph search index was not found. Ask the person to run `vitaecontext graph index` \
                 (with `--root DIR` if their VitaeGraph is not in ~/.vitaecontext/vitaegraph), then search again."
                    .into(),
            ));
        }
    };
    let results = searcher.search(&Query { text, kind: kind.as_deref(), tag });
    let records: Vec<Value> = results
        .records
        .iter()
        .map(|h| {
            json!({
                "id": h.id, "type": h.kind, "title": h.title, "path": h.path,
                "tags": h.tags, "score": h.score, "excerpt": h.excerpt
            })
        })
        .collect();
    let body = json!({ "matchCount": results.match_count, "records": records });
    Ok(ToolResult::ok(serde_json::to_string_pretty(&body).map_err(RpcError::internal)?))
}

/// Refuses any argument not in `allowed`.
pub fn only(args: &Map<String, Value>, tool: &str, allowed: &[&str]) -> Result<(), RpcError> {
    match args.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(RpcError::invalid_params(format!(
            "{tool} does not take an argument {k:?}{}",
            if allowed.is_empty() {
                String::from(" (it takes none)")
            } else {
                format!(" (it takes: {})", allowed.join(", "))
            }
        ))),
        None => Ok(()),
    }
}

pub fn call(m: &Methods, name: &str, args: &Map<String, Value>) -> Result<ToolResult, RpcError> {
    match name {
        "get_career_context" => {
            only(args, name, &["for"])?;
            let surface = match args.get("for") {
                None => Surface::General,
                Some(Value::String(s)) => s.parse::<Surface>().map_err(RpcError::invalid_params)?,
                Some(other) => {
                    return Err(RpcError::invalid_params(format!("\"for\" must be a string, got {other}")));
                }
            };
            Ok(match career::packet_text(m.fs(), m.sources(), surface) {
                Ok(text) => ToolResult::ok(text),
                Err(problem) => ToolResult::error(problem),
            })
        }
        "validate_career_context" => {
            only(args, name, &[])?;
            let path = match career::select(m.fs(), m.sources()) {
                Selection::Selected { path, .. } => path,
                other => return Ok(ToolResult::error(career::selection_notice(&other).unwrap_or_default())),
            };
            let loaded = match career::load(m.fs(), &path) {
                Ok(l) => l,
                Err(e) => return Ok(ToolResult::error(career::load_notice(&path, &e))),
            };
            let mut v = career::validation_json(&loaded);
            v["sections"] = json!(loaded.validation.section_names());
            Ok(ToolResult::ok(serde_json::to_string_pretty(&v).map_err(RpcError::internal)?))
        }
        "search_vitaegraph" => search(m, args),
        other => Err(RpcError::invalid_params(format!("unknown tool {other:?}"))),
    }
}
