//! `vitaecontext skills list | show | validate | init | add | remove`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use domain::skills::{
    Origin, SkillFormat, SkillSet, SkillType, Value as SkillValue, is_builtin, is_kebab_case, parse_skill,
};
use miette::miette;
use ports::fs::{FileKind, FileSystem, FsErrorKind};
use serde_json::{Value, json};

use super::{Failure, Outcome};
use crate::report;
use crate::sources::Sources;
use crate::usecase::skills::{self as usecase, ConfigError, Layer, MAX_SKILL_BYTES};

fn out(text: &str) {
    let _ = std::io::stdout().write_all(text.as_bytes());
}

fn err(text: &str) {
    let _ = std::io::stderr().write_all(text.as_bytes());
}

const SKILL_HELP: &str = "A skill needs `id` and `type` (prompt | tool); a prompt skill needs a non-blank `prompt` (or `prompt_zh`). See `vitaecontext skills --help`.";
const CONFIG_HELP: &str =
    "A skills config is `layers:` followed by `- {name: NAME, path: DIR, priority: NUMBER}` entries.";

/// The layers, or a usage failure (exit 2) when the named config cannot be read or is invalid.
fn layers(fs: &dyn FileSystem, sources: &Sources) -> Result<Vec<Layer>, Failure> {
    let mut s = sources.skill_sources(fs);
    // Run in a skill-central project with nothing else configured: its `skill-central.yaml`, as
    // skill-central itself reads it from the folder it runs in (found in review: "No skill
    // layers" there). Said, since the server, started by a client elsewhere, does not look here.
    let project = sources.cwd.join(SKILL_CENTRAL_CONFIG);
    if s.config.is_none() && s.dirs.is_empty() && fs.metadata(&project).is_ok_and(|m| m.kind == FileKind::File) {
        err(&format!(
            "note: using {} (skill-central's project config); the server needs --skills-config {} to serve it\n",
            project.display(),
            domain::clients::shell_quote(&project.display().to_string())
        ));
        s.config = Some(project);
        s.config_named = true;
    }
    usecase::resolve_layers(fs, &s).map_err(|e| match e {
        ConfigError::Unreadable { .. } => Failure::usage(miette!(
            help = "pass --skills-config FILE with an existing file, or unset $VITAECONTEXT_SKILLS_CONFIG",
            "{e}"
        )),
        ConfigError::Invalid { path, text, problems } => {
            let findings: Vec<_> = problems
                .iter()
                .map(|p| report::skill_finding(&path.display().to_string(), &text, p, "invalid_config", CONFIG_HELP))
                .collect();
            err(&report::render_all(&findings, 100, report::stderr_color()));
            Failure::usage(miette!(help = CONFIG_HELP, "the skills config {} is not valid", path.display()))
        }
    })
}

/// The config file skill-central reads from the folder it runs in.
const SKILL_CENTRAL_CONFIG: &str = "skill-central.yaml";

fn no_layers_hint() {
    err("No skill layers: run `vitaecontext skills init`, or pass --skills DIR or --skills-config FILE.\n");
}

fn warn_all(set: &SkillSet) {
    for line in usecase::warnings(set) {
        err(&format!("warning: {line}\n"));
    }
}

fn origin_json(o: &Origin) -> Value {
    json!({"layer": o.layer, "priority": o.priority, "file": o.file})
}

fn set_json(set: &SkillSet, entries: &[&domain::skills::Entry]) -> Value {
    json!({
        "skills": entries.iter().map(|e| json!({
            "id": e.skill.id,
            "type": e.skill.kind.as_str(),
            "name": e.skill.name,
            "description": e.description(),
            "tags": e.skill.tags,
            "layer": e.origin.layer,
            "priority": e.origin.priority,
            "file": e.origin.file,
            "shadows": e.shadows.iter().map(origin_json).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "conflicts": set.conflicts().iter().map(|c| json!({
            "id": c.id, "files": c.files.iter().map(origin_json).collect::<Vec<_>>()
        })).collect::<Vec<_>>(),
        "skipped": set.skipped().iter().map(|s| json!({"file": s.file, "line": s.line, "reason": s.reason})).collect::<Vec<_>>(),
        "refused": set.refused().iter().map(|r| json!({"id": r.id, "file": r.origin.file})).collect::<Vec<_>>(),
    })
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// Rows under a header, each column as wide as its widest cell, two spaces between columns.
pub fn table<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(|h| h.chars().count());
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut text = String::new();
    for r in std::iter::once(header.map(str::to_owned)).chain(rows.iter().cloned()) {
        let cells: Vec<String> = r.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

/// Cuts `s` to `max` characters, marking the cut.
fn cut(s: &str, max: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        format!("{}…", one_line.chars().take(max.saturating_sub(1)).collect::<String>())
    }
}

pub struct ListArgs<'a> {
    pub kind: Option<SkillType>,
    pub tag: Option<&'a str>,
    pub layer: Option<&'a str>,
    pub json: bool,
}

pub fn list(fs: &dyn FileSystem, sources: &Sources, args: &ListArgs) -> Outcome {
    let layers = layers(fs, sources)?;
    if let Some(l) = args.layer
        && !layers.iter().any(|x| x.name == l)
    {
        let names: Vec<&str> = layers.iter().map(|x| x.name.as_str()).collect();
        return Err(Failure::usage(miette!(help = format!("layers: {}", names.join(", ")), "no layer named {l:?}")));
    }
    let set = usecase::load(fs, &layers);
    let tag = args.tag.map(str::to_lowercase);
    let entries: Vec<_> = set
        .entries()
        .iter()
        .filter(|e| args.kind.is_none_or(|k| e.skill.kind == k))
        .filter(|e| tag.as_ref().is_none_or(|t| e.skill.tags.iter().any(|x| x.trim().to_lowercase() == *t)))
        .filter(|e| args.layer.is_none_or(|l| e.origin.layer == l))
        .collect();
    if args.json {
        out(&pretty(&set_json(&set, &entries)));
        return Ok(ExitCode::SUCCESS);
    }
    warn_all(&set);
    if layers.is_empty() {
        no_layers_hint();
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<[String; 5]> = entries
        .iter()
        .map(|e| {
            [
                e.skill.id.clone(),
                e.skill.kind.as_str().to_owned(),
                format!("{} ({})", e.origin.layer, e.origin.priority),
                e.skill.tags.join(", "),
                cut(&e.description(), 60),
            ]
        })
        .collect();
    out(&table(["ID", "TYPE", "LAYER", "TAGS", "DESCRIPTION"], &rows));
    let shadowing = entries.iter().filter(|e| !e.shadows.is_empty()).count();
    err(&format!(
        "{} skill(s) from {} layer(s); {} override another layer's; {} conflict(s)\n",
        entries.len(),
        layers.len(),
        shadowing,
        set.conflicts().len()
    ));
    Ok(ExitCode::SUCCESS)
}

pub fn show(fs: &dyn FileSystem, sources: &Sources, id: &str, json: bool) -> Outcome {
    let layers = layers(fs, sources)?;
    let set = usecase::load(fs, &layers);
    let Some(e) = set.get(id) else {
        if let Some(c) = set.conflicts().iter().find(|c| c.id == id) {
            return Err(Failure::failed(miette!(
                help = "remove or rename one of them, or move one to a layer with another priority",
                "{c}"
            )));
        }
        if let Some(r) = set.refused().iter().find(|r| r.id == id) {
            return Err(Failure::failed(miette!(help = "give the skill another id", "{r}")));
        }
        return Err(Failure::failed(miette!(help = "`vitaecontext skills list` shows the skills", "no skill {id:?}")));
    };
    let s = &e.skill;
    if json {
        out(&pretty(&json!({
            "id": s.id, "type": s.kind.as_str(), "name": s.name, "description": e.description(),
            "tags": s.tags, "version": s.version,
            "arguments": s.arguments.iter().map(|a| json!({"name": a.name, "description": a.description, "required": a.required})).collect::<Vec<_>>(),
            "inputSchema": (s.kind == SkillType::Tool).then(|| usecase::value_to_json(&s.tool_schema())),
            "prompt": s.prompt,
            "layer": e.origin.layer, "priority": e.origin.priority, "file": e.origin.file,
            "shadows": e.shadows.iter().map(origin_json).collect::<Vec<_>>(),
        })));
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = format!(
        "{} ({} skill)\n  name:        {}\n  description: {}\n  tags:        {}\n  layer:       {} (priority {})\n  file:        {}\n",
        s.id,
        s.kind.as_str(),
        s.name,
        e.description(),
        s.tags.join(", "),
        e.origin.layer,
        e.origin.priority,
        e.origin.file
    );
    if let Some(v) = &s.version {
        t.push_str(&format!("  version:     {v}\n"));
    }
    if e.shadows.is_empty() {
        t.push_str("  shadows:     nothing\n");
    } else {
        t.push_str("  shadows:\n");
        for o in &e.shadows {
            t.push_str(&format!("    - {} (layer {}, priority {})\n", o.file, o.layer, o.priority));
        }
    }
    if !s.arguments.is_empty() {
        t.push_str("  arguments:\n");
        for a in &s.arguments {
            let req = if a.required { "required" } else { "optional" };
            // A description that says so already is not told twice (found in review).
            let description = a.description.strip_suffix(&format!(" ({req})")).unwrap_or(&a.description);
            t.push_str(&format!("    - {} ({req}) {description}\n", a.name));
        }
    }
    if s.kind == SkillType::Tool {
        t.push_str(&format!("  inputSchema: {}\n", s.tool_schema().to_json()));
    }
    if let Some(p) = &s.prompt {
        t.push('\n');
        t.push_str(p);
        if !p.ends_with('\n') {
            t.push('\n');
        }
    }
    out(&t);
    Ok(ExitCode::SUCCESS)
}

/// A skill file's format, and the path to read (a folder means its SKILL.md).
fn file_format(fs: &dyn FileSystem, path: &Path) -> Option<(PathBuf, SkillFormat)> {
    if fs.metadata(path).is_ok_and(|m| m.kind == FileKind::Dir) {
        return Some((path.join("SKILL.md"), SkillFormat::SkillMd));
    }
    let name = path.file_name()?.to_string_lossy();
    SkillFormat::of_file_name(&name).map(|f| (path.to_path_buf(), f))
}

fn absolute(sources: &Sources, p: &Path) -> PathBuf {
    domain::career::select::expand_path(&p.to_string_lossy(), sources.home.as_deref(), &sources.cwd)
}

/// Reads and parses one skill file: the text and the skill, or the rendered findings.
fn check_file(
    fs: &dyn FileSystem,
    path: &Path,
    format: SkillFormat,
) -> Result<(String, domain::skills::Skill), Failure> {
    let text = usecase::read_text(fs, path, MAX_SKILL_BYTES)
        .map_err(|e| Failure::usage(miette!("{} could not be read: {}", path.display(), e.detail)))?;
    let shown = path.display().to_string();
    let findings = |problems: &[domain::skills::Problem]| -> Vec<report::Finding> {
        problems
            .iter()
            .map(|p| {
                let code = if p.message.starts_with("not valid YAML") { "yaml_syntax" } else { "invalid_skill" };
                report::skill_finding(&shown, &text, p, code, SKILL_HELP)
            })
            .collect()
    };
    match parse_skill(format, &text) {
        Err(problems) => {
            err(&report::render_all(&findings(&problems), 100, report::stderr_color()));
            Err(Failure::failed(miette!("{} is not a valid skill ({} problem(s))", path.display(), problems.len())))
        }
        Ok(skill) if is_builtin(&skill.id) => Err(Failure::failed(miette!(
            help = "give the skill another id",
            "{}: the id {:?} is one of the server's own prompts or tools, so it would be refused",
            path.display(),
            skill.id
        ))),
        Ok(skill) => Ok((text, skill)),
    }
}

pub fn validate(fs: &dyn FileSystem, sources: &Sources, files: &[PathBuf]) -> Outcome {
    // Each argument: a skill file, a SKILL.md folder, or a folder of them walked as the server
    // walks a layer (found in review: `skills validate DIR` was a usage error).
    let mut checked: Vec<(PathBuf, SkillFormat)> = Vec::new();
    for file in files {
        let path = absolute(sources, file);
        let is_layer =
            fs.metadata(&path).is_ok_and(|m| m.kind == FileKind::Dir) && fs.metadata(&path.join("SKILL.md")).is_err();
        if is_layer {
            let (found, skipped) = skill_files_in(fs, &path);
            for s in skipped {
                out(&format!(
                    "skipped: {} (a name starting with `_` or `.` is a template or hidden: the server does not load it)\n",
                    s.display()
                ));
            }
            checked.extend(found);
            continue;
        }
        let Some((path, format)) = file_format(fs, &path) else {
            return Err(Failure::usage(miette!(
                help = "skill files end in .yaml, .yml or .json, or are a folder with a SKILL.md; a folder of them is \
                        walked",
                "{} is not a skill file",
                file.display()
            )));
        };
        checked.push((path, format));
    }
    let mut failed = 0;
    for (path, format) in &checked {
        match check_file(fs, path, *format) {
            Ok((_, skill)) => {
                out(&format!("ok: {} ({} skill {})\n", path.display(), skill.kind.as_str(), skill.id));
                // What doctor warns of, said here too: one set of checks for both.
                for name in skill.undeclared_placeholders() {
                    err(&format!(
                        "warning: {}: {}\n",
                        path.display(),
                        usecase::undeclared_placeholder(&skill.id, &name)
                    ));
                }
                let hidden = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .filter(|n| *n != "SKILL.md")
                    .is_some_and(|n| n.starts_with('_') || n.starts_with('.'));
                if hidden {
                    err(&format!(
                        "note: {} is valid, but the server does not load it: its name starts with `_` or `.` (a \
                         template); rename it to serve it\n",
                        path.display()
                    ));
                }
            }
            Err(f) if f.code == 2 => return Err(f),
            Err(f) => {
                err(&format!("{:?}\n", f.report));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        err(&format!("{failed} of {} file(s) invalid\n", checked.len()));
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The skill files below `dir`, as the server walks a layer: `.yaml`, `.yml` and `.json`
/// files, a folder with a `SKILL.md` as that one file, other folders walked; names starting
/// with `_` or `.` and symlinks are not loaded (the first are returned, to be said). Sorted.
fn skill_files_in(fs: &dyn FileSystem, dir: &Path) -> (Vec<(PathBuf, SkillFormat)>, Vec<PathBuf>) {
    let (mut found, mut skipped) = (Vec::new(), Vec::new());
    let mut entries = fs.read_dir(dir).unwrap_or_default();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    for e in entries {
        let path = dir.join(&e.name);
        let Some(name) = e.name.to_str() else { continue };
        if name.starts_with('_') || name.starts_with('.') {
            if name.starts_with('_') {
                skipped.push(path);
            }
            continue;
        }
        match e.kind {
            FileKind::Dir if fs.symlink_metadata(&path.join("SKILL.md")).is_ok_and(|m| m.kind == FileKind::File) => {
                found.push((path.join("SKILL.md"), SkillFormat::SkillMd));
            }
            FileKind::Dir => {
                let (f, s) = skill_files_in(fs, &path);
                found.extend(f);
                skipped.extend(s);
            }
            FileKind::File => {
                if let Some(format) = SkillFormat::of_file_name(name).filter(|f| *f != SkillFormat::SkillMd) {
                    found.push((path, format));
                }
            }
            _ => {}
        }
    }
    (found, skipped)
}

/// The starter layer set: (path relative to the target folder, content).
pub const STARTER: [(&str, &str); 6] = [
    ("skills.yaml", include_str!("skills-starter/skills.yaml")),
    ("skills/10-base/cv-bullet-rewriter.yaml", include_str!("skills-starter/cv-bullet-rewriter.yaml")),
    ("skills/10-base/interview-story.yaml", include_str!("skills-starter/interview-story.yaml")),
    ("skills/10-base/achievement-bullet.yaml", include_str!("skills-starter/achievement-bullet.yaml")),
    ("skills/50-personal/recruiter-reply/SKILL.md", include_str!("skills-starter/SKILL.md")),
    ("skills/50-personal/_template.yaml", include_str!("skills-starter/_template.yaml")),
];

pub fn init(fs: &dyn FileSystem, sources: &Sources, dir: Option<&Path>) -> Outcome {
    let dir = match dir {
        Some(d) => absolute(sources, d),
        None => sources
            .default_dir()
            .ok_or_else(|| Failure::usage(miette!(help = "pass the folder: skills init DIR", "HOME is not set")))?,
    };
    let mut report = String::new();
    for (rel, content) in STARTER {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            fs.create_dir_all(parent).map_err(|e| Failure::failed(miette!("{e}")))?;
        }
        match fs.write_new(&path, content.as_bytes()) {
            Ok(()) => report.push_str(&format!("created {}\n", path.display())),
            Err(e) if e.kind == FsErrorKind::AlreadyExists => {
                report.push_str(&format!("kept    {} (already there)\n", path.display()));
            }
            Err(e) => return Err(Failure::failed(miette!("{e}"))),
        }
    }
    let config = dir.join("skills.yaml");
    let found_by_default = sources.default_dir().is_some_and(|d| d == dir);
    report.push_str(&if found_by_default {
        "\nThe server finds this config by itself. Next: `vitaecontext skills list`.\n".to_owned()
    } else {
        format!(
            "\nNext: `vitaecontext skills list --skills-config {}` (or set $VITAECONTEXT_SKILLS_CONFIG).\n",
            super::shell_path(&config)
        )
    });
    out(&report);
    Ok(ExitCode::SUCCESS)
}

pub struct AddArgs<'a> {
    pub id: Option<&'a str>,
    pub kind: SkillType,
    pub name: Option<&'a str>,
    pub description: Option<&'a str>,
    pub tags: &'a [String],
    pub prompt: Option<&'a str>,
    /// `NAME[:DESCRIPTION][:required]`, each an argument.
    pub args: &'a [String],
    pub from: Option<&'a Path>,
    pub layer: Option<&'a str>,
    pub force: bool,
}

/// YAML text for a skill built from flags (strings written as JSON strings, which YAML reads
/// as they are; the prompt as a literal block).
fn skill_yaml(a: &AddArgs, id: &str) -> String {
    let q = |s: &str| SkillValue::String(s.to_owned()).to_json();
    let mut y = format!("id: {}\ntype: {}\n", q(id), a.kind.as_str());
    if let Some(n) = a.name {
        y.push_str(&format!("name: {}\n", q(n)));
    }
    if let Some(d) = a.description {
        y.push_str(&format!("description: {}\n", q(d)));
    }
    if !a.tags.is_empty() {
        let tags: Vec<String> = a.tags.iter().map(|t| q(t)).collect();
        y.push_str(&format!("tags: [{}]\n", tags.join(", ")));
    }
    if let Some(p) = a.prompt {
        // A literal block keeps every line as written; `|-` or `|+` keeps the final newlines.
        let chomp = if p.ends_with("\n\n") {
            "+"
        } else if p.ends_with('\n') {
            ""
        } else {
            "-"
        };
        let indent = if p.starts_with(' ') { "2" } else { "" };
        y.push_str(&format!("prompt: |{indent}{chomp}\n"));
        for line in p.strip_suffix('\n').unwrap_or(p).split('\n') {
            if line.is_empty() {
                y.push('\n');
            } else {
                y.push_str(&format!("  {line}\n"));
            }
        }
    }
    let args: Vec<(&str, &str, bool)> = a.args.iter().map(|s| arg_spec(s)).collect();
    if a.kind == SkillType::Prompt && !args.is_empty() {
        y.push_str("arguments:\n");
        for (name, description, required) in &args {
            y.push_str(&format!("  - name: {}\n", q(name)));
            if !description.is_empty() {
                y.push_str(&format!("    description: {}\n", q(description)));
            }
            if *required {
                y.push_str("    required: true\n");
            }
        }
    }
    if a.kind == SkillType::Tool {
        if args.is_empty() {
            y.push_str("inputSchema:\n  type: object\n  properties: {}\n");
        } else {
            y.push_str("inputSchema:\n  type: object\n  properties:\n");
            for (name, description, _) in &args {
                y.push_str(&format!("    {}:\n      type: string\n", q(name)));
                if !description.is_empty() {
                    y.push_str(&format!("      description: {}\n", q(description)));
                }
            }
            let required: Vec<String> = args.iter().filter(|a| a.2).map(|a| q(a.0)).collect();
            if !required.is_empty() {
                y.push_str(&format!("  required: [{}]\n", required.join(", ")));
            }
        }
    }
    y
}

/// `NAME[:DESCRIPTION][:required]` as (name, description, required); a description may hold
/// `:` itself.
fn arg_spec(spec: &str) -> (&str, &str, bool) {
    let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let (description, required) = match rest.rsplit_once(':') {
        Some((d, "required")) => (d, true),
        _ if rest == "required" => ("", true),
        _ => (rest, false),
    };
    (name.trim(), description.trim(), required)
}

fn pick_layer<'l>(layers: &'l [Layer], wanted: Option<&str>) -> Result<&'l Layer, Failure> {
    let names = || layers.iter().map(|l| l.name.as_str()).collect::<Vec<_>>().join(", ");
    match wanted {
        Some(w) => layers
            .iter()
            .find(|l| l.name == w)
            .ok_or_else(|| Failure::usage(miette!(help = format!("layers: {}", names()), "no layer named {w:?}"))),
        None => match layers {
            [] => Err(Failure::usage(miette!(
                help = "run `vitaecontext skills init`, or pass --skills DIR",
                "there is no skill layer to add to"
            ))),
            [only] => Ok(only),
            _ => Err(Failure::usage(miette!(
                help = format!("layers: {}", names()),
                "there are several layers: pass --layer"
            ))),
        },
    }
}

pub fn add(fs: &dyn FileSystem, clock: &dyn ports::Clock, sources: &Sources, a: &AddArgs) -> Outcome {
    let layers = layers(fs, sources)?;
    let layer = pick_layer(&layers, a.layer)?;
    let (text, skill) = match a.from {
        Some(file) => {
            let path = absolute(sources, file);
            let (path, format) = file_format(fs, &path).ok_or_else(|| {
                Failure::usage(miette!(
                    help = "skill files end in .yaml, .yml or .json, or are SKILL.md",
                    "{} is not a skill file",
                    file.display()
                ))
            })?;
            let (text, skill) = check_file(fs, &path, format)?;
            if a.id.is_some_and(|id| id != skill.id) {
                return Err(Failure::usage(miette!(
                    "--id {:?} differs from the file's id {:?}",
                    a.id.unwrap_or_default(),
                    skill.id
                )));
            }
            (text, skill)
        }
        None => {
            let id = a.id.ok_or_else(|| {
                Failure::usage(miette!(help = "pass --id ID and --prompt TEXT, or --from FILE", "--id is required"))
            })?;
            if a.kind == SkillType::Prompt && a.prompt.is_none_or(|p| p.trim().is_empty()) {
                return Err(Failure::usage(miette!(help = "pass --prompt TEXT", "a prompt skill needs a prompt")));
            }
            if !is_kebab_case(id) {
                return Err(Failure::usage(miette!(
                    help = "use lower-case letters and digits in words joined by `-`, e.g. cover-letter",
                    "{id:?} is not a kebab-case id"
                )));
            }
            if let Some(bad) = a.args.iter().find(|s| arg_spec(s).0.is_empty()) {
                return Err(Failure::usage(miette!(
                    help = "write --arg NAME, --arg NAME:DESCRIPTION or --arg NAME:DESCRIPTION:required",
                    "--arg {bad:?} has no name"
                )));
            }
            let text = skill_yaml(a, id);
            let skill = parse_skill(SkillFormat::Yaml, &text)
                .map_err(|p| Failure::failed(miette!("the skill could not be written as YAML: {}", p[0].message)))?;
            (text, skill)
        }
    };
    if !is_kebab_case(&skill.id) {
        return Err(Failure::usage(miette!(
            help = "use lower-case letters and digits in words joined by `-`, e.g. cover-letter",
            "{:?} is not a kebab-case id",
            skill.id
        )));
    }
    if is_builtin(&skill.id) {
        return Err(Failure::usage(miette!(
            help = "choose another id",
            "{:?} is one of the server's own names",
            skill.id
        )));
    }
    let target = match skill.format {
        SkillFormat::SkillMd => layer.root.join(&skill.id).join("SKILL.md"),
        SkillFormat::Json => layer.root.join(format!("{}.json", skill.id)),
        SkillFormat::Yaml => layer.root.join(format!("{}.yaml", skill.id)),
    };
    let set = usecase::load(fs, &layers);
    let elsewhere_in_layer: Vec<Origin> = locations(&set, &skill.id)
        .into_iter()
        .filter(|o| o.layer == layer.name && Path::new(&o.file) != target)
        .collect();
    if let Some(o) = elsewhere_in_layer.first() {
        return Err(Failure::failed(miette!(
            help = "edit that file, or remove it first with `vitaecontext skills remove`",
            "layer {} already defines {:?} in {}",
            layer.name,
            skill.id,
            o.file
        )));
    }
    if let Some(parent) = target.parent() {
        fs.create_dir_all(parent).map_err(|e| Failure::failed(miette!("{e}")))?;
    }
    match fs.symlink_metadata(&target) {
        Ok(_) if !a.force => {
            return Err(Failure::failed(miette!(
                help = "pass --force to replace it (the old file is kept beside it as <name>.vitaecontext-backup-<UTC time>)",
                "{} already exists",
                target.display()
            )));
        }
        Ok(_) => {
            let old = fs.read(&target, MAX_SKILL_BYTES).map_err(|e| Failure::failed(miette!("{e}")))?;
            // Never over an earlier backup: one new file per replacement.
            let backup = crate::usecase::write_backup(fs, clock, &target, &old)
                .map_err(|e| Failure::failed(miette!("could not keep a backup, nothing was replaced: {e}")))?;
            fs.write_atomic(&target, text.as_bytes()).map_err(|e| Failure::failed(miette!("{e}")))?;
            out(&format!("Replaced {} (the old file is {})\n", target.display(), backup.display()));
        }
        Err(_) => {
            fs.write_new(&target, text.as_bytes()).map_err(|e| Failure::failed(miette!("{e}")))?;
            out(&format!(
                "Added {} skill {} to layer {}: {}\n",
                skill.kind.as_str(),
                skill.id,
                layer.name,
                target.display()
            ));
        }
    }
    // What doctor and `skills validate` warn of, said as it is written.
    for name in skill.undeclared_placeholders() {
        err(&format!(
            "warning: {} (declare it with --arg {name})\n",
            usecase::undeclared_placeholder(&skill.id, &name)
        ));
    }
    let after = usecase::load(fs, &layers);
    match after.get(&skill.id) {
        Some(e) if e.origin.file == target.display().to_string() => {
            for o in &e.shadows {
                out(&format!("It overrides {} (layer {}, priority {}).\n", o.file, o.layer, o.priority));
            }
        }
        Some(e) => out(&format!(
            "Note: layer {} (priority {}) has a higher-priority {:?}, which is what is served.\n",
            e.origin.layer, e.origin.priority, skill.id
        )),
        None => {
            if let Some(c) = after.conflicts().iter().find(|c| c.id == skill.id) {
                err(&format!("warning: {c}\n"));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Every file that defines `id`: the served one, what it shadows, or the conflicting ones.
fn locations(set: &SkillSet, id: &str) -> Vec<Origin> {
    if let Some(e) = set.get(id) {
        let mut all = e.shadows.clone();
        all.push(e.origin.clone());
        return all;
    }
    set.conflicts().iter().filter(|c| c.id == id).flat_map(|c| c.files.clone()).collect()
}

pub fn remove(fs: &dyn FileSystem, sources: &Sources, id: &str, layer: Option<&str>) -> Outcome {
    let layers = layers(fs, sources)?;
    if let Some(l) = layer {
        pick_layer(&layers, Some(l))?;
    }
    let set = usecase::load(fs, &layers);
    let all = locations(&set, id);
    if all.is_empty() {
        return Err(Failure::failed(miette!(help = "`vitaecontext skills list` shows the skills", "no skill {id:?}")));
    }
    let chosen: Vec<&Origin> = all.iter().filter(|o| layer.is_none_or(|l| o.layer == l)).collect();
    let describe =
        |os: &[&Origin]| os.iter().map(|o| format!("{} ({})", o.layer, o.file)).collect::<Vec<_>>().join(", ");
    let target = match chosen.as_slice() {
        [] => {
            return Err(Failure::failed(miette!(
                help = format!("it is in: {}", describe(&all.iter().collect::<Vec<_>>())),
                "layer {:?} has no skill {id:?}",
                layer.unwrap_or_default()
            )));
        }
        [one] => *one,
        several => {
            return Err(Failure::usage(miette!(
                help = "pass --layer LAYER to say which one to remove",
                "{id:?} is defined in several places: {}",
                describe(several)
            )));
        }
    };
    fs.remove_file(Path::new(&target.file)).map_err(|e| Failure::failed(miette!("{e}")))?;
    out(&format!("Removed {id} from layer {} ({})\n", target.layer, target.file));
    let after = usecase::load(fs, &layers);
    if let Some(e) = after.get(id) {
        out(&format!("Now served: {} (layer {}, priority {})\n", e.origin.file, e.origin.layer, e.origin.priority));
    }
    Ok(ExitCode::SUCCESS)
}

/// `skills export --agent-skills DIR [--force]`: each served skill as an Agent Skills folder,
/// then one line of totals. Exit 1 only when a skill that could be exported was not; one that
/// is not exportable by design (a tool skill without a template) is skipped, and one whose
/// folder already holds its very bytes is up to date.
pub fn export(fs: &dyn FileSystem, sources: &Sources, dir: &Path, force: bool) -> Outcome {
    use crate::usecase::agent_skills::{self, ExportError, Exported};
    let layers = layers(fs, sources)?;
    if layers.is_empty() {
        no_layers_hint();
        return Ok(ExitCode::SUCCESS);
    }
    let (set, locations) = usecase::load_located(fs, &layers);
    warn_all(&set);
    let dir = sources.cwd.join(dir);
    let results = agent_skills::export(fs, &set, &locations, &layers, &dir, force).map_err(|e| match e {
        ExportError::InLayer { .. } => Failure::usage(miette!(
            help = "a skill layer loads every skill file below it, so the exported copies would be served again \
                    beside their sources; pass --agent-skills a folder outside every layer",
            "{e}"
        )),
        ExportError::Dir(_) => Failure::failed(miette!("{e}")),
    })?;
    let (mut written, mut up_to_date, mut skipped, mut failed) = (0, 0, 0, 0);
    for r in &results {
        match r {
            Exported::Written { name, folder, files, replaced, removed } => {
                written += 1;
                let replaced = if *replaced > 0 { format!(", {replaced} replaced") } else { String::new() };
                let removed = if *removed > 0 { format!(", {removed} stale removed") } else { String::new() };
                out(&format!("exported {name} -> {} ({files} file(s){replaced}{removed})\n", folder.display()));
            }
            Exported::UpToDate { name, folder } => {
                up_to_date += 1;
                out(&format!("up to date {name} -> {}\n", folder.display()));
            }
            Exported::Skipped { name, why } => {
                skipped += 1;
                err(&format!("note: skill {name} was skipped: {why}\n"));
            }
            Exported::NotWritten { name, why } => {
                failed += 1;
                err(&format!("error: skill {name} was not exported: {why}\n"));
            }
        }
    }
    out(&format!(
        "{} skill(s) to {}: {written} exported, {up_to_date} up to date, {skipped} skipped, {failed} failed\n",
        results.len(),
        dir.display()
    ));
    if failed > 0 {
        let help = if written + up_to_date == 0 {
            "the reasons are above; nothing was written"
        } else {
            "the reasons are above; the other skills were written"
        };
        return Err(Failure::failed(miette!(help = help, "{failed} of {} skill(s) not exported", results.len())));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::career::Surface;

    #[test]
    fn every_starter_skill_loads_and_is_grounded_in_the_persons_facts() {
        let layers = vec![Layer { name: "s".into(), root: "/s".into(), priority: 1 }];
        let fs = fs_memory::MemoryFs::new();
        for (rel, content) in STARTER {
            let p = Path::new("/s")
                .join(rel.trim_start_matches("skills/10-base/").trim_start_matches("skills/50-personal/"));
            fs.create_dir_all(p.parent().unwrap()).unwrap();
            if rel.ends_with(".yaml") && rel.starts_with("skills/") || rel.ends_with("SKILL.md") {
                fs.write_atomic(&p, content.as_bytes()).unwrap();
            }
        }
        let set = usecase::load(&fs, &layers);
        assert!(usecase::warnings(&set).is_empty(), "{:?}", usecase::warnings(&set));
        let ids: Vec<&str> = set.entries().iter().map(|e| e.skill.id.as_str()).collect();
        assert_eq!(ids, ["achievement-bullet", "cv-bullet-rewriter", "interview-story", "recruiter-reply"]);
        let packet = |s: Surface| format!("<FACTS {}>", s.as_str());
        let args = |k: &str, v: &str| vec![(k.to_owned(), SkillValue::String(v.into()))];
        let cv = set.render_prompt("cv-bullet-rewriter", &args("bullet", "Did things"), &packet).unwrap();
        assert!(cv.contains("<FACTS cv>") && cv.contains("Did things"), "{cv}");
        let li = set.render_prompt("recruiter-reply", &args("message", "Hi"), &packet).unwrap();
        assert!(li.contains("<FACTS linkedin>"), "{li}");
        let story = set.render_prompt("interview-story", &args("question", "Q"), &packet).unwrap();
        assert!(story.contains("<FACTS general>"), "{story}");
        let bad = set.call_tool("achievement-bullet", &args("audience", "cfo"), &packet).unwrap();
        assert!(bad.is_error(), "{bad:?}");
        let config = domain::skills::parse_config(STARTER[0].1).unwrap();
        assert_eq!(config.len(), 2);
    }

    #[test]
    fn skills_built_from_flags_round_trip_through_yaml() {
        for prompt in ["one line", "two\nlines\n", "  indented first\n\nblank kept\n\n", "ends: {{x}} # not a comment"]
        {
            let tags = vec!["a: b".to_owned(), "\"q\"".to_owned()];
            let a = AddArgs {
                id: Some("x"),
                kind: SkillType::Prompt,
                name: Some("N: n"),
                description: Some("d #1"),
                tags: &tags,
                prompt: Some(prompt),
                args: &[],
                from: None,
                layer: None,
                force: false,
            };
            let s = parse_skill(SkillFormat::Yaml, &skill_yaml(&a, "x")).unwrap();
            assert_eq!(s.prompt.as_deref(), Some(prompt));
            assert_eq!(s.name, "N: n");
            assert_eq!(s.description, "d #1");
            assert_eq!(s.tags, tags);
        }
    }
}
