//! The MCP methods after the handshake: lists, reads, calls.
//!
//! Each method takes the request's params object and returns a result or a typed error; the
//! connection loop in `mod.rs` owns framing, lifecycle and concurrency.

use serde_json::{Map, Value, json};

use std::sync::Arc;

use ports::fs::FileSystem;

use super::jsonrpc::RpcError;
use super::pagination::{self, PAGE_SIZE};
use super::{Handler, prompts, resources, tools};
use crate::graph_store::GraphStore;
use crate::sources::Sources;

/// The protocol version this server speaks (the contract's).
pub const PROTOCOL_VERSION: &str = "2024-11-05";

/// Methods this server answers once initialized; any other is -32601.
pub const METHODS: &[&str] = &[
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

/// The `initialize` result, exactly as the contract gives it. Whatever version the client asks
/// for, the answer is ours: the client then decides whether it can speak it.
pub fn initialize_result() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {
            "resources": { "listChanged": false },
            "tools": { "listChanged": false },
            "prompts": { "listChanged": false }
        },
        "serverInfo": {
            "name": "vitaecontext",
            "version": env!("CARGO_PKG_VERSION")
        }
    })
}

/// What the server serves. Built once at start-up from the configuration.
pub struct Methods {
    fs: Arc<dyn FileSystem>,
    sources: Sources,
    graph: GraphStore,
}

impl std::fmt::Debug for Methods {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Methods").field("sources", &self.sources).finish_non_exhaustive()
    }
}

impl Methods {
    pub fn new(fs: Arc<dyn FileSystem>, sources: Sources) -> Self {
        let graph = GraphStore::new(sources.graph_root());
        Self { fs, sources, graph }
    }

    pub fn graph(&self) -> &GraphStore {
        &self.graph
    }

    pub fn fs(&self) -> &dyn FileSystem {
        &*self.fs
    }

    pub fn sources(&self) -> &Sources {
        &self.sources
    }
}

impl Handler for Methods {
    fn knows(&self, method: &str) -> bool {
        METHODS.contains(&method)
    }

    fn call(&self, method: &str, params: &Map<String, Value>) -> Result<Value, RpcError> {
        match method {
            "resources/list" => resources::list(self, cursor(params)?),
            "resources/templates/list" => list_page(params, "resourceTemplates", resources::templates()),
            "tools/list" => list_page(params, "tools", tools::definitions()),
            "prompts/list" => list_page(params, "prompts", prompts::list()),
            "prompts/get" => prompts::get(self, params),
            "completion/complete" => prompts::complete(self, params),
            "resources/read" => resources::read(self, required_str(params, "uri")?),
            "tools/call" => {
                let name = required_str(params, "name")?;
                if !tools::known(name) {
                    return Err(RpcError::invalid_params(format!("unknown tool {name:?}")));
                }
                let empty = Map::new();
                let args = match params.get("arguments") {
                    None | Some(Value::Null) => &empty,
                    Some(Value::Object(a)) => a,
                    Some(_) => return Err(RpcError::invalid_params("\"arguments\" must be an object")),
                };
                tools::call(self, name, args).map(tools::ToolResult::into_value)
            }
            other => Err(RpcError::method_not_found(other)),
        }
    }
}

fn required_str<'a>(params: &'a Map<String, Value>, key: &str) -> Result<&'a str, RpcError> {
    match params.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(RpcError::invalid_params(format!("\"{key}\" must be a string"))),
        None => Err(RpcError::invalid_params(format!("\"{key}\" is required"))),
    }
}

/// The `cursor` param of a `*/list` request.
pub fn cursor(params: &Map<String, Value>) -> Result<Option<&str>, RpcError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(c)) => Ok(Some(c.as_str())),
        Some(_) => Err(RpcError::invalid_params("\"cursor\" must be a string")),
    }
}

/// One page of a list of `len` items under `key`; only the page's items are built.
pub fn lazy_page(
    cursor: Option<&str>,
    key: &str,
    len: usize,
    item: impl Fn(usize) -> Value,
) -> Result<Value, RpcError> {
    let page = pagination::page(len, cursor, PAGE_SIZE).map_err(RpcError::invalid_params)?;
    let mut result = Map::new();
    result.insert(key.into(), Value::Array(page.range.clone().map(item).collect()));
    if let Some(next) = page.next_cursor {
        result.insert("nextCursor".into(), next.into());
    }
    Ok(Value::Object(result))
}

/// One page of a `*/list` answer under `key`, with `nextCursor` when more remain.
fn list_page(params: &Map<String, Value>, key: &str, items: Vec<Value>) -> Result<Value, RpcError> {
    lazy_page(cursor(params)?, key, items.len(), |i| items[i].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_page_with_cursors() {
        let items: Vec<Value> = (0..230).map(|i| json!(i)).collect();
        let first = list_page(&Map::new(), "tools", items.clone()).unwrap();
        assert_eq!(first["tools"].as_array().unwrap().len(), 100);
        let mut p = Map::new();
        p.insert("cursor".into(), first["nextCursor"].clone());
        let second = list_page(&p, "tools", items.clone()).unwrap();
        assert_eq!(second["tools"][0], json!(100));
        p.insert("cursor".into(), json!("bogus"));
        assert_eq!(list_page(&p, "tools", items).unwrap_err().code, -32602);
    }
}
