//! MCP prompts (`prompts/list`, `prompts/get`): the four career prompts, each with its typed
//! arguments, grounded in the current Career Context.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::jsonrpc::RpcError;
use super::params::{self, NamedCall, present_string};
use super::revision::Revision;
use super::served::{Served, skill_error};
use super::tools::ToolResult;
use crate::usecase::career::{self, Current};
use crate::usecase::skills;
use domain::career::quickref::QValue;
use domain::prompts::{Grounding, PromptArgs, PromptName, assemble_with_graph, digest};
use domain::skills::{COMPOSE, GET_PROMPT};

/// `prompts/list`: the four career prompts, then the prompt skills and `skills:compose` when
/// skill layers are configured.
pub fn list(m: &Served, revision: Revision) -> Vec<Value> {
    let mut all: Vec<Value> = PromptName::ALL
        .iter()
        .map(|p| {
            let mut v = json!({
                "name": p.as_str(),
                "description": p.description(),
                "arguments": p.arguments().iter().map(|a| json!({
                    "name": a.name, "description": a.description, "required": a.required
                })).collect::<Vec<_>>(),
            });
            if revision.has_titles() {
                v["title"] = json!(p.title());
            }
            v
        })
        .collect();
    if let Some(set) = m.skills() {
        all.extend(skills::prompt_list(&set));
    }
    all
}

/// The prompt called `name`, or -32602 listing the prompts there are.
pub fn named(name: &str) -> Result<PromptName, RpcError> {
    PromptName::parse(name).ok_or_else(|| {
        RpcError::invalid_params(format!(
            "unknown prompt {name:?} (available: {})",
            PromptName::ALL.map(PromptName::as_str).join(", ")
        ))
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CvTailoringArgs {
    #[serde(default, deserialize_with = "present_string")]
    target_role: Option<String>,
    #[serde(default, deserialize_with = "present_string")]
    job_description: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct LinkedinAuditArgs {
    #[serde(default, deserialize_with = "present_string")]
    profile_snapshot: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GithubShowcaseArgs {
    #[serde(default, deserialize_with = "present_string")]
    focus: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CareerContextIntakeArgs {
    #[serde(default, deserialize_with = "present_string")]
    raw_notes: Option<String>,
}

/// The typed arguments of `prompt`, checked (required, blank) by the domain.
fn arguments(prompt: PromptName, args: Map<String, Value>) -> Result<PromptArgs, RpcError> {
    let given: Vec<(&str, Option<String>)> = match prompt {
        PromptName::CvTailoring => {
            let a: CvTailoringArgs = params::parse(args)?;
            vec![("targetRole", a.target_role), ("jobDescription", a.job_description)]
        }
        PromptName::LinkedinAudit => {
            let a: LinkedinAuditArgs = params::parse(args)?;
            vec![("profileSnapshot", a.profile_snapshot)]
        }
        PromptName::GithubShowcase => {
            let a: GithubShowcaseArgs = params::parse(args)?;
            vec![("focus", a.focus)]
        }
        PromptName::CareerContextIntake => {
            let a: CareerContextIntakeArgs = params::parse(args)?;
            vec![("rawNotes", a.raw_notes)]
        }
    };
    let given: Vec<(String, String)> =
        given.into_iter().filter_map(|(name, value)| value.map(|v| (name.to_owned(), v))).collect();
    PromptArgs::parse(prompt, &given).map_err(RpcError::invalid_params)
}

/// What a prompt is grounded in, from the current Career Context.
fn grounding(m: &Served, prompt: PromptName) -> Grounding {
    match m.career_context() {
        Current::Unavailable(notice) => Grounding::Unavailable { notice, current_text: None },
        // An update rewrites the file, so the intake sees the file itself, not the packet.
        Current::Loaded(loaded) if prompt == PromptName::CareerContextIntake && loaded.validation.valid => {
            Grounding::File(loaded.text.clone())
        }
        Current::Loaded(loaded) => match career::packet_of(&loaded, prompt.surface()) {
            Ok(packet) => Grounding::Packet(packet),
            Err(notice) => Grounding::Unavailable {
                notice,
                current_text: (prompt == PromptName::CareerContextIntake).then(|| loaded.text.clone()),
            },
        },
    }
}

/// A career prompt, rendered.
fn career_prompt(m: &Served, prompt: PromptName, args: Map<String, Value>) -> Result<String, RpcError> {
    let args = arguments(prompt, args)?;
    // With a configured and indexed VitaeGraph, the prompt also carries a digest of the most
    // relevant records; without one it is exactly the Career Context prompt.
    let digest = match m.graph().with_searcher(m.fs(), |searcher| digest(prompt, &args, searcher, &target_roles(m))) {
        Ok(digest) => Some(digest),
        Err(e) => {
            tracing::debug!("prompt without VitaeGraph records: {e}");
            None
        }
    };
    Ok(assemble_with_graph(prompt, &args, &grounding(m, prompt), digest.as_ref()))
}

/// `prompts/get`: a career prompt, else a prompt skill or `skills:compose` (errors in
/// skill-central's words), else -32602.
pub fn get(m: &Served, params: Map<String, Value>) -> Result<Value, RpcError> {
    let mut call: NamedCall = params::parse(params)?;
    if let Some(prompt) = PromptName::parse(&call.name) {
        let text = career_prompt(m, prompt, call.take_arguments())?;
        return Ok(json!({
            "description": prompt.description(),
            "messages": [{ "role": "user", "content": { "type": "text", "text": text } }]
        }));
    }
    let Some(set) = m.skills() else { return Err(named(&call.name).unwrap_err()) };
    let packets = m.packets();
    skills::prompts_get(&set, &call.name, call.arguments.as_ref(), &packets).map_err(skill_error)
}

/// The names `get_prompt` takes: the career prompts, then the prompt skills and compose.
fn prompt_names(m: &Served) -> Vec<String> {
    let mut names: Vec<String> = PromptName::ALL.iter().map(|p| p.as_str().to_owned()).collect();
    if let Some(set) = m.skills() {
        names.extend(set.prompts().map(|e| e.skill.id.clone()));
        names.push(COMPOSE.to_owned());
    }
    names
}

/// The `get_prompt` tool (`--prompt-tools`), for clients that show no MCP prompts: its schema
/// lists every prompt name.
pub fn get_prompt_tool_definition(m: &Served) -> Value {
    json!({
        "name": GET_PROMPT,
        "description": "Get one of this server's prompts as text, for clients that cannot show MCP prompts: the career prompts (cv_tailoring, linkedin_audit, github_showcase, career_context_intake), the person's prompt skills, and skills:compose {tags}. Follow the text it returns as your instructions.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": { "type": "string", "enum": prompt_names(m), "description": "The prompt's name" },
                "arguments": {
                    "type": "object",
                    "description": "The prompt's arguments, each a string",
                    "additionalProperties": { "type": "string" }
                }
            },
            "required": ["name"],
            "additionalProperties": false
        }
    })
}

/// `get_prompt {name, arguments}`: the rendered prompt text. Its arguments are checked as
/// `prompts/get` checks its params, and a problem is -32602 as there: the contract's errors
/// section names invalid prompt names and arguments, and `get_prompt` is this server's own
/// tool, not a tool skill (until a review found it, it answered `isError` results, as tool
/// skills do).
pub fn get_prompt_tool_call(m: &Served, args: Map<String, Value>) -> Result<ToolResult, RpcError> {
    let type_name = |v: &Value| skills::value_from_json(v).type_name();
    let name = match args.get("name") {
        Some(Value::String(n)) => n.clone(),
        None | Some(Value::Null) => return Err(RpcError::invalid_params("Missing required argument: \"name\"")),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "Argument \"name\" expected string, got {}",
                type_name(other)
            )));
        }
    };
    let arguments = match args.get("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(a)) => Some(a.clone()),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "Argument \"arguments\" expected object, got {}",
                type_name(other)
            )));
        }
    };
    if let Some(extra) = args.keys().find(|k| !matches!(k.as_str(), "name" | "arguments")) {
        return Err(RpcError::invalid_params(format!("Unexpected argument: \"{extra}\"")));
    }
    if let Some(prompt) = PromptName::parse(&name) {
        return career_prompt(m, prompt, arguments.unwrap_or_default()).map(ToolResult::ok);
    }
    let Some(set) = m.skills() else { return Err(named(&name).unwrap_err()) };
    let packets = m.packets();
    let args = skills::args_from_json(arguments.as_ref());
    let text = if name == COMPOSE {
        set.compose_arguments(&args, &packets).map(|c| c.text)
    } else {
        set.render_prompt(&name, &args, &packets)
    };
    text.map(ToolResult::ok).map_err(skill_error)
}

/// The person's target roles, from the QUICK REFERENCE, when the file can be read.
pub fn target_roles(m: &Served) -> Vec<String> {
    let Current::Loaded(loaded) = m.career_context() else { return Vec::new() };
    match loaded.validation.quick_reference.get("target_roles") {
        Some(QValue::List(items)) => items
            .iter()
            .filter_map(|v| match v {
                QValue::Str(s) if !s.trim().is_empty() => Some(s.clone()),
                _ => None,
            })
            .collect(),
        Some(QValue::Str(s)) if !s.trim().is_empty() => vec![s.clone()],
        _ => Vec::new(),
    }
}
