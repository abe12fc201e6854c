//! Skills, the skill-central model: prompt and tool definitions kept in layers (folders with a
//! name and a priority), so that a team's or a person's skill overrides a broader one with the
//! same id. Pure: files come in as text, results go out as values.
//!
//! - `yaml`: YAML/JSON into a tree that keeps spans; the domain's own `Value`.
//! - `agent`: a skill as an Agent Skills folder (the MCP skills extension, `skills export`): the
//!   generated `SKILL.md` of a YAML skill, name rules and limits, `skill://` URIs, digests.
//! - `parse`: skill files (YAML, JSON, `SKILL.md`) and layer configs, every problem with its span.
//! - `set`: precedence (higher priority wins; an equal-priority clash is a conflict and neither
//!   is served), listing order, and what the MCP layer asks of a set: render, call, compose.
//! - `render`: single-pass `{{placeholder}}` rendering.
//! - `schema`: tool arguments against an `inputSchema`.
//! - `install`: what `skills install` and its companions decide (sources, the lock, checks).

pub mod agent;
pub mod install;
pub mod parse;
pub mod render;
pub mod schema;
pub mod set;
pub mod yaml;

#[cfg(test)]
mod tests;

pub use parse::{LayerSpec, Problem, front_matter, parse_config, parse_skill};
pub use set::{
    Candidate, Composed, Conflict, Entry, LayerInfo, Origin, Refused, SkillError, SkillSet, Skipped, ToolOutcome,
};
pub use yaml::Value;

/// The prompt names the server has of its own; a skill may not take one.
pub const BUILTIN_PROMPTS: [&str; 6] =
    ["cv_tailoring", "linkedin_audit", "github_showcase", "career_context_intake", COMPOSE, GET_PROMPT];

/// The tool names the server has of its own; a skill may not take one. The app's tool registry
/// checks in a test that this list names every built-in tool.
pub const BUILTIN_TOOLS: [&str; 6] =
    ["get_career_context", "search_vitaegraph", "validate_career_context", "check_claims", "match_job", GET_PROMPT];

/// The prompt that composes skills by tag.
pub const COMPOSE: &str = "skills:compose";

/// The tool that `--prompt-tools` adds for clients without prompt support.
pub const GET_PROMPT: &str = "get_prompt";

/// Whether a skill id is taken by the server itself.
pub fn is_builtin(id: &str) -> bool {
    BUILTIN_PROMPTS.contains(&id) || BUILTIN_TOOLS.contains(&id)
}

/// Whether `id` is kebab-case (`cv-bullet-rewriter`): what `skills add` writes.
pub fn is_kebab_case(id: &str) -> bool {
    !id.is_empty()
        && id
            .split('-')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkillType {
    Prompt,
    Tool,
}

impl SkillType {
    pub fn as_str(self) -> &'static str {
        match self {
            SkillType::Prompt => "prompt",
            SkillType::Tool => "tool",
        }
    }
}

/// How a skill file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillFormat {
    Yaml,
    Json,
    /// An Agent Skills folder: `SKILL.md` with YAML front matter; the body is the prompt.
    SkillMd,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    pub name: String,
    pub description: String,
    pub required: bool,
}

/// One skill as its file defines it.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub id: String,
    pub kind: SkillType,
    /// The display name; the id when the file has none.
    pub name: String,
    /// May be blank: listings then generate one.
    pub description: String,
    pub tags: Vec<String>,
    /// The template: `prompt`, `prompt_zh`, or both as `[English]\n...\n\n[中文]\n...`.
    /// Always present for a prompt skill; optional for a tool.
    pub prompt: Option<String>,
    pub arguments: Vec<PromptArgument>,
    /// As written (a mapping); tools without one get a schema built from `arguments`.
    pub input_schema: Option<Value>,
    pub version: Option<String>,
    pub format: SkillFormat,
}

impl Skill {
    /// The schema a tool offers: `type: object`, `properties` (from `arguments` when the file has
    /// no `inputSchema`), `required` only when non-empty, other keywords kept as written.
    pub fn tool_schema(&self) -> Value {
        let mut out: Vec<(String, Value)> = vec![("type".into(), Value::String("object".into()))];
        let (properties, required) = match &self.input_schema {
            Some(schema) => (
                match schema.get("properties") {
                    Some(p @ Value::Object(_)) => p.clone(),
                    _ => Value::Object(Vec::new()),
                },
                match schema.get("required") {
                    Some(Value::Array(r)) => r.clone(),
                    _ => Vec::new(),
                },
            ),
            None => (
                Value::Object(
                    self.arguments
                        .iter()
                        .map(|a| {
                            let mut p = vec![("type".to_owned(), Value::String("string".into()))];
                            if !a.description.is_empty() {
                                p.push(("description".into(), Value::String(a.description.clone())));
                            }
                            (a.name.clone(), Value::Object(p))
                        })
                        .collect(),
                ),
                self.arguments.iter().filter(|a| a.required).map(|a| Value::String(a.name.clone())).collect(),
            ),
        };
        out.push(("properties".into(), properties));
        if !required.is_empty() {
            out.push(("required".into(), Value::Array(required)));
        }
        if let Some(Value::Object(pairs)) = &self.input_schema {
            for (k, v) in pairs {
                if !matches!(k.as_str(), "type" | "properties" | "required") {
                    out.push((k.clone(), v.clone()));
                }
            }
        }
        Value::Object(out)
    }

    /// The names a template may fill from arguments: declared prompt arguments and schema
    /// properties. A missing one renders empty; any other `{{name}}` stays as written.
    fn declared(&self, name: &str) -> bool {
        self.arguments.iter().any(|a| a.name == name)
            || matches!(self.input_schema.as_ref().and_then(|s| s.get("properties")), Some(Value::Object(p)) if p.iter().any(|(k, _)| k == name))
    }

    /// The `{{name}}` placeholders of the template that nothing fills: neither a declared
    /// argument nor a server value (`career_context`, `career_context.SURFACE`). They are sent
    /// to the model as written (`doctor` warns about them).
    pub fn undeclared_placeholders(&self) -> Vec<String> {
        let template = self.prompt.as_deref().unwrap_or_default();
        render::placeholders(template).into_iter().filter(|n| !is_server_value(n) && !self.declared(n)).collect()
    }
}

/// Whether a placeholder is filled by the server: `career_context` or `career_context.SURFACE`.
pub fn is_server_value(name: &str) -> bool {
    match name.strip_prefix("career_context") {
        Some("") => true,
        Some(rest) => {
            rest.strip_prefix('.').is_some_and(|s| crate::career::Surface::ALL.iter().any(|x| x.as_str() == s))
        }
        None => false,
    }
}
