//! Skills over the filesystem port: resolve the layers (config file and `--skills` folders),
//! walk them, parse what changed, and hand out an immutable [`SkillSet`] per request.
//!
//! Noticing edits at a bounded cost: a small tree (at most [`RECHECK_EVERY_REQUEST`] known
//! files, a few hundred stats) is checked on every request, so an edit is served by the very
//! next request; a larger one at most once per [`RECHECK_INTERVAL`]; between checks a request
//! costs a clock read, a lock and an `Arc` clone. A check never re-walks blindly: it stats the config file, each known folder and each
//! known skill file. A folder is listed again only when its stamp changed (entries added,
//! removed or renamed change a directory's mtime) or when the filesystem has no stamp for
//! folders (the in-memory one reports 0); a file is read and parsed again only when its stamp
//! (mtime and inode) changed. The set is rebuilt only when something did. So an unchanged tree
//! of N files and D folders costs N + D stats per interval, and no reads.
//!
//! The MCP layer serves skills through [`Skills::snapshot`] and the JSON shapes at the end.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::career::Surface;
use domain::skills::{
    COMPOSE, Candidate, LayerInfo, LayerSpec, Problem, Skill, SkillError, SkillFormat, SkillSet, Skipped, ToolOutcome,
    Value as SkillValue, parse_config, parse_skill,
};
use ports::Clock;
use ports::fs::{FileKind, FileSystem, FsErrorKind};
use serde_json::{Map, Value, json};

use crate::sources::SkillSources;

/// How often a running server looks at a large tree of layers again.
pub const RECHECK_INTERVAL: Duration = Duration::from_millis(500);

/// Up to this many known skill files, every request checks the tree (one stat per file and
/// folder, well under a millisecond), so an edit is picked up by the next request.
pub const RECHECK_EVERY_REQUEST: usize = 512;

/// A skill file larger than this is skipped.
pub const MAX_SKILL_BYTES: u64 = 1024 * 1024;

/// A layer config larger than this is refused.
pub const MAX_CONFIG_BYTES: u64 = 256 * 1024;

/// A layer with its folder resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub name: String,
    pub root: PathBuf,
    pub priority: i64,
}

/// Why the layers could not be resolved at all (the CLI's usage errors).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("the skills config {} could not be read: {detail}", path.display())]
    Unreadable { path: PathBuf, detail: String },
    #[error("the skills config {} is not valid: {}", path.display(), problems.first().map_or("", |p| p.message.as_str()))]
    Invalid { path: PathBuf, text: String, problems: Vec<Problem> },
}

/// Reads a text file through the port (invalid UTF-8 becomes U+FFFD).
pub fn read_text(fs: &dyn FileSystem, path: &Path, max: u64) -> Result<String, ports::fs::FsError> {
    fs.read(path, max)
        .map(|b| String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// The layers named by the sources: the config file's (relative paths against its folder),
/// then the `--skills` folders.
pub fn resolve_layers(fs: &dyn FileSystem, sources: &SkillSources) -> Result<Vec<Layer>, ConfigError> {
    let mut layers = Vec::new();
    if let Some(path) = &sources.config {
        let text = read_text(fs, path, MAX_CONFIG_BYTES)
            .map_err(|e| ConfigError::Unreadable { path: path.clone(), detail: e.detail.clone() })?;
        let specs =
            parse_config(&text).map_err(|problems| ConfigError::Invalid { path: path.clone(), text, problems })?;
        let base = path.parent().unwrap_or(Path::new("/"));
        layers.extend(specs.into_iter().map(|LayerSpec { name, path, priority }| Layer {
            name,
            root: domain::career::select::expand_path(&path, None, base),
            priority,
        }));
    }
    layers.extend(sources.dirs.iter().map(|(name, root, priority)| Layer {
        name: name.clone(),
        root: root.clone(),
        priority: *priority,
    }));
    Ok(layers)
}

/// One entry of a folder that matters to skills, in name order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Child {
    Dir(PathBuf),
    File(PathBuf, SkillFormat),
}

#[derive(Debug)]
struct DirState {
    stamp: u128,
    children: Vec<Child>,
    /// Why the folder could not be listed (permission denied, say): its skills are not served,
    /// and that is said, not silent (found in review: a layer at 000 simply vanished).
    unlisted: Option<String>,
    /// The check that last saw it (mark and sweep, without allocating per check).
    seen: u64,
}

#[derive(Debug)]
struct FileState {
    stamp: u128,
    parsed: Result<Arc<Skill>, Skipped>,
    seen: u64,
}

/// What the walk keeps between checks.
#[derive(Debug, Default)]
struct Cache {
    dirs: HashMap<PathBuf, DirState>,
    files: HashMap<PathBuf, FileState>,
    /// Bumped by every check.
    generation: u64,
}

/// What `doctor` and `skills validate` say of a placeholder that is neither a declared
/// argument nor a server value: one wording for both.
pub fn undeclared_placeholder(id: &str, name: &str) -> String {
    format!("skill {id:?}: {{{{{name}}}}} is neither a declared argument nor a server value, so it is sent as written")
}

/// The first problem of a file, as one skip.
pub fn skipped(file: &Path, problem: &Problem) -> Skipped {
    Skipped { file: file.display().to_string(), line: problem.line(), reason: problem.message.clone() }
}

fn is_hidden(name: &str) -> bool {
    name.starts_with('.') || name.starts_with('_')
}

impl Cache {
    /// Lists a folder again only when its stamp says it changed. Returns whether it did.
    fn list(&mut self, fs: &dyn FileSystem, dir: &Path, stamp: u128) -> bool {
        let generation = self.generation;
        if let Some(d) = self.dirs.get_mut(dir)
            && d.stamp == stamp
            && stamp != 0
        {
            d.seen = generation;
            return false;
        }
        let mut children = Vec::new();
        let (entries, unlisted) = match fs.read_dir(dir) {
            Ok(entries) => (entries, None),
            Err(e) if e.kind == FsErrorKind::NotFound => (Vec::new(), None),
            Err(e) => (Vec::new(), Some(e.detail)),
        };
        for e in entries {
            // A name that is not UTF-8 cannot be a skill file name; skip it like a hidden one.
            let Some(name) = e.name.to_str() else { continue };
            if is_hidden(name) {
                continue;
            }
            let path = dir.join(&e.name);
            // A symlink is skipped, as skill-central's walker skips it: a layer is the files
            // in its folder, and a link could serve a file from outside it (found in review:
            // `SKILL.md -> /elsewhere/notes.md` was served as a prompt) or one skill twice.
            match e.kind {
                FileKind::Dir => {
                    let skill_md = path.join("SKILL.md");
                    let skill_md_kind = fs.symlink_metadata(&skill_md).map(|m| m.kind);
                    if skill_md_kind == Ok(FileKind::Symlink) {
                        // An Agent Skills folder whose SKILL.md is a link: skipped whole, not
                        // walked as a plain folder, which would serve its resource files as
                        // skills (found in review).
                        continue;
                    }
                    if skill_md_kind == Ok(FileKind::File) {
                        // An Agent Skills folder: one skill; its other files are its resources.
                        children.push(Child::File(skill_md, SkillFormat::SkillMd));
                    } else {
                        children.push(Child::Dir(path));
                    }
                }
                FileKind::File => {
                    if let Some(f) = SkillFormat::of_file_name(name).filter(|f| *f != SkillFormat::SkillMd) {
                        children.push(Child::File(path, f));
                    }
                }
                _ => {}
            }
        }
        let changed = self.dirs.get(dir).is_none_or(|d| d.children != children || d.unlisted != unlisted);
        self.dirs.insert(dir.to_path_buf(), DirState { stamp, children, unlisted, seen: generation });
        changed
    }

    /// Reads and parses a file of the layer at `root` again only when its stamp changed.
    /// Returns whether it did. It is read beneath the layer's root, no symlink followed: a
    /// file swapped for a link after the listing is not read through it.
    fn file(&mut self, fs: &dyn FileSystem, root: &Path, path: &Path, format: SkillFormat) -> bool {
        let meta = fs.symlink_metadata(path);
        let stamp = meta.as_ref().map_or(0, |m| m.stamp);
        let generation = self.generation;
        if let Some(f) = self.files.get_mut(path)
            && f.stamp == stamp
            && meta.is_ok()
        {
            f.seen = generation;
            return false;
        }
        let read = fs
            .read_beneath(root, path.strip_prefix(root).unwrap_or(path), MAX_SKILL_BYTES)
            .map(|(b, _)| String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()));
        let parsed = match read {
            Err(e) if e.kind == FsErrorKind::TooLarge => Err(Skipped {
                file: path.display().to_string(),
                line: None,
                reason: format!("larger than {} KiB", MAX_SKILL_BYTES / 1024),
            }),
            Err(e) => Err(Skipped { file: path.display().to_string(), line: None, reason: e.detail }),
            Ok(text) => parse_skill(format, &text).map(Arc::new).map_err(|p| skipped(path, &p[0])),
        };
        self.files.insert(path.to_path_buf(), FileState { stamp, parsed, seen: generation });
        true
    }

    /// Checks one folder and everything below it; returns whether anything changed.
    fn walk(&mut self, fs: &dyn FileSystem, root: &Path, dir: &Path, stamp: u128) -> bool {
        let mut changed = self.list(fs, dir, stamp);
        // Taken out and put back, so that a check does not copy the listing.
        let children = self.dirs.get_mut(dir).map(|d| std::mem::take(&mut d.children)).unwrap_or_default();
        for child in &children {
            match child {
                Child::Dir(sub) => match fs.metadata(sub) {
                    Ok(m) if m.kind == FileKind::Dir => changed |= self.walk(fs, root, sub, m.stamp),
                    _ => changed = true,
                },
                Child::File(path, format) => changed |= self.file(fs, root, path, *format),
            }
        }
        if let Some(d) = self.dirs.get_mut(dir) {
            d.children = children;
        }
        changed
    }

    /// Checks every layer: stats everything known, lists changed folders, parses changed files,
    /// forgets what is gone. Returns whether anything changed.
    fn check(&mut self, fs: &dyn FileSystem, layers: &[Layer]) -> bool {
        self.generation += 1;
        let mut changed = false;
        for layer in layers {
            if let Ok(m) = fs.metadata(&layer.root)
                && m.kind == FileKind::Dir
            {
                changed |= self.walk(fs, &layer.root, &layer.root, m.stamp);
            }
        }
        let before = (self.dirs.len(), self.files.len());
        let generation = self.generation;
        self.dirs.retain(|_, d| d.seen == generation);
        self.files.retain(|_, f| f.seen == generation);
        changed || before != (self.dirs.len(), self.files.len())
    }

    /// The files below `dir` in path order, from the listings (no IO), and a skip for each
    /// folder that could not be listed.
    fn files_below(&self, dir: &Path, out: &mut Vec<PathBuf>, unlisted: &mut Vec<Skipped>) {
        let Some(d) = self.dirs.get(dir) else { return };
        if let Some(why) = &d.unlisted {
            unlisted.push(Skipped {
                file: dir.display().to_string(),
                line: None,
                reason: format!("the folder cannot be listed ({why}), so no skill in it is served"),
            });
        }
        for child in &d.children {
            match child {
                Child::Dir(sub) => self.files_below(sub, out, unlisted),
                Child::File(path, _) => out.push(path.clone()),
            }
        }
    }

    /// The set the cache describes, and where each of its files is (no IO).
    fn assemble(&self, layers: &[Layer]) -> (SkillSet, Locations) {
        let mut candidates = Vec::new();
        let mut located = HashMap::new();
        let mut skips = Vec::new();
        for (i, layer) in layers.iter().enumerate() {
            if !self.dirs.contains_key(&layer.root) {
                skips.push(Skipped {
                    file: layer.root.display().to_string(),
                    line: None,
                    reason: format!("the folder of layer {:?} does not exist or is not a folder", layer.name),
                });
                continue;
            }
            let mut files = Vec::new();
            self.files_below(&layer.root, &mut files, &mut skips);
            for f in files {
                match self.files.get(&f).map(|s| &s.parsed) {
                    Some(Ok(skill)) => {
                        let file = f.display().to_string();
                        located.insert(file.clone(), Located { root: layer.root.clone(), file: f.clone() });
                        candidates.push(Candidate { layer: i, file, skill: Arc::clone(skill) })
                    }
                    Some(Err(s)) => skips.push(s.clone()),
                    None => {}
                }
            }
        }
        let infos = layers
            .iter()
            .map(|l| LayerInfo { name: l.name.clone(), priority: l.priority, root: l.root.display().to_string() })
            .collect();
        (SkillSet::build(infos, candidates, skips), Locations(located))
    }
}

/// Where a served skill's file is: its layer's folder, and the file (beneath that folder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub root: PathBuf,
    pub file: PathBuf,
}

/// Where the files of a [`SkillSet`] are, by the name the set gives them ([`Origin::file`]).
///
/// [`Origin::file`]: domain::skills::Origin::file
#[derive(Debug, Clone, Default)]
pub struct Locations(HashMap<String, Located>);

impl Locations {
    pub fn of(&self, entry: &domain::skills::Entry) -> Option<&Located> {
        self.0.get(&entry.origin.file)
    }
}

/// Loads every layer once: what the CLI commands use.
pub fn load(fs: &dyn FileSystem, layers: &[Layer]) -> SkillSet {
    load_located(fs, layers).0
}

/// [`load`], with where each file is (for commands that read a skill's folder).
pub fn load_located(fs: &dyn FileSystem, layers: &[Layer]) -> (SkillSet, Locations) {
    let mut cache = Cache::default();
    cache.check(fs, layers);
    cache.assemble(layers)
}

/// Every line a person should hear about a set: skipped files, conflicts, refused ids.
pub fn warnings(set: &SkillSet) -> Vec<String> {
    set.skipped()
        .iter()
        .map(ToString::to_string)
        .chain(set.conflicts().iter().map(ToString::to_string))
        .chain(set.refused().iter().map(ToString::to_string))
        .collect()
}

#[derive(Debug)]
struct State {
    config_stamp: Option<u128>,
    layers: Vec<Layer>,
    cache: Cache,
    set: Arc<SkillSet>,
    locations: Arc<Locations>,
    checked_at: Option<Duration>,
    warned: HashSet<String>,
    loaded: bool,
    /// Whether the config has parsed since the server started: then one that no longer parses
    /// keeps the layers it named last.
    config_parsed: bool,
}

/// The skills a running server serves, kept fresh by [`Skills::snapshot`].
pub struct Skills {
    fs: Arc<dyn FileSystem>,
    clock: Arc<dyn Clock>,
    sources: SkillSources,
    interval: Duration,
    state: Mutex<State>,
}

impl std::fmt::Debug for Skills {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skills").field("sources", &self.sources).finish_non_exhaustive()
    }
}

impl Skills {
    /// Loads the layers now; problems are warnings on stderr, never an error: a broken skill
    /// file or config never stops the server.
    pub fn new(fs: Arc<dyn FileSystem>, clock: Arc<dyn Clock>, sources: SkillSources) -> Self {
        Self::with_interval(fs, clock, sources, RECHECK_INTERVAL)
    }

    pub fn with_interval(
        fs: Arc<dyn FileSystem>,
        clock: Arc<dyn Clock>,
        sources: SkillSources,
        interval: Duration,
    ) -> Self {
        let state = State {
            config_stamp: None,
            layers: Vec::new(),
            cache: Cache::default(),
            set: Arc::new(SkillSet::default()),
            locations: Arc::default(),
            checked_at: None,
            warned: HashSet::new(),
            loaded: false,
            config_parsed: false,
        };
        let me = Skills { fs, clock, sources, interval, state: Mutex::new(state) };
        me.snapshot();
        me
    }

    /// The current set: re-checked when the last check is older than the interval.
    pub fn snapshot(&self) -> Arc<SkillSet> {
        self.snapshot_located().0
    }

    /// [`Skills::snapshot`], with where its files are (taken together, so they agree).
    pub fn snapshot_located(&self) -> (Arc<SkillSet>, Arc<Locations>) {
        let mut st = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = self.clock.monotonic();
        let small = st.cache.files.len() <= RECHECK_EVERY_REQUEST;
        if small || st.checked_at.is_none_or(|t| now.saturating_sub(t) >= self.interval) {
            st.checked_at = Some(now);
            self.refresh(&mut st);
        }
        (Arc::clone(&st.set), Arc::clone(&st.locations))
    }

    fn refresh(&self, st: &mut State) {
        let fs = &*self.fs;
        let mut changed = !st.loaded;
        st.loaded = true;
        let config_stamp = self.sources.config.as_ref().and_then(|p| fs.metadata(p).ok()).map(|m| m.stamp);
        let mut config_warning = None;
        if changed || config_stamp != st.config_stamp {
            st.config_stamp = config_stamp;
            let layers = match resolve_layers(fs, &self.sources) {
                Ok(l) => {
                    st.config_parsed |= self.sources.config.is_some();
                    l
                }
                // A config being saved (half written) or mistyped while the server runs keeps
                // the layers it named last, rather than serving none of its skills until it
                // parses again (found in review: every skill vanished, with `list_changed`).
                Err(e @ ConfigError::Invalid { .. }) if st.config_parsed => {
                    config_warning = Some(format!("{e}; the layers it named before are served until it parses again"));
                    st.layers.clone()
                }
                Err(e) => {
                    config_warning = Some(e.to_string());
                    resolve_layers(fs, &SkillSources { config: None, ..self.sources.clone() }).unwrap_or_default()
                }
            };
            if layers != st.layers {
                st.layers = layers;
                changed = true;
            }
        }
        let walked_changed = st.cache.check(fs, &st.layers);
        if changed || walked_changed {
            let (set, locations) = st.cache.assemble(&st.layers);
            let mut lines = warnings(&set);
            lines.extend(config_warning);
            for line in &lines {
                if !st.warned.contains(line) {
                    tracing::warn!("skills: {line}");
                }
            }
            st.warned = lines.into_iter().collect();
            tracing::debug!(skills = set.entries().len(), "skills reloaded");
            st.set = Arc::new(set);
            st.locations = Arc::new(locations);
        }
    }
}

/// A JSON argument map as the domain's values.
pub fn args_from_json(args: Option<&Map<String, Value>>) -> Vec<(String, SkillValue)> {
    args.map(|m| m.iter().map(|(k, v)| (k.clone(), value_from_json(v))).collect()).unwrap_or_default()
}

pub fn value_from_json(v: &Value) -> SkillValue {
    match v {
        Value::Null => SkillValue::Null,
        Value::Bool(b) => SkillValue::Bool(*b),
        Value::Number(n) => {
            n.as_i64().map_or_else(|| SkillValue::Float(n.as_f64().unwrap_or(f64::NAN)), SkillValue::Int)
        }
        Value::String(s) => SkillValue::String(s.clone()),
        Value::Array(a) => SkillValue::Array(a.iter().map(value_from_json).collect()),
        Value::Object(o) => SkillValue::Object(o.iter().map(|(k, v)| (k.clone(), value_from_json(v))).collect()),
    }
}

pub fn value_to_json(v: &SkillValue) -> Value {
    match v {
        SkillValue::Null => Value::Null,
        SkillValue::Bool(b) => Value::Bool(*b),
        SkillValue::Int(i) => json!(i),
        SkillValue::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        SkillValue::String(s) => Value::String(s.clone()),
        SkillValue::Array(a) => Value::Array(a.iter().map(value_to_json).collect()),
        SkillValue::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), value_to_json(v))).collect()),
    }
}

/// `prompts/list` entries for the skills: every prompt skill, then `skills:compose`.
/// `arguments` appears only when a skill declares some, as skill-central lists them.
pub fn prompt_list(set: &SkillSet) -> Vec<Value> {
    set.prompts()
        .map(|e| {
            let mut p = json!({"name": e.skill.id, "description": e.description()});
            if !e.skill.arguments.is_empty() {
                p["arguments"] = e
                    .skill
                    .arguments
                    .iter()
                    .map(|a| json!({"name": a.name, "description": a.description, "required": a.required}))
                    .collect();
            }
            p
        })
        .chain(std::iter::once(json!({
            "name": COMPOSE,
            "description": domain::skills::set::COMPOSE_DESCRIPTION,
            "arguments": [{
                "name": domain::skills::set::COMPOSE_ARGUMENT,
                "description": "Comma-separated tags, e.g. \"cv, interview\" (case does not matter)",
                "required": true
            }],
        })))
        .collect()
}

/// `tools/list` entries for the tool skills.
pub fn tool_list(set: &SkillSet) -> Vec<Value> {
    set.tools()
        .map(|e| json!({"name": e.skill.id, "description": e.description(), "inputSchema": value_to_json(&e.skill.tool_schema())}))
        .collect()
}

/// `prompts/get` on a prompt skill or `skills:compose`: the whole result
/// (`{description, messages: [{role: user, content: {type: text, text}}]}`), or the error to
/// answer with -32602. The MCP layer asks its built-in prompts first.
pub fn prompts_get(
    set: &SkillSet,
    name: &str,
    args: Option<&Map<String, Value>>,
    packet: &dyn Fn(Surface) -> String,
) -> Result<Value, SkillError> {
    let message = |description: String, text: String| json!({"description": description, "messages": [{"role": "user", "content": {"type": "text", "text": text}}]});
    let args = args_from_json(args);
    if name == COMPOSE {
        let c = set.compose_arguments(&args, packet)?;
        return Ok(message(c.description, c.text));
    }
    let text = set.render_prompt(name, &args, packet)?;
    let description = set.get(name).map(domain::skills::Entry::description).unwrap_or_default();
    Ok(message(description, text))
}

/// `tools/call` on a tool skill: the whole result (`isError` for argument problems), or the
/// error to answer with -32602. The MCP layer asks its built-in tools first.
pub fn tools_call(
    set: &SkillSet,
    name: &str,
    args: Option<&Map<String, Value>>,
    packet: &dyn Fn(Surface) -> String,
) -> Result<Value, SkillError> {
    set.call_tool(name, &args_from_json(args), packet).map(|o| tool_result(&o))
}

/// One tool-call outcome as an MCP `tools/call` result.
pub fn tool_result(outcome: &ToolOutcome) -> Value {
    let mut r = json!({"content": [{"type": "text", "text": outcome.text()}]});
    if outcome.is_error() {
        r["isError"] = json!(true);
    }
    r
}

#[cfg(test)]
#[path = "skills/tests.rs"]
mod tests;
