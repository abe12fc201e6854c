//! MCP prompts (`prompts/list`, `prompts/get`) and argument completion.

use serde_json::{Map, Value, json};

use super::jsonrpc::RpcError;
use super::methods::Methods;
use crate::usecase::career;
use domain::career::Selection;
use domain::career::quickref::QValue;
use domain::prompts::{Grounding, PromptArgs, PromptName, assemble};
use domain::wiki::WikiModule;

/// The most values one completion answer carries.
const MAX_COMPLETIONS: usize = 100;

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

fn prompt_named(name: &str) -> Result<PromptName, RpcError> {
    PromptName::parse(name).ok_or_else(|| {
        RpcError::invalid_params(format!(
            "unknown prompt {name:?} (available: {})",
            PromptName::ALL.map(PromptName::as_str).join(", ")
        ))
    })
}

/// What a prompt is grounded in, from the selected Career Context.
fn grounding(m: &Methods, prompt: PromptName) -> Grounding {
    let path = match career::select(m.fs(), m.sources()) {
        Selection::Selected { path, .. } => path,
        other => {
            return Grounding::Unavailable {
                notice: career::selection_notice(&other).unwrap_or_default(),
                current_text: None,
            };
        }
    };
    let loaded = match career::load(m.fs(), &path) {
        Ok(l) => l,
        Err(e) => return Grounding::Unavailable { notice: career::load_notice(&path, &e), current_text: None },
    };
    match domain::career::packet(&loaded.validation, &career::file_name(&path), prompt.surface()) {
        Ok(p) => Grounding::Packet(p.content),
        Err(e) => Grounding::Unavailable {
            notice: format!(
                "The Career Context at `{}` does not validate ({} error(s)):\n{}",
                path.display(),
                e.errors,
                career::first_errors(&loaded.validation, 20)
            ),
            current_text: (prompt == PromptName::CareerContextIntake).then_some(loaded.text),
        },
    }
}

pub fn get(m: &Methods, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let name = match params.get("name") {
        Some(Value::String(n)) => n,
        Some(_) => return Err(RpcError::invalid_params("\"name\" must be a string")),
        None => return Err(RpcError::invalid_params("\"name\" is required")),
    };
    let prompt = prompt_named(name)?;
    let given: Vec<(String, String)> = match params.get("arguments") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(a)) => a
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(RpcError::invalid_params(format!("argument {k:?} must be a string, got {other}"))),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(RpcError::invalid_params("\"arguments\" must be an object of strings")),
    };
    let args = PromptArgs::parse(prompt, &given).map_err(RpcError::invalid_params)?;
    let text = assemble(prompt, &args, &grounding(m, prompt));
    Ok(json!({
        "description": prompt.description(),
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }]
    }))
}

/// The person's target roles, from the QUICK REFERENCE, when the file can be read.
fn target_roles(m: &Methods) -> Vec<String> {
    let Selection::Selected { path, .. } = career::select(m.fs(), m.sources()) else { return Vec::new() };
    let Ok(loaded) = career::load(m.fs(), &path) else { return Vec::new() };
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

fn completion(candidates: Vec<String>, prefix: &str) -> Value {
    let lower = prefix.to_lowercase();
    let matching: Vec<String> = candidates.into_iter().filter(|c| c.to_lowercase().starts_with(&lower)).collect();
    let total = matching.len();
    let values: Vec<String> = matching.into_iter().take(MAX_COMPLETIONS).collect();
    json!({ "completion": { "values": values, "total": total, "hasMore": total > MAX_COMPLETIONS } })
}

pub fn complete(m: &Methods, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let reference =
        params.get("ref").and_then(Value::as_object).ok_or_else(|| RpcError::invalid_params("\"ref\" is required"))?;
    let argument = params
        .get("argument")
        .and_then(Value::as_object)
        .ok_or_else(|| RpcError::invalid_params("\"argument\" is required"))?;
    let arg_name = argument
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("\"argument.name\" must be a string"))?;
    let value = match argument.get("value") {
        None | Some(Value::Null) => "",
        Some(Value::String(v)) => v,
        Some(_) => return Err(RpcError::invalid_params("\"argument.value\" must be a string")),
    };
    match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let name = reference
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| RpcError::invalid_params("\"ref.name\" must be a string"))?;
            let prompt = prompt_named(name)?;
            if !prompt.arguments().iter().any(|a| a.name == arg_name) {
                return Err(RpcError::invalid_params(format!("prompt {name} has no argument {arg_name:?}")));
            }
            let candidates = if arg_name == "targetRole" { target_roles(m) } else { Vec::new() };
            Ok(completion(candidates, value))
        }
        Some("ref/resource") => {
            let uri = reference
                .get("uri")
                .and_then(Value::as_str)
                .ok_or_else(|| RpcError::invalid_params("\"ref.uri\" must be a string"))?;
            match (uri, arg_name) {
                (super::resources::WIKI_TEMPLATE, "module") => {
                    Ok(completion(WikiModule::ALL.iter().map(|w| w.name().to_owned()).collect(), value))
                }
                _ => super::resources::complete(m, uri, arg_name, value).map(|c| completion(c, "")),
            }
        }
        Some(other) => {
            Err(RpcError::invalid_params(format!("unknown ref type {other:?} (use ref/prompt or ref/resource)")))
        }
        None => Err(RpcError::invalid_params("\"ref.type\" is required")),
    }
}
