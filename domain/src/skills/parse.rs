//! Skill files and layer configs from text: YAML (`.yaml`, `.yml`), JSON, and `SKILL.md` (Agent
//! Skills: YAML front matter, the body is the prompt). Every problem found is reported with the
//! span it is about; loading uses the first, `skills validate` shows them all.

use super::yaml::{self, Node, NodeKind, Span, Value};
use super::{PromptArgument, Skill, SkillFormat, SkillType};

/// One reason a file is not a skill (or not a layer config), with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub message: String,
    /// What the label under the span says.
    pub label: String,
    /// `None` when the problem is about the whole file (it is empty, say).
    pub span: Option<Span>,
}

impl Problem {
    fn at(span: Span, message: impl Into<String>, label: impl Into<String>) -> Self {
        Problem { message: message.into(), label: label.into(), span: (span != Span::default()).then_some(span) }
    }

    fn whole(message: impl Into<String>) -> Self {
        Problem { message: message.into(), label: String::new(), span: None }
    }

    pub fn line(&self) -> Option<usize> {
        self.span.map(|s| s.line)
    }
}

impl SkillFormat {
    /// The format a file name says it has; `None` for files that are not skills.
    pub fn of_file_name(name: &str) -> Option<SkillFormat> {
        let lower = name.to_ascii_lowercase();
        if name == "SKILL.md" {
            Some(SkillFormat::SkillMd)
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Some(SkillFormat::Yaml)
        } else if lower.ends_with(".json") {
            Some(SkillFormat::Json)
        } else {
            None
        }
    }
}

/// Parses one skill file. On failure, every problem found (at least one).
pub fn parse_skill(format: SkillFormat, text: &str) -> Result<Skill, Vec<Problem>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (root, body) = match format {
        SkillFormat::Yaml => (document(text, 0, 0)?, None),
        SkillFormat::Json => (document(&json_surrogates(text), 0, 0)?, None),
        SkillFormat::SkillMd => {
            let (fm, fm_start, line_base, body) = split_front_matter(text).ok_or_else(|| {
                vec![Problem::whole(
                    "SKILL.md must start with a `---` line opening its YAML front matter, closed by another `---` line",
                )]
            })?;
            (document(fm, fm_start, line_base)?, Some(body))
        }
    };
    skill_from(&root, format, body)
}

/// The YAML front matter of a `SKILL.md`, every field as written, as a mapping (what the MCP
/// skills extension publishes as a skill's `frontmatter`). The same split and parser as
/// [`parse_skill`], so the two never disagree about a file.
pub fn front_matter(text: &str) -> Result<Value, Problem> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (fm, fm_start, line_base, _) = split_front_matter(text).ok_or_else(|| {
        Problem::whole(
            "SKILL.md must start with a `---` line opening its YAML front matter, closed by another `---` line",
        )
    })?;
    document(fm, fm_start, line_base).map(|root| root.to_value()).map_err(|mut p| p.remove(0))
}

/// A JSON text with its UTF-16 surrogate escapes made YAML's: a pair (`\ud83d\udc1b`, which
/// Python's `json.dump` writes for an emoji) becomes one `\U0001f41b`, a lone one `\ufffd` as
/// `JSON.parse` would leave it unprintable. YAML reads `\u` as a code point and refused them, so
/// a valid `.json` skill that skill-central loads was skipped (found in review). A finding
/// after a pair is labelled two bytes early per pair before it.
fn json_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("\\u") {
        return text.into();
    }
    let unit = |s: &str| -> Option<u16> {
        let hex = s.strip_prefix("\\u")?.get(..4)?;
        if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(hex, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match unit(rest) {
            Some(high @ 0xD800..=0xDBFF) => match unit(&rest[6..]) {
                Some(low @ 0xDC00..=0xDFFF) => {
                    let c = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    out.push_str(&format!("\\U{c:08x}"));
                    rest = &rest[12..];
                }
                _ => {
                    out.push_str("\\ufffd");
                    rest = &rest[6..];
                }
            },
            Some(0xDC00..=0xDFFF) => {
                out.push_str("\\ufffd");
                rest = &rest[6..];
            }
            _ => {
                // Any other escape is copied whole, so that `\\` is not read as the start of one.
                let len = rest[1..].chars().next().map_or(1, |c| 1 + c.len_utf8());
                out.push_str(&rest[..len]);
                rest = &rest[len..];
            }
        }
    }
    out.push_str(rest);
    out.into()
}

fn document(text: &str, base: usize, line_base: usize) -> Result<Node, Vec<Problem>> {
    match yaml::parse(text, base, line_base) {
        Err(e) => Err(vec![Problem {
            message: format!("not valid YAML: {}", e.message),
            label: e.message,
            span: Some(e.span),
        }]),
        Ok(None) => Err(vec![Problem::whole("the file holds no skill (it is empty)")]),
        Ok(Some(root)) if !matches!(root.kind, NodeKind::Map(_)) => Err(vec![Problem::at(
            root.place(),
            format!("expected a mapping of skill fields, found {}", root.to_value().type_name()),
            "expected `id: ...`, `type: ...` and the other fields here",
        )]),
        Ok(Some(root)) => Ok(root),
    }
}

/// `---\n<front matter>\n---\n<body>`: the front matter, its byte offset, the number of lines
/// before it, and the body with leading blank lines removed.
fn split_front_matter(text: &str) -> Option<(&str, usize, usize, &str)> {
    let first = text.split_inclusive('\n').next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = first.len();
    let mut at = start;
    for line in text[start..].split_inclusive('\n') {
        if line.trim_end() == "---" {
            let body = text[at + line.len()..].trim_start_matches(['\n', '\r']);
            return Some((&text[start..at], start, 1, body));
        }
        at += line.len();
    }
    None
}

/// A scalar as text (YAML reads `version: 1.0` as a number; skill-central keeps what JS gives).
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(crate::text::js_number(*f)),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn text_field(root: &Node, key: &str, problems: &mut Vec<Problem>) -> Option<String> {
    let (_, node) = root.get(key)?;
    match &node.kind {
        NodeKind::Scalar(Value::Null) => None,
        NodeKind::Scalar(v) => scalar_text(v),
        _ => {
            problems.push(Problem::at(
                node.place(),
                format!("`{key}` must be text, found {}", node.to_value().type_name()),
                "expected text here",
            ));
            None
        }
    }
}

fn skill_from(root: &Node, format: SkillFormat, body: Option<&str>) -> Result<Skill, Vec<Problem>> {
    let mut problems = Vec::new();
    let first_key = root.place();
    let id_key = if format == SkillFormat::SkillMd && root.get("id").is_none() { "name" } else { "id" };
    let id = text_field(root, id_key, &mut problems).map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    if id.is_none() && !problems.iter().any(|p| p.message.starts_with(&format!("`{id_key}`"))) {
        let span = root.get(id_key).map_or(first_key, |(k, _)| *k);
        problems.push(Problem::at(
            span,
            format!("missing required field `{id_key}`"),
            format!("expected `{id_key}: your-skill-id` in this mapping"),
        ));
    }
    let kind = match root.get("type") {
        None if format == SkillFormat::SkillMd => Some(SkillType::Prompt),
        None => {
            problems.push(Problem::at(
                first_key,
                "missing required field `type`",
                "expected `type: prompt` or `type: tool` in this mapping",
            ));
            None
        }
        Some((_, node)) => match node.to_value().as_str() {
            Some("prompt") => Some(SkillType::Prompt),
            Some("tool") => Some(SkillType::Tool),
            _ => {
                let found = match &node.kind {
                    NodeKind::Scalar(v) => scalar_text(v).map_or_else(|| "null".into(), |s| format!("{s:?}")),
                    _ => node.to_value().type_name().into(),
                };
                problems.push(Problem::at(
                    node.place(),
                    format!("`type` must be \"prompt\" or \"tool\", found {found}"),
                    "expected `prompt` or `tool`",
                ));
                None
            }
        },
    };
    let name = text_field(root, "name", &mut problems);
    let description = text_field(root, "description", &mut problems).unwrap_or_default();
    let version = text_field(root, "version", &mut problems);
    let prompt_en = match body {
        Some(b) => Some(b.to_owned()),
        None => text_field(root, "prompt", &mut problems),
    };
    let prompt_zh = text_field(root, "prompt_zh", &mut problems);
    let tags = tags(root, &mut problems);
    let arguments = arguments(root, &mut problems);
    let input_schema = input_schema(root, &mut problems);

    let blank = |s: &Option<String>| s.as_deref().is_none_or(|s| s.trim().is_empty());
    let prompt = match (blank(&prompt_en), blank(&prompt_zh)) {
        (false, false) => Some(format!(
            "[English]\n{}\n\n[中文]\n{}",
            prompt_en.as_deref().unwrap_or_default(),
            prompt_zh.as_deref().unwrap_or_default()
        )),
        (false, true) => prompt_en,
        (true, false) => prompt_zh,
        (true, true) => None,
    };
    if kind == Some(SkillType::Prompt) && prompt.is_none() {
        let span = root.get("prompt").map_or(first_key, |(k, _)| *k);
        problems.push(Problem::at(
            span,
            if format == SkillFormat::SkillMd {
                "a prompt skill needs a prompt: the body after the front matter is blank".to_owned()
            } else {
                "a prompt skill needs a non-blank `prompt` or `prompt_zh`".to_owned()
            },
            "expected the prompt text here",
        ));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let (Some(id), Some(kind)) = (id, kind) else {
        unreachable!("a missing id or type was recorded as a problem above")
    };
    Ok(Skill {
        name: name.filter(|n| !n.trim().is_empty()).unwrap_or_else(|| id.clone()),
        id,
        kind,
        description,
        tags,
        prompt,
        arguments,
        input_schema,
        version,
        format,
    })
}

fn tags(root: &Node, problems: &mut Vec<Problem>) -> Vec<String> {
    let Some((_, node)) = root.get("tags") else { return Vec::new() };
    match &node.kind {
        NodeKind::Scalar(Value::Null) => Vec::new(),
        NodeKind::Scalar(v) => scalar_text(v).into_iter().filter(|t| !t.trim().is_empty()).collect(),
        NodeKind::Seq(items) => items
            .iter()
            .filter_map(|i| match &i.kind {
                NodeKind::Scalar(v) if scalar_text(v).is_some() => scalar_text(v),
                _ => {
                    problems.push(Problem::at(i.place(), "each tag must be text", "expected a tag here"));
                    None
                }
            })
            .filter(|t| !t.trim().is_empty())
            .collect(),
        NodeKind::Map(_) => {
            problems.push(Problem::at(node.place(), "`tags` must be text or a list of text", "expected a list"));
            Vec::new()
        }
    }
}

fn arguments(root: &Node, problems: &mut Vec<Problem>) -> Vec<PromptArgument> {
    let Some((_, node)) = root.get("arguments") else { return Vec::new() };
    let items = match &node.kind {
        NodeKind::Scalar(Value::Null) => return Vec::new(),
        NodeKind::Seq(items) => items,
        _ => {
            problems.push(Problem::at(
                node.place(),
                "`arguments` must be a list of {name, description, required}",
                "expected a list",
            ));
            return Vec::new();
        }
    };
    let mut out: Vec<PromptArgument> = Vec::new();
    for item in items {
        if !matches!(item.kind, NodeKind::Map(_)) {
            problems.push(Problem::at(
                item.place(),
                "each argument must be a mapping with a `name`",
                "expected `name: ...`",
            ));
            continue;
        }
        let name = text_field(item, "name", problems).map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
        let Some(name) = name else {
            problems.push(Problem::at(item.place(), "an argument has no `name`", "expected `name: ...` here"));
            continue;
        };
        if out.iter().any(|a| a.name == name) {
            problems.push(Problem::at(
                item.get("name").map_or(item.place(), |(_, n)| n.place()),
                format!("argument {name:?} is declared twice"),
                "declared again here",
            ));
            continue;
        }
        let required = match item.get("required").map(|(_, n)| n) {
            None => false,
            Some(n) => match n.to_value() {
                Value::Bool(b) => b,
                Value::Null => false,
                other => {
                    problems.push(Problem::at(
                        n.place(),
                        format!("`required` of argument {name:?} must be true or false, found {}", other.type_name()),
                        "expected true or false",
                    ));
                    false
                }
            },
        };
        let description = text_field(item, "description", problems).unwrap_or_default();
        out.push(PromptArgument { name, description, required });
    }
    out
}

fn input_schema(root: &Node, problems: &mut Vec<Problem>) -> Option<Value> {
    let (_, node) = root.get("inputSchema")?;
    if matches!(node.kind, NodeKind::Scalar(Value::Null)) {
        return None;
    }
    let before = problems.len();
    if !matches!(node.kind, NodeKind::Map(_)) {
        problems.push(Problem::at(node.place(), "`inputSchema` must be a JSON Schema object", "expected a mapping"));
        return None;
    }
    if let Some((_, t)) = node.get("type")
        && t.to_value().as_str() != Some("object")
    {
        problems.push(Problem::at(t.place(), "`inputSchema.type` must be \"object\"", "expected `object`"));
    }
    if let Some((_, p)) = node.get("properties")
        && !matches!(p.kind, NodeKind::Map(_) | NodeKind::Scalar(Value::Null))
    {
        problems.push(Problem::at(p.place(), "`inputSchema.properties` must be a mapping", "expected a mapping"));
    }
    if let Some((_, r)) = node.get("required") {
        match &r.kind {
            NodeKind::Seq(items) => {
                for i in items {
                    if i.to_value().as_str().is_none() {
                        problems.push(Problem::at(
                            i.place(),
                            "each `required` entry must be a property name",
                            "expected text",
                        ));
                    }
                }
            }
            NodeKind::Scalar(Value::Null) => {}
            _ => problems.push(Problem::at(
                r.place(),
                "`inputSchema.required` must be a list of names",
                "expected a list",
            )),
        }
    }
    (problems.len() == before).then(|| node.to_value())
}

/// One layer named in a config file (`layers: [{name, path, priority}]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerSpec {
    pub name: String,
    /// As written: relative paths resolve against the config file's folder.
    pub path: String,
    pub priority: i64,
}

/// Parses a layer config (`skills.yaml`, or skill-central's `skill-central.yaml` unchanged).
pub fn parse_config(text: &str) -> Result<Vec<LayerSpec>, Vec<Problem>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let root = match yaml::parse(text, 0, 0) {
        Err(e) => {
            return Err(vec![Problem {
                message: format!("not valid YAML: {}", e.message),
                label: e.message,
                span: Some(e.span),
            }]);
        }
        Ok(None) => return Ok(Vec::new()),
        Ok(Some(root)) => root,
    };
    let mut problems = Vec::new();
    let Some((_, layers)) = root.get("layers") else {
        return Err(vec![Problem::at(root.place(), "expected a `layers:` list", "expected `layers:` in this mapping")]);
    };
    let items = match &layers.kind {
        NodeKind::Seq(items) => items.as_slice(),
        NodeKind::Scalar(Value::Null) => &[],
        _ => return Err(vec![Problem::at(layers.place(), "`layers` must be a list", "expected a list")]),
    };
    let mut out = Vec::new();
    for item in items {
        let path = text_field(item, "path", &mut problems).filter(|p| !p.trim().is_empty());
        let Some(path) = path else {
            problems.push(Problem::at(item.place(), "a layer has no `path`", "expected `path: DIR` here"));
            continue;
        };
        let name =
            text_field(item, "name", &mut problems).filter(|n| !n.trim().is_empty()).unwrap_or_else(|| path.clone());
        let priority = match item.get("priority").map(|(_, n)| n) {
            None => 100,
            Some(n) => match n.to_value() {
                Value::Int(i) => i,
                Value::String(s) if s.trim().parse::<i64>().is_ok() => s.trim().parse().unwrap_or(100),
                _ => {
                    problems.push(Problem::at(
                        n.place(),
                        format!("the priority of layer {name:?} must be a whole number"),
                        "expected a number",
                    ));
                    continue;
                }
            },
        };
        out.push(LayerSpec { name, path, priority });
    }
    if problems.is_empty() { Ok(out) } else { Err(problems) }
}
