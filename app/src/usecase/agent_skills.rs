//! A served skill as an Agent Skills folder, read through the filesystem port: what the MCP
//! skills extension serves and `skills export` writes. A `SKILL.md` folder is its files as they
//! are on disk; a YAML or JSON skill is one generated `SKILL.md` (`domain::skills::agent`).
//!
//! A folder's files are found and read below the skill's layer folder, no symlink followed
//! anywhere below it (a symlink is neither listed nor read, so nothing outside the folder is
//! ever served); hidden files (a segment starting with `.`) and names that are not UTF-8 are
//! left out. Every manifest is computed from the bytes read: `SKILL.md` is read on every build
//! (it is small, and its front matter is published), the other files' digests are kept by file
//! stamp, so a listing reads only what changed since the last one. A file modified within one
//! timestamp tick of its read (`RACY_NS`, as the incremental index judges "racily clean") is
//! not kept: a write in that tick can leave its stamp and length as they were.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use domain::skills::agent::{self, Refusal, SKILL_MD};
use domain::skills::{SkillSet, Value as SkillValue};
use ports::Clock;
use ports::fs::{FileSystem, HeldDir};

use super::skills::{Layer, Located, Locations, MAX_SKILL_BYTES};

/// One file of a skill as served: its path below the skill's folder (`/`-separated), its size
/// and its digest (`sha256:<hex>`), both of the bytes served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleFile {
    pub path: String,
    pub size: u64,
    pub digest: String,
}

/// A skill as served: its name, its `SKILL.md`'s front matter (every field as written) and its
/// files, `SKILL.md` first, then the others in path order.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub name: String,
    pub front_matter: SkillValue,
    pub files: Vec<BundleFile>,
    /// The bytes of `SKILL.md` the manifest was computed from, served as they are.
    skill_md: Vec<u8>,
    /// Where the other files are: the layer's folder and the skill's folder below it; `None`
    /// for a generated `SKILL.md`.
    folder: Option<(PathBuf, PathBuf)>,
}

impl Bundle {
    /// The paths of its files.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|f| f.path.as_str())
    }
}

/// Why a skill cannot be served as an Agent Skill now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    #[error("no skill {0:?} is served")]
    Unknown(String),
    #[error("skill {name:?} is not served as an Agent Skill: {why}")]
    Refused { name: String, why: Refusal },
    /// A file of it could not be read (or went away while it was read): the message names the
    /// file below the skill's folder only, never where the layer is.
    #[error("skill {name:?}: {file} could not be read ({detail})")]
    Unreadable { name: String, file: String, detail: String },
}

impl BundleError {
    fn refused(name: &str, why: Refusal) -> Self {
        BundleError::Refused { name: name.to_owned(), why }
    }

    fn unreadable(name: &str, file: &str, e: &ports::fs::FsError) -> Self {
        BundleError::Unreadable { name: name.to_owned(), file: file.to_owned(), detail: e.detail.clone() }
    }
}

/// A file's digest as last computed: for the file stamp and length it had.
#[derive(Debug, Clone)]
struct Digested {
    stamp: u128,
    len: u64,
    digest: String,
}

/// Builds [`Bundle`]s, keeping the digests of folder files between builds.
#[derive(Default)]
pub struct AgentSkills {
    /// By skill folder (absolute), then by file below it: replaced whole at each build of that
    /// skill, so a removed file is forgotten. Only files modified well before their read.
    digests: Mutex<HashMap<PathBuf, HashMap<String, Digested>>>,
    /// What tells whether a file was modified close to its read; none keeps no digest at all
    /// (a one-off export reads each file once anyway).
    clock: Option<Arc<dyn Clock>>,
}

impl std::fmt::Debug for AgentSkills {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSkills").field("cached", &self.clock.is_some()).finish_non_exhaustive()
    }
}

impl AgentSkills {
    /// Keeps digests between builds, trusting one only for a file modified more than `RACY_NS`
    /// before `clock`'s time at the build that read it.
    pub fn cached(clock: Arc<dyn Clock>) -> Self {
        AgentSkills { digests: Mutex::default(), clock: Some(clock) }
    }

    /// Now on the clock, in nanoseconds since the epoch; `None` without one.
    fn now_ns(&self) -> Option<i64> {
        let now = self.clock.as_ref()?.now();
        now.duration_since(std::time::UNIX_EPOCH).ok().and_then(|d| i64::try_from(d.as_nanos()).ok())
    }

    /// The skill `name` of `set` as served now.
    pub fn bundle(
        &self,
        fs: &dyn FileSystem,
        set: &SkillSet,
        locations: &Locations,
        name: &str,
    ) -> Result<Bundle, BundleError> {
        let entry = set.get(name).ok_or_else(|| BundleError::Unknown(name.to_owned()))?;
        agent::check_entry(entry).map_err(|why| BundleError::refused(name, why))?;
        if !agent::is_folder(entry) {
            let md = agent::generated_skill_md(entry);
            let front_matter = domain::skills::front_matter(&md)
                .map_err(|p| BundleError::refused(name, Refusal::FrontMatter(p.message)))?;
            agent::check_front_matter(name, &front_matter).map_err(|why| BundleError::refused(name, why))?;
            let file =
                BundleFile { path: SKILL_MD.to_owned(), size: md.len() as u64, digest: agent::digest(md.as_bytes()) };
            return Ok(Bundle {
                name: name.to_owned(),
                front_matter,
                files: vec![file],
                skill_md: md.into_bytes(),
                folder: None,
            });
        }
        let located = locations.of(entry).ok_or_else(|| BundleError::Unknown(name.to_owned()))?;
        self.folder(fs, name, located)
    }

    fn folder(&self, fs: &dyn FileSystem, name: &str, located: &Located) -> Result<Bundle, BundleError> {
        let root = &located.root;
        let dir =
            located.file.parent().and_then(|p| p.strip_prefix(root).ok()).map(Path::to_path_buf).ok_or_else(|| {
                BundleError::Unreadable {
                    name: name.to_owned(),
                    file: SKILL_MD.to_owned(),
                    detail: "not below its layer's folder".into(),
                }
            })?;
        // Taken before anything is read: a file modified within `RACY_NS` of it may change again
        // in its timestamp tick after the read, keeping its stamp.
        let started_ns = self.now_ns();
        let held = fs.hold_root(root).map_err(|e| BundleError::unreadable(name, ".", &e))?;
        let walk = held
            .walk_beneath_at_most(&dir, &[".git"], true, agent::MAX_WALKED_ENTRIES)
            .map_err(|e| BundleError::unreadable(name, ".", &e))?
            .ok_or_else(|| BundleError::refused(name, Refusal::TooManyEntries))?;
        let base = root.join(&dir);
        let mut found: Vec<(String, ports::fs::Metadata)> = walk
            .files
            .into_iter()
            .filter_map(|(path, meta)| {
                let relative = path.strip_prefix(&base).ok()?.to_str()?.to_owned();
                (agent::is_served_file(&relative)).then_some((relative, meta?))
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let total: u64 = found.iter().map(|(_, m)| m.len).sum();
        agent::check_limits(found.len(), total).map_err(|why| BundleError::refused(name, why))?;

        let (skill_md, _) = held
            .read_beneath(&dir.join(SKILL_MD), MAX_SKILL_BYTES)
            .map_err(|e| BundleError::unreadable(name, SKILL_MD, &e))?;
        let text = std::str::from_utf8(&skill_md)
            .map_err(|_| BundleError::refused(name, Refusal::FrontMatter("is not UTF-8 text".into())))?;
        let front_matter = domain::skills::front_matter(text)
            .map_err(|p| BundleError::refused(name, Refusal::FrontMatter(format!("is not valid: {}", p.message))))?;
        agent::check_front_matter(name, &front_matter).map_err(|why| BundleError::refused(name, why))?;

        let mut files = vec![BundleFile {
            path: SKILL_MD.to_owned(),
            size: skill_md.len() as u64,
            digest: agent::digest(&skill_md),
        }];
        let known = self.lock().remove(&base).unwrap_or_default();
        let mut kept = HashMap::new();
        for (relative, meta) in found {
            if relative == SKILL_MD {
                continue;
            }
            let digested = match known.get(&relative) {
                Some(d) if d.stamp == meta.stamp && d.len == meta.len => d.clone(),
                _ => {
                    let (bytes, read) = held
                        .read_beneath(&dir.join(&relative), agent::MAX_TOTAL_BYTES)
                        .map_err(|e| BundleError::unreadable(name, &relative, &e))?;
                    let digested =
                        Digested { stamp: read.stamp, len: bytes.len() as u64, digest: agent::digest(&bytes) };
                    if !settled(read.modified_ns, started_ns) {
                        files.push(BundleFile { path: relative, size: digested.len, digest: digested.digest });
                        continue;
                    }
                    digested
                }
            };
            files.push(BundleFile { path: relative.clone(), size: digested.len, digest: digested.digest.clone() });
            kept.insert(relative, digested);
        }
        self.lock().insert(base, kept);
        let total: u64 = files.iter().map(|f| f.size).sum();
        agent::check_limits(files.len(), total).map_err(|why| BundleError::refused(name, why))?;
        Ok(Bundle { name: name.to_owned(), front_matter, files, skill_md, folder: Some((root.clone(), dir)) })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, HashMap<String, Digested>>> {
        self.digests.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The bytes of the file at `path` of `bundle`, which must be one of its files: `SKILL.md`
    /// as the manifest was computed from it, any other file as it is now (read below the layer's
    /// folder, no symlink followed). `None` when `path` is not a file of the skill.
    pub fn read(&self, fs: &dyn FileSystem, bundle: &Bundle, path: &str) -> Option<Result<Vec<u8>, BundleError>> {
        if path == SKILL_MD {
            return Some(Ok(bundle.skill_md.clone()));
        }
        if !bundle.paths().any(|p| p == path) {
            return None;
        }
        let (root, dir) = bundle.folder.as_ref()?;
        Some(
            fs.read_beneath(root, &dir.join(path), agent::MAX_TOTAL_BYTES)
                .map(|(bytes, _)| bytes)
                .map_err(|e| BundleError::unreadable(&bundle.name, path, &e)),
        )
    }
}

/// Whether a file modified at `modified_ns` may be trusted by its stamp after a read that
/// started at `started_ns`: both known, and the modification more than `RACY_NS` before.
fn settled(modified_ns: Option<i64>, started_ns: Option<i64>) -> bool {
    matches!((modified_ns, started_ns), (Some(m), Some(s)) if m < s.saturating_sub(domain::graph::manifest::RACY_NS))
}

/// Whether the folder `dir` (segments below the skill's folder) of `bundle` is one in which no
/// file is served (empty, or holding only hidden files or symlinks): a folder whose name may be
/// served (not hidden), reached below the layer's folder with no symlink followed. The folders
/// that hold a served file are known from the bundle's walk; only these are asked of the disk.
pub fn is_empty_folder(fs: &dyn FileSystem, bundle: &Bundle, dir: &[String]) -> bool {
    let Some((root, base)) = bundle.folder.as_ref() else { return false };
    let relative = dir.join("/");
    !dir.is_empty() && agent::is_served_file(&relative) && fs.open_dir_beneath(root, &base.join(relative)).is_ok()
}

/// What [`export`] did with one skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exported {
    /// Its folder was written: how many files, how many of them replaced a file, and how many
    /// files of an earlier export that it no longer has were removed (both with `force`).
    Written { name: String, folder: PathBuf, files: usize, replaced: usize, removed: usize },
    /// Its folder already holds exactly its files, byte for byte: nothing was written.
    UpToDate { name: String, folder: PathBuf },
    /// It is not exportable by design (a tool skill without a template has no instructions to
    /// write), and why: not a failure.
    Skipped { name: String, why: String },
    /// Nothing of it was written, and why.
    NotWritten { name: String, why: String },
}

/// Why [`export`] wrote nothing at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The folder is, holds or lies inside a skill layer: what is exported there would be
    /// loaded again as skills, each a second time at its own priority (found in review: the
    /// YAML skills exported into their own layer stopped being served, every id then a
    /// conflict).
    #[error("{} {relation} the skill layer {layer:?} ({}); export to a folder outside every skill layer", dir.display(), root.display())]
    InLayer { dir: PathBuf, relation: &'static str, layer: String, root: PathBuf },
    #[error("could not make the folder {}: {}", .0.path.display(), .0.detail)]
    Dir(ports::fs::FsError),
}

/// Writes each skill of `set` as an Agent Skills folder `dir/<name>`, with the files and bytes
/// the skills extension serves (a YAML skill as its generated `SKILL.md`), for tools that read
/// skill folders from disk. `dir` may not be, hold or lie inside one of `layers`. Per skill,
/// all or nothing:
/// - a file already there with the very bytes to write is left as it is, and a skill whose
///   files are all so is up to date;
/// - without `force`, a file already at one of its paths with other bytes is left alone and
///   nothing of the skill is written; each file is created new (never over one that appears
///   meanwhile), and when one cannot be, those written before it are removed; other files in
///   its folder stay;
/// - with `force`, its files replace what is there, and the files of its folder that it does
///   not have (an earlier export's) are removed, as one set (`write_atomic_set`), or nothing
///   changes. Hidden files (`.git`, `.DS_Store`), which no export writes, stay.
///
/// A symlink at a skill's folder, at a folder below it or at one of its files is never written
/// through, nor one made there while the export runs: folders are made, and files written and
/// removed, through handles on folders reached from `dir` with no symlink followed. Folders
/// made for a skill (owner-only, as its files are) that then failed may remain, empty of its
/// files.
pub fn export(
    fs: &dyn FileSystem,
    set: &SkillSet,
    locations: &Locations,
    layers: &[Layer],
    dir: &Path,
    force: bool,
) -> Result<Vec<Exported>, ExportError> {
    check_outside_layers(fs, dir, layers)?;
    fs.create_dir_all(dir).map_err(ExportError::Dir)?;
    let skills = AgentSkills::default();
    Ok(set
        .entries()
        .iter()
        .map(|entry| {
            let name = entry.skill.id.clone();
            match export_one(fs, &skills, set, locations, dir, &name, force) {
                Ok(written) => written,
                Err(ExportFailure::Skipped(why)) => Exported::Skipped { name, why },
                Err(ExportFailure::Failed(why)) => Exported::NotWritten { name, why },
            }
        })
        .collect())
}

/// `dir` is neither a layer's folder, nor inside one, nor holds one; compared as real paths
/// (symlinks resolved as far as they exist), so a link to a layer is seen through.
fn check_outside_layers(fs: &dyn FileSystem, dir: &Path, layers: &[Layer]) -> Result<(), ExportError> {
    let real_dir = resolved(fs, dir);
    for layer in layers {
        let root = resolved(fs, &layer.root);
        let relation = if real_dir == root {
            "is the folder of"
        } else if real_dir.starts_with(&root) {
            "lies inside"
        } else if root.starts_with(&real_dir) {
            "holds"
        } else {
            continue;
        };
        return Err(ExportError::InLayer {
            dir: dir.to_path_buf(),
            relation,
            layer: layer.name.clone(),
            root: layer.root.clone(),
        });
    }
    Ok(())
}

/// `path` with its longest existing ancestor canonicalized and the rest, which does not exist
/// yet, appended with `.` and `..` taken lexically.
fn resolved(fs: &dyn FileSystem, path: &Path) -> PathBuf {
    let mut tail = Vec::new();
    let mut at = path;
    let mut base = loop {
        if let Ok(real) = fs.canonicalize(at) {
            break real;
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_owned());
                at = parent;
            }
            _ => break at.to_path_buf(),
        }
    };
    for name in tail.into_iter().rev() {
        base.push(name);
    }
    let mut out = PathBuf::new();
    for c in base.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// Why one skill was not exported: by design, or a failure.
enum ExportFailure {
    Skipped(String),
    Failed(String),
}

impl From<String> for ExportFailure {
    fn from(why: String) -> Self {
        ExportFailure::Failed(why)
    }
}

fn export_one(
    fs: &dyn FileSystem,
    skills: &AgentSkills,
    set: &SkillSet,
    locations: &Locations,
    dir: &Path,
    name: &str,
    force: bool,
) -> Result<Exported, ExportFailure> {
    let bundle = skills.bundle(fs, set, locations, name).map_err(|e| match e {
        BundleError::Refused { why: why @ Refusal::NoInstructions, .. } => {
            ExportFailure::Skipped(format!("it is not an Agent Skill: {why}"))
        }
        BundleError::Refused { why, .. } => ExportFailure::Failed(format!("it is not an Agent Skill: {why}")),
        other => ExportFailure::Failed(other.to_string()),
    })?;
    let folder = dir.join(name);
    let mut contents = Vec::with_capacity(bundle.files.len());
    for f in &bundle.files {
        let bytes = skills.read(fs, &bundle, &f.path).unwrap_or_else(|| unreachable_file(&f.path));
        contents.push((folder.join(&f.path), bytes.map_err(|e| e.to_string())?));
    }
    // The folders the files go into, below `dir`: each a plain folder or not there yet.
    let mut folders: Vec<PathBuf> = contents
        .iter()
        .flat_map(|(path, _)| path.ancestors().skip(1).take_while(|a| a.starts_with(&folder)).map(Path::to_path_buf))
        .collect();
    folders.sort();
    folders.dedup();
    for f in &folders {
        match fs.symlink_metadata(f) {
            Ok(m) if m.kind == ports::fs::FileKind::Symlink => {
                return Err(format!("{} is a symlink; nothing is written through one", f.display()).into());
            }
            Ok(m) if m.kind != ports::fs::FileKind::Dir => {
                return Err(format!("{} is not a folder", f.display()).into());
            }
            _ => {}
        }
    }
    // What is there now: files with the same bytes need no write, others need `force`.
    let mut differing = Vec::new();
    let mut to_write = Vec::new();
    for (path, bytes) in &contents {
        match fs.symlink_metadata(path) {
            Ok(m) if m.kind == ports::fs::FileKind::Symlink => {
                return Err(format!("{} is a symlink; nothing is written through one", path.display()).into());
            }
            Ok(m) if m.kind == ports::fs::FileKind::File && m.len == bytes.len() as u64 => {
                let below = path.strip_prefix(dir).unwrap_or(path);
                match fs.read_beneath(dir, below, m.len) {
                    Ok((there, _)) if there == *bytes => {}
                    _ => {
                        differing.push(path.display().to_string());
                        to_write.push((path, bytes));
                    }
                }
            }
            Ok(_) => {
                differing.push(path.display().to_string());
                to_write.push((path, bytes));
            }
            Err(_) => to_write.push((path, bytes)),
        }
    }
    if let Some(first) = differing.first().filter(|_| !force) {
        let more = match differing.len() - 1 {
            0 => String::new(),
            n => format!(" (and {n} more of its files)"),
        };
        return Err(format!("{first} already exists{more}; pass --force to replace").into());
    }
    // With `force`, what an earlier export left that this one does not write.
    let stale: Vec<PathBuf> = if force { stale_files(fs, &folder, &contents)? } else { Vec::new() };
    if to_write.is_empty() && stale.is_empty() {
        return Ok(Exported::UpToDate { name: name.to_owned(), folder });
    }
    // Everything is made through a handle on a folder reached from `dir` with no symlink
    // followed: a folder made a symlink since it was looked at above fails the export, and
    // never has a file, or a removal, land on its other side.
    let below = |path: &Path| match path.strip_prefix(dir) {
        Ok(relative) => relative.to_path_buf(),
        Err(_) => unreachable_file(&path.display().to_string()),
    };
    for f in &folders {
        fs.create_private_dir_beneath(dir, &below(f)).map_err(|e| e.to_string())?;
    }
    if force {
        let written: Vec<(PathBuf, &[u8])> =
            to_write.iter().map(|(path, bytes)| (below(path), bytes.as_slice())).collect();
        let removed: Vec<PathBuf> = stale.iter().map(|path| below(path)).collect();
        let changes: Vec<(&Path, ports::fs::Change<'_>)> = written
            .iter()
            .map(|(path, bytes)| (dir, ports::fs::Change::Write(path, bytes)))
            .chain(removed.iter().map(|p| (dir, ports::fs::Change::Remove(p))))
            .collect();
        fs.write_atomic_set_beneath(&changes).map_err(|e| e.to_string())?;
    } else {
        // Every folder a file goes into, held once for the whole skill (never `dir` itself):
        // its files are made, and taken back after a failure, through those same handles, so a
        // folder swapped meanwhile cannot take the rollback elsewhere either.
        let mut held: Vec<(&Path, Box<dyn HeldDir + '_>)> = Vec::new();
        let mut files = Vec::with_capacity(to_write.len());
        for (path, bytes) in &to_write {
            let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
                unreachable_file(&path.display().to_string())
            };
            let at = match held.iter().position(|(f, _)| *f == folder) {
                Some(at) => at,
                None => {
                    held.push((folder, fs.open_dir_beneath(dir, &below(folder)).map_err(|e| e.to_string())?));
                    held.len() - 1
                }
            };
            files.push((at, name, bytes));
        }
        for (i, &(at, name, bytes)) in files.iter().enumerate() {
            if let Err(e) = held[at].1.write_new(name, bytes) {
                let left: Vec<String> = files[..i]
                    .iter()
                    .filter(|&&(at, name, _)| held[at].1.remove_file(name).is_err())
                    .map(|&(at, name, _)| held[at].1.path().join(name).display().to_string())
                    .collect();
                return Err(match left.as_slice() {
                    [] => format!("{e}; nothing of it was left written"),
                    _ => format!("{e}; {} could not be taken back", left.join(", ")),
                }
                .into());
            }
        }
    }
    Ok(Exported::Written {
        name: name.to_owned(),
        folder,
        files: contents.len(),
        replaced: differing.len(),
        removed: stale.len(),
    })
}

/// The files and symlinks below `folder` (none followed) that are not among `contents` and are
/// not hidden: what an earlier export of the skill wrote that it no longer has.
fn stale_files(fs: &dyn FileSystem, folder: &Path, contents: &[(PathBuf, Vec<u8>)]) -> Result<Vec<PathBuf>, String> {
    let walk = match fs.walk(folder, &[]) {
        Ok(w) => w,
        Err(e) if e.kind == ports::fs::FsErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e.to_string()),
    };
    Ok(walk
        .files
        .into_iter()
        .chain(walk.symlinks)
        .filter(|p| !contents.iter().any(|(c, _)| c == p))
        .filter(|p| {
            p.strip_prefix(folder)
                .is_ok_and(|below| below.components().all(|c| !c.as_os_str().as_encoded_bytes().starts_with(b".")))
        })
        .collect())
}

/// A path of a bundle is always one of its files.
fn unreachable_file(path: &str) -> ! {
    unreachable!("{path} is listed in the bundle it is read from")
}

#[cfg(test)]
mod tests {
    use fs_memory::MemoryFs;

    use super::*;
    use crate::usecase::skills::{Layer, load_located};

    fn fs_with(files: &[(&str, &str)]) -> MemoryFs {
        let fs = MemoryFs::new();
        for (path, text) in files {
            let p = Path::new(path);
            fs.create_dir_all(p.parent().unwrap()).unwrap();
            fs.write_atomic(p, text.as_bytes()).unwrap();
        }
        fs
    }

    fn layers() -> Vec<Layer> {
        vec![Layer { name: "mine".into(), root: "/l".into(), priority: 100 }]
    }

    const SKILL: &str = "---\nname: review\ndescription: Review code\nlicense: MIT\n---\n\nRead `refs/list.md`.\n";

    #[test]
    fn a_folder_is_served_with_every_file_and_nothing_hidden() {
        let fs = fs_with(&[
            ("/l/review/SKILL.md", SKILL),
            ("/l/review/refs/list.md", "# List\n"),
            ("/l/review/.hidden", "x"),
            ("/l/review/.git/config", "x"),
            // Unreadable by URI (`SkillUri` refuses a `\`), so not listed either.
            ("/l/review/a\\b.md", "x"),
            ("/l/review/c\\d/e.md", "x"),
            ("/l/outside.md", "secret"),
        ]);
        fs.symlink(Path::new("/l/outside.md"), Path::new("/l/review/refs/escape.md")).unwrap();
        let (set, loc) = load_located(&fs, &layers());
        let skills = AgentSkills::default();
        let b = skills.bundle(&fs, &set, &loc, "review").unwrap();
        let paths: Vec<&str> = b.paths().collect();
        assert_eq!(paths, ["SKILL.md", "refs/list.md"]);
        assert_eq!(b.files[1].digest, agent::digest(b"# List\n"));
        assert_eq!(b.front_matter.get("license"), Some(&SkillValue::String("MIT".into())));
        assert_eq!(skills.read(&fs, &b, "refs/list.md").unwrap().unwrap(), b"# List\n");
        assert!(skills.read(&fs, &b, "refs/escape.md").is_none(), "a symlink is not a file of the skill");
        assert!(skills.read(&fs, &b, ".hidden").is_none());
        // An edit is seen by the next build (the digest cache follows the stamp).
        fs.write_atomic(Path::new("/l/review/refs/list.md"), b"# List 2\n").unwrap();
        let b = skills.bundle(&fs, &set, &loc, "review").unwrap();
        assert_eq!(
            b.files[1],
            BundleFile { path: "refs/list.md".into(), size: 9, digest: agent::digest(b"# List 2\n") }
        );
    }

    #[test]
    fn skills_that_are_not_agent_skills_are_refused_with_the_reason() {
        let fs = fs_with(&[
            ("/l/by-id/SKILL.md", "---\nid: by-id\ndescription: d\n---\nbody\n"),
            ("/l/named/SKILL.md", "---\nid: named\nname: Named Skill\ndescription: d\n---\nbody\n"),
            ("/l/Bad_Name.yaml", "id: Bad_Name\ntype: prompt\nprompt: x\n"),
            ("/l/tool.yaml", "id: a-tool\ntype: tool\n"),
            ("/l/big/SKILL.md", "---\nname: big\ndescription: d\n---\nbody\n"),
            ("/l/crowded/SKILL.md", "---\nname: crowded\ndescription: d\n---\nbody\n"),
        ]);
        for i in 0..agent::MAX_FILES {
            fs.write_atomic(Path::new(&format!("/l/big/f{i}.txt")), b"x").unwrap();
        }
        // Hidden files are never served, but a folder crowded with them is not walked to its end.
        fs.create_dir_all(Path::new("/l/crowded/.cache")).unwrap();
        for i in 0..agent::MAX_WALKED_ENTRIES {
            fs.write_atomic(Path::new(&format!("/l/crowded/.cache/f{i}")), b"x").unwrap();
        }
        let (set, loc) = load_located(&fs, &layers());
        let skills = AgentSkills::default();
        let why = |name: &str| skills.bundle(&fs, &set, &loc, name).unwrap_err().to_string();
        assert!(why("by-id").contains("has no `name`"), "{}", why("by-id"));
        assert!(why("named").contains("names it \"Named Skill\", not \"named\""), "{}", why("named"));
        assert!(why("Bad_Name").contains("not an Agent Skills name"), "{}", why("Bad_Name"));
        assert!(why("a-tool").contains("without a `prompt` template"), "{}", why("a-tool"));
        assert!(why("big").contains("513 files"), "{}", why("big"));
        assert!(why("crowded").contains("more than 2048 files and links"), "{}", why("crowded"));
        assert_eq!(why("nope"), "no skill \"nope\" is served");
    }

    #[test]
    fn export_writes_each_skill_as_served_and_never_overwrites_without_force() {
        let fs = fs_with(&[
            ("/l/review/SKILL.md", SKILL),
            ("/l/review/refs/list.md", "# List\n"),
            ("/l/cv.yaml", "id: cv-summary\ntype: prompt\ndescription: Sum up\nprompt: Go.\n"),
            ("/l/tool.yaml", "id: a-tool\ntype: tool\n"),
            ("/out/cv-summary/SKILL.md", "mine"),
        ]);
        let (set, loc) = load_located(&fs, &layers());
        let out = Path::new("/out");
        let first = export(&fs, &set, &loc, &layers(), out, false).unwrap();
        let of = |all: &[Exported], name: &str| {
            all.iter()
                .find(|e| {
                    matches!(e, Exported::Written { name: n, .. } | Exported::UpToDate { name: n, .. }
                        | Exported::Skipped { name: n, .. } | Exported::NotWritten { name: n, .. } if n == name)
                })
                .cloned()
                .unwrap()
        };
        assert_eq!(
            of(&first, "review"),
            Exported::Written { name: "review".into(), folder: out.join("review"), files: 2, replaced: 0, removed: 0 }
        );
        assert!(matches!(of(&first, "cv-summary"), Exported::NotWritten { why, .. } if why.contains("pass --force")));
        // A tool skill without a template is not exportable by design: skipped, not failed.
        assert!(matches!(of(&first, "a-tool"), Exported::Skipped { why, .. } if why.contains("without a `prompt`")));
        assert_eq!(fs.read(Path::new("/out/review/refs/list.md"), 100).unwrap(), b"# List\n");
        assert_eq!(fs.read(Path::new("/out/review/SKILL.md"), 1000).unwrap(), SKILL.as_bytes());
        assert_eq!(fs.read(Path::new("/out/cv-summary/SKILL.md"), 100).unwrap(), b"mine", "kept without --force");
        // Without --force, a second export writes nothing over the first: the same bytes are up
        // to date (found in review: a re-run onto identical files failed), other bytes refused.
        let again = export(&fs, &set, &loc, &layers(), out, false).unwrap();
        assert_eq!(of(&again, "review"), Exported::UpToDate { name: "review".into(), folder: out.join("review") });
        fs.write_atomic(Path::new("/out/review/refs/list.md"), b"edited").unwrap();
        let again = export(&fs, &set, &loc, &layers(), out, false).unwrap();
        assert!(
            matches!(of(&again, "review"), Exported::NotWritten { why, .. } if why.contains("/out/review/refs/list.md")),
            "{again:?}"
        );
        let forced = export(&fs, &set, &loc, &layers(), out, true).unwrap();
        assert!(matches!(of(&forced, "cv-summary"), Exported::Written { replaced: 1, .. }), "{forced:?}");
        assert!(matches!(of(&forced, "review"), Exported::Written { replaced: 1, .. }), "{forced:?}");
        let md = fs.read(Path::new("/out/cv-summary/SKILL.md"), 1000).unwrap();
        assert!(md.starts_with(b"---\nname: cv-summary\n"));
    }

    #[test]
    fn export_is_all_or_nothing_per_skill_and_never_writes_through_a_symlink() {
        let fs =
            fs_with(&[("/l/review/SKILL.md", SKILL), ("/l/review/refs/list.md", "# List\n"), ("/elsewhere/x", "")]);
        let (set, loc) = load_located(&fs, &layers());
        // A failure at the second file takes back the first.
        fs.create_dir_all(Path::new("/out/review/refs")).unwrap();
        fs.fail_writes_to("/out/review/refs/list.md");
        let r = export(&fs, &set, &loc, &layers(), Path::new("/out"), false).unwrap();
        assert!(
            matches!(&r[0], Exported::NotWritten { why, .. } if why.contains("nothing of it was left written")),
            "{r:?}"
        );
        assert!(fs.symlink_metadata(Path::new("/out/review/SKILL.md")).is_err(), "the first file was taken back");
        fs.heal_writes_to(Path::new("/out/review/refs/list.md"));
        // A skill folder that is a symlink is not written through.
        fs.create_dir_all(Path::new("/out2")).unwrap();
        fs.symlink(Path::new("/elsewhere"), Path::new("/out2/review")).unwrap();
        let r = export(&fs, &set, &loc, &layers(), Path::new("/out2"), true).unwrap();
        assert!(matches!(&r[0], Exported::NotWritten { why, .. } if why.contains("is a symlink")), "{r:?}");
        assert!(fs.symlink_metadata(Path::new("/elsewhere/SKILL.md")).is_err());
    }

    /// The folders were looked at, then written by their paths: a folder made a symlink in
    /// between by another program had the files (and, with `--force`, the removals) land on
    /// its other side. The swap here comes at the export's first file write, once its folders
    /// are made: with `--force` the set then refuses the folder before it changes anything;
    /// without it the folders are already held, and the file goes into the folder the export
    /// made, wherever it was moved. Never to the other side.
    #[test]
    fn a_folder_made_a_symlink_after_the_look_is_not_written_through() {
        for force in [false, true] {
            let fs =
                fs_with(&[("/l/review/SKILL.md", SKILL), ("/l/review/refs/list.md", "# List\n"), ("/elsewhere/x", "")]);
            let (set, loc) = load_located(&fs, &layers());
            fs.swap_for_symlink_at_next_write("/elsewhere", "/out/review/refs");
            let r = export(&fs, &set, &loc, &layers(), Path::new("/out"), force).unwrap();
            assert!(fs.symlink_metadata(Path::new("/elsewhere/list.md")).is_err(), "force {force}: written through");
            if force {
                let Exported::NotWritten { why, .. } = &r[0] else { panic!("{r:?}") };
                assert!(why.contains("symlink"), "{why}");
                assert!(fs.symlink_metadata(Path::new("/out/review/SKILL.md")).is_err(), "half written");
            } else {
                assert!(matches!(&r[0], Exported::Written { files: 2, .. }), "{r:?}");
                let moved = fs.read(Path::new("/out/review/refs.moved/list.md"), 100).unwrap();
                assert_eq!(moved, b"# List\n");
            }
        }
    }

    /// Found in review: exported into its own layer, each YAML skill was loaded twice at one
    /// priority, and neither copy was served any more.
    #[test]
    fn export_refuses_a_folder_that_is_holds_or_lies_inside_a_layer() {
        let fs = fs_with(&[("/l/cv.yaml", "id: cv-summary\ntype: prompt\ndescription: Sum up\nprompt: Go.\n")]);
        fs.create_dir_all(Path::new("/elsewhere")).unwrap();
        fs.symlink(Path::new("/l"), Path::new("/elsewhere/link")).unwrap();
        let (set, loc) = load_located(&fs, &layers());
        for (dir, relation) in [
            ("/l", "is the folder of"),
            ("/l/cv-summary", "lies inside"),
            ("/l/new/deeper", "lies inside"),
            ("/", "holds"),
            ("/elsewhere/link/x", "lies inside"),
        ] {
            let e = export(&fs, &set, &loc, &layers(), Path::new(dir), true).unwrap_err();
            assert_eq!(
                e,
                ExportError::InLayer { dir: dir.into(), relation, layer: "mine".into(), root: "/l".into() },
                "{dir}"
            );
            assert!(e.to_string().contains("the skill layer \"mine\" (/l)"), "{e}");
        }
        assert!(fs.symlink_metadata(Path::new("/l/cv-summary")).is_err(), "nothing was written");
        assert!(fs.symlink_metadata(Path::new("/l/new")).is_err(), "no folder was made");
        assert!(export(&fs, &set, &loc, &layers(), Path::new("/lx"), false).is_ok(), "a sibling is outside");
    }

    /// Found in review: a forced export kept the files an earlier export wrote that the skill no
    /// longer has, so the folder was not the skill served.
    #[test]
    fn a_forced_export_removes_what_the_skill_no_longer_has() {
        let fs = fs_with(&[("/l/review/SKILL.md", SKILL), ("/l/review/refs/list.md", "# List\n")]);
        let (set, loc) = load_located(&fs, &layers());
        let out = Path::new("/out");
        export(&fs, &set, &loc, &layers(), out, false).unwrap();
        fs.write_atomic(Path::new("/out/review/refs/old.md"), b"from an earlier export").unwrap();
        fs.write_atomic(Path::new("/out/review/.keep"), b"hidden: never exported").unwrap();
        let kept = export(&fs, &set, &loc, &layers(), out, false).unwrap();
        assert!(matches!(&kept[0], Exported::UpToDate { .. }), "without --force other files stay: {kept:?}");
        let forced = export(&fs, &set, &loc, &layers(), out, true).unwrap();
        assert!(matches!(&forced[0], Exported::Written { replaced: 0, removed: 1, .. }), "{forced:?}");
        assert!(fs.symlink_metadata(Path::new("/out/review/refs/old.md")).is_err());
        assert!(fs.symlink_metadata(Path::new("/out/review/.keep")).is_ok());
        let again = export(&fs, &set, &loc, &layers(), out, true).unwrap();
        assert!(matches!(&again[0], Exported::UpToDate { .. }), "{again:?}");
    }

    /// A clock set by the test.
    struct At(Mutex<i64>);

    impl ports::Clock for At {
        fn now(&self) -> std::time::SystemTime {
            let ns = u64::try_from(*self.0.lock().unwrap()).unwrap();
            std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns)
        }

        fn monotonic(&self) -> std::time::Duration {
            std::time::Duration::ZERO
        }
    }

    /// Found in review: a same-length write in the timestamp tick of a read kept the file's
    /// stamp, and the digest of the old bytes was published with the new ones.
    #[test]
    fn a_digest_is_not_kept_for_a_file_modified_close_to_its_read() {
        let fs = fs_with(&[("/l/review/SKILL.md", SKILL), ("/l/review/f.txt", "0000")]);
        let (set, loc) = load_located(&fs, &layers());
        let written = fs.metadata(Path::new("/l/review/f.txt")).unwrap().modified_ns.unwrap();
        let clock = Arc::new(At(Mutex::new(written + 1_000_000_000)));
        let skills = AgentSkills::cached(clock.clone());
        skills.bundle(&fs, &set, &loc, "review").unwrap();
        fs.overwrite_in_the_same_tick(Path::new("/l/review/f.txt"), b"0001").unwrap();
        let b = skills.bundle(&fs, &set, &loc, "review").unwrap();
        assert_eq!(b.files[1].digest, agent::digest(b"0001"), "re-read, not taken from the cache");
        // Read well after its last write, it is kept and trusted by its stamp from then on.
        *clock.0.lock().unwrap() = written + 10_000_000_000;
        skills.bundle(&fs, &set, &loc, "review").unwrap();
        let reads = fs.reads();
        let b = skills.bundle(&fs, &set, &loc, "review").unwrap();
        assert_eq!(fs.reads() - reads, 1, "SKILL.md only");
        assert_eq!(b.files[1].digest, agent::digest(b"0001"));
    }

    #[test]
    fn a_yaml_skill_is_one_generated_skill_md_with_a_stable_digest() {
        let fs = fs_with(&[("/l/cv.yaml", "id: cv-summary\ntype: prompt\ndescription: Sum up\nprompt: |\n  Go.\n")]);
        let (set, loc) = load_located(&fs, &layers());
        let a = AgentSkills::default().bundle(&fs, &set, &loc, "cv-summary").unwrap();
        let b = AgentSkills::default().bundle(&fs, &set, &loc, "cv-summary").unwrap();
        assert!(a.folder.is_none(), "generated");
        assert_eq!(a.files, b.files);
        let md = AgentSkills::default().read(&fs, &a, SKILL_MD).unwrap().unwrap();
        assert_eq!(
            String::from_utf8(md).unwrap(),
            "---\nname: cv-summary\ndescription: Sum up\nmetadata:\n  type: prompt\n---\n\nGo.\n"
        );
    }
}
