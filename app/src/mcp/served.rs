//! What the MCP handlers serve from: the files (through the filesystem port), where they come
//! from, the VitaeGraph's loaded index, the cached Career Context and the skill layers.
//! Handlers (`prompts`, `resources`, `tools`, `completion`) take a [`Served`]; the dispatcher
//! in `methods.rs` owns one and imports them, so each depends one way.

use std::sync::Arc;
use std::time::{Duration, Instant};

use domain::career::Surface;
use domain::skills::SkillSet;
use ports::fs::FileSystem;

use super::jsonrpc::{RpcError, code};
use crate::graph_store::{GraphStore, LoadedGraph};
use crate::sources::Sources;
use crate::usecase::agent_skills::AgentSkills;
use crate::usecase::career::{ContextCache, Current};
use crate::usecase::graph::Stale;
use crate::usecase::skills::{Locations, Skills};

/// A skill error is -32602 with skill-central's own words as the whole message
/// (`Unknown prompt skill: x`, `No skills found for tags: a`).
pub fn skill_error(e: domain::skills::SkillError) -> RpcError {
    RpcError::new(code::INVALID_PARAMS, e.message())
}

pub struct Served {
    fs: Arc<dyn FileSystem>,
    sources: Sources,
    graph: GraphStore,
    career: ContextCache,
    /// The skill layers, when any is configured (`--skills`, `--skills-config`, the default
    /// config file): their prompts and tools are served beside the built-in ones.
    pub(super) skills: Option<Skills>,
    /// `mcp --watch`: the index follows the records, so search does not look for changes since.
    pub(super) live_index: bool,
    /// The skills as Agent Skills folders (the skills extension), with their files' digests.
    agent_skills: AgentSkills,
    /// The last look for changes since the index: when it took long (a large graph), its
    /// answer stands for a moment rather than walk the records on every search.
    last_look: std::sync::Mutex<Option<Look>>,
}

/// A look for changes since the index: when, for which `graph.json`, how long it took, and
/// what it found.
struct Look {
    at: Instant,
    graph: domain::graph::set::Piece,
    took: Duration,
    found: Option<Stale>,
}

/// A look that took longer than this is reused for a while rather than walk the records on
/// every search: for [`REUSE_LOOK`], or 20 times what it took when that is longer, so the looks
/// cost at most a twentieth of a server's time. Measured (release, page cache warm, 10,000
/// records each in its own folder): a look 69-71 ms, a search without it 1.2-1.4 ms. A smaller
/// graph is looked at on every search.
const SLOW_LOOK: Duration = Duration::from_millis(20);
const REUSE_LOOK: Duration = Duration::from_secs(1);

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served").field("sources", &self.sources).finish_non_exhaustive()
    }
}

impl Served {
    pub fn new(fs: Arc<dyn FileSystem>, sources: Sources) -> Self {
        let graph = GraphStore::new(sources.graph_root());
        Served {
            fs,
            sources,
            graph,
            career: ContextCache::default(),
            skills: None,
            live_index: false,
            agent_skills: AgentSkills::cached(Arc::new(fs_std::SystemClock::default())),
            last_look: Default::default(),
        }
    }

    /// The skills served now (edits picked up by the next request; past 512 skill files, within
    /// 500 ms), if any layer is configured.
    pub fn skills(&self) -> Option<Arc<SkillSet>> {
        self.skills.as_ref().map(Skills::snapshot)
    }

    /// [`Served::skills`], with where their files are (the skills extension reads the folders).
    pub fn skills_located(&self) -> Option<(Arc<SkillSet>, Arc<Locations>)> {
        self.skills.as_ref().map(Skills::snapshot_located)
    }

    pub fn agent_skills(&self) -> &AgentSkills {
        &self.agent_skills
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

    /// What changed among the records since the index `graph` was loaded from, when no live
    /// index follows them (`mcp` without `--watch`).
    pub fn stale(&self, graph: &LoadedGraph) -> Option<Stale> {
        if self.live_index {
            return None;
        }
        let mut last = self.last_look.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(look) = last.as_ref()
            && look.graph == graph.piece
            && look.took > SLOW_LOOK
            && look.at.elapsed() < REUSE_LOOK.max(look.took * 20)
        {
            return look.found.clone();
        }
        let root = self.graph.canonical_root(self.fs()).ok()?;
        let at = Instant::now();
        let found =
            crate::usecase::graph::since_index(self.fs(), &root, graph.graph.nodes.iter().map(|n| n.path.as_str()));
        *last = Some(Look { at, graph: graph.piece, took: at.elapsed(), found: found.clone() });
        found
    }

    pub fn graph(&self) -> &GraphStore {
        &self.graph
    }

    /// Where the files come from, and what is redacted.
    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    pub fn fs(&self) -> &dyn FileSystem {
        &*self.fs
    }

    /// The current Career Context (selected, read, validated; cached while the file is
    /// unchanged), or the notice saying why there is none.
    pub fn career_context(&self) -> Current {
        self.career.current(self.fs(), &self.sources)
    }
}
