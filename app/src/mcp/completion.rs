//! `completion/complete`: values for a prompt argument or a resource template argument.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::jsonrpc::RpcError;
use super::served::Served;
use super::{params, prompts, resources};
use domain::wiki::WikiModule;

/// The most values one completion answer carries.
const MAX_COMPLETIONS: usize = 100;

/// What is being completed.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Ref {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

#[derive(Debug, Deserialize)]
pub struct Argument {
    pub name: String,
    #[serde(default)]
    pub value: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct CompleteParams {
    #[serde(rename = "ref")]
    pub reference: Ref,
    pub argument: Argument,
}

/// Candidates matching the typed prefix case-insensitively, at most [`MAX_COMPLETIONS`].
fn completion(candidates: Vec<String>, prefix: &str) -> Value {
    let lower = prefix.to_lowercase();
    let matching: Vec<String> = candidates.into_iter().filter(|c| c.to_lowercase().starts_with(&lower)).collect();
    let total = matching.len();
    let values: Vec<String> = matching.into_iter().take(MAX_COMPLETIONS).collect();
    json!({ "completion": { "values": values, "total": total, "hasMore": total > MAX_COMPLETIONS } })
}

pub fn complete(m: &Served, params: Map<String, Value>) -> Result<Value, RpcError> {
    let CompleteParams { reference, argument } = params::parse(params)?;
    let value = argument.value.unwrap_or_default();
    match reference {
        Ref::Prompt { name } => {
            let prompt = prompts::named(&name)?;
            if !prompt.arguments().iter().any(|a| a.name == argument.name) {
                return Err(RpcError::invalid_params(format!("prompt {name} has no argument {:?}", argument.name)));
            }
            let candidates = if argument.name == "targetRole" { prompts::target_roles(m) } else { Vec::new() };
            Ok(completion(candidates, &value))
        }
        Ref::Resource { uri } => match (uri.as_str(), argument.name.as_str()) {
            (resources::WIKI_TEMPLATE, "module") => {
                Ok(completion(WikiModule::ALL.iter().map(|w| w.name().to_owned()).collect(), &value))
            }
            _ => resources::complete(m, &uri, &argument.name, &value).map(|c| completion(c, "")),
        },
    }
}
