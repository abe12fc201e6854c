//! Typed params: every request's params and every tool's or prompt's arguments are deserialised
//! into a struct, and this is the one place where a serde error becomes -32602.

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::jsonrpc::RpcError;

/// `params` (or a tool's or prompt's `arguments`) as `T`. The error names the field at fault:
/// `Invalid params: "targetRole": invalid type: integer `5`, expected a string`.
pub fn parse<T: DeserializeOwned>(params: Map<String, Value>) -> Result<T, RpcError> {
    serde_path_to_error::deserialize(Value::Object(params)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            RpcError::invalid_params(inner)
        } else {
            RpcError::invalid_params(format!("{path:?}: {inner}"))
        }
    })
}

/// A string field that may be absent but, when present, is a string: `null` is refused (with
/// `#[serde(default)]` on the field for absence).
pub fn present_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// The params of every `*/list` method.
#[derive(Debug, Default, Deserialize)]
pub struct ListParams {
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `resources/read`.
#[derive(Debug, Deserialize)]
pub struct ReadParams {
    pub uri: String,
}

/// `resources/directory/read` (skills extension): a directory URI, and the page's cursor.
#[derive(Debug, Deserialize)]
pub struct DirectoryReadParams {
    pub uri: String,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `tools/call` and `prompts/get`: a name, and arguments that absent or `null` make empty.
#[derive(Debug, Deserialize)]
pub struct NamedCall {
    pub name: String,
    #[serde(default)]
    pub arguments: Option<Map<String, Value>>,
}

impl NamedCall {
    pub fn take_arguments(&mut self) -> Map<String, Value> {
        self.arguments.take().unwrap_or_default()
    }
}

/// Arguments of a tool that takes none.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NoArguments {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Args {
        #[serde(default, deserialize_with = "present_string")]
        target_role: Option<String>,
    }

    fn args(v: Value) -> Result<Args, RpcError> {
        parse(v.as_object().unwrap().clone())
    }

    #[test]
    fn errors_are_invalid_params_naming_the_field() {
        let e = args(json!({"targetRole": 5})).unwrap_err();
        assert_eq!(e.code, -32602);
        assert!(e.message.contains("\"targetRole\"") && e.message.contains("expected a string"), "{}", e.message);
        let e = args(json!({"salary": "1"})).unwrap_err();
        assert!(e.message.contains("unknown field `salary`"), "{}", e.message);
        let e = args(json!({"targetRole": null})).unwrap_err();
        assert!(e.message.contains("targetRole"), "{}", e.message);
        assert_eq!(args(json!({})).unwrap().target_role, None);
        assert_eq!(args(json!({"targetRole": "x"})).unwrap().target_role.as_deref(), Some("x"));
    }
}
