//! A skill as an Agent Skills folder (<https://agentskills.io/specification>): the form in which
//! the MCP skills extension (`io.modelcontextprotocol/skills`) serves it and `skills export`
//! writes it. A folder named after the skill whose `SKILL.md` opens with YAML front matter
//! holding `name` and `description`, beside its supporting files.
//!
//! Pure: the app reads a folder's files and hands their names and bytes here. This module says
//! which skills and files may be served (the name rules, the extension's limits), writes the
//! `SKILL.md` of a skill defined in YAML or JSON (the same bytes for the same skill, so its
//! digest is stable), takes `skill://` URIs apart and puts them together, lists a folder's
//! children for a directory read, and computes digests.

use sha2::{Digest, Sha256};

use super::yaml::Value;
use super::{Entry, SkillFormat};

/// The file every Agent Skills folder holds at its root.
pub const SKILL_MD: &str = "SKILL.md";

/// The URI scheme of served skill files: `skill://<name>/<path>`.
pub const SCHEME: &str = "skill://";

/// The extension's per-skill limits ("Limits"): a skill over either is not served.
pub const MAX_FILES: usize = 512;
pub const MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;

/// The most entries (files and symlinks, hidden ones included) a skill's folder is walked for:
/// past them it is refused without listing the rest, so a folder of a million files costs what
/// a few thousand cost. Hidden files are not served, hence the room above [`MAX_FILES`].
pub const MAX_WALKED_ENTRIES: usize = 4 * MAX_FILES;

/// The longest Agent Skills name.
pub const MAX_NAME_CHARS: usize = 64;

/// The longest `description` and `compatibility` the Agent Skills format allows, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// Why a loaded skill is not served as an Agent Skill. The app says it as "skill X is not served
/// as an Agent Skill: <this>".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "its id {0:?} is not an Agent Skills name (1 to 64 lower-case letters, digits and single hyphens, \
         neither first nor last)"
    )]
    Name(String),
    #[error("it is a tool skill without a `prompt` template, so it has no instructions to serve")]
    NoInstructions,
    #[error("its SKILL.md front matter {0}")]
    FrontMatter(String),
    #[error("it has {0} files, and a skill served over MCP has at most {MAX_FILES}")]
    TooManyFiles(usize),
    #[error(
        "its folder holds more than {MAX_WALKED_ENTRIES} files and links (hidden ones included), and a skill \
         served over MCP has at most {MAX_FILES} files"
    )]
    TooManyEntries,
    #[error("its files hold {0} bytes, and a skill served over MCP holds at most 16 MiB ({MAX_TOTAL_BYTES} bytes)")]
    TooLarge(u64),
}

/// Whether `name` is an Agent Skills name: 1 to 64 characters, lower-case ASCII letters, digits
/// and hyphens, no hyphen first, last or twice in a row. It is the last segment of every URI
/// of the skill and the name of its folder on disk.
pub fn is_valid_name(name: &str) -> bool {
    name.len() <= MAX_NAME_CHARS && super::is_kebab_case(name)
}

/// What can be said of a served skill without reading its folder: its id is a valid name, and
/// it has instructions (a YAML tool skill may have no template) and, from its front matter as
/// the loader read it, a description.
pub fn check_entry(entry: &Entry) -> Result<(), Refusal> {
    let skill = &entry.skill;
    if !is_valid_name(&skill.id) {
        return Err(Refusal::Name(skill.id.clone()));
    }
    match skill.format {
        SkillFormat::SkillMd if skill.name != skill.id => Err(Refusal::FrontMatter(format!(
            "names it {:?}, not {:?} (a `name` that is not its id)",
            skill.name, skill.id
        ))),
        SkillFormat::SkillMd if skill.description.trim().is_empty() => {
            Err(Refusal::FrontMatter("has no `description`".into()))
        }
        SkillFormat::SkillMd => check_description(&skill.description),
        SkillFormat::Yaml | SkillFormat::Json if skill.prompt.is_none() => Err(Refusal::NoInstructions),
        SkillFormat::Yaml | SkillFormat::Json => Ok(()),
    }
}

/// A `SKILL.md`'s front matter, as served, belongs to the skill `id`: a `name` equal to it (the
/// last segment of its URI) and a non-blank `description`, both text.
pub fn check_front_matter(id: &str, front_matter: &Value) -> Result<(), Refusal> {
    match front_matter.get("name") {
        Some(Value::String(n)) if n == id => {}
        Some(Value::String(n)) => {
            return Err(Refusal::FrontMatter(format!("names it {n:?}, not {id:?} (a `name` that is not its id)")));
        }
        Some(_) => return Err(Refusal::FrontMatter("has a `name` that is not text".into())),
        None => return Err(Refusal::FrontMatter("has no `name` (an `id` alone is not enough)".into())),
    }
    match front_matter.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() => check_description(d)?,
        _ => return Err(Refusal::FrontMatter("has no `description` text".into())),
    }
    check_numbers(front_matter, &mut Vec::new())?;
    match front_matter.get("compatibility") {
        None => Ok(()),
        Some(Value::String(c)) if (1..=MAX_COMPATIBILITY_CHARS).contains(&c.chars().count()) => Ok(()),
        Some(Value::String(c)) => Err(Refusal::FrontMatter(format!(
            "has a `compatibility` of {} characters; the Agent Skills format allows 1 to {MAX_COMPATIBILITY_CHARS}",
            c.chars().count()
        ))),
        Some(_) => Err(Refusal::FrontMatter("has a `compatibility` that is not text".into())),
    }
}

/// Every number of the front matter can be served as it was written (`frontmatter` is every
/// field unchanged): found in review, `12345678901234567890` (past `i64`, so read as a float)
/// was served as `1.2345678901234567e19` and `.inf` as `null`. A float that is not finite, or
/// a whole number too large for a float to hold exactly (2^53 and up), is refused, naming the
/// field; quoted, either is text and served as written.
fn check_numbers<'a>(value: &'a Value, at: &mut Vec<&'a str>) -> Result<(), Refusal> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    match value {
        Value::Float(f) if !f.is_finite() || (f.fract() == 0.0 && f.abs() >= EXACT) => {
            Err(Refusal::FrontMatter(format!(
                "has `{}` = {f}, a number JSON cannot carry as written (not finite, or a whole number past 2^53); \
                 quote it to serve it as text",
                at.join(".")
            )))
        }
        Value::Array(items) => items.iter().try_for_each(|item| check_numbers(item, at)),
        Value::Object(pairs) => {
            for (k, v) in pairs {
                at.push(k);
                check_numbers(v, at)?;
                at.pop();
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A description within the Agent Skills format's [`MAX_DESCRIPTION_CHARS`] (found in review:
/// longer ones were served, and a host that checks the format refuses the skill).
fn check_description(description: &str) -> Result<(), Refusal> {
    let n = description.chars().count();
    if n > MAX_DESCRIPTION_CHARS {
        return Err(Refusal::FrontMatter(format!(
            "has a `description` of {n} characters; the Agent Skills format allows at most {MAX_DESCRIPTION_CHARS}"
        )));
    }
    Ok(())
}

/// A skill of `files` files holding `bytes` bytes in all is within the extension's limits.
pub fn check_limits(files: usize, bytes: u64) -> Result<(), Refusal> {
    if files > MAX_FILES {
        Err(Refusal::TooManyFiles(files))
    } else if bytes > MAX_TOTAL_BYTES {
        Err(Refusal::TooLarge(bytes))
    } else {
        Ok(())
    }
}

/// Whether a file found in a skill's folder, at `relative` (`/`-separated), is one of the files
/// served: not hidden (no segment starting with `.`: version control, editor and system files),
/// and with no `\` in any segment: [`SkillUri::parse`] refuses one (a Windows host would read
/// it as a separator), so such a file could be listed but never read.
pub fn is_served_file(relative: &str) -> bool {
    !relative.is_empty() && relative.split('/').all(|s| !s.is_empty() && !s.starts_with('.') && !s.contains('\\'))
}

/// `sha256:` and the 64 lower-case hex digits of the SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let sum = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in sum {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
    out
}

/// The MIME type of a file, by its extension; `application/octet-stream` when unknown.
pub fn mime_type(relative: &str) -> &'static str {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "xml" => "application/xml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "rs" => "text/x-rust",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// The `SKILL.md` served for a skill defined in YAML or JSON: front matter with `name` (the id),
/// `description` (the listed one: the file's, or the generated one when blank) and `metadata`
/// (string values: `type`; `title`, the display name, when it is not the id; `version`; `tags`,
/// joined by `, `), then a blank line and the prompt template as the body. Arguments are not
/// mapped: they are MCP prompt arguments, and their `{{placeholders}}` stay in the body as
/// written. Byte-stable: fields in this fixed order, `\n` line ends (a template's `\r\n` and lone
/// `\r` become `\n`), one final newline, every value plain only where YAML reads it back as that
/// very text and double-quoted otherwise.
pub fn generated_skill_md(entry: &Entry) -> String {
    let skill = &entry.skill;
    let mut out = String::from("---\n");
    out.push_str(&format!("name: {}\n", yaml_text(&skill.id)));
    out.push_str(&format!("description: {}\n", yaml_text(&entry.description())));
    out.push_str("metadata:\n");
    out.push_str(&format!("  type: {}\n", skill.kind.as_str()));
    if skill.name != skill.id {
        out.push_str(&format!("  title: {}\n", yaml_text(&skill.name)));
    }
    if let Some(v) = &skill.version {
        out.push_str(&format!("  version: {}\n", yaml_text(v)));
    }
    if !skill.tags.is_empty() {
        out.push_str(&format!("  tags: {}\n", yaml_text(&skill.tags.join(", "))));
    }
    out.push_str("---\n\n");
    let body = skill.prompt.as_deref().unwrap_or_default().replace("\r\n", "\n").replace('\r', "\n");
    out.push_str(body.trim_start_matches('\n'));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `s` as a YAML scalar that reads back as the string `s`, in YAML 1.2 and 1.1 alike: plain
/// when it is ordinary text that no schema reads as anything else, double-quoted otherwise
/// (every character outside printable ASCII and letters escaped as `\uXXXX` or `\UXXXXXXXX`).
fn yaml_text(s: &str) -> String {
    if is_plain_safe(s) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if c.is_alphanumeric() && !matches!(c, '\u{feff}') => out.push(c),
            c if u32::from(c) > 0xffff => out.push_str(&format!("\\U{:08x}", u32::from(c))),
            c => out.push_str(&format!("\\u{:04x}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

/// Text that YAML reads, unquoted, as exactly itself: it starts with a letter, holds only
/// letters, digits, spaces and `.,;_/()'+?!&=-`, does not end with a space, and is not one of
/// the words a schema reads as a boolean or null.
fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else { return false };
    let ordinary = |c: char| {
        c.is_ascii_alphanumeric()
            || (!c.is_ascii() && c.is_alphanumeric())
            || matches!(c, ' ' | '.' | ',' | ';' | '_' | '/' | '(' | ')' | '\'' | '+' | '?' | '!' | '&' | '=' | '-')
    };
    let keyword =
        matches!(s.to_ascii_lowercase().as_str(), "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n");
    (first.is_ascii_alphabetic() || (!first.is_ascii() && first.is_alphabetic()))
        && s.chars().all(ordinary)
        && !s.ends_with(' ')
        && !keyword
}

/// A `skill://` URI taken apart: the skill's name (the authority) and the path below the
/// skill's folder, one decoded segment each (empty for the folder itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillUri {
    pub name: String,
    pub path: Vec<String>,
}

/// Why a URI names no skill file or folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriError {
    #[error("not a skill:// URI")]
    NotSkill,
    #[error(
        "a skill URI is skill://<name>, skill://<name>/SKILL.md or skill://<name>/<path>, with no empty, `.` or \
         `..` segment, no trailing slash and valid percent-encoding"
    )]
    Malformed,
}

impl SkillUri {
    /// Takes `uri` apart. Segments are percent-decoded; one that is empty (`//`, a trailing
    /// slash), `.` or `..`, or that decodes to a `/` or invalid UTF-8 is refused, so that a
    /// path never climbs out of its skill.
    pub fn parse(uri: &str) -> Result<SkillUri, UriError> {
        let rest = uri.strip_prefix(SCHEME).ok_or(UriError::NotSkill)?;
        let mut parts = rest.split('/');
        let name = parts.next().unwrap_or_default();
        if !is_valid_name(name) {
            return Err(UriError::Malformed);
        }
        let path = parts
            .map(|raw| {
                let seg = crate::graph::validate::decode_uri_component(raw).ok_or(UriError::Malformed)?;
                if seg.is_empty() || seg == "." || seg == ".." || seg.contains(['/', '\\', '\0']) {
                    return Err(UriError::Malformed);
                }
                Ok(seg)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SkillUri { name: name.to_owned(), path })
    }

    /// Whether it names the skill's `SKILL.md` (what `skills/get` takes).
    pub fn is_skill_md(&self) -> bool {
        self.path.len() == 1 && self.path[0] == SKILL_MD
    }

    /// The path below the skill's folder, `/`-separated.
    pub fn relative(&self) -> String {
        self.path.join("/")
    }
}

/// The URI of the file at `relative` (`/`-separated) in skill `name`.
pub fn file_uri(name: &str, relative: &str) -> String {
    let mut out = format!("{SCHEME}{name}");
    for seg in relative.split('/') {
        out.push('/');
        push_encoded(&mut out, seg);
    }
    out
}

/// The URI of `SKILL.md` of skill `name`: the skill's own URI.
pub fn skill_md_uri(name: &str) -> String {
    format!("{SCHEME}{name}/{SKILL_MD}")
}

/// The URI of the folder at `dir` (segments; empty for the skill's root), with no trailing slash.
pub fn dir_uri(name: &str, dir: &[String]) -> String {
    if dir.is_empty() { format!("{SCHEME}{name}") } else { file_uri(name, &dir.join("/")) }
}

/// Appends one path segment, percent-encoding every byte but RFC 3986's unreserved characters.
fn push_encoded(out: &mut String, seg: &str) {
    for b in seg.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// One direct child of a folder of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Child {
    /// A file, by its path below the skill's folder.
    File(String),
    /// A sub-folder, by its path below the skill's folder (segments).
    Dir(Vec<String>),
}

impl Child {
    /// Its own name: the last segment.
    pub fn name(&self) -> &str {
        match self {
            Child::File(p) => p.rsplit('/').next().unwrap_or(p),
            Child::Dir(d) => d.last().map_or("", String::as_str),
        }
    }
}

/// The direct children of the folder `dir` of a skill whose files are `files` (paths below its
/// folder), by name: files, and each sub-folder that holds a file, once. `None` when `dir` is
/// not a folder of the skill (no file lies below it), or is a file.
pub fn children<'a>(files: impl IntoIterator<Item = &'a str>, dir: &[String]) -> Option<Vec<Child>> {
    let mut found: Vec<Child> = Vec::new();
    let mut any = dir.is_empty();
    for file in files {
        let mut segs = file.split('/');
        if !dir.iter().all(|d| segs.next() == Some(d.as_str())) {
            continue;
        }
        let rest: Vec<&str> = segs.collect();
        match rest.as_slice() {
            [] => return None,
            [_] => found.push(Child::File(file.to_owned())),
            [sub, ..] => {
                let mut d = dir.to_vec();
                d.push((*sub).to_owned());
                found.push(Child::Dir(d));
            }
        }
        any = true;
    }
    if !any {
        return None;
    }
    found.sort_by(|a, b| a.name().cmp(b.name()));
    found.dedup();
    Some(found)
}

/// Whether `entry` is served from a `SKILL.md` folder (else its `SKILL.md` is generated).
pub fn is_folder(entry: &Entry) -> bool {
    entry.skill.format == SkillFormat::SkillMd
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::*;
    use crate::skills::{Origin, Skill, SkillType, front_matter, parse_skill};

    fn entry(skill: Skill) -> Entry {
        Entry {
            skill: Arc::new(skill),
            origin: Origin { layer: "l".into(), priority: 100, file: "/l/x.yaml".into() },
            shadows: Vec::new(),
        }
    }

    fn yaml_skill(id: &str, description: &str, prompt: Option<&str>) -> Skill {
        Skill {
            id: id.into(),
            kind: SkillType::Prompt,
            name: id.into(),
            description: description.into(),
            tags: Vec::new(),
            prompt: prompt.map(str::to_owned),
            arguments: Vec::new(),
            input_schema: None,
            version: None,
            format: SkillFormat::Yaml,
        }
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for ok in ["a", "code-review", "v2", &"a".repeat(64)] {
            assert!(is_valid_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", "é", &"a".repeat(65), "skills:compose"] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }

    /// Found in review: a description over 1,024 characters and a compatibility over 500 were
    /// served, though a served skill must conform to the Agent Skills format.
    #[test]
    fn descriptions_and_compatibility_past_the_format_s_limits_are_refused() {
        let fm = |extra: &str| front_matter(&format!("---\nname: s\n{extra}\n---\nbody\n")).unwrap();
        let long = |n: usize| "é".repeat(n);
        assert_eq!(check_front_matter("s", &fm(&format!("description: {}", long(1024)))), Ok(()));
        let e = check_front_matter("s", &fm(&format!("description: {}", long(1025)))).unwrap_err();
        assert!(e.to_string().contains("`description` of 1025 characters"), "{e}");
        let ok = format!("description: d\ncompatibility: {}", long(500));
        assert_eq!(check_front_matter("s", &fm(&ok)), Ok(()));
        let e = check_front_matter("s", &fm(&format!("description: d\ncompatibility: {}", long(501)))).unwrap_err();
        assert!(e.to_string().contains("`compatibility` of 501 characters"), "{e}");
        assert!(check_front_matter("s", &fm("description: d\ncompatibility: \"\"")).is_err());
        assert!(check_front_matter("s", &fm("description: d\ncompatibility: [a]")).is_err());
        let mut skill = yaml_skill("s", &long(1025), Some("x"));
        skill.format = SkillFormat::SkillMd;
        assert!(matches!(check_entry(&entry(skill)), Err(Refusal::FrontMatter(m)) if m.contains("1025")));
        let e = entry(yaml_skill("s", &long(1025), Some("x")));
        let md = generated_skill_md(&e);
        assert!(check_front_matter("s", &front_matter(&md).unwrap()).is_err(), "a YAML skill's too");
    }

    /// Found in review: `12345678901234567890` was served as `1.2345678901234567e19` and `.inf`
    /// as `null`; the front matter is served unchanged, or not at all.
    #[test]
    fn numbers_json_cannot_carry_as_written_are_refused() {
        let fm = |extra: &str| front_matter(&format!("---\nname: s\ndescription: d\n{extra}\n---\nbody\n")).unwrap();
        for ok in
            ["n: 9223372036854775807", "n: 1.5", "n: -0.25", "n: \"12345678901234567890\"", "n: 9007199254740991.0"]
        {
            assert_eq!(check_front_matter("s", &fm(ok)), Ok(()), "{ok}");
        }
        for (bad, field) in [
            ("big: 12345678901234567890", "big"),
            ("metadata:\n  x: .inf", "metadata.x"),
            ("l: [1, -.inf]", "l"),
            ("n: .nan", "n"),
        ] {
            let e = check_front_matter("s", &fm(bad)).unwrap_err().to_string();
            assert!(e.contains(&format!("`{field}` = ")) && e.contains("quote it"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_generated_skill_md_is_exact() {
        let mut skill =
            yaml_skill("cv-summary", "Summarise: my facts", Some("Use {{career_context.cv}}.\r\nThen stop."));
        skill.name = "CV summary".into();
        skill.version = Some("1.0".into());
        skill.tags = vec!["cv".into(), "writing".into()];
        assert_eq!(
            generated_skill_md(&entry(skill)),
            "---\nname: cv-summary\ndescription: \"Summarise: my facts\"\nmetadata:\n  type: prompt\n  title: CV \
             summary\n  version: \"1.0\"\n  tags: cv, writing\n---\n\nUse {{career_context.cv}}.\nThen stop.\n"
        );
    }

    #[test]
    fn digests_are_sha256_in_lower_case_hex() {
        assert_eq!(digest(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    #[test]
    fn uris_refuse_what_could_leave_the_skill() {
        let u = SkillUri::parse("skill://code-review/references/check%20list.md").unwrap();
        assert_eq!((u.name.as_str(), u.relative()), ("code-review", "references/check list.md".into()));
        assert!(SkillUri::parse("skill://code-review").unwrap().path.is_empty());
        assert!(SkillUri::parse("skill://code-review/SKILL.md").unwrap().is_skill_md());
        assert_eq!(SkillUri::parse("vitaegraph://index"), Err(UriError::NotSkill));
        for bad in [
            "skill://",
            "skill://Code/SKILL.md",
            "skill://a/",
            "skill://a//b",
            "skill://a/../b/SKILL.md",
            "skill://a/%2e%2e/x",
            "skill://a/b%2Fc",
            "skill://a/%zz",
            "skill://a/%C3",
        ] {
            assert_eq!(SkillUri::parse(bad), Err(UriError::Malformed), "{bad}");
        }
    }

    #[test]
    fn children_list_files_and_folders_once() {
        let files = ["SKILL.md", "references/a.md", "references/deep/b.md", "scripts/x.py"];
        let names = |dir: &[&str]| {
            let dir: Vec<String> = dir.iter().map(|s| (*s).to_owned()).collect();
            children(files, &dir)
                .map(|c| c.iter().map(|c| (c.name().to_owned(), matches!(c, Child::Dir(_)))).collect::<Vec<_>>())
        };
        assert_eq!(
            names(&[]),
            Some(vec![("SKILL.md".into(), false), ("references".into(), true), ("scripts".into(), true)])
        );
        assert_eq!(names(&["references"]), Some(vec![("a.md".into(), false), ("deep".into(), true)]));
        assert_eq!(names(&["nope"]), None);
        assert_eq!(names(&["SKILL.md"]), None, "a file is not a folder");
        assert_eq!(names(&["references", "a.md"]), None);
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zA-Z][a-zA-Z0-9 .,:#'\"-]{0,20}",
            any::<String>(),
            Just("true".to_owned()),
            Just("1.0".to_owned()),
            Just("- x".to_owned()),
            Just("a: b".to_owned()),
        ]
    }

    proptest! {
        /// The generated SKILL.md is a valid Agent Skill whatever the YAML skill's texts: its
        /// front matter reads back as exactly the id and description, its body as the template
        /// (line ends made `\n`, one final newline), and the same skill gives the same bytes.
        #[test]
        fn a_generated_skill_md_reads_back_as_its_skill(
            description in text(),
            title in text(),
            version in proptest::option::of(text()),
            tags in proptest::collection::vec(text(), 0..3),
            template in "[^\r]{1,60}",
        ) {
            let mut skill = yaml_skill("any-skill", &description, Some(&template));
            skill.name = if title.trim().is_empty() { "any-skill".into() } else { title.clone() };
            skill.version = version.clone();
            skill.tags = tags.clone();
            let e = entry(skill);
            let md = generated_skill_md(&e);
            prop_assert_eq!(&md, &generated_skill_md(&e));
            let fm = front_matter(&md).map_err(|p| TestCaseError::fail(format!("{p:?}\n{md}")))?;
            prop_assert_eq!(fm.get("name"), Some(&Value::String("any-skill".into())));
            prop_assert_eq!(fm.get("description"), Some(&Value::String(e.description())));
            let meta = fm.get("metadata").cloned().unwrap_or(Value::Null);
            let want_version = version.as_ref().map(|v| Value::String(v.clone()));
            prop_assert_eq!(meta.get("version"), want_version.as_ref());
            if !tags.is_empty() {
                prop_assert_eq!(meta.get("tags"), Some(&Value::String(tags.join(", "))));
            }
            let mut body = template.trim_start_matches('\n').to_owned();
            if !body.ends_with('\n') {
                body.push('\n');
            }
            if !body.trim().is_empty() {
                let back = parse_skill(SkillFormat::SkillMd, &md).map_err(|p| TestCaseError::fail(format!("{p:?}")))?;
                prop_assert_eq!(back.id.as_str(), "any-skill");
                prop_assert_eq!(back.prompt.as_deref(), Some(body.as_str()));
            }
            prop_assert!(md.ends_with('\n') && !md.contains('\r'));
        }

        /// The URI of every file served reads back as its path, whatever its segments hold
        /// (found in review: a name with `\` was listed, and its URI refused).
        #[test]
        fn file_uris_read_back_as_their_path(segs in proptest::collection::vec("[^/\u{0}]{1,12}|[a\\\\]{1,3}", 1..4)) {
            prop_assume!(segs.iter().all(|s| s != "." && s != ".."));
            let rel = segs.join("/");
            if is_served_file(&rel) {
                let u = SkillUri::parse(&file_uri("some-skill", &rel));
                prop_assert!(u.is_ok(), "{rel:?} is served and its URI is refused");
                let u = u.unwrap();
                prop_assert_eq!(u.name.as_str(), "some-skill");
                prop_assert_eq!(u.relative(), rel);
            }
        }

        /// Descending from the root by directory reads reaches every file exactly once.
        #[test]
        fn directory_reads_reach_every_file_once(
            files in proptest::collection::btree_set("[ab]{1,2}(/[ab]{1,2}){0,3}", 1..12)
        ) {
            // A path that is also a folder of another cannot be a file on disk.
            let files: Vec<&String> = files.iter().filter(|f| !files.iter().any(|g| g.starts_with(&format!("{f}/")))).collect();
            let mut reached = Vec::new();
            let mut todo = vec![Vec::<String>::new()];
            while let Some(dir) = todo.pop() {
                for c in children(files.iter().map(|f| f.as_str()), &dir).unwrap() {
                    match c {
                        Child::File(f) => reached.push(f),
                        Child::Dir(d) => todo.push(d),
                    }
                }
            }
            reached.sort();
            let mut want: Vec<String> = files.iter().map(|f| (*f).clone()).collect();
            want.sort();
            prop_assert_eq!(reached, want);
        }
    }
}
