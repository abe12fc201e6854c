//! A loaded set of skills: which definition of each id is served, which ids clash, and what the
//! MCP layer asks of the set (render a prompt, call a tool, compose by tags).
//!
//! Precedence: on the same id the highest priority wins and the others are shadowed. When the
//! highest priority is held by two files or more (two layers of equal priority, or one layer with
//! the id twice), that is a conflict: neither is served, and both files are named. skill-central
//! let directory order decide; here the result never depends on load order.
//!
//! Listing order: layers by ascending priority (a tie by the order given), files in sorted path
//! order, a winning skill taking the place of the first definition of its id.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use super::yaml::Value;
use super::{Skill, SkillType, is_builtin, render, schema};
use crate::career::Surface;

/// A layer as the set knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerInfo {
    pub name: String,
    pub priority: i64,
    /// The folder, for people to read.
    pub root: String,
}

/// One parsed skill file, offered to the set.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Index into the layers given to [`SkillSet::build`].
    pub layer: usize,
    /// The file, for people to read.
    pub file: String,
    pub skill: Arc<Skill>,
}

/// Where a definition comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub layer: String,
    pub priority: i64,
    pub file: String,
}

/// A served skill: the winning definition and the definitions it shadows (lowest first).
#[derive(Debug, Clone)]
pub struct Entry {
    pub skill: Arc<Skill>,
    pub origin: Origin,
    pub shadows: Vec<Origin>,
}

impl Entry {
    /// The description to list: the file's, or a generated one when it is blank. The model
    /// reads it, so it names no layer: a `--skills DIR` layer is named by its path, which put a
    /// local path in the model's context (found in review).
    pub fn description(&self) -> String {
        if self.skill.description.trim().is_empty() {
            format!("{} ({} skill)", self.skill.name, self.skill.kind.as_str())
        } else {
            self.skill.description.clone()
        }
    }
}

/// An id defined at its highest priority by more than one file: none of them is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub id: String,
    pub files: Vec<Origin>,
}

/// A skill whose id is one of the server's own prompts or tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub id: String,
    pub origin: Origin,
}

/// A file that is not a skill: where, the line when known, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub file: String,
    pub line: Option<usize>,
    pub reason: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "skipped {}:{line}: {}", self.file, self.reason),
            None => write!(f, "skipped {}: {}", self.file, self.reason),
        }
    }
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files: Vec<String> =
            self.files.iter().map(|o| format!("{} (layer {}, priority {})", o.file, o.layer, o.priority)).collect();
        write!(f, "skill {:?} is defined at the same priority by {}: neither is served", self.id, files.join(" and "))
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "skill {:?} in {} is refused: the server has a prompt or tool of that name",
            self.id, self.origin.file
        )
    }
}

/// Why a request about a skill cannot be answered. Every variant is "invalid params" (-32602)
/// on the wire; [`SkillError::message`] is the text, in skill-central's words where it has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub enum SkillError {
    UnknownPrompt(String),
    UnknownTool(String),
    /// `prompts/get` on a tool skill.
    NotAPrompt(String),
    /// `tools/call` on a prompt skill.
    NotATool(String),
    /// Required prompt arguments that were not given, in declaration order.
    MissingArguments(Vec<String>),
    /// `skills:compose` matched nothing; the tags as asked, joined by `, `.
    NoSkillsForTags(String),
    /// A prompt argument that is not a string (MCP's `GetPrompt` takes strings only): its
    /// name and the JSON type it had.
    NotAString {
        name: String,
        got: &'static str,
    },
}

impl SkillError {
    pub fn message(&self) -> String {
        match self {
            SkillError::UnknownPrompt(n) => format!("Unknown prompt skill: {n}"),
            SkillError::UnknownTool(n) => format!("Unknown tool: {n}"),
            SkillError::NotAPrompt(n) => format!("{n} is a tool skill, not a prompt: call it with tools/call"),
            SkillError::NotATool(n) => format!("{n} is a prompt skill, not a tool: get it with prompts/get"),
            SkillError::MissingArguments(names) => names
                .iter()
                .map(|n| format!("Missing required argument: {}", Value::String(n.clone()).to_json()))
                .collect::<Vec<_>>()
                .join("\n"),
            SkillError::NoSkillsForTags(tags) => format!("No skills found for tags: {tags}"),
            SkillError::NotAString { name, got } => {
                format!("Argument {} expected string, got {got}", Value::String(name.clone()).to_json())
            }
        }
    }
}

/// What a tool call answers: the rendered text, or the argument problems (an `isError` result,
/// one problem per line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolOutcome {
    Text(String),
    Invalid(Vec<String>),
}

impl ToolOutcome {
    pub fn is_error(&self) -> bool {
        matches!(self, ToolOutcome::Invalid(_))
    }

    /// The one text content of the result.
    pub fn text(&self) -> String {
        match self {
            ToolOutcome::Text(t) => t.clone(),
            ToolOutcome::Invalid(lines) => lines.join("\n"),
        }
    }
}

/// A composed prompt: its description and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composed {
    pub description: String,
    pub text: String,
}

/// The served skills and everything a person should hear about the layers.
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    layers: Vec<LayerInfo>,
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    conflicts: Vec<Conflict>,
    refused: Vec<Refused>,
    skipped: Vec<Skipped>,
}

/// Grounding values the server provides to every template: `{{career_context}}` (the general
/// packet) and `{{career_context.SURFACE}}`. Each packet is asked for once, and only when used.
struct Grounding<'p> {
    packet: &'p dyn Fn(Surface) -> String,
    cache: [Option<String>; 6],
}

impl<'p> Grounding<'p> {
    fn new(packet: &'p dyn Fn(Surface) -> String) -> Self {
        Grounding { packet, cache: Default::default() }
    }

    /// The cache slot of a grounding placeholder's packet.
    fn slot(name: &str) -> Option<(usize, Surface)> {
        let surface = match name.strip_prefix("career_context") {
            Some("") => Surface::General,
            Some(rest) => {
                let s = rest.strip_prefix('.')?;
                *Surface::ALL.iter().find(|x| x.as_str() == s)?
            }
            None => return None,
        };
        Some((Surface::ALL.iter().position(|x| *x == surface).unwrap_or(5), surface))
    }

    /// Asks for the packet of each grounding placeholder `template` uses, once.
    fn fill(&mut self, template: &str) {
        for name in render::placeholders(template) {
            if let Some((i, surface)) = Self::slot(&name) {
                self.cache[i].get_or_insert_with(|| (self.packet)(surface));
            }
        }
    }

    /// A filled placeholder's packet, borrowed: each use is not another copy of it.
    fn get(&self, name: &str) -> Option<&str> {
        Self::slot(name).and_then(|(i, _)| self.cache[i].as_deref())
    }
}

/// The most bytes a rendered prompt, tool result or composition holds: a template that repeats
/// a large placeholder is cut here, with a notice, instead of asking for gigabytes. One
/// `{{career_context}}` of the largest Career Context read (16 MiB) fits.
pub const MAX_RENDERED_BYTES: usize = 24 * 1024 * 1024;

/// The notice that ends a rendering cut at [`MAX_RENDERED_BYTES`].
fn cut_notice() -> String {
    format!(
        "\n\n[vitaecontext: this text was cut at {} MiB; the skill's template repeats a large placeholder such as {{{{career_context}}}}. Use it once.]\n",
        MAX_RENDERED_BYTES / 1024 / 1024
    )
}

/// An argument value as template text: strings as they are, anything else as JSON.
fn arg_text(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.to_json()),
    }
}

fn given<'a>(args: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
    args.iter().find(|(k, _)| k == name).map(|(_, v)| v).filter(|v| **v != Value::Null)
}

/// Prompt arguments are strings, as MCP's `GetPrompt` defines them and as the career prompts
/// require: the first that is not is refused (a number rendered as text, or `true` counted as a
/// required argument given, would be guesses).
fn strings_only(args: &[(String, Value)]) -> Result<(), SkillError> {
    match args.iter().find(|(_, v)| !matches!(v, Value::String(_))) {
        Some((name, v)) => Err(SkillError::NotAString { name: name.clone(), got: v.type_name() }),
        None => Ok(()),
    }
}

/// Renders a skill's template in one pass: grounding values first (a client cannot replace the
/// person's facts), then given arguments, then declared-but-missing arguments as empty text.
/// With `args` `None`, only grounding values are filled (composition).
fn render_skill(skill: &Skill, template: &str, args: Option<&[(String, Value)]>, g: &mut Grounding) -> String {
    let (mut text, cut) = render_skill_capped(skill, template, args, g, MAX_RENDERED_BYTES);
    if cut {
        text.push_str(&cut_notice());
    }
    text
}

/// [`render_skill`] within `cap` bytes, and whether it was cut there.
fn render_skill_capped(
    skill: &Skill,
    template: &str,
    args: Option<&[(String, Value)]>,
    g: &mut Grounding,
    cap: usize,
) -> (String, bool) {
    g.fill(template);
    let g = &*g;
    render::render_capped(
        template,
        &mut |name| {
            if let Some(v) = g.get(name) {
                return Some(Cow::Borrowed(v));
            }
            let args = args?;
            match given(args, name) {
                Some(v) => Some(arg_text(v)),
                None if skill.declared(name) => Some(Cow::Borrowed("")),
                None => None,
            }
        },
        cap,
    )
}

impl SkillSet {
    /// Decides precedence. `candidates` of one layer must come in sorted path order.
    pub fn build(layers: Vec<LayerInfo>, candidates: Vec<Candidate>, skipped: Vec<Skipped>) -> SkillSet {
        let mut rank: Vec<usize> = (0..layers.len()).collect();
        rank.sort_by_key(|&i| (layers[i].priority, i));
        let mut position = vec![0; layers.len()];
        for (pos, &layer) in rank.iter().enumerate() {
            position[layer] = pos;
        }
        let mut candidates = candidates;
        candidates.sort_by_key(|c| position[c.layer]);
        let origin = |c: &Candidate| Origin {
            layer: layers[c.layer].name.clone(),
            priority: layers[c.layer].priority,
            file: c.file.clone(),
        };

        let mut refused = Vec::new();
        let mut order: Vec<&str> = Vec::new();
        let mut groups: HashMap<&str, Vec<&Candidate>> = HashMap::new();
        for c in &candidates {
            if is_builtin(&c.skill.id) {
                refused.push(Refused { id: c.skill.id.clone(), origin: origin(c) });
                continue;
            }
            let group = groups.entry(c.skill.id.as_str()).or_default();
            if group.is_empty() {
                order.push(c.skill.id.as_str());
            }
            group.push(c);
        }
        let mut entries = Vec::new();
        let mut conflicts = Vec::new();
        for id in order {
            let group = &groups[id];
            let top = group.iter().map(|c| layers[c.layer].priority).max().unwrap_or_default();
            let winners: Vec<&&Candidate> = group.iter().filter(|c| layers[c.layer].priority == top).collect();
            if let [winner] = winners.as_slice() {
                entries.push(Entry {
                    skill: Arc::clone(&winner.skill),
                    origin: origin(winner),
                    shadows: group.iter().filter(|c| layers[c.layer].priority != top).map(|c| origin(c)).collect(),
                });
            } else {
                conflicts.push(Conflict { id: id.to_owned(), files: winners.iter().map(|c| origin(c)).collect() });
            }
        }
        let index = entries.iter().enumerate().map(|(i, e)| (e.skill.id.clone(), i)).collect();
        SkillSet { layers, entries, index, conflicts, refused, skipped }
    }

    pub fn layers(&self) -> &[LayerInfo] {
        &self.layers
    }

    /// Every served skill, in listing order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn prompts(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.skill.kind == SkillType::Prompt)
    }

    pub fn tools(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.skill.kind == SkillType::Tool)
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.index.get(id).map(|&i| &self.entries[i])
    }

    pub fn conflicts(&self) -> &[Conflict] {
        &self.conflicts
    }

    pub fn refused(&self) -> &[Refused] {
        &self.refused
    }

    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// `prompts/get` on a prompt skill: the rendered text. Required arguments must be given.
    pub fn render_prompt(
        &self,
        id: &str,
        args: &[(String, Value)],
        packet: &dyn Fn(Surface) -> String,
    ) -> Result<String, SkillError> {
        let entry = self.get(id).ok_or_else(|| SkillError::UnknownPrompt(id.to_owned()))?;
        let skill = &entry.skill;
        if skill.kind != SkillType::Prompt {
            return Err(SkillError::NotAPrompt(id.to_owned()));
        }
        strings_only(args)?;
        let missing: Vec<String> = skill
            .arguments
            .iter()
            .filter(|a| a.required && given(args, &a.name).is_none())
            .map(|a| a.name.clone())
            .collect();
        if !missing.is_empty() {
            return Err(SkillError::MissingArguments(missing));
        }
        let template = skill.prompt.as_deref().unwrap_or_default();
        Ok(render_skill(skill, template, Some(args), &mut Grounding::new(packet)))
    }

    /// `tools/call` on a tool skill: argument problems as an `isError` outcome, else the rendered
    /// template (or the arguments as pretty JSON when the tool has no template).
    pub fn call_tool(
        &self,
        id: &str,
        args: &[(String, Value)],
        packet: &dyn Fn(Surface) -> String,
    ) -> Result<ToolOutcome, SkillError> {
        let entry = self.get(id).ok_or_else(|| SkillError::UnknownTool(id.to_owned()))?;
        let skill = &entry.skill;
        if skill.kind != SkillType::Tool {
            return Err(SkillError::NotATool(id.to_owned()));
        }
        let problems = schema::check(&skill.tool_schema(), args);
        if !problems.is_empty() {
            return Ok(ToolOutcome::Invalid(problems));
        }
        Ok(ToolOutcome::Text(match skill.prompt.as_deref() {
            Some(template) => render_skill(skill, template, Some(args), &mut Grounding::new(packet)),
            None => Value::Object(args.to_vec()).to_json_pretty(),
        }))
    }

    /// `skills:compose` with the arguments as given: `tags` (absent means none), every
    /// argument a string.
    pub fn compose_arguments(
        &self,
        args: &[(String, Value)],
        packet: &dyn Fn(Surface) -> String,
    ) -> Result<Composed, SkillError> {
        strings_only(args)?;
        let tags = match given(args, COMPOSE_ARGUMENT) {
            Some(Value::String(tags)) => tags.as_str(),
            _ => "",
        };
        self.compose(tags, packet)
    }

    /// `skills:compose`: every prompt skill with one of the comma-separated `tags` (trimmed,
    /// compared case-insensitively), by ascending layer priority then listing order, each under
    /// `## <id>`, joined by `\n\n---\n\n`. Grounding placeholders are filled; argument
    /// placeholders stay for the assistant to see.
    pub fn compose(&self, tags: &str, packet: &dyn Fn(Surface) -> String) -> Result<Composed, SkillError> {
        let asked: Vec<&str> = tags.split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
        // A set: many tags asked of skills with many tags were multiplied (found in review).
        let wanted: std::collections::HashSet<String> = asked.iter().map(|t| t.to_lowercase()).collect();
        let mut matched: Vec<&Entry> =
            self.prompts().filter(|e| e.skill.tags.iter().any(|t| wanted.contains(&t.trim().to_lowercase()))).collect();
        if matched.is_empty() {
            return Err(SkillError::NoSkillsForTags(asked.join(", ")));
        }
        matched.sort_by_key(|e| e.origin.priority);
        let mut g = Grounding::new(packet);
        // The whole composition is held to the cap, each part to what is left of it.
        let mut text = String::new();
        for (k, e) in matched.iter().enumerate() {
            if k > 0 {
                text.push_str("\n\n---\n\n");
            }
            let room = MAX_RENDERED_BYTES.saturating_sub(text.len());
            let (body, cut) =
                render_skill_capped(&e.skill, e.skill.prompt.as_deref().unwrap_or_default(), None, &mut g, room);
            text.push_str(&format!("## {}\n{}", e.skill.id, body.trim()));
            if cut {
                text.push_str(&cut_notice());
                break;
            }
        }
        Ok(Composed {
            description: format!("Composed prompt from tags: {} ({} skills)", asked.join(", "), matched.len()),
            text,
        })
    }
}

/// The description of the compose prompt in `prompts/list`.
pub const COMPOSE_DESCRIPTION: &str =
    "Compose every prompt skill with one of the given tags into one prompt, broadest layer first";

/// The name of compose's one argument.
pub const COMPOSE_ARGUMENT: &str = "tags";
