//! MCP prompts (`prompts/list`, `prompts/get`): the four career prompts, each with its typed
//! arguments, grounded in the current Career Context.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::jsonrpc::RpcError;
use super::methods::Methods;
use super::params::{self, NamedCall, present_string};
use crate::usecase::career::{self, Current};
use domain::career::quickref::QValue;
use domain::prompts::{Grounding, PromptArgs, PromptName, assemble_with_graph, digest};

pub fn list() -> Vec<Value> {
    PromptName::ALL
        .iter()
        .map(|p| {
            json!({
                "name": p.as_str(),
                "description": p.description(),
                "arguments": p.arguments().iter().map(|a| json!({
                    "name": a.name, "description": a.description, "required": a.required
                })).collect::<Vec<_>>(),
            })
        })
        .collect()
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
fn grounding(m: &Methods, prompt: PromptName) -> Grounding {
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

pub fn get(m: &Methods, params: Map<String, Value>) -> Result<Value, RpcError> {
    let mut call: NamedCall = params::parse(params)?;
    let prompt = named(&call.name)?;
    let args = arguments(prompt, call.take_arguments())?;
    // With a configured and indexed VitaeGraph, the prompt also carries a digest of the most
    // relevant records; without one it is exactly the Career Context prompt.
    let digest = match m.graph().searcher(m.fs()) {
        Ok(searcher) => Some(digest(prompt, &args, &searcher, &target_roles(m))),
        Err(e) => {
            tracing::debug!("prompt without VitaeGraph records: {e}");
            None
        }
    };
    let text = assemble_with_graph(prompt, &args, &grounding(m, prompt), digest.as_ref());
    Ok(json!({
        "description": prompt.description(),
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }]
    }))
}

/// The person's target roles, from the QUICK REFERENCE, when the file can be read.
pub fn target_roles(m: &Methods) -> Vec<String> {
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
