//! `skills install | sync | update | uninstall | outdated | adopt` over the filesystem port: read
//! the lock, fetch a source (git and npm through the person's own executables, a folder through
//! the port), let the domain find and check the skills, plan what changes file by file, and
//! write every file and the lock in one atomic set.
//!
//! Nothing from a source is ever run: git sources are read from the object store (no checkout,
//! no hooks), npm packages are downloaded with `npm pack --ignore-scripts` and unpacked here.
//! A failure anywhere leaves the files and the lock as they were (the set is all or nothing, and
//! the folders made for it are removed again).

pub mod git;
pub mod npm;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use domain::skills::install::digest::FileDigests;
use domain::skills::install::tree::MAX_SKILL_BYTES_TOTAL;
use domain::skills::install::{
    Drift, FileChange, Found, LOCK_FILE, Lock, LockEntry, RelPath, Source, Tree, TreeProblem, collect, compare, drift,
    sha256_hex,
};
use domain::skills::{Origin, SkillSet};
use ports::Clock;
use ports::fs::{Change, FileKind, FileSystem, FsErrorKind};

use crate::sources::Sources;
use crate::usecase::skills::{Layer, resolve_layers};

/// A source's files together may hold at most this many bytes.
pub const MAX_SOURCE_BYTES: u64 = 64 * 1024 * 1024;

/// Why an operation stopped, with what to do: every message names the source or the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub help: String,
}

impl Refusal {
    pub fn new(message: impl Into<String>, help: impl Into<String>) -> Self {
        Refusal { message: message.into(), help: help.into() }
    }
}

/// What kind of ref a git source's ref turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefKind {
    /// No ref given: the remote's default branch.
    Head,
    Branch(String),
    Tag(String),
    Commit,
}

impl RefKind {
    pub fn describe(&self) -> String {
        match self {
            RefKind::Head => "the default branch".into(),
            RefKind::Branch(b) => format!("branch {b}"),
            RefKind::Tag(t) => format!("tag {t}"),
            RefKind::Commit => "a commit".into(),
        }
    }
}

/// What a source's ref or version resolved to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    pub commit: Option<String>,
    pub version: Option<String>,
    pub integrity: Option<String>,
    pub ref_kind: Option<RefKind>,
}

impl Resolved {
    pub fn describe(&self) -> String {
        match (&self.commit, &self.version) {
            (Some(c), _) => {
                let of = self.ref_kind.as_ref().map(|k| format!(" ({})", k.describe())).unwrap_or_default();
                format!("commit {c}{of}")
            }
            (_, Some(v)) => format!("version {v}, integrity {}", self.integrity.as_deref().unwrap_or("?")),
            _ => "the folder as it is now".into(),
        }
    }
}

/// A source fetched: what it resolved to and its files.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub resolved: Resolved,
    pub tree: Tree,
}

/// A token for one host, sent only there, never printed.
pub struct Token {
    pub host: String,
    secret: String,
}

impl Token {
    pub fn new(host: String, secret: String) -> Self {
        Token { host, secret }
    }

    /// The HTTP header git sends with it (GitHub takes a token as the Basic password).
    pub fn header(&self) -> String {
        let basic = domain::skills::install::digest::base64(format!("x-access-token:{}", self.secret).as_bytes());
        format!("Authorization: Basic {basic}")
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Token {{ host: {:?}, secret: <hidden> }}", self.host)
    }
}

/// Whether to resolve the source's ref now or fetch exactly what a lock entry names.
#[derive(Debug, Clone, Copy)]
pub enum Pin<'a> {
    Resolve,
    Locked(&'a LockEntry),
}

/// How sources are reached: git and npm through their executables, folders through the port.
pub struct Fetchers<'a> {
    pub fs: &'a dyn FileSystem,
    pub token: Option<&'a Token>,
    /// What a relative local source is relative to (the lock's folder).
    pub base: PathBuf,
    pub home: Option<PathBuf>,
}

impl Fetchers<'_> {
    pub fn fetch(&self, source: &Source, pin: Pin<'_>) -> Result<Fetched, Refusal> {
        match source {
            Source::Github { .. } | Source::Git { .. } => {
                let git = git::Git { token: self.token, max_download: git::MAX_DOWNLOAD_BYTES };
                let (commit, kind) = match pin {
                    Pin::Resolve => git.resolve(source)?,
                    Pin::Locked(e) => match &e.commit {
                        Some(c) => (c.clone(), RefKind::Commit),
                        None => {
                            return Err(Refusal::new(
                                format!("{source}: the lock names no commit for it"),
                                "run `vitaecontext skills update` to resolve it again",
                            ));
                        }
                    },
                };
                git.fetch(source, &commit, kind)
            }
            Source::Npm { .. } => {
                let npm = npm::Npm { fs: self.fs };
                match pin {
                    Pin::Resolve => npm.fetch(source, None),
                    Pin::Locked(e) => match (&e.version, &e.integrity) {
                        (Some(v), Some(i)) => npm.fetch(source, Some((v, i))),
                        _ => Err(Refusal::new(
                            format!("{source}: the lock names no version and integrity for it"),
                            "run `vitaecontext skills update` to resolve it again",
                        )),
                    },
                }
            }
            Source::Local { path } => {
                let abs = domain::career::select::expand_path(path, self.home.as_deref(), &self.base);
                Ok(Fetched { resolved: Resolved::default(), tree: read_local(self.fs, source, &abs)? })
            }
        }
    }

    /// What is newer than the lock entry: tags, a moved branch, npm versions, a changed folder.
    pub fn available(&self, source: &Source, entry: &LockEntry) -> Result<Vec<String>, Refusal> {
        match source {
            Source::Github { .. } | Source::Git { .. } => {
                git::Git { token: self.token, max_download: git::MAX_DOWNLOAD_BYTES }
                    .available(source, entry.commit.as_deref().unwrap_or_default())
            }
            Source::Npm { .. } => {
                npm::Npm { fs: self.fs }.available(source, entry.version.as_deref().unwrap_or_default())
            }
            Source::Local { .. } => {
                let fetched = self.fetch(source, Pin::Resolve)?;
                let id = self.id_of(entry);
                let now =
                    collect(&fetched.tree, &source.to_string()).ok().and_then(|f| f.into_iter().find(|f| f.id == id));
                Ok(match now {
                    Some(f) if f.digests() == entry.files => Vec::new(),
                    Some(_) => vec!["the folder changed since it was installed".to_owned()],
                    None => vec!["the folder no longer holds it".to_owned()],
                })
            }
        }
    }

    fn id_of(&self, entry: &LockEntry) -> String {
        let name = Path::new(&entry.path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match name.rsplit_once('.') {
            Some((stem, "yaml" | "yml" | "json")) => stem.to_owned(),
            _ => name,
        }
    }
}

/// A folder (or one skill file) on this machine, read through the port: regular files only,
/// `.git` and `node_modules` not entered, symlinks left out and said so.
fn read_local(fs: &dyn FileSystem, source: &Source, abs: &Path) -> Result<Tree, Refusal> {
    let meta = fs.metadata(abs).map_err(|e| {
        let at = if source.to_string() == abs.display().to_string() { String::new() } else { format!("{source}: ") };
        Refusal::new(
            format!("{at}{} cannot be read: {}", abs.display(), e.detail),
            "a local source is a folder of skills (or one skill file) on this machine: check the path",
        )
    })?;
    let mut tree = Tree {
        folder_name: abs.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        ..Tree::default()
    };
    let read = |p: &Path| {
        fs.read(p, MAX_SKILL_BYTES_TOTAL).map_err(|e| {
            Refusal::new(
                format!("{source}: {} cannot be read: {}", p.display(), e.detail),
                "check its permissions and size",
            )
        })
    };
    if meta.kind == FileKind::File {
        let name = tree.folder_name.clone();
        let rel = RelPath::parse(&name).unwrap_or_default();
        tree.files.insert(rel, read(abs)?);
        tree.file = Some(name);
        return Ok(tree);
    }
    let walk = fs.walk(abs, &[".git", "node_modules"]).map_err(|e| {
        Refusal::new(format!("{source}: {} cannot be listed: {}", abs.display(), e.detail), "check its permissions")
    })?;
    for link in walk.symlinks {
        let shown = link.strip_prefix(abs).unwrap_or(&link).display().to_string();
        tree.left_out.push((shown, "a symlink is not installed".into()));
    }
    let mut total = 0u64;
    for file in walk.files {
        let rel = file.strip_prefix(abs).ok().and_then(|r| r.to_str()).and_then(RelPath::parse);
        let Some(rel) = rel else {
            tree.left_out.push((file.display().to_string(), "not a plain UTF-8 path".into()));
            continue;
        };
        total += fs.metadata(&file).map(|m| m.len).unwrap_or(0);
        if total > MAX_SOURCE_BYTES {
            return Err(Refusal::new(
                format!("{source}: more than {} MiB of files", MAX_SOURCE_BYTES >> 20),
                "name the folder that holds the skills, not a larger one",
            ));
        }
        tree.files.insert(rel, read(&file)?);
    }
    Ok(tree)
}

/// Whose skills: a project's (its lock in the project folder, meant to be committed) or the
/// person's (the lock in `~/.vitaecontext/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    Project,
    User,
}

impl ScopeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeKind::Project => "project",
            ScopeKind::User => "user",
        }
    }
}

/// A scope: where its lock is and the layers it installs into.
#[derive(Debug, Clone)]
pub struct Scope {
    pub kind: ScopeKind,
    pub lock_path: PathBuf,
    pub layers: Vec<Layer>,
}

impl Scope {
    pub fn new(kind: ScopeKind, dir: &Path, layers: Vec<Layer>) -> Self {
        Scope { kind, lock_path: dir.join(LOCK_FILE), layers }
    }

    pub fn lock_dir(&self) -> &Path {
        self.lock_path.parent().unwrap_or(Path::new("/"))
    }

    /// A path as the lock records it: relative to the lock's folder when inside it.
    pub fn stored(&self, abs: &Path) -> String {
        match abs.strip_prefix(self.lock_dir()) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => abs.display().to_string(),
        }
    }

    pub fn resolve(&self, stored: &str) -> PathBuf {
        domain::career::select::expand_path(stored, None, self.lock_dir())
    }

    pub fn layer(&self, name: &str) -> Result<&Layer, Refusal> {
        self.layers.iter().find(|l| l.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.layers.iter().map(|l| l.name.as_str()).collect();
            Refusal::new(
                format!("there is no layer named {name:?} in the {} skills config", self.kind.as_str()),
                if names.is_empty() {
                    "configure layers first (`vitaecontext skills init`, or a skill-central.yaml in the project)"
                        .to_owned()
                } else {
                    format!("layers: {}", names.join(", "))
                },
            )
        })
    }

    /// The layer to install into: the one named, or the only one.
    pub fn pick_layer(&self, wanted: Option<&str>) -> Result<&Layer, Refusal> {
        match (wanted, self.layers.as_slice()) {
            (Some(w), _) => self.layer(w),
            (None, [only]) => Ok(only),
            (None, []) => Err(Refusal::new(
                format!("there is no {} skill layer to install into", self.kind.as_str()),
                "run `vitaecontext skills init` (user layers) or add a skill-central.yaml to the project, or pass --skills DIR",
            )),
            (None, several) => Err(Refusal::new(
                "there are several layers: pass --layer to say which one to install into",
                format!("layers: {}", several.iter().map(|l| l.name.as_str()).collect::<Vec<_>>().join(", ")),
            )),
        }
    }
}

/// The scope and its layers. A project's layers come from `--skills-config` or the project's
/// `skill-central.yaml` (and `--skills` folders); the person's from their skills config
/// (`~/.vitaecontext/skills.yaml`). Without `--project` or `--user`, a folder with a
/// `skills-lock.json` is a project.
pub fn scope(fs: &dyn FileSystem, sources: &Sources, project: bool, user: bool) -> Result<Scope, Refusal> {
    let project_lock = sources.cwd.join(LOCK_FILE);
    let kind = if project {
        ScopeKind::Project
    } else if user || fs.metadata(&project_lock).is_err() {
        ScopeKind::User
    } else {
        ScopeKind::Project
    };
    let mut skill_sources = sources.skill_sources(fs);
    let dir = match kind {
        ScopeKind::Project => {
            if sources.skills_config_flag.is_none() {
                let config = sources.cwd.join("skill-central.yaml");
                skill_sources.config = fs.metadata(&config).is_ok_and(|m| m.kind == FileKind::File).then_some(config);
                skill_sources.config_named = skill_sources.config.is_some();
            }
            sources.cwd.clone()
        }
        ScopeKind::User => sources
            .default_dir()
            .ok_or_else(|| Refusal::new("no home folder: HOME is not set", "set HOME, or use --project"))?,
    };
    let layers = resolve_layers(fs, &skill_sources).map_err(|e| {
        Refusal::new(
            e.to_string(),
            "fix the skills config, or point --skills-config at another file (`vitaecontext skills list` shows its problems)",
        )
    })?;
    if kind == ScopeKind::Project {
        confine_layers(fs, &dir, &layers)?;
    }
    Ok(Scope::new(kind, &dir, layers))
}

/// A project's layers lie inside the project folder, links followed: its `skill-central.yaml`
/// comes with a clone, and a layer it points elsewhere (`~/.config`) would let a repository
/// write anywhere the person can (found in review).
fn confine_layers(fs: &dyn FileSystem, project: &Path, layers: &[Layer]) -> Result<(), Refusal> {
    let root = real_path(fs, project);
    for l in layers {
        let real = real_path(fs, &l.root);
        if !real.as_deref().zip(root.as_deref()).is_some_and(|(r, p)| r.starts_with(p)) {
            return Err(Refusal::new(
                format!(
                    "layer {} ({}) is outside the project folder {}; a project installs only into its own folder",
                    l.name,
                    real.as_deref().unwrap_or(&l.root).display(),
                    project.display()
                ),
                "point the layer at a folder inside the project in skill-central.yaml, or install into your own layers with --user",
            ));
        }
    }
    Ok(())
}

/// A path with every link resolved: the longest part that exists, canonicalised, and the rest
/// (which must not climb with `..`); `None` when it cannot be told.
fn real_path(fs: &dyn FileSystem, path: &Path) -> Option<PathBuf> {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = fs.canonicalize(at) {
            let mut out = real;
            for c in rest.iter().rev() {
                match c {
                    std::path::Component::Normal(n) => out.push(n),
                    std::path::Component::CurDir => {}
                    _ => return None,
                }
            }
            return Some(out);
        }
        rest.push(at.components().next_back()?);
        at = at.parent()?;
    }
}

/// The lock of a scope; an empty one when there is none yet.
pub fn read_lock(fs: &dyn FileSystem, scope: &Scope) -> Result<Lock, Refusal> {
    let p = &scope.lock_path;
    match fs.read(p, 16 * 1024 * 1024) {
        Ok(bytes) => Lock::parse(&String::from_utf8_lossy(&bytes)).map_err(|e| {
            Refusal::new(
                format!("failed to read lock file {}: {e}", p.display()),
                "restore it from version control (`git checkout -- skills-lock.json`) or fix it by hand",
            )
        }),
        Err(e) if e.kind == FsErrorKind::NotFound => Ok(Lock::default()),
        Err(e) => Err(Refusal::new(
            format!("failed to read lock file {}: {}", p.display(), e.detail),
            "check its permissions",
        )),
    }
}

/// Where a locked skill is, checked against the scope's layers: the lock names a layer that is
/// configured and a place directly in that layer's folder, named after the id, so that a lock
/// from elsewhere cannot make us write or delete anywhere else.
#[derive(Debug, Clone)]
pub struct Place {
    pub path: PathBuf,
    pub folder: bool,
}

impl Place {
    pub fn file(&self, rel: &RelPath) -> PathBuf {
        if self.folder { self.path.join(rel.as_str()) } else { self.path.clone() }
    }
}

fn skill_file_ext(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(_, e)| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"))
}

pub fn place_of<'s>(scope: &'s Scope, id: &str, entry: &LockEntry) -> Result<(Place, &'s Layer), Refusal> {
    let layer = scope.layer(&entry.layer)?;
    let path = scope.resolve(&entry.path);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let folder = !(entry.files.len() == 1
        && entry.files.keys().next().is_some_and(|k| k.as_str() == name)
        && skill_file_ext(&name));
    let named_after_id = if folder { name == id } else { name.rsplit_once('.').is_some_and(|(stem, _)| stem == id) };
    if path.parent() != Some(layer.root.as_path()) || !named_after_id {
        return Err(Refusal::new(
            format!(
                "the lock {} puts {id:?} at {}, which is not {id} (or {id}.yaml) in the folder of layer {} ({})",
                scope.lock_path.display(),
                path.display(),
                layer.name,
                layer.root.display()
            ),
            "the lock was edited or the layer moved: restore the lock, or uninstall and install the skill again",
        ));
    }
    Ok((Place { path, folder }, layer))
}

/// What is at a skill's place now: each file and its bytes (a symlink counts as a file whose
/// content is its target, so it never matches a digest).
pub fn on_disk(fs: &dyn FileSystem, place: &Place) -> Result<BTreeMap<RelPath, Vec<u8>>, Refusal> {
    let unreadable =
        |p: &Path, d: &str| Refusal::new(format!("{} cannot be read: {d}", p.display()), "check its permissions");
    let mut out = BTreeMap::new();
    match fs.symlink_metadata(&place.path) {
        Err(e) if e.kind == FsErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(unreadable(&place.path, &e.detail)),
        Ok(m) if m.kind == FileKind::Symlink => {
            out.insert(RelPath::parse("(symlink)").unwrap_or_default(), b"symlink".to_vec());
            return Ok(out);
        }
        Ok(m) if !place.folder && m.kind == FileKind::File => {
            let name = place.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let bytes = fs.read(&place.path, MAX_SKILL_BYTES_TOTAL).map_err(|e| unreadable(&place.path, &e.detail))?;
            out.insert(RelPath::parse(&name).unwrap_or_default(), bytes);
            return Ok(out);
        }
        Ok(m) if place.folder && m.kind == FileKind::Dir => {}
        Ok(_) => {
            out.insert(RelPath::parse("(not a folder)").unwrap_or_default(), Vec::new());
            return Ok(out);
        }
    }
    let walk = fs.walk(&place.path, &[]).map_err(|e| unreadable(&place.path, &e.detail))?;
    for link in walk.symlinks {
        if let Some(rel) = link.strip_prefix(&place.path).ok().and_then(|r| r.to_str()).and_then(RelPath::parse) {
            out.insert(rel, b"symlink".to_vec());
        }
    }
    for file in walk.files {
        let Some(rel) = file.strip_prefix(&place.path).ok().and_then(|r| r.to_str()).and_then(RelPath::parse) else {
            continue;
        };
        if is_backup(rel.file_name()) || ports::fs::is_set_leftover(std::ffi::OsStr::new(rel.file_name())) {
            continue;
        }
        let bytes = fs.read(&file, MAX_SKILL_BYTES_TOTAL).map_err(|e| unreadable(&file, &e.detail))?;
        out.insert(rel, bytes);
    }
    Ok(out)
}

/// Whether a name is a backup `--force` kept (`FILE.vitaecontext-backup-<time>`).
fn is_backup(name: &str) -> bool {
    name.contains(".vitaecontext-backup-")
}

pub fn digests(files: &BTreeMap<RelPath, Vec<u8>>) -> FileDigests {
    files.iter().map(|(p, b)| (p.clone(), sha256_hex(b))).collect()
}

/// How a locked skill on disk differs from its lock entry.
pub fn drift_of(
    fs: &dyn FileSystem,
    scope: &Scope,
    id: &str,
    entry: &LockEntry,
) -> Result<Vec<(RelPath, Drift)>, Refusal> {
    let (place, _) = place_of(scope, id, entry)?;
    Ok(drift(&entry.files, &digests(&on_disk(fs, &place)?)))
}

/// One skill an install or update would write.
#[derive(Debug, Clone)]
pub struct SkillPlan {
    pub found: Found,
    pub layer: Layer,
    pub place: Place,
    /// Its entry in the lock before, if it was installed.
    pub old: Option<LockEntry>,
    /// The place it was at before, when that differs (a YAML skill that became a folder).
    pub old_place: Option<Place>,
    /// What is on disk now, at the place (and the old place).
    pub disk: BTreeMap<RelPath, Vec<u8>>,
    /// From what is on disk to what will be.
    pub changes: Vec<(RelPath, FileChange)>,
    /// How the disk differs from the lock before (edited locally).
    pub drift: Vec<(RelPath, Drift)>,
    pub entry: LockEntry,
    /// What serving it changes: the definitions of the same id in other layers.
    pub shadows: Vec<String>,
}

impl SkillPlan {
    pub fn id(&self) -> &str {
        &self.found.id
    }

    /// Files edited on disk since they were installed: what `--force` keeps a backup of.
    pub fn edited(&self) -> Vec<&RelPath> {
        self.drift.iter().filter(|(_, d)| *d == Drift::Edited).map(|(p, _)| p).collect()
    }

    pub fn changes_anything(&self) -> bool {
        self.changes.iter().any(|(_, c)| *c != FileChange::Same) || self.old.as_ref() != Some(&self.entry)
    }
}

/// The skills of a fetched source, or a refusal naming every problem.
pub fn found_in(source: &Source, fetched: &Fetched) -> Result<Vec<Found>, Refusal> {
    collect(&fetched.tree, &source.to_string()).map_err(|problems| {
        let lines: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
        let hidden = problems.iter().any(|p| matches!(p, TreeProblem::HiddenControls { .. } | TreeProblem::HiddenInName { .. }));
        Refusal::new(
            format!("{source}: {} problem(s), nothing was installed:\n{}", problems.len(), lines.join("\n")),
            if hidden {
                "hidden Unicode controls make a text read differently from what it says: ask the source's maintainers to remove them; nothing from this source was written"
            } else {
                "fix the skills in the source (`vitaecontext skills validate FILE` checks one), or install another ref or version"
            },
        )
    })
}

/// Whether two sources are the same place at perhaps another ref or version.
pub fn same_origin(a: &Source, b: &Source) -> bool {
    match (a.with_wanted("x"), b.with_wanted("x")) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// Every definition of `id` in the layers, and how a skill at `priority` in `layer` would stand
/// to it.
fn shadows(set: &SkillSet, id: &str, layer: &Layer, place: &Path) -> Vec<String> {
    let mut all: Vec<Origin> = Vec::new();
    if let Some(e) = set.get(id) {
        all.extend(e.shadows.iter().cloned());
        all.push(e.origin.clone());
    }
    all.extend(set.conflicts().iter().filter(|c| c.id == id).flat_map(|c| c.files.clone()));
    all.into_iter()
        .filter(|o| !Path::new(&o.file).starts_with(place))
        .map(|o| {
            let at = format!("{} (layer {}, priority {})", o.file, o.layer, o.priority);
            match o.priority.cmp(&layer.priority) {
                std::cmp::Ordering::Less => format!("shadows {at}"),
                std::cmp::Ordering::Greater => format!("is shadowed by {at}: that one stays served"),
                std::cmp::Ordering::Equal => format!("conflicts with {at}: neither will be served"),
            }
        })
        .collect()
}

/// Plans the skills of a source into a scope: new ones into `layer`, installed ones where they
/// are (an install of an installed id from the same source is its update).
pub fn plan(
    fs: &dyn FileSystem,
    scope: &Scope,
    lock: &Lock,
    source: &Source,
    fetched: &Fetched,
    found: Vec<Found>,
    layer: Option<&str>,
) -> Result<Vec<SkillPlan>, Refusal> {
    let set = crate::usecase::skills::load(fs, &scope.layers);
    let mut plans = Vec::new();
    for found in found {
        let id = found.id.clone();
        let old = lock.skills.get(&id).cloned();
        let (target_layer, old_place) = match &old {
            Some(e) => {
                let before = Source::parse(&e.source).ok();
                if !before.as_ref().is_some_and(|b| same_origin(b, source)) {
                    return Err(Refusal::new(
                        format!("{id:?} is already installed from {}, not from {source}", e.source),
                        format!("uninstall it first (`vitaecontext skills uninstall {id}`), then install it from here"),
                    ));
                }
                if layer.is_some_and(|l| l != e.layer) {
                    return Err(Refusal::new(
                        format!("{id:?} is installed in layer {}, not {}", e.layer, layer.unwrap_or_default()),
                        format!(
                            "uninstall it first (`vitaecontext skills uninstall {id}`) to move it to another layer"
                        ),
                    ));
                }
                let (p, l) = place_of(scope, &id, e)?;
                (l.clone(), Some(p))
            }
            None => (scope.pick_layer(layer)?.clone(), None),
        };
        let place = Place { path: target_layer.root.join(found.place()), folder: found.is_folder() };
        let mut disk = BTreeMap::new();
        let old_place = match old_place {
            Some(p) if p.path == place.path && p.folder == place.folder => None,
            other => other,
        };
        if let Some(op) = &old_place {
            // The skill changed form (file <-> folder): the old place's files are removed.
            disk = on_disk(fs, op)?;
        }
        let here = on_disk(fs, &place)?;
        if old.is_none() && !here.is_empty() {
            return Err(Refusal::new(
                format!(
                    "{} already exists and was not installed from a source (it is not in {})",
                    place.path.display(),
                    scope.lock_path.display()
                ),
                format!(
                    "remove it first (`vitaecontext skills remove {id} --layer {}`), or install into another layer with --layer",
                    target_layer.name
                ),
            ));
        }
        if old.is_none()
            && let Some(other) = set
                .get(&id)
                .into_iter()
                .flat_map(|e| e.shadows.iter().chain(std::iter::once(&e.origin)))
                .find(|o| o.layer == target_layer.name)
        {
            return Err(Refusal::new(
                format!("layer {} already defines {id:?} in {}", target_layer.name, other.file),
                format!(
                    "remove it first (`vitaecontext skills remove {id} --layer {}`), or install into another layer",
                    target_layer.name
                ),
            ));
        }
        let drift_now = match (&old, &old_place) {
            (Some(e), Some(_)) => drift(&e.files, &digests(&disk)),
            (Some(e), None) => drift(&e.files, &digests(&here)),
            (None, _) => Vec::new(),
        };
        let new = found.digests();
        let changes = if old_place.is_some() {
            compare(&FileDigests::new(), &new)
        } else {
            compare(&digests(&here), &new)
                .into_iter()
                // A file added by the person is theirs: kept, and not shown as removed.
                .filter(|(p, c)| !(*c == FileChange::Removed && old.as_ref().is_none_or(|e| !e.files.contains_key(p))))
                .collect()
        };
        if old_place.is_none() {
            disk = here;
        }
        let entry = LockEntry {
            source: source.to_string(),
            commit: fetched.resolved.commit.clone(),
            version: fetched.resolved.version.clone(),
            integrity: fetched.resolved.integrity.clone(),
            layer: target_layer.name.clone(),
            path: scope.stored(&place.path),
            files: new,
        };
        let shadows = shadows(&set, &id, &target_layer, &place.path);
        plans.push(SkillPlan {
            found,
            layer: target_layer,
            place,
            old,
            old_place,
            disk,
            changes,
            drift: drift_now,
            entry,
            shadows,
        });
    }
    Ok(plans)
}

/// Refuses plans that would overwrite files edited since they were installed, unless forced.
pub fn check_edits(plans: &[SkillPlan], force: bool) -> Result<(), Refusal> {
    let edited: Vec<String> = plans
        .iter()
        .filter(|p| !p.edited().is_empty())
        .map(|p| {
            let files: Vec<String> = p.edited().iter().map(|f| p.place.file(f).display().to_string()).collect();
            format!("{} ({})", p.id(), files.join(", "))
        })
        .collect();
    if edited.is_empty() || force {
        return Ok(());
    }
    Err(Refusal::new(
        format!("refusing to overwrite files edited since they were installed: {}", edited.join("; ")),
        "keep your changes elsewhere, or pass --force to overwrite them (each edited file is kept beside itself as FILE.vitaecontext-backup-<UTC time>)",
    ))
}

/// What applying did.
#[derive(Debug, Default)]
pub struct Applied {
    pub written: usize,
    pub removed: usize,
    pub backups: Vec<PathBuf>,
}

/// Writes the plans and the lock in one atomic set, after keeping a backup of each edited file
/// (only with `force`; without it, edited files refuse the whole set).
pub fn apply(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    scope: &Scope,
    lock: &mut Lock,
    plans: &[SkillPlan],
    force: bool,
) -> Result<Applied, Refusal> {
    check_edits(plans, force)?;
    let mut applied = Applied::default();
    let mut writes: Vec<(PathBuf, &[u8])> = Vec::new();
    let mut removes: Vec<(PathBuf, &Path)> = Vec::new();
    for p in plans {
        for rel in p.edited() {
            let file = p.old_place.as_ref().unwrap_or(&p.place).file(rel);
            if let Some(bytes) = p.disk.get(rel) {
                let backup = crate::usecase::write_backup(fs, clock, &file, bytes).map_err(|e| {
                    Refusal::new(
                        format!("could not keep a backup of {}, nothing was written: {e}", file.display()),
                        "check the folder's permissions and free space",
                    )
                })?;
                applied.backups.push(backup);
            }
        }
        for (rel, change) in &p.changes {
            match change {
                FileChange::Added | FileChange::Changed => {
                    writes.push((p.place.file(rel), p.found.files.get(rel).map_or(&[][..], Vec::as_slice)))
                }
                FileChange::Removed => removes.push((p.place.file(rel), &p.layer.root)),
                FileChange::Same => {}
            }
        }
        if let (Some(op), Some(old)) = (&p.old_place, &p.old) {
            for rel in old.files.keys().filter(|r| p.disk.contains_key(*r)) {
                removes.push((op.file(rel), &p.layer.root));
            }
        }
        lock.skills.insert(p.id().to_owned(), p.entry.clone());
    }
    applied.written = writes.len();
    applied.removed = removes.len();
    let text = lock.render();
    write_set(fs, scope, &writes, &removes, &text)?;
    for p in plans {
        remove_leftovers(fs, &p.place);
    }
    Ok(applied)
}

/// Removes what an interrupted install left in a skill's folder (`.vitaecontext-*.tmp` and
/// `.old`, only those names): nothing else reads or removes them (found in review). A file
/// that cannot be removed stays; it is harmless, and the next install tries again.
pub fn remove_leftovers(fs: &dyn FileSystem, place: &Place) {
    if !place.folder || fs.symlink_metadata(&place.path).map(|m| m.kind) != Ok(FileKind::Dir) {
        return;
    }
    let Ok(walk) = fs.walk(&place.path, &[]) else { return };
    for file in walk.files {
        if file.file_name().is_some_and(ports::fs::is_set_leftover) {
            let _ = fs.remove_file(&file);
        }
    }
}

/// Refuses a write whose path goes through a symlink below its layer's folder (a folder of an
/// installed skill swapped for a link would send the files elsewhere).
fn check_no_symlink(fs: &dyn FileSystem, root: &Path, file: &Path) -> Result<(), Refusal> {
    let Ok(below) = file.strip_prefix(root) else { return Ok(()) };
    let mut at = root.to_path_buf();
    for name in below.components() {
        at.push(name);
        if fs.symlink_metadata(&at).is_ok_and(|m| m.kind == FileKind::Symlink) {
            return Err(Refusal::new(
                format!("{} is a symlink: nothing is written through one", at.display()),
                "replace the link with the folder or file itself, or uninstall the skill",
            ));
        }
    }
    Ok(())
}

/// The one write of an operation: files, removals and the lock, all or nothing. Folders it needs
/// are made first and removed again when the set fails; folders a removal empties are removed
/// after it succeeds.
pub fn write_set(
    fs: &dyn FileSystem,
    scope: &Scope,
    writes: &[(PathBuf, &[u8])],
    removes: &[(PathBuf, &Path)],
    lock_text: &str,
) -> Result<(), Refusal> {
    let failed = |e: ports::fs::FsError| {
        Refusal::new(
            format!("nothing was written: {e}"),
            "check the folders' permissions and free space, then run the command again",
        )
    };
    for (file, root) in removes {
        check_no_symlink(fs, root, file)?;
    }
    for (file, _) in writes {
        if let Some(layer) = scope.layers.iter().find(|l| file.starts_with(&l.root)) {
            check_no_symlink(fs, &layer.root, file)?;
        }
    }
    // Folders to make, shallowest first, remembered so that a failure removes them again.
    let mut made: Vec<PathBuf> = Vec::new();
    let dirs: Vec<&Path> =
        writes.iter().filter_map(|(f, _)| f.parent()).chain(std::iter::once(scope.lock_dir())).collect();
    let undo = |made: &[PathBuf]| {
        for d in made.iter().rev() {
            let _ = fs.remove_dir(d);
        }
    };
    for dir in dirs {
        let mut missing = Vec::new();
        let mut at = Some(dir);
        while let Some(d) = at {
            if fs.symlink_metadata(d).is_ok() {
                break;
            }
            missing.push(d.to_path_buf());
            at = d.parent();
        }
        for d in missing.into_iter().rev() {
            let made_it = if d == scope.lock_dir() && scope.kind == ScopeKind::User {
                fs.create_private_dir_all(&d)
            } else {
                fs.create_dir_all(&d)
            };
            if let Err(e) = made_it {
                undo(&made);
                return Err(failed(e));
            }
            made.push(d);
        }
    }
    let mut changes: Vec<Change<'_>> = writes.iter().map(|(p, b)| Change::Write(p, b)).collect();
    changes.extend(removes.iter().map(|(p, _)| Change::Remove(p)));
    changes.push(Change::Write(&scope.lock_path, lock_text.as_bytes()));
    if let Err(e) = fs.write_atomic_set(&changes) {
        undo(&made);
        return Err(failed(e));
    }
    for (file, root) in removes {
        let mut at = file.parent();
        while let Some(d) = at.filter(|d| d.starts_with(root) && d != root) {
            if fs.remove_dir(d).is_err() {
                break;
            }
            at = d.parent();
        }
    }
    Ok(())
}

/// What `skills uninstall` removed.
#[derive(Debug)]
pub struct Uninstalled {
    pub place: PathBuf,
    pub layer: String,
    pub files: usize,
    pub backups_removed: usize,
}

pub fn uninstall(
    fs: &dyn FileSystem,
    scope: &Scope,
    lock: &mut Lock,
    id: &str,
    force: bool,
    purge_backups: bool,
) -> Result<Uninstalled, Refusal> {
    let Some(entry) = lock.skills.get(id).cloned() else {
        let installed: Vec<&str> = lock.skills.keys().map(String::as_str).collect();
        return Err(Refusal::new(
            format!("{id:?} is not in the lock {}", scope.lock_path.display()),
            if installed.is_empty() {
                format!(
                    "nothing is installed in the {} scope; `vitaecontext skills remove {id}` removes a skill that was not installed from a source",
                    scope.kind.as_str()
                )
            } else {
                format!(
                    "installed: {}; `vitaecontext skills remove {id}` removes a skill that was not installed from a source",
                    installed.join(", ")
                )
            },
        ));
    };
    let (place, layer) = place_of(scope, id, &entry)?;
    let disk = on_disk(fs, &place)?;
    let d = drift(&entry.files, &digests(&disk));
    let edited: Vec<String> =
        d.iter().filter(|(_, k)| *k == Drift::Edited).map(|(p, _)| place.file(p).display().to_string()).collect();
    if !edited.is_empty() && !force {
        return Err(Refusal::new(
            format!("refusing to remove {id}: files edited since they were installed: {}", edited.join(", ")),
            "copy your changes elsewhere, then pass --force to remove them anyway",
        ));
    }
    let removes: Vec<(PathBuf, &Path)> =
        entry.files.keys().filter(|r| disk.contains_key(*r)).map(|r| (place.file(r), layer.root.as_path())).collect();
    // Before the set, so that a folder left with nothing else is removed with the files.
    remove_leftovers(fs, &place);
    lock.skills.remove(id);
    let files = removes.len();
    let mut backups = Vec::new();
    if purge_backups {
        for (file, _) in &removes {
            backups.extend(crate::usecase::backups_of(fs, file));
        }
    }
    write_set(fs, scope, &[], &removes, &lock.render())?;
    let mut backups_removed = 0;
    for b in &backups {
        if fs.remove_file(b).is_ok() {
            backups_removed += 1;
        }
    }
    if purge_backups && place.folder {
        // A folder that only backups kept is removed with them.
        let mut dirs: Vec<&Path> = backups.iter().filter_map(|b| b.parent()).collect();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        for d in dirs {
            let mut at = Some(d);
            while let Some(x) = at.filter(|x| x.starts_with(&layer.root) && *x != layer.root.as_path()) {
                if fs.remove_dir(x).is_err() {
                    break;
                }
                at = x.parent();
            }
        }
    }
    Ok(Uninstalled { place: place.path, layer: layer.name.clone(), files, backups_removed })
}

/// The skill a lock entry names, fetched exactly as locked and compared with the lock: what
/// `skills sync` installs, or why it refuses.
pub fn frozen_plan(
    fs: &dyn FileSystem,
    fetchers: &Fetchers<'_>,
    scope: &Scope,
    id: &str,
    entry: &LockEntry,
) -> Result<Option<SkillPlan>, Refusal> {
    let source = Source::parse(&entry.source).map_err(|e| {
        Refusal::new(
            format!("the lock's source for {id:?} does not parse: {e}"),
            "restore the lock from version control",
        )
    })?;
    let (place, layer) = place_of(scope, id, entry)?;
    let fetched = fetchers.fetch(&source, Pin::Locked(entry))?;
    if let (Some(want), Some(got)) = (&entry.integrity, &fetched.resolved.integrity)
        && want != got
    {
        return Err(Refusal::new(
            format!("{source}: the package's integrity {got} is not the lock's {want}"),
            "the registry serves other bytes than when it was locked: do not install it; check with the package's maintainers",
        ));
    }
    let found = found_in(&source, &fetched)?;
    let Some(skill) = found.into_iter().find(|f| f.id == id) else {
        return Err(Refusal::new(
            format!("{source} at {} holds no skill {id:?}, which the lock says it does", fetched.resolved.describe()),
            "the lock does not match its source: restore the lock, or run `vitaecontext skills update` and review the change",
        ));
    };
    let got = skill.digests();
    if got != entry.files {
        let differences: Vec<String> = compare(&entry.files, &got)
            .into_iter()
            .filter(|(_, c)| *c != FileChange::Same)
            .map(|(p, c)| match c {
                FileChange::Changed => format!("{p}: lock {}, source {}", entry.files[&p], got[&p]),
                FileChange::Added => format!("{p}: in the source, not in the lock"),
                _ => format!("{p}: in the lock, not in the source"),
            })
            .collect();
        return Err(Refusal::new(
            format!(
                "{id}: {source} at {} does not match the lock:\n  {}",
                fetched.resolved.describe(),
                differences.join("\n  ")
            ),
            "the lock or the source was changed: nothing was installed; restore the lock, or run `vitaecontext skills update` and review the change",
        ));
    }
    let disk = on_disk(fs, &place)?;
    let d = drift(&entry.files, &digests(&disk));
    if disk.is_empty() {
        let plan = SkillPlan {
            changes: compare(&FileDigests::new(), &got),
            found: skill,
            layer: layer.clone(),
            place,
            old: None,
            old_place: None,
            disk,
            drift: Vec::new(),
            entry: entry.clone(),
            shadows: Vec::new(),
        };
        return Ok(Some(plan));
    }
    if !d.is_empty() {
        let lines: Vec<String> =
            d.iter().map(|(p, k)| format!("{} ({})", place.file(p).display(), k.as_str())).collect();
        return Err(Refusal::new(
            format!("{id}: the files on disk differ from the lock: {}", lines.join(", ")),
            format!(
                "restore them with `vitaecontext skills update {id} --force` (your edits are kept as backups), or uninstall it and sync again"
            ),
        ));
    }
    Ok(None)
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
