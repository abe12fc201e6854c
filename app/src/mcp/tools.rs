//! MCP tools: a registry that owns each tool's name, definition and call.
//!
//! Bad arguments (an unknown property, a wrong type, a value outside an enum) are protocol
//! errors (-32602), decided by each tool's typed arguments; a problem with the person's files is
//! a tool result with `isError`, in words a model can pass on.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::jsonrpc::RpcError;
use super::params::{self, NoArguments};
use super::resources::RECORD_PREFIX;
use super::revision::Revision;
use super::served::Served;
use crate::usecase::career::{self, Current};
use domain::career::Surface;

/// A tool's outcome: text, whether it reports a problem, and what later revisions add: the
/// same data as a JSON value (`structuredContent`, 2025-06-18) and links to the resources it
/// names (`resource_link`, 2025-06-18).
#[derive(Debug)]
pub struct ToolResult {
    pub text: String,
    /// Text blocks after the first (which, for a JSON answer, is the JSON alone).
    pub notes: Vec<String>,
    pub is_error: bool,
    pub structured: Option<Value>,
    pub links: Vec<Value>,
}

impl ToolResult {
    pub fn ok(text: String) -> Self {
        Self { text, notes: Vec::new(), is_error: false, structured: None, links: Vec::new() }
    }
    pub fn error(text: String) -> Self {
        Self { text, notes: Vec::new(), is_error: true, structured: None, links: Vec::new() }
    }
    /// A JSON answer: pretty-printed in the text block (every revision) and, where the revision
    /// has structured output, as `structuredContent` too.
    pub fn with_structured(mut self, v: Value) -> Self {
        self.structured = Some(v);
        self
    }
    pub fn json(value: Value) -> Result<Self, RpcError> {
        Ok(Self {
            text: pretty(&value)?,
            notes: Vec::new(),
            is_error: false,
            structured: Some(value),
            links: Vec::new(),
        })
    }
    pub fn into_value(self, revision: Revision) -> Value {
        let mut content = vec![json!({ "type": "text", "text": self.text })];
        content.extend(self.notes.into_iter().map(|n| json!({ "type": "text", "text": n })));
        if revision.has_resource_links() {
            content.extend(self.links);
        }
        let mut v = json!({ "content": content });
        if let Some(structured) = self.structured.filter(|_| revision.has_structured_output()) {
            v["structuredContent"] = structured;
        }
        if self.is_error {
            v["isError"] = json!(true);
        }
        v
    }
}

/// What calling a tool does: its arguments (an object) in, a result or a protocol error out.
pub type Call = Arc<dyn Fn(&Served, Map<String, Value>) -> Result<ToolResult, RpcError> + Send + Sync>;

/// One tool: everything about it in one entry.
pub struct Tool {
    pub name: String,
    pub title: String,
    pub description: String,
    pub input_schema: Value,
    /// The schema of `structuredContent`, for tools that return JSON (2025-06-18 and later).
    pub output_schema: Option<Value>,
    /// The tool only reads the person's files: annotated `readOnlyHint`, `idempotentHint`, and
    /// `openWorldHint: false` (2025-03-26 and later).
    pub read_only: bool,
    pub call: Call,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Tool {
    fn new(
        name: &str,
        title: &str,
        description: &str,
        input_schema: Value,
        call: impl Fn(&Served, Map<String, Value>) -> Result<ToolResult, RpcError> + Send + Sync + 'static,
    ) -> Self {
        Self {
            name: name.to_owned(),
            title: title.to_owned(),
            description: description.to_owned(),
            input_schema,
            output_schema: None,
            read_only: true,
            call: Arc::new(call),
        }
    }

    fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// The `tools/list` entry in `revision`: name, description and inputSchema in all; the
    /// fields each later revision defines only from that revision (see `revision.rs`).
    pub fn definition(&self, revision: Revision) -> Value {
        let mut v = json!({ "name": self.name, "description": self.description, "inputSchema": self.input_schema });
        if revision.has_titles() {
            v["title"] = json!(self.title);
        }
        if revision.has_tool_annotations() && self.read_only {
            v["annotations"] = json!({ "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false });
        }
        if let Some(schema) = self.output_schema.as_ref().filter(|_| revision.has_structured_output()) {
            v["outputSchema"] = schema.clone();
        }
        v
    }
}

/// The tools a server offers, in listing order; a new tool is one entry.
#[derive(Debug, Default)]
pub struct ToolRegistry {
    tools: Vec<Tool>,
}

impl ToolRegistry {
    /// The built-in tools of the contract.
    pub fn builtin() -> Self {
        Self {
            tools: vec![
                get_career_context(),
                search_vitaegraph(),
                validate_career_context(),
                check_claims(),
                match_job(),
            ],
        }
    }

    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn definitions(&self, revision: Revision) -> Vec<Value> {
        self.tools.iter().map(|t| t.definition(revision)).collect()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.name.as_str())
    }
}

fn pretty(v: &Value) -> Result<String, RpcError> {
    serde_json::to_string_pretty(v).map_err(RpcError::internal)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GetCareerContextArgs {
    #[serde(rename = "for", default)]
    surface: Surface,
}

fn get_career_context() -> Tool {
    let surfaces: Vec<&str> = Surface::ALL.iter().map(|s| s.as_str()).collect();
    Tool::new(
        "get_career_context",
        "Get the Career Context",
        "Get the person's Career Context: their own curated, self-declared career facts, cut to one surface (cv, github, linkedin, portfolio, x, or general). Call this before writing or reviewing a CV, LinkedIn section, GitHub profile README, portfolio page or X bio, and use only the facts it returns. If it reports a problem (no file, several files, an invalid file), tell the person what it says instead of inventing facts.",
        json!({
            "type": "object",
            "properties": {
                "for": { "type": "string", "enum": surfaces, "default": Surface::default().as_str() }
            },
            "additionalProperties": false
        }),
        |m, args| {
            let GetCareerContextArgs { surface } = params::parse(args)?;
            Ok(match m.career_context() {
                Current::Loaded(loaded) => match career::packet_of(&loaded, surface) {
                    Ok(text) => ToolResult::ok(text),
                    Err(notice) => ToolResult::error(notice),
                },
                Current::Unavailable(notice) => ToolResult::error(notice),
            })
        },
    )
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    #[serde(default)]
    query: Option<String>,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    tag: Option<String>,
}

fn search_vitaegraph() -> Tool {
    Tool::new(
        "search_vitaegraph",
        "Search the VitaeGraph",
        "Search the person's VitaeGraph: their detailed career records (projects, roles, degrees, courses, theses, certifications, awards, publications). Rank by `query` (keywords; title and tag matches count most, ids and paths match too), filter by record `type` and `tag`, or give no query to list records in id order. Returns JSON {matchCount, records: [{id, type, title, path, tags, score, excerpt}]} with the top 20; read a full record with the resource vitaegraph://record/{id}.",
        json!({
            "type": "object",
            "properties": {
                "query": { "type": "string" },
                "type": { "type": "string" },
                "tag": { "type": "string" }
            },
            "additionalProperties": false
        }),
        |m, args| {
            use domain::graph::search::{Query, parse_type};
            use domain::graph::set::Verdict;
            let SearchArgs { query, kind, tag } = params::parse(args)?;
            let kind = kind.as_deref().map(parse_type).transpose().map_err(RpcError::invalid_params)?;
            let query = Query { text: query.as_deref(), kind: kind.as_deref(), tag: tag.as_deref() };
            // With --watch, records changed since the index are searched beside it.
            let pending = m.graph().pending();
            let (results, indexed) = match m.graph().with_searcher(m.fs(), |s| (s.search_with(&query, &pending), s.len()))
            {
                Ok(found) => found,
                Err(e) => {
                    tracing::warn!("search index unavailable: {e}");
                    // An index run of an invalid graph writes only its diagnostics: running it
                    // again would not help, fixing the records would.
                    let why = match m.graph().invalid_errors(m.fs()) {
                        Some(errors) => format!(
                            "The VitaeGraph has no search index because it is invalid ({errors} error(s) in \
                             .generated/diagnostics.json). Ask the person to run `vitaecontext graph validate`, \
                             fix what it reports, then `vitaecontext graph index` (add `--root DIR` to both if \
                             their VitaeGraph is not in ~/.vitaecontext/vitaegraph)."
                        ),
                        None if e.is_missing() => "The VitaeGraph search index was not found. Ask the person to \
                                                    run `vitaecontext graph index` (with `--root DIR` if their \
                                                    VitaeGraph is not in ~/.vitaecontext/vitaegraph), then search \
                                                    again."
                            .into(),
                        None if e.is_denied() => format!(
                            "The VitaeGraph search index (.generated/search-index.json) cannot be read: permission \
                             denied. Ask the person to fix that: {}",
                            super::resources::GIVE_ACCESS
                        ),
                        // There but unusable (torn, too large, a folder, a symlink): indexing
                        // again writes it whole, or says what stands in its way.
                        None => format!(
                            "The VitaeGraph search index (.generated/search-index.json) cannot be loaded: {}. Ask \
                             the person to run `vitaecontext graph index` (with `--root DIR` if their VitaeGraph \
                             is not in ~/.vitaecontext/vitaegraph) to write it again, then search again.",
                            e.reason()
                        ),
                    };
                    return Ok(ToolResult::error(why));
                }
            };
            // graph.json and search-index.json from two runs (one killed between its renames,
            // or a file copied in): search would list records the graph cannot serve, or miss
            // records it holds. Refused, saying how to mend it, rather than answered wrong. The
            // generation marker tells when it can; otherwise the contents are compared.
            let graph = m.graph().graph(m.fs());
            let mixed = match m.graph().set_verdict(m.fs(), graph.as_deref().ok()) {
                Verdict::OneSet => None,
                Verdict::Mixed => Some("the generation marker (.generated/set.bin) names another graph.json".to_owned()),
                Verdict::Unknown => match &graph {
                    Ok(g) if indexed != g.graph.nodes.len() => {
                        Some(format!("{indexed} record(s) in search-index.json, {} in graph.json", g.graph.nodes.len()))
                    }
                    Ok(g) => results
                        .records
                        .iter()
                        .find(|h| !g.by_id.contains_key(&h.id) && pending.document(&h.id).is_none())
                        .map(|h| format!("{} is in search-index.json, not in graph.json", h.id)),
                    Err(e) if e.is_missing() => Some("graph.json is missing".to_owned()),
                    Err(_) => None,
                },
            };
            if let Some(why) = mixed {
                tracing::warn!("search-index.json and graph.json are from different index runs: {why}");
                let text = if m.graph().indexing(m.fs()) {
                    "The VitaeGraph index is being written right now (`vitaecontext graph index` is running): \
                     .generated/search-index.json and .generated/graph.json are not yet from the same run. Search \
                     again in a moment."
                } else {
                    "The VitaeGraph index files do not match: .generated/search-index.json and .generated/graph.json \
                     come from different runs of `vitaecontext graph index` (one was interrupted, or a file was \
                     copied in). Ask the person to run `vitaecontext graph index` (with `--root DIR` if their \
                     VitaeGraph is not in ~/.vitaecontext/vitaegraph), then search again."
                };
                return Ok(ToolResult::error(text.to_owned()));
            }
            m.graph().answered();
            let records: Vec<Value> = results
                .records
                .iter()
                .map(|h| {
                    let mut v = json!({
                        "id": h.id, "type": h.kind, "title": h.title, "path": h.path,
                        "tags": h.tags, "score": h.score, "excerpt": h.excerpt
                    });
                    // The index does not hold a record's visibility: its front matter is read
                    // (at most 20 records, each through the confined read record reads use).
                    if m.graph().read_record(m.fs(), &h.path).is_ok_and(|t| domain::graph::frontmatter::is_private(&t)) {
                        v["visibility"] = json!("private");
                    }
                    v
                })
                .collect();
            let links = results
                .records
                .iter()
                .map(|h| {
                    json!({
                        "type": "resource_link", "uri": format!("{RECORD_PREFIX}{}", h.id), "name": h.id,
                        "title": h.title, "description": format!("{} record {}", h.kind, h.path),
                        "mimeType": "text/markdown"
                    })
                })
                .collect();
            let mut answer = json!({ "matchCount": results.match_count, "records": records });
            // Without a live index, records changed since the index are said, not hidden.
            let stale = graph.as_deref().ok().and_then(|g| m.stale(g));
            if let Some(stale) = &stale {
                answer["stale"] = json!(true);
                answer["staleReason"] = json!(stale.reason());
            }
            let mut result = ToolResult::json(answer)?;
            if let Some(stale) = stale {
                result.notes.push(format!(
                    "Note: the VitaeGraph index is stale: {}. Ask the person to run `vitaecontext graph index` \
                     (with `--root DIR` if their VitaeGraph is not in ~/.vitaecontext/vitaegraph), or to start the \
                     server with --watch so that it keeps the index current.",
                    stale.reason()
                ));
            }
            result.links = links;
            Ok(result)
        },
    )
    .with_output_schema(json!({
        "type": "object",
        "properties": {
            "matchCount": { "type": "integer", "minimum": 0 },
            "stale": { "type": "boolean" },
            "staleReason": { "type": "string" },
            "records": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": { "type": "string" },
                        "type": { "type": "string" },
                        "title": { "type": "string" },
                        "path": { "type": "string" },
                        "tags": { "type": "array" },
                        "score": { "type": "number" },
                        "excerpt": { "type": "string" },
                        "visibility": { "type": "string", "enum": ["private"] }
                    },
                    "required": ["id", "type", "title", "path", "tags", "score", "excerpt"]
                }
            }
        },
        "required": ["matchCount", "records"]
    }))
}

fn validate_career_context() -> Tool {
    Tool::new(
        "validate_career_context",
        "Validate the Career Context",
        "Check the person's Career Context file against the format and return JSON: valid, path, title, section names, and errors and warnings with line numbers and codes. Call it after the person edits their Career Context, or when get_career_context reports that the file is invalid, to explain exactly what to fix.",
        json!({ "type": "object", "properties": {}, "additionalProperties": false }),
        |m, args| {
            let NoArguments {} = params::parse(args)?;
            Ok(match m.career_context() {
                Current::Loaded(loaded) => {
                    let mut v = career::validation_json(&loaded);
                    v["sections"] = json!(loaded.validation.section_names());
                    ToolResult::json(v)?
                }
                Current::Unavailable(notice) => ToolResult::error(notice),
            })
        },
    )
    .with_output_schema(validation_schema())
}

/// The schema of `validate_career_context`'s JSON (`career::validation_json` plus `sections`).
fn validation_schema() -> Value {
    let diagnostic = json!({
        "type": "object",
        "properties": {
            "code": { "type": "string" },
            "line": { "type": "integer" },
            "message": { "type": "string" },
            "severity": { "type": "string" },
            "column": { "type": ["integer", "null"] },
            "endColumn": { "type": ["integer", "null"] }
        },
        "required": ["code", "line", "message", "severity"]
    });
    let names = json!({ "type": "array", "items": { "type": "string" } });
    json!({
        "type": "object",
        "properties": {
            "schemaVersion": { "type": "integer" },
            "valid": { "type": "boolean" },
            "path": { "type": "string" },
            "title": { "type": ["string", "null"] },
            "sectionNames": names,
            "sections": names,
            "errors": { "type": "array", "items": diagnostic },
            "warnings": { "type": "array", "items": diagnostic }
        },
        "required": ["schemaVersion", "valid", "path", "errors", "warnings"]
    })
}

/// A text argument that must not be blank and is capped in size.
fn required_text(name: &str, value: &str, max: usize) -> Result<(), RpcError> {
    if value.trim().is_empty() {
        return Err(RpcError::invalid_params(format!("{name:?} is empty: pass the text to check")));
    }
    if value.len() > max {
        return Err(RpcError::invalid_params(format!("{name:?} is longer than {} KiB", max / 1024)));
    }
    Ok(())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckClaimsArgs {
    draft: String,
    #[serde(rename = "for", default)]
    surface: Option<Surface>,
}

fn check_claims() -> Tool {
    use crate::usecase::grounding::{self, Files, MAX_DRAFT_BYTES};
    let surfaces: Vec<&str> = Surface::ALL.iter().map(|s| s.as_str()).collect();
    Tool::new(
        "check_claims",
        "Check a draft's claims",
        "Check a draft (a CV, a LinkedIn About, a profile README, a cover letter) against the person's own files before showing it. Splits the draft into claims (sentences and list items), finds the numbers, dates and names in each, and looks them up in the Career Context and the VitaeGraph. Returns each claim as supported, partly_supported, unsupported, contradicted (a number or date that differs from the files, naming both) or no_checkable_facts, with evidence (file and line, or record id). Call it after writing and fix every contradicted and unsupported claim: use the value the files give, soften or remove the claim, or ask the person. Deterministic and local; no model is called.",
        json!({
            "type": "object",
            "properties": {
                "draft": { "type": "string", "description": "The text to check (Markdown or plain text)." },
                "for": { "type": "string", "enum": surfaces, "description": "The surface the draft is for." }
            },
            "required": ["draft"],
            "additionalProperties": false
        }),
        |m, args| {
            let CheckClaimsArgs { draft, surface } = params::parse(args)?;
            required_text("draft", &draft, MAX_DRAFT_BYTES)?;
            let mut files = Files::gather(m.career_context(), m.graph(), m.fs());
            files.year_now = Some(crate::usecase::grounding::year_now(&fs_std::SystemClock::default()));
            let claims = files.answer(m.graph(), m.fs(), |f| f.check(&draft));
            let text = grounding::claims_text(&claims, surface, &files.notes);
            Ok(ToolResult::ok(text).with_structured(grounding::claims_json(&claims)))
        },
    )
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchJobArgs {
    posting: String,
}

fn match_job() -> Tool {
    use crate::usecase::grounding::{self, Files, MAX_DRAFT_BYTES};
    Tool::new(
        "match_job",
        "Match a job posting",
        "Compare a job posting with the person's files. Extracts the posting's requirements (must-have and nice-to-have, from its own headings and wording) and returns a coverage table: for each requirement, covered (with evidence: Career Context line or VitaeGraph record id), partial (which terms were not found) or missing; plus the posting's keywords that the person's files support but the cv packet does not mention. Counts per class only, no score. Call it before tailoring a CV or cover letter to a posting; never claim a missing requirement without asking the person.",
        json!({
            "type": "object",
            "properties": {
                "posting": { "type": "string", "description": "The job posting's text (Markdown or plain text)." }
            },
            "required": ["posting"],
            "additionalProperties": false
        }),
        |m, args| {
            let MatchJobArgs { posting } = params::parse(args)?;
            required_text("posting", &posting, MAX_DRAFT_BYTES)?;
            let mut files = Files::gather(m.career_context(), m.graph(), m.fs());
            files.year_now = Some(crate::usecase::grounding::year_now(&fs_std::SystemClock::default()));
            let result = files.answer(m.graph(), m.fs(), |f| f.match_job(&posting));
            Ok(ToolResult::ok(grounding::job_text(&result, &files.notes)).with_structured(grounding::job_json(&result)))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A skill may not take a built-in tool's name: the skills layer's list must name them all.
    #[test]
    fn every_built_in_tool_is_reserved_for_the_skills_layer() {
        for name in ToolRegistry::builtin().names() {
            assert!(domain::skills::BUILTIN_TOOLS.contains(&name), "{name} is missing from BUILTIN_TOOLS");
        }
    }
}
