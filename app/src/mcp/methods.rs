//! The MCP methods after the handshake: lists, reads, calls.
//!
//! A method name is parsed once into [`Method`] and matched exhaustively; each method
//! deserialises its params into a typed struct (`params.rs`) and returns a result or a typed
//! error. The connection loop in `mod.rs` owns framing, lifecycle and concurrency.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use ports::fs::FileSystem;

use super::jsonrpc::RpcError;
use super::notify::{Change, Notifier};
use super::pagination::lazy_page;
use super::params::{self, DirectoryReadParams, ListParams, NamedCall, ReadParams};
use super::revision::Revision;
use super::served::{self, Served};
use super::tools::ToolRegistry;
use super::{Handler, completion, prompts, resources, skills_extension};
use crate::sources::Sources;
use crate::usecase::career::Current;
use crate::usecase::skills::{self, Skills};
use domain::skills::SkillSet;

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
    /// The skills extension's methods (2026-07-28 only, `Revision::has_skills_extension`).
    SkillsList,
    SkillsGet,
    ResourcesDirectoryRead,
}

impl Method {
    pub const ALL: [Method; 11] = [
        Method::ResourcesList,
        Method::ResourcesTemplatesList,
        Method::ResourcesRead,
        Method::ToolsList,
        Method::ToolsCall,
        Method::PromptsList,
        Method::PromptsGet,
        Method::CompletionComplete,
        Method::SkillsList,
        Method::SkillsGet,
        Method::ResourcesDirectoryRead,
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
            Method::SkillsList => "skills/list",
            Method::SkillsGet => "skills/get",
            Method::ResourcesDirectoryRead => "resources/directory/read",
        }
    }

    /// Whether the revision has this method: the skills extension's only from 2026-07-28.
    pub fn served_in(self, revision: Revision) -> bool {
        match self {
            Method::SkillsList | Method::SkillsGet | Method::ResourcesDirectoryRead => revision.has_skills_extension(),
            _ => true,
        }
    }

    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

/// What the server is for and in which order to use it, for the model (`instructions`,
/// 2025-03-26 and later, and `server/discover`).
pub const INSTRUCTIONS: &str = "vitaecontext serves one person's own career facts: their Career Context (a curated, \
self-declared file) and their VitaeGraph (detailed records of projects, roles, degrees and more). Start with \
get_career_context for the surface you are writing for (cv, linkedin, github, portfolio, x or general): that packet \
is the ground truth. Use search_vitaegraph, then the vitaegraph://record/{id} resources it links, for evidence and \
detail. Use only facts these return; never invent employers, dates, numbers or skills, and when something is missing \
or a tool reports a problem, say so and ask the person. The prompts (cv_tailoring, linkedin_audit, github_showcase, \
career_context_intake) package these steps.";

/// Freshness hints of 2026-07-28 cacheable results, in milliseconds. Everything is personal data,
/// so `cacheScope` is always `private`. The Career Context is read fresh on every request (0);
/// what the binary carries (the wiki) changes only with the binary; graph data changes when the
/// person re-indexes; the lists change when skills change.
mod ttl {
    pub const CAREER_CONTEXT: u64 = 0;
    pub const GRAPH: u64 = 10_000;
    pub const LISTS: u64 = 60_000;
    pub const BUILT_IN: u64 = 3_600_000;
    /// Skills and their files: they change when the person edits a skill, as the lists do.
    pub const SKILLS: u64 = LISTS;
}

/// `serverInfo` (`Implementation`) in `revision`: `title` from 2025-06-18, `description` and
/// `websiteUrl` from 2025-11-25.
pub fn server_info(revision: Revision) -> Value {
    let mut info = json!({ "name": "vitaecontext", "version": env!("CARGO_PKG_VERSION") });
    if revision.has_titles() {
        info["title"] = json!("VitaeContext");
    }
    if revision.has_server_description() {
        info["description"] =
            json!("The truth about one person's career, from files they own: their Career Context and VitaeGraph.");
        // The workspace's `repository`, the one place the project's address is written; none
        // is sent while it has none.
        if !env!("CARGO_PKG_REPOSITORY").is_empty() {
            info["websiteUrl"] = json!(env!("CARGO_PKG_REPOSITORY"));
        }
    }
    info
}

/// `capabilities` in `revision`. `completions` from 2025-03-26 (`completion/complete` is
/// answered in 2024-11-05 too, undeclared, as the contract's result has no such key).
/// `listChanged` is true from 2025-03-26 and `resources.subscribe` with it (`subscriptions/listen`
/// in 2026-07-28); 2024-11-05 keeps the contract's `false` and no `subscribe`. The skills
/// extension under `extensions` from 2026-07-28, with `resources`, which it requires.
fn capabilities(revision: Revision) -> Value {
    let changes = revision.has_list_changed();
    let mut caps = json!({
        "resources": { "listChanged": changes },
        "tools": { "listChanged": changes },
        "prompts": { "listChanged": changes }
    });
    if revision.has_resource_subscribe() || revision.is_modern() {
        caps["resources"]["subscribe"] = json!(true);
    }
    if revision.has_completions_capability() {
        caps["completions"] = json!({});
    }
    if revision.has_skills_extension() {
        caps["extensions"] = json!({ skills_extension::EXTENSION: skills_extension::settings() });
    }
    caps
}

/// The `initialize` result in a handshake revision; for 2024-11-05 exactly the contract's.
pub fn initialize_result(revision: Revision) -> Value {
    let mut result = json!({
        "protocolVersion": revision.as_str(),
        "capabilities": capabilities(revision),
        "serverInfo": server_info(revision)
    });
    if revision.has_instructions() {
        result["instructions"] = json!(INSTRUCTIONS);
    }
    result
}

/// The `server/discover` result (2026-07-28 server/discover): the revisions a request's `_meta`
/// may name, what is served, and the instructions, as a cacheable result.
pub fn discover_result() -> Value {
    let modern = Revision::V2026_07_28;
    let result = json!({
        "supportedVersions": Revision::MODERN.map(Revision::as_str),
        "capabilities": capabilities(modern),
        "instructions": INSTRUCTIONS
    });
    modern_result(result, Some(ttl::LISTS))
}

/// A 2026-07-28 result: `resultType: "complete"`, the server's identity in `_meta`, and, for a
/// cacheable result, `ttlMs` and `cacheScope: "private"`.
fn modern_result(mut result: Value, ttl_ms: Option<u64>) -> Value {
    use super::revision::meta;
    result["resultType"] = json!("complete");
    if let Some(ttl) = ttl_ms {
        result["ttlMs"] = json!(ttl);
        result["cacheScope"] = json!("private");
    }
    let mut m = result.get("_meta").and_then(Value::as_object).cloned().unwrap_or_default();
    m.insert(meta::SERVER_INFO.into(), server_info(Revision::V2026_07_28));
    result["_meta"] = Value::Object(m);
    result
}

/// The freshness hint of a cacheable result (the lists and `resources/read`), `None` for others.
fn cache_ttl(method: Method, params: &Map<String, Value>) -> Option<u64> {
    match method {
        Method::ResourcesList => Some(ttl::GRAPH),
        Method::ResourcesTemplatesList | Method::ToolsList | Method::PromptsList => Some(ttl::LISTS),
        Method::SkillsList | Method::SkillsGet => Some(ttl::SKILLS),
        Method::ResourcesRead => Some(match params.get("uri").and_then(Value::as_str) {
            Some(uri) if uri.starts_with(resources::WIKI_PREFIX) => ttl::BUILT_IN,
            Some(uri) if uri.starts_with(domain::skills::agent::SCHEME) => ttl::SKILLS,
            Some(uri) if uri.starts_with(resources::RECORD_PREFIX) || uri == resources::GRAPH_INDEX_URI => ttl::GRAPH,
            _ => ttl::CAREER_CONTEXT,
        }),
        // `ReadResourceDirectoryResult` is a paginated result, not a cacheable one.
        Method::ToolsCall | Method::PromptsGet | Method::CompletionComplete | Method::ResourcesDirectoryRead => None,
    }
}

/// A built `prompts/list`, with the skill set and revision it was built for.
type PromptList = (Option<Arc<SkillSet>>, Revision, Arc<Vec<Value>>);

/// The server's methods: what the handlers serve from ([`Served`]), the tools, and what
/// changes are reported to. Built once at start-up from the configuration.
pub struct Methods {
    served: Served,
    notifier: Notifier,
    tools: ToolRegistry,
    /// `--prompt-tools`: also offer `get_prompt` as a tool.
    prompt_tools: bool,
    /// The last `prompts/list` built, for the skill set and revision it was built for: with
    /// thousands of prompt skills, each page would otherwise rebuild the whole list.
    prompt_lists: std::sync::Mutex<Option<PromptList>>,
}

/// Asks the file poller of [`Methods::watch_files`] to check now rather than at its next tick.
#[derive(Debug, Clone)]
pub struct CheckNow(std::sync::mpsc::SyncSender<()>);

impl CheckNow {
    pub fn check(&self) {
        // Full: a check is already pending, and it will see this change too.
        let _ = self.0.try_send(());
    }
}

/// Says when the file poller of [`Methods::watch_files`] has taken what it compares the index
/// at start with (graph.json's stamp and digest): that index must not write before.
#[derive(Debug)]
pub struct Taken(std::sync::mpsc::Receiver<()>);

impl Taken {
    /// Waits until they are taken (or the poller ended without: nothing is then compared).
    pub fn wait(self) {
        // Only ever disconnected: the poller drops its end once they are taken.
        let _ = self.0.recv();
    }
}

impl std::fmt::Debug for Methods {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Methods").field("served", &self.served).finish_non_exhaustive()
    }
}

impl Methods {
    /// The records `mcp --watch` reads as they change, searched until their index lands.
    pub fn pending_records(&self) -> &Arc<crate::graph_store::PendingRecords> {
        self.served.graph().pending_records()
    }

    pub fn new(fs: Arc<dyn FileSystem>, sources: Sources) -> Self {
        Self {
            served: Served::new(fs, sources),
            notifier: Notifier::default(),
            tools: ToolRegistry::builtin(),
            prompt_tools: false,
            prompt_lists: std::sync::Mutex::new(None),
        }
    }

    pub fn with_skills(mut self, skills: Option<Skills>) -> Self {
        self.served.skills = skills;
        self
    }

    /// `mcp --watch`: a live index follows the records, so search results are not checked
    /// against them.
    pub fn with_live_index(mut self, on: bool) -> Self {
        self.served.live_index = on;
        self
    }

    pub fn with_prompt_tools(mut self, on: bool) -> Self {
        self.prompt_tools = on;
        self
    }

    /// Every prompt `prompts/list` pages through, built once per skill set and revision.
    fn prompt_list(&self, revision: Revision) -> Arc<Vec<Value>> {
        let set = self.served.skills();
        let mut cache = self.prompt_lists.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((cached_set, cached_revision, list)) = cache.as_ref() {
            let same_set = match (cached_set, &set) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            };
            if same_set && *cached_revision == revision {
                return Arc::clone(list);
            }
        }
        let list = Arc::new(prompts::list(&self.served, revision));
        *cache = Some((set, revision, Arc::clone(&list)));
        list
    }

    /// Where changes to what is served are reported (a skills watcher reports list changes
    /// here); every connection turns them into the notifications it asked for.
    pub fn notifier(&self) -> &Notifier {
        &self.notifier
    }

    /// Polls the two watched resources every `every` on a thread of its own, reporting
    /// `career-context://current` and `vitaegraph://index` updates (and the resource list, which
    /// holds the graph's records) while `methods` lives. Bounded cost: per tick, the Career
    /// Context selection and one metadata call for it, and one for `graph.json`; a file is read
    /// again only when its stamp changed, and a rewrite with identical bytes reports nothing.
    /// The returned [`CheckNow`] makes it look at once (after `mcp --watch` re-indexed), so the
    /// poller stays the one place that decides what changed and nothing is reported twice.
    ///
    /// With `indexing_at_start` (`mcp --watch`, whose first index rewrites graph.json at once,
    /// usually with the same bytes), graph.json's digest is taken too (before that index: see [`Taken`]), and at the first
    /// look a moved stamp is a change only when the bytes differ from these.
    ///
    /// The thread does nothing until `first` opens (the first answer is out, see
    /// [`super::first_answer`]), or [`FirstAnswer::MAX_WAIT`](super::first_answer::FirstAnswer::MAX_WAIT).
    pub fn watch_files(
        methods: &Arc<Methods>,
        every: std::time::Duration,
        indexing_at_start: bool,
        first: Arc<super::first_answer::FirstAnswer>,
    ) -> std::io::Result<(CheckNow, Taken)> {
        let weak = Arc::downgrade(methods);
        // graph.json (~30 MB at 100,000 records) is first loaded on the watcher's thread at its
        // first tick, so that it holds up neither `initialize` nor the first answers (on two
        // cores, a parse beside the first search doubles its time). Its stamp, and with
        // `indexing_at_start` its bytes' digest (30 MB read and hashed at 100,000 records), are
        // taken first thing on the thread, not before serving (`initialize` waited for them),
        // so that a change made meanwhile is still reported; the index at start waits for
        // them ([`Taken`]).
        // The skills are taken now, before `initialize` is answered, with their lists: a skill
        // added once the client has listed them must be announced. They are small; the Career
        // Context is not, and is first read on the thread (below).
        let skills = methods.watched_skills();
        let listed = methods.listed();
        // One pending wake-up is enough: the check looks at the files as they are then.
        let (wake, woken) = std::sync::mpsc::sync_channel::<()>(1);
        let check_now = CheckNow(wake);
        let keep_open = check_now.clone();
        let (taken_tx, taken) = std::sync::mpsc::sync_channel::<()>(1);
        std::thread::Builder::new().name("watch-files".into()).spawn(move || {
            first.wait(super::first_answer::FirstAnswer::MAX_WAIT);
            // Held so the channel stays open (a timeout, never a disconnect) when nobody else
            // holds a `CheckNow`.
            let _keep_open = keep_open;
            let (graph_at_start, digest_at_start) = {
                let Some(m) = weak.upgrade() else { return };
                let graph = m.served.graph();
                (graph.stamp(m.served.fs()), indexing_at_start.then(|| graph.digest_now(m.served.fs())).flatten())
            };
            drop(taken_tx);
            // The Career Context is first read here, not before serving: a 16 MiB context took
            // 1.5 s to read and validate, and `initialize` waited for it (a 30 s client gave up
            // on a slow one).
            let mut last = {
                let Some(m) = weak.upgrade() else { return };
                (m.watched_context(), None, skills)
            };
            let mut listed = listed;
            loop {
                let _ = woken.recv_timeout(every);
                let Some(m) = weak.upgrade() else { return };
                m.served.graph().release_stale_searcher(m.served.fs());
                let now = m.watched(true);
                if !now.0.same(&last.0) {
                    m.notifier().notify(Change::ResourceUpdated(resources::CAREER_CONTEXT_URI.into()));
                }
                let graph_changed = match &last.1 {
                    Some(graph) => !now.1.same(graph),
                    // The first look at the graph: changed if its stamp moved since the start,
                    // and, when its bytes then were taken, if they differ from those.
                    None => {
                        m.served.graph().stamp(m.served.fs()) != graph_at_start
                            && (digest_at_start.is_none() || m.served.graph().loaded_digest() != digest_at_start)
                    }
                };
                if graph_changed {
                    m.notifier().notify(Change::ResourceUpdated(resources::GRAPH_INDEX_URI.into()));
                    m.notifier().notify(Change::ResourcesListChanged);
                }
                // A skill file edited, added or removed: the skills layer hands out a new set
                // only when something changed, and each list is reported only when it is not
                // what it was (a tool skill added leaves the prompts as they were).
                if !now.2.same(&last.2) {
                    let listed_now = m.listed();
                    if listed_now.0 != listed.0 {
                        m.notifier().notify(Change::PromptsListChanged);
                    }
                    if listed_now.1 != listed.1 {
                        m.notifier().notify(Change::ToolsListChanged);
                    }
                    if listed_now.2 != listed.2 {
                        m.notifier().notify(Change::SkillResourcesChanged);
                    }
                    listed = listed_now;
                }
                last = (now.0, Some(now.1), now.2);
            }
        })?;
        Ok((check_now, Taken(taken)))
    }

    #[allow(clippy::type_complexity, reason = "a tuple of the three things watched, read once")]
    /// What the watcher compares; with `graph` false, the graph is left unread (`Missing`).
    fn watched(
        &self,
        graph: bool,
    ) -> (Watched<crate::usecase::career::Loaded>, Watched<crate::graph_store::LoadedGraph>, Watched<SkillSet>) {
        (self.watched_context(), self.watched_graph(graph), self.watched_skills())
    }

    fn watched_context(&self) -> Watched<crate::usecase::career::Loaded> {
        match self.served.career_context() {
            Current::Loaded(loaded) => Watched::Loaded(loaded),
            Current::Unavailable(notice) => Watched::Missing(notice),
        }
    }

    fn watched_graph(&self, graph: bool) -> Watched<crate::graph_store::LoadedGraph> {
        match graph.then(|| self.served.graph().graph(self.served.fs())) {
            Some(Ok(g)) => Watched::Loaded(g),
            Some(Err(e)) => Watched::Missing(e.to_string()),
            None => Watched::Missing(String::new()),
        }
    }

    fn watched_skills(&self) -> Watched<SkillSet> {
        match self.served.skills() {
            Some(set) => Watched::Loaded(set),
            None => Watched::Missing(String::new()),
        }
    }

    /// A built-in tool, then `get_prompt` (with `--prompt-tools`), then a tool skill.
    fn call_tool(&self, revision: Revision, params: Map<String, Value>) -> Result<Value, RpcError> {
        let mut call: NamedCall = params::parse(params)?;
        if let Some(tool) = self.tools.get(&call.name) {
            return (tool.call)(&self.served, call.take_arguments()).map(|r| r.into_value(revision));
        }
        if self.prompt_tools && call.name == domain::skills::GET_PROMPT {
            return prompts::get_prompt_tool_call(&self.served, call.take_arguments()).map(|r| r.into_value(revision));
        }
        match self.served.skills() {
            Some(set) => {
                let packets = self.served.packets();
                skills::tools_call(&set, &call.name, call.arguments.as_ref(), &packets).map_err(served::skill_error)
            }
            None => {
                let names: Vec<&str> = self.tools.names().collect();
                Err(RpcError::invalid_params(format!("unknown tool {:?} (available: {})", call.name, names.join(", "))))
            }
        }
    }

    /// What `prompts/list` and `tools/list` answer now (in the latest handshake revision, which
    /// has every field), and the skills' `SKILL.md` resources of 2026-07-28 `resources/list`, to
    /// tell which of them a change of the skills changed.
    fn listed(&self) -> (Vec<Value>, Vec<Value>, Vec<Value>) {
        (
            prompts::list(&self.served, Revision::V2025_11_25),
            self.tool_definitions(Revision::V2025_11_25),
            skills_extension::resources(&self.served),
        )
    }

    /// `tools/list`: the built-in tools, `get_prompt` with `--prompt-tools`, then tool skills.
    fn tool_definitions(&self, revision: Revision) -> Vec<Value> {
        let mut all = self.tools.definitions(revision);
        if self.prompt_tools {
            all.push(prompts::get_prompt_tool_definition(&self.served));
        }
        if let Some(set) = self.served.skills() {
            all.extend(skills::tool_list(&set));
        }
        all
    }
}

/// What a watched resource was at the last poll: the caches hand out the same `Arc` while the
/// file is unchanged, so a new `Arc` (or a different reason it is missing) is a change.
enum Watched<T> {
    Loaded(Arc<T>),
    Missing(String),
}

impl<T> Watched<T> {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Watched::Loaded(a), Watched::Loaded(b)) => Arc::ptr_eq(a, b),
            (Watched::Missing(a), Watched::Missing(b)) => a == b,
            _ => false,
        }
    }
}

impl Handler for Methods {
    type Method = Method;

    fn changes(&self) -> tokio::sync::broadcast::Receiver<Change> {
        self.notifier.subscribe()
    }

    fn subscribable(&self, uri: &str) -> bool {
        uri == resources::CAREER_CONTEXT_URI || uri == resources::GRAPH_INDEX_URI
    }

    fn method(&self, name: &str) -> Option<Method> {
        Method::parse(name)
    }

    fn initialize(&self, revision: Revision) -> Value {
        initialize_result(revision)
    }

    fn discover(&self) -> Value {
        discover_result()
    }

    fn call(&self, revision: Revision, method: Method, params: Map<String, Value>) -> Result<Value, RpcError> {
        if !method.served_in(revision) {
            return Err(RpcError::method_not_found(method.as_str()));
        }
        if !revision.has_result_type() {
            return self.answer(revision, method, params);
        }
        let ttl = cache_ttl(method, &params);
        match self.answer(revision, method, params) {
            Ok(result) => Ok(modern_result(result, ttl)),
            Err(mut e) => {
                if e.code == super::jsonrpc::code::RESOURCE_NOT_FOUND {
                    e.code = revision.resource_not_found_code();
                }
                Err(e)
            }
        }
    }
}

impl Methods {
    fn answer(&self, revision: Revision, method: Method, params: Map<String, Value>) -> Result<Value, RpcError> {
        match method {
            Method::ResourcesList => resources::list(&self.served, revision, list_params(params)?.cursor.as_deref()),
            Method::ResourcesTemplatesList => {
                list_page(list_params(params)?, "resourceTemplates", resources::templates(revision))
            }
            Method::ToolsList => list_page(list_params(params)?, "tools", self.tool_definitions(revision)),
            Method::PromptsList => {
                let all = self.prompt_list(revision);
                lazy_page(list_params(params)?.cursor.as_deref(), "prompts", all.len(), |i| all[i].clone())
            }
            Method::PromptsGet => prompts::get(&self.served, params),
            Method::CompletionComplete => completion::complete(&self.served, params),
            Method::ResourcesRead => {
                let ReadParams { uri } = params::parse(params)?;
                if revision.has_skills_extension() && uri.starts_with(domain::skills::agent::SCHEME) {
                    return skills_extension::read(&self.served, &uri);
                }
                resources::read(&self.served, &uri)
            }
            Method::ToolsCall => self.call_tool(revision, params),
            Method::SkillsList => skills_extension::list(&self.served, list_params(params)?),
            Method::SkillsGet => skills_extension::get(&self.served, params::parse(params)?),
            Method::ResourcesDirectoryRead => {
                let p: DirectoryReadParams = params::parse(params)?;
                skills_extension::directory_read(&self.served, p)
            }
        }
    }
}

fn list_params(params: Map<String, Value>) -> Result<ListParams, RpcError> {
    params::parse(params)
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

    /// Regression (a flaky test under load): `mcp --watch` indexes at start and rewrites
    /// graph.json, usually with the same bytes; when that ended after a client subscribed,
    /// the poller's first look saw graph.json's stamp moved and told the client of a change
    /// that was none. Taking the bytes' digest at start tells a rewrite from a change.
    #[test]
    fn a_rewrite_with_the_same_bytes_at_start_is_not_a_change() {
        use fs_memory::MemoryFs;
        use std::time::Duration;
        let graph = std::path::Path::new("/g/.generated/graph.json");
        let json = |source: &str| format!(r#"{{"version":"2.0.0","source":"{source}","nodes":[],"edges":[]}}"#);
        for (next, changed) in [("same", false), ("other", true)] {
            let fs = Arc::new(MemoryFs::new());
            fs.create_dir_all(graph.parent().unwrap()).unwrap();
            fs.write_atomic(graph, json("same").as_bytes()).unwrap();
            let sources = Sources { root_flag: Some("/g".into()), cwd: "/".into(), ..Sources::default() };
            let methods = Arc::new(Methods::new(Arc::clone(&fs) as Arc<dyn FileSystem>, sources));
            let mut told = methods.changes();
            let (check_now, taken) =
                Methods::watch_files(&methods, Duration::from_secs(3600), true, Default::default()).unwrap();
            taken.wait();
            // The index at start: graph.json written again (a new stamp), then a look at once.
            fs.write_atomic(graph, json(next).as_bytes()).unwrap();
            check_now.check();
            let deadline = std::time::Instant::now() + Duration::from_secs(2);
            let mut updated = false;
            while std::time::Instant::now() < deadline && !updated {
                match told.try_recv() {
                    Ok(Change::ResourceUpdated(uri)) => updated = uri == super::resources::GRAPH_INDEX_URI,
                    Ok(_) => {}
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
            assert_eq!(updated, changed, "graph.json rewritten with {next} bytes");
        }
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
