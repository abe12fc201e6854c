//! Our entry in a JSON or JSONC configuration file, edited on the concrete syntax tree so that
//! every byte outside the entry (comments, indentation, key order, other servers) stays as it
//! was. Parsing and reprinting would lose comments and reorder keys.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};

use super::{Edit, EditError, Entry, Format, ParseError};

/// The values our entry holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Str(String),
    StrList(Vec<String>),
}

impl Value {
    fn input(&self) -> CstInputValue {
        match self {
            Value::Str(s) => CstInputValue::String(s.clone()),
            Value::StrList(l) => CstInputValue::Array(l.iter().map(|s| CstInputValue::String(s.clone())).collect()),
        }
    }

    fn matches(&self, node: &CstNode) -> bool {
        match self {
            Value::Str(s) => string_of(node).as_deref() == Some(s.as_str()),
            Value::StrList(l) => node.as_array().is_some_and(|a| {
                let elements = a.elements();
                elements.len() == l.len()
                    && elements.iter().zip(l).all(|(e, s)| string_of(e).as_deref() == Some(s.as_str()))
            }),
        }
    }
}

fn string_of(node: &CstNode) -> Option<String> {
    node.as_string_lit().and_then(|s| s.decoded_value().ok())
}

fn options(format: Format) -> ParseOptions {
    let jsonc = format == Format::Jsonc;
    ParseOptions {
        allow_comments: jsonc,
        allow_trailing_commas: jsonc,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Jsonc => "JSON with comments",
        _ => "JSON",
    }
}

fn parse(text: &str, format: Format) -> Result<CstRootNode, EditError> {
    let options = options(format);
    // The CST parser keeps comments as tokens and then skips the `allow_comments` check
    // (jsonc-parser 0.34), so the plain parser checks the syntax first.
    jsonc_parser::parse_to_ast(text, &jsonc_parser::CollectOptions::default(), &options)
        .map(drop)
        .and_then(|()| CstRootNode::parse(text, &options))
        .map_err(|e| {
            let r = e.range();
            let mut why = e.kind().to_string();
            // Claude Desktop, Claude Code and Cline read their file with JSON.parse: a comment
            // breaks the client itself, not only this edit (README, "Register").
            if format == Format::Json && why.to_ascii_lowercase().contains("comment") {
                why.push_str(
                    "; this client reads its configuration as strict JSON and would fail on the comment too: remove it",
                );
            }
            let mut error = ParseError::at(text, r.start..r.end, why);
            // The parser counts lines and columns itself; keep its numbers where they are given.
            error.line = e.line_display();
            error.column = e.column_display();
            EditError::Parse { format: format_name(format), error }
        })
}

/// The top-level object; `None` for a file with no value at all (empty or only comments).
fn top(root: &CstRootNode) -> Result<Option<CstObject>, EditError> {
    match root.value() {
        None => Ok(None),
        Some(v) => v.as_object().map(Some).ok_or_else(|| EditError::Shape("the file is not a JSON object".into())),
    }
}

/// Refuses an object that has `key` more than once: JSON.parse and Python read the last one,
/// and an edit made in the first went unseen while `register` said it was done (found in
/// review).
fn once(obj: &CstObject, key: &str) -> Result<(), EditError> {
    let named = obj
        .properties()
        .iter()
        .filter(|p| p.name().and_then(|n| n.decoded_value().ok()).is_some_and(|n| n == key))
        .count();
    if named > 1 {
        return Err(EditError::Shape(format!(
            "`{key}` appears {named} times in one object, and clients read only the last: remove the others by hand, then run this again"
        )));
    }
    Ok(())
}

fn not_an_object(key: &str) -> EditError {
    EditError::Shape(format!("`{key}` is not an object; fix it by hand, then run this again"))
}

fn edit_result(root: &CstRootNode, text: &str) -> Edit {
    let mut out = root.to_string();
    if text.trim().is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if out == text { Edit::Unchanged } else { Edit::Changed(out) }
}

/// Adds `name` under `key` with `fields`, or brings an existing entry's fields to these values
/// (fields of the entry we do not write, such as `env` or `disabled`, are kept).
pub fn register(
    text: &str,
    format: Format,
    key: &str,
    name: &str,
    fields: &[(&str, Value)],
) -> Result<Edit, EditError> {
    let root = parse(text, format)?;
    let obj = match top(&root)? {
        Some(o) => o,
        None => root.object_value_or_set(),
    };
    once(&obj, key)?;
    let servers = obj.object_value_or_create(key).ok_or_else(|| not_an_object(key))?;
    once(&servers, name)?;
    let input = || CstInputValue::Object(fields.iter().map(|(k, v)| (k.to_string(), v.input())).collect());
    match servers.get(name) {
        None => {
            servers.append(name, input());
        }
        Some(prop) => match prop.object_value() {
            None => prop.set_value(input()),
            Some(entry) => {
                for (k, v) in fields {
                    match entry.get(k) {
                        Some(p) if p.value().is_some_and(|n| v.matches(&n)) => {}
                        Some(p) => p.set_value(v.input()),
                        None => {
                            entry.append(k, v.input());
                        }
                    }
                }
            }
        },
    }
    Ok(edit_result(&root, text))
}

/// Removes `name` from under `key`, and nothing else.
pub fn remove(text: &str, format: Format, key: &str, name: &str) -> Result<Edit, EditError> {
    let root = parse(text, format)?;
    let Some(obj) = top(&root)? else { return Ok(Edit::Unchanged) };
    once(&obj, key)?;
    let Some(servers) = obj.get(key) else { return Ok(Edit::Unchanged) };
    let servers = servers.object_value().ok_or_else(|| not_an_object(key))?;
    once(&servers, name)?;
    match servers.get(name) {
        Some(prop) => {
            prop.remove();
            Ok(edit_result(&root, text))
        }
        None => Ok(Edit::Unchanged),
    }
}

/// The string variables of the `env` object of `name` under `key`, in file order.
pub fn find_env(text: &str, format: Format, key: &str, name: &str) -> Result<Vec<(String, String)>, EditError> {
    let root = parse(text, format)?;
    let Some(obj) = top(&root)? else { return Ok(Vec::new()) };
    let env = obj.object_value(key).and_then(|s| s.object_value(name)).and_then(|e| e.object_value("env"));
    Ok(env
        .map(|env| {
            env.properties()
                .iter()
                .filter_map(|p| Some((p.name()?.decoded_value().ok()?, string_of(&p.value()?)?)))
                .collect()
        })
        .unwrap_or_default())
}

/// The command and arguments of `name` under `key`, if the file has that entry.
pub fn find(text: &str, format: Format, key: &str, name: &str) -> Result<Option<Entry>, EditError> {
    let root = parse(text, format)?;
    let Some(obj) = top(&root)? else { return Ok(None) };
    once(&obj, key)?;
    if let Some(servers) = obj.object_value(key) {
        once(&servers, name)?;
    }
    let Some(entry) = obj.object_value(key).and_then(|s| s.get(name)) else { return Ok(None) };
    let Some(entry) = entry.object_value() else {
        return Ok(Some(Entry { command: String::new(), args: Vec::new() }));
    };
    let command = entry.get("command").and_then(|p| p.value()).and_then(|n| string_of(&n)).unwrap_or_default();
    let args = entry
        .array_value("args")
        .map(|a| a.elements().iter().map(|e| string_of(e).unwrap_or_else(|| e.to_string())).collect())
        .unwrap_or_default();
    Ok(Some(Entry { command, args }))
}
