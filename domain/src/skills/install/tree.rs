//! What a source holds, as the skills to install: skill-central YAML/JSON files and Agent Skills
//! folders (`SKILL.md` and the files beside it), found as the server walks a layer (names
//! starting with `.` or `_` are skipped; a folder with a `SKILL.md` is one skill), each checked
//! by the validator the server uses and refused when its text hides Unicode controls.

use std::collections::BTreeMap;
use std::fmt;

use super::digest::{FileDigests, sha256_hex};
use super::hidden::{Hidden, hidden_controls};
use crate::skills::{Problem, SkillFormat, SkillType, is_builtin, parse_skill};

/// A relative path of plain names joined by `/`: no `.`, `..`, empty name, leading `/` or
/// backslash, so that joining it to a folder never leaves the folder. The empty path is the
/// folder itself ([`RelPath::root`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RelPath(String);

impl RelPath {
    /// A path with at least one name.
    pub fn parse(s: &str) -> Option<RelPath> {
        let ok = !s.is_empty()
            && s.split('/').all(|n| !n.is_empty() && n != "." && n != ".." && !n.contains(['\\', '\0']))
            && !s.chars().any(char::is_control);
        ok.then(|| RelPath(s.to_owned()))
    }

    /// As [`RelPath::parse`], the empty string being the root.
    pub fn parse_or_root(s: &str) -> Option<RelPath> {
        if s.is_empty() { Some(RelPath::root()) } else { RelPath::parse(s) }
    }

    pub fn root() -> RelPath {
        RelPath(String::new())
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|n| !n.is_empty())
    }

    /// The last name (empty for the root).
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or_default()
    }

    pub fn join(&self, name: &RelPath) -> RelPath {
        match (self.is_root(), name.is_root()) {
            (true, _) => name.clone(),
            (_, true) => self.clone(),
            _ => RelPath(format!("{}/{}", self.0, name.0)),
        }
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// At most this many files in one skill (the MCP skills extension's limit).
pub const MAX_SKILL_FILES: usize = 512;
/// At most this many bytes in one skill, all its files together.
pub const MAX_SKILL_BYTES_TOTAL: u64 = 16 * 1024 * 1024;
/// A skill's own file (YAML, JSON or SKILL.md) may be at most this large, as the server reads it.
pub const MAX_SKILL_FILE_BYTES: u64 = 1024 * 1024;

/// The files a source holds below the path it names, by path relative to it. When the path
/// names a file, `file` is its name and `files` holds it alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    pub files: BTreeMap<RelPath, Vec<u8>>,
    /// Set when the source's path named a single file.
    pub file: Option<String>,
    /// What was left out while reading (a symlink, a submodule), each with why.
    pub left_out: Vec<(String, String)>,
    /// The name of the folder the path named (for a `SKILL.md` at the root of the tree).
    pub folder_name: String,
}

/// One skill found in a source, checked, with the files to install.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub id: String,
    pub kind: SkillType,
    pub format: SkillFormat,
    /// Where it is in the source, for messages.
    pub origin: String,
    /// The files to write, relative to the skill's place in a layer: for an Agent Skills
    /// folder, its files (`SKILL.md`, `scripts/x.sh`); for a single file, its installed name
    /// (`<id>.yaml`).
    pub files: BTreeMap<RelPath, Vec<u8>>,
}

impl Found {
    /// Whether the skill is a folder (Agent Skills) rather than one file.
    pub fn is_folder(&self) -> bool {
        self.format == SkillFormat::SkillMd
    }

    /// The name of its place in a layer: the folder `<id>` or the file `<id>.<ext>`.
    pub fn place(&self) -> String {
        match self.files.keys().next() {
            Some(name) if !self.is_folder() => name.to_string(),
            _ => self.id.clone(),
        }
    }

    pub fn digests(&self) -> FileDigests {
        self.files.iter().map(|(p, b)| (p.clone(), sha256_hex(b))).collect()
    }

    pub fn size(&self) -> u64 {
        self.files.values().map(|b| b.len() as u64).sum()
    }
}

/// Why a source's skills cannot be installed. Every problem is collected, so that one run
/// names all of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeProblem {
    /// Nothing in the source is a skill.
    NoSkills {
        other_files: usize,
    },
    /// The validator refused the file (the first problem and how many more).
    Invalid {
        file: String,
        problems: Vec<Problem>,
    },
    NotText {
        file: String,
    },
    HiddenControls {
        file: String,
        found: Vec<Hidden>,
    },
    /// A file name that hides characters (`readme\u{202E}txt.sh` shows as `readmehs.txt`).
    HiddenInName {
        file: String,
        found: Vec<Hidden>,
    },
    UnsafeId {
        file: String,
        id: String,
    },
    BuiltinId {
        file: String,
        id: String,
    },
    DuplicateId {
        id: String,
        files: Vec<String>,
    },
    TooManyFiles {
        skill: String,
        count: usize,
    },
    TooLarge {
        skill: String,
        bytes: u64,
    },
    SkillFileTooLarge {
        file: String,
        bytes: u64,
    },
    NotASkillFile {
        file: String,
    },
}

impl fmt::Display for TreeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeProblem::NoSkills { other_files } => write!(
                f,
                "Source produced no skills: no .yaml, .yml or .json skill file and no folder with a SKILL.md ({other_files} other file(s))"
            ),
            TreeProblem::Invalid { file, problems } => {
                let first = problems.first().map_or("", |p| p.message.as_str());
                let line = problems.first().and_then(Problem::line).map(|l| format!(" (line {l})")).unwrap_or_default();
                write!(f, "{file}: not a valid skill{line}: {first}")?;
                if problems.len() > 1 {
                    write!(f, " (and {} more problem(s))", problems.len() - 1)?;
                }
                Ok(())
            }
            TreeProblem::NotText { file } => write!(f, "{file}: not UTF-8 text, so not a skill file"),
            TreeProblem::HiddenControls { file, found } => {
                write!(f, "{file}: hidden Unicode control(s) in the text: ")?;
                let shown: Vec<String> = found.iter().take(5).map(ToString::to_string).collect();
                f.write_str(&shown.join("; "))?;
                if found.len() > 5 {
                    write!(f, "; and {} more", found.len() - 5)?;
                }
                Ok(())
            }
            TreeProblem::HiddenInName { file, found } => {
                let shown: Vec<String> =
                    found.iter().map(|h| format!("U+{:04X} {}", u32::from(h.ch), h.name())).collect();
                write!(f, "{}: hidden Unicode control(s) in the file name: {}", file.escape_debug(), shown.join("; "))
            }
            TreeProblem::UnsafeId { file, id } => write!(
                f,
                "{file}: the id {id:?} cannot name a file (use letters, digits, '.', '_' and '-', starting with a letter or digit)"
            ),
            TreeProblem::BuiltinId { file, id } => {
                write!(f, "{file}: the id {id:?} is one of the server's own prompts or tools, so it would be refused")
            }
            TreeProblem::DuplicateId { id, files } => {
                write!(f, "the id {id:?} is defined more than once: {}", files.join(", "))
            }
            TreeProblem::TooManyFiles { skill, count } => {
                write!(f, "{skill}: {count} files, more than the {MAX_SKILL_FILES} a skill may hold")
            }
            TreeProblem::TooLarge { skill, bytes } => {
                write!(f, "{skill}: {bytes} bytes, more than the {} MiB a skill may hold", MAX_SKILL_BYTES_TOTAL >> 20)
            }
            TreeProblem::SkillFileTooLarge { file, bytes } => {
                write!(
                    f,
                    "{file}: {bytes} bytes, more than the {} KiB a skill file may hold",
                    MAX_SKILL_FILE_BYTES >> 10
                )
            }
            // An Agent Skill is its folder (SKILL.md with its supporting files): found in review,
            // a path naming `.../SKILL.md` got skill-central's message about YAML files.
            TreeProblem::NotASkillFile { file } if file.rsplit('/').next() == Some("SKILL.md") => write!(
                f,
                "{file}: an Agent Skill is installed with its folder; name the folder that holds this SKILL.md \
                 (the path without /SKILL.md)"
            ),
            TreeProblem::NotASkillFile { file } => write!(
                f,
                "{file}: GitHub source path must end in .yaml, .yml, or .json (or name a folder, which is searched for skills)"
            ),
        }
    }
}

/// Whether an id can name a file or folder in a layer.
pub fn is_safe_id(id: &str) -> bool {
    id.len() <= 128
        && id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn hidden_name(name: &str) -> bool {
    name.starts_with('.') || name.starts_with('_')
}

/// One skill's own file, checked: parsed by the server's validator, refused when it hides
/// Unicode controls.
fn check_skill_file(
    file: &str,
    format: SkillFormat,
    bytes: &[u8],
    problems: &mut Vec<TreeProblem>,
) -> Option<(String, SkillType)> {
    if bytes.len() as u64 > MAX_SKILL_FILE_BYTES {
        problems.push(TreeProblem::SkillFileTooLarge { file: file.to_owned(), bytes: bytes.len() as u64 });
        return None;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        problems.push(TreeProblem::NotText { file: file.to_owned() });
        return None;
    };
    let found = hidden_controls(text);
    if !found.is_empty() {
        problems.push(TreeProblem::HiddenControls { file: file.to_owned(), found });
        return None;
    }
    match parse_skill(format, text) {
        Err(p) => {
            problems.push(TreeProblem::Invalid { file: file.to_owned(), problems: p });
            None
        }
        Ok(skill) if !is_safe_id(&skill.id) => {
            problems.push(TreeProblem::UnsafeId { file: file.to_owned(), id: skill.id });
            None
        }
        Ok(skill) if is_builtin(&skill.id) => {
            problems.push(TreeProblem::BuiltinId { file: file.to_owned(), id: skill.id });
            None
        }
        Ok(skill) => Some((skill.id, skill.kind)),
    }
}

/// The skills of a tree, or every problem found. `shown` prefixes the paths in messages (the
/// source as written).
pub fn collect(tree: &Tree, shown: &str) -> Result<Vec<Found>, Vec<TreeProblem>> {
    let at = |p: &str| if p.is_empty() { shown.to_owned() } else { format!("{shown}: {p}") };
    let mut problems = Vec::new();
    let mut found = Vec::new();
    if let Some(name) = &tree.file {
        let format = SkillFormat::of_file_name(name).filter(|f| *f != SkillFormat::SkillMd);
        let (Some(format), Some((_, bytes))) = (format, tree.files.iter().next()) else {
            return Err(vec![TreeProblem::NotASkillFile { file: at(name) }]);
        };
        if let Some(skill) = single(&at(name), name, format, bytes, &mut problems) {
            found.push(skill);
        }
    } else {
        let mut other_files = 0;
        walk(tree, &RelPath::root(), &at, &mut found, &mut problems, &mut other_files);
        if found.is_empty() && problems.is_empty() {
            problems.push(TreeProblem::NoSkills { other_files });
        }
    }
    found.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.origin.cmp(&b.origin)));
    let mut by_id: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for f in &found {
        by_id.entry(&f.id).or_default().push(f.origin.clone());
    }
    for (id, files) in by_id {
        if files.len() > 1 {
            problems.push(TreeProblem::DuplicateId { id: id.to_owned(), files });
        }
    }
    if problems.is_empty() { Ok(found) } else { Err(problems) }
}

fn single(
    origin: &str,
    name: &str,
    format: SkillFormat,
    bytes: &[u8],
    problems: &mut Vec<TreeProblem>,
) -> Option<Found> {
    let (id, kind) = check_skill_file(origin, format, bytes, problems)?;
    let ext = name.rsplit_once('.').map_or("yaml", |(_, e)| e).to_ascii_lowercase();
    let installed = RelPath::parse(&format!("{id}.{ext}"))?;
    Some(Found { id, kind, format, origin: origin.to_owned(), files: BTreeMap::from([(installed, bytes.to_vec())]) })
}

/// The direct children of `dir` in the tree: files (name, path) and sub-folder names.
fn children<'t>(tree: &'t Tree, dir: &RelPath) -> (Vec<(&'t RelPath, &'t [u8])>, Vec<String>) {
    let prefix = if dir.is_root() { String::new() } else { format!("{dir}/") };
    let mut files = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    // Every path under `dir/` sorts together, from `dir/` on.
    for (path, bytes) in tree.files.range(RelPath(prefix.clone())..) {
        let Some(rest) = path.as_str().strip_prefix(&prefix) else { break };
        match rest.split_once('/') {
            Some((sub, _)) if dirs.last().is_none_or(|d| d != sub) => dirs.push(sub.to_owned()),
            Some(_) => {}
            None if !rest.is_empty() => files.push((path, bytes.as_slice())),
            None => {}
        }
    }
    (files, dirs)
}

fn walk(
    tree: &Tree,
    dir: &RelPath,
    at: &dyn Fn(&str) -> String,
    found: &mut Vec<Found>,
    problems: &mut Vec<TreeProblem>,
    other_files: &mut usize,
) {
    let skill_md = dir.join(&RelPath("SKILL.md".into()));
    if let Some(bytes) = tree.files.get(&skill_md) {
        folder(tree, dir, bytes, at, found, problems);
        return;
    }
    let (files, dirs) = children(tree, dir);
    for (path, bytes) in files {
        let name = path.file_name();
        match SkillFormat::of_file_name(name).filter(|f| *f != SkillFormat::SkillMd) {
            Some(format) if !hidden_name(name) => {
                if let Some(s) = single(&at(path.as_str()), name, format, bytes, problems) {
                    found.push(s);
                }
            }
            _ => *other_files += 1,
        }
    }
    for sub in dirs {
        if hidden_name(&sub) {
            continue;
        }
        walk(tree, &dir.join(&RelPath(sub)), at, found, problems, other_files);
    }
}

/// Whether a supporting file is binary (an image, an archive) and so not searched for hidden
/// characters: a NUL in its first 8000 bytes, as git decides, and a name that is not a text or
/// script kind. Searching binaries would refuse images by chance (their bytes form format
/// characters now and then); a script cannot escape by holding a NUL.
fn is_binary(name: &str, bytes: &[u8]) -> bool {
    const TEXT: &[&str] = &[
        "md", "markdown", "txt", "text", "rst", "adoc", "sh", "bash", "zsh", "fish", "ps1", "bat", "cmd", "py", "rb",
        "pl", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "yaml", "yml", "toml", "ini", "cfg", "conf", "xml",
        "html", "htm", "css", "csv", "tsv", "sql", "go", "rs", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs",
        "swift", "php", "lua", "r", "jl", "tex", "svg", "env",
    ];
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    let texty = ext.as_deref().is_none_or(|e| TEXT.contains(&e));
    !texty && bytes[..bytes.len().min(8000)].contains(&0)
}

/// An Agent Skills folder: its SKILL.md checked, every text file beside it searched for
/// hidden controls, its size and file count bounded.
fn folder(
    tree: &Tree,
    dir: &RelPath,
    skill_md: &[u8],
    at: &dyn Fn(&str) -> String,
    found: &mut Vec<Found>,
    problems: &mut Vec<TreeProblem>,
) {
    let origin = at(dir.join(&RelPath("SKILL.md".into())).as_str());
    let before = problems.len();
    let checked = check_skill_file(&origin, SkillFormat::SkillMd, skill_md, problems);
    let prefix = if dir.is_root() { String::new() } else { format!("{dir}/") };
    let mut files = BTreeMap::new();
    for (path, bytes) in tree.files.range(RelPath(prefix.clone())..) {
        let Some(rest) = path.as_str().strip_prefix(&prefix) else { break };
        let Some(rel) = RelPath::parse(rest) else { continue };
        let in_name = hidden_controls(rel.as_str());
        if !in_name.is_empty() {
            problems.push(TreeProblem::HiddenInName { file: at(path.as_str()), found: in_name });
        }
        if rel.as_str() != "SKILL.md" && !is_binary(rel.as_str(), bytes) {
            // Not valid UTF-8 is no way around the check (found in review): read lossily.
            let hidden = hidden_controls(&String::from_utf8_lossy(bytes));
            if !hidden.is_empty() {
                problems.push(TreeProblem::HiddenControls { file: at(path.as_str()), found: hidden });
            }
        }
        files.insert(rel, bytes.clone());
    }
    let name = if dir.is_root() { tree.folder_name.clone() } else { dir.file_name().to_owned() };
    let skill = at(if dir.is_root() { "" } else { dir.as_str() });
    let skill = if name.is_empty() { skill } else { format!("{skill} ({name})") };
    if files.len() > MAX_SKILL_FILES {
        problems.push(TreeProblem::TooManyFiles { skill: skill.clone(), count: files.len() });
    }
    let bytes: u64 = files.values().map(|b: &Vec<u8>| b.len() as u64).sum();
    if bytes > MAX_SKILL_BYTES_TOTAL {
        problems.push(TreeProblem::TooLarge { skill, bytes });
    }
    if let (Some((id, kind)), true) = (checked, problems.len() == before) {
        found.push(Found { id, kind, format: SkillFormat::SkillMd, origin, files });
    }
}
