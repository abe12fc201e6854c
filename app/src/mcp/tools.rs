//! MCP tools: definitions (`tools/list`) and calls (`tools/call`).
//!
//! Bad arguments (an unknown property, a wrong type, a value outside an enum) are protocol
//! errors (-32602); a problem with the person's files is a tool result with `isError`, in words
//! a model can pass on.

use serde_json::{Map, Value, json};

use super::jsonrpc::RpcError;
use super::methods::Methods;
use crate::career;
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
    matches!(name, "get_career_context" | "validate_career_context")
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
        other => Err(RpcError::invalid_params(format!("unknown tool {other:?}"))),
    }
}
