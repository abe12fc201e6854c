//! The MCP methods after the handshake: lists, reads, calls.
//!
//! A method name is parsed once into [`Method`] and matched exhaustively; each method
//! deserialises its params into a typed struct (`params.rs`) and returns a result or a typed
//! error. The connection loop in `mod.rs` owns framing, lifecycle and concurrency.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use ports::fs::FileSystem;

use super::jsonrpc::RpcError;
use super::pagination::{self, PAGE_SIZE};
use super::params::{self, ListParams, NamedCall, ReadParams};
use super::tools::ToolRegistry;
use super::{Handler, completion, prompts, resources};
use crate::graph_store::GraphStore;
use crate::sources::Sources;
use crate::usecase::career::{ContextCache, Current};
use crate::usecase::skills::{self, Skills};
use domain::career::Surface;
use domain::skills::SkillSet;

/// A skill error is -32602 with skill-central's own words as the whole message
/// (`Unknown prompt skill: x`, `No skills found for tags: a`).
pub fn skill_error(e: domain::skills::SkillError) -> RpcError {
    RpcError::new(super::jsonrpc::code::INVALID_PARAMS, e.message())
}

/// The protocol version this server speaks (the contract's).
pub const PROTOCOL_VERSION: &str = "2024-11-05";

/// The methods this server answers once initialized; any other name is -32601.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    ResourcesList,
    ResourcesTemplatesList,
    ResourcesRead,
    ToolsList,
    ToolsCall,
    PromptsList,
    PromptsGet,
    CompletionComplete,
}

impl Method {
    pub const ALL: [Method; 8] = [
        Method::ResourcesList,
        Method::ResourcesTemplatesList,
        Method::ResourcesRead,
        Method::ToolsList,
        Method::ToolsCall,
        Method::PromptsList,
        Method::PromptsGet,
        Method::CompletionComplete,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Method::ResourcesList => "resources/list",
            Method::ResourcesTemplatesList => "resources/templates/list",
            Method::ResourcesRead => "resources/read",
            Method::ToolsList => "tools/list",
            Method::ToolsCall => "tools/call",
            Method::PromptsList => "prompts/list",
            Method::PromptsGet => "prompts/get",
            Method::CompletionComplete => "completion/complete",
        }
    }

    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

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
    career: ContextCache,
    tools: ToolRegistry,
    /// The skill layers, when any is configured (`--skills`, `--skills-config`, the default
    /// config file): their prompts and tools are served beside the built-in ones.
    skills: Option<Skills>,
    /// `--prompt-tools`: also offer `get_prompt` as a tool.
    prompt_tools: bool,
}

impl std::fmt::Debug for Methods {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Methods").field("sources", &self.sources).finish_non_exhaustive()
    }
}

impl Methods {
    pub fn new(fs: Arc<dyn FileSystem>, sources: Sources) -> Self {
        let graph = GraphStore::new(sources.graph_root());
        Self {
            fs,
            sources,
            graph,
            career: ContextCache::default(),
            tools: ToolRegistry::builtin(),
            skills: None,
            prompt_tools: false,
        }
    }

    pub fn with_skills(mut self, skills: Option<Skills>) -> Self {
        self.skills = skills;
        self
    }

    pub fn with_prompt_tools(mut self, on: bool) -> Self {
        self.prompt_tools = on;
        self
    }

    /// The skills served now (edits picked up at most every 500 ms), if any layer is configured.
    pub fn skills(&self) -> Option<Arc<SkillSet>> {
        self.skills.as_ref().map(Skills::snapshot)
    }

    /// The packet of each surface as a skill template gets it: the person's facts, or the
    /// notice saying why there are none (so a grounded skill never renders empty silently).
    pub fn packets(&self) -> impl Fn(Surface) -> String + use<> {
        let current = self.career_context();
        move |surface| match &current {
            Current::Loaded(loaded) => crate::usecase::career::packet_of(loaded, surface).unwrap_or_else(|n| n),
            Current::Unavailable(notice) => notice.clone(),
        }
    }

    pub fn graph(&self) -> &GraphStore {
        &self.graph
    }

    pub fn fs(&self) -> &dyn FileSystem {
        &*self.fs
    }

    /// The current Career Context (selected, read, validated; cached while the file is
    /// unchanged), or the notice saying why there is none.
    pub fn career_context(&self) -> Current {
        self.career.current(self.fs(), &self.sources)
    }

    /// A built-in tool, then `get_prompt` (with `--prompt-tools`), then a tool skill.
    fn call_tool(&self, params: Map<String, Value>) -> Result<Value, RpcError> {
        let mut call: NamedCall = params::parse(params)?;
        if let Some(tool) = self.tools.get(&call.name) {
            return (tool.call)(self, call.take_arguments()).map(super::tools::ToolResult::into_value);
        }
        if self.prompt_tools && call.name == domain::skills::GET_PROMPT {
            return Ok(prompts::get_prompt_tool_call(self, call.take_arguments()).into_value());
        }
        match self.skills() {
            Some(set) => {
                let packets = self.packets();
                skills::tools_call(&set, &call.name, call.arguments.as_ref(), &packets).map_err(skill_error)
            }
            None => {
                let names: Vec<&str> = self.tools.names().collect();
                Err(RpcError::invalid_params(format!("unknown tool {:?} (available: {})", call.name, names.join(", "))))
            }
        }
    }

    /// `tools/list`: the built-in tools, `get_prompt` with `--prompt-tools`, then tool skills.
    fn tool_definitions(&self) -> Vec<Value> {
        let mut all = self.tools.definitions();
        if self.prompt_tools {
            all.push(prompts::get_prompt_tool_definition(self));
        }
        if let Some(set) = self.skills() {
            all.extend(skills::tool_list(&set));
        }
        all
    }
}

impl Handler for Methods {
    type Method = Method;

    fn method(&self, name: &str) -> Option<Method> {
        Method::parse(name)
    }

    fn initialize(&self, params: &Map<String, Value>) -> Value {
        if let Some(v) = params.get("protocolVersion").and_then(Value::as_str) {
            if v != PROTOCOL_VERSION {
                tracing::info!("client asked for protocol {v}; answering with {PROTOCOL_VERSION}");
            }
        }
        initialize_result()
    }

    fn call(&self, method: Method, params: Map<String, Value>) -> Result<Value, RpcError> {
        match method {
            Method::ResourcesList => resources::list(self, list_params(params)?.cursor.as_deref()),
            Method::ResourcesTemplatesList => {
                list_page(list_params(params)?, "resourceTemplates", resources::templates())
            }
            Method::ToolsList => list_page(list_params(params)?, "tools", self.tool_definitions()),
            Method::PromptsList => list_page(list_params(params)?, "prompts", prompts::list(self)),
            Method::PromptsGet => prompts::get(self, params),
            Method::CompletionComplete => completion::complete(self, params),
            Method::ResourcesRead => {
                let ReadParams { uri } = params::parse(params)?;
                resources::read(self, &uri)
            }
            Method::ToolsCall => self.call_tool(params),
        }
    }
}

fn list_params(params: Map<String, Value>) -> Result<ListParams, RpcError> {
    params::parse(params)
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
fn list_page(params: ListParams, key: &str, items: Vec<Value>) -> Result<Value, RpcError> {
    lazy_page(params.cursor.as_deref(), key, items.len(), |i| items[i].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_parses_back_from_its_name() {
        for m in Method::ALL {
            assert_eq!(Method::parse(m.as_str()), Some(m));
        }
        assert_eq!(Method::parse("initialize"), None, "the loop owns the lifecycle");
        assert_eq!(Method::parse("server/discover"), None);
    }

    #[test]
    fn lists_page_with_cursors() {
        let items: Vec<Value> = (0..230).map(|i| json!(i)).collect();
        let first = list_page(ListParams::default(), "tools", items.clone()).unwrap();
        assert_eq!(first["tools"].as_array().unwrap().len(), 100);
        let next = ListParams { cursor: first["nextCursor"].as_str().map(str::to_owned) };
        let second = list_page(next, "tools", items.clone()).unwrap();
        assert_eq!(second["tools"][0], json!(100));
        let bogus = ListParams { cursor: Some("bogus".into()) };
        assert_eq!(list_page(bogus, "tools", items).unwrap_err().code, -32602);
    }
}
