//! Our entry in a TOML configuration file (Codex's `config.toml`), edited with `toml_edit` so
//! that comments, blank lines, key order and other tables stay byte for byte.

use toml_edit::{Array, DocumentMut, Item, Table, TableLike, value};

use super::{Edit, EditError, Entry, ParseError};

fn parse(text: &str) -> Result<DocumentMut, EditError> {
    text.parse::<DocumentMut>().map_err(|e| EditError::Parse {
        format: "TOML",
        error: ParseError::at(text, e.span().unwrap_or(0..0), e.message().trim_end().to_string()),
    })
}

fn not_a_table(key: &str) -> EditError {
    EditError::Shape(format!("`{key}` is not a table; fix it by hand, then run this again"))
}

fn args_array(args: &[String]) -> Array {
    args.iter().map(String::as_str).collect()
}

fn args_of(t: &dyn TableLike) -> Option<Vec<String>> {
    t.get("args")?.as_array()?.iter().map(|v| v.as_str().map(str::to_string)).collect()
}

fn new_entry(entry: &Entry) -> Item {
    let mut t = Table::new();
    t.insert("command", value(entry.command.as_str()));
    t.insert("args", value(args_array(&entry.args)));
    Item::Table(t)
}

fn finish(doc: &DocumentMut, text: &str) -> Edit {
    let mut out = doc.to_string();
    // toml_edit writes every line end as LF; a file written with CRLF throughout gets CRLF back.
    let newlines = text.matches('\n').count();
    if newlines > 0 && newlines == text.matches("\r\n").count() {
        out = out.replace("\r\n", "\n").replace('\n', "\r\n");
    }
    if out == text { Edit::Unchanged } else { Edit::Changed(out) }
}

/// Adds `[key.name]` with `command` and `args`, or brings an existing entry to these values
/// (other keys of the entry, such as `env` or `startup_timeout_sec`, are kept).
pub fn register(text: &str, key: &str, name: &str, entry: &Entry) -> Result<Edit, EditError> {
    let mut doc = parse(text)?;
    let servers = doc.entry(key).or_insert_with(|| {
        let mut t = Table::new();
        // Only `[mcp_servers.vitaecontext]` is written, not an empty `[mcp_servers]` header.
        t.set_implicit(true);
        Item::Table(t)
    });
    let servers = servers.as_table_like_mut().ok_or_else(|| not_a_table(key))?;
    match servers.get_mut(name) {
        Some(item) if item.is_table_like() => {
            let t = item.as_table_like_mut().ok_or_else(|| not_a_table(name))?;
            if t.get("command").and_then(Item::as_str) != Some(entry.command.as_str()) {
                t.insert("command", value(entry.command.as_str()));
            }
            if args_of(t).as_deref() != Some(entry.args.as_slice()) {
                t.insert("args", value(args_array(&entry.args)));
            }
        }
        Some(item) => *item = new_entry(entry),
        None => {
            servers.insert(name, new_entry(entry));
        }
    }
    Ok(finish(&doc, text))
}

/// Removes `[key.name]`, and nothing else.
pub fn remove(text: &str, key: &str, name: &str) -> Result<Edit, EditError> {
    let mut doc = parse(text)?;
    let Some(servers) = doc.get_mut(key) else { return Ok(Edit::Unchanged) };
    let servers = servers.as_table_like_mut().ok_or_else(|| not_a_table(key))?;
    if servers.remove(name).is_none() {
        return Ok(Edit::Unchanged);
    }
    Ok(finish(&doc, text))
}

/// The string variables of `[key.name.env]`, in file order.
pub fn find_env(text: &str, key: &str, name: &str) -> Result<Vec<(String, String)>, EditError> {
    let doc = parse(text)?;
    let env = doc
        .get(key)
        .and_then(Item::as_table_like)
        .and_then(|s| s.get(name))
        .and_then(Item::as_table_like)
        .and_then(|e| e.get("env"))
        .and_then(Item::as_table_like);
    Ok(env
        .map(|env| env.iter().filter_map(|(k, v)| Some((k.to_owned(), v.as_str()?.to_owned()))).collect())
        .unwrap_or_default())
}

/// The command and arguments of `[key.name]`, if the file has that entry.
pub fn find(text: &str, key: &str, name: &str) -> Result<Option<Entry>, EditError> {
    let doc = parse(text)?;
    let Some(entry) = doc.get(key).and_then(Item::as_table_like).and_then(|s| s.get(name)) else {
        return Ok(None);
    };
    let Some(t) = entry.as_table_like() else { return Ok(Some(Entry { command: String::new(), args: Vec::new() })) };
    let command = t.get("command").and_then(Item::as_str).unwrap_or_default().to_string();
    Ok(Some(Entry { command, args: args_of(t).unwrap_or_default() }))
}
