//! The MCP clients `vitaecontext register` knows: where each keeps its configuration on each
//! OS, in which format, under which key, and what our entry in it looks like.
//!
//! One table (`Client` and its methods) answers every question about a client, so the help
//! text, the wiki, the editor and `doctor` cannot disagree. Edits of the configuration text are
//! pure (`json`, `toml`): text in, text out, nothing read or written here.

pub mod install;
pub mod json;
pub mod toml;

use std::path::PathBuf;

/// The name of our entry in every client's server table.
pub const SERVER_NAME: &str = "vitaecontext";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Client {
    ClaudeDesktop,
    ClaudeCode,
    Cursor,
    Vscode,
    Windsurf,
    Cline,
    Codex,
    Gemini,
}

/// The operating systems whose locations are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Os {
    #[default]
    Linux,
    Macos,
    Windows,
}

impl Os {
    pub const ALL: [Os; 3] = [Os::Linux, Os::Macos, Os::Windows];

    /// From `std::env::consts::OS`; other Unix systems use the Linux locations.
    pub fn from_consts(os: &str) -> Os {
        match os {
            "macos" => Os::Macos,
            "windows" => Os::Windows,
            _ => Os::Linux,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Os::Linux => "Linux",
            Os::Macos => "macOS",
            Os::Windows => "Windows",
        }
    }
}

/// What the locations depend on, captured by the caller from the process environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Env {
    pub os: Os,
    /// `$HOME` (on Windows `%USERPROFILE%`).
    pub home: Option<PathBuf>,
    /// `%APPDATA%` (Windows only).
    pub appdata: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME` (Linux only; default `~/.config`).
    pub xdg_config_home: Option<PathBuf>,
    /// `$CODEX_HOME` (default `~/.codex`).
    pub codex_home: Option<PathBuf>,
}

/// The syntax of a configuration file, which decides how it is parsed and edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Strict JSON: the client reads it with a JSON parser that refuses comments.
    Json,
    /// JSON with comments and trailing commas (VS Code's settings dialect).
    Jsonc,
    /// TOML.
    Toml,
}

/// Where a path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    /// The home folder.
    Home,
    /// `~/Library/Application Support` (macOS).
    AppSupport,
    /// `$XDG_CONFIG_HOME`, default `~/.config` (Linux).
    XdgConfig,
    /// `%APPDATA%` (Windows).
    AppData,
    /// `$CODEX_HOME`, default `~/.codex`.
    CodexHome,
}

/// A location rule: a base and the components below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    base: Base,
    parts: &'static [&'static str],
}

/// Cline keeps its settings in the VS Code user folder, under the extension's global storage.
const CLINE: &[&str] =
    &["Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"];

impl Location {
    const fn new(base: Base, parts: &'static [&'static str]) -> Self {
        Location { base, parts }
    }

    /// The absolute path on this machine, if the variables it needs are set.
    pub fn resolve(&self, env: &Env) -> Option<PathBuf> {
        let home = env.home.as_ref();
        let base = match self.base {
            Base::Home => home?.clone(),
            Base::AppSupport => home?.join("Library").join("Application Support"),
            Base::XdgConfig => match &env.xdg_config_home {
                Some(x) if x.is_absolute() => x.clone(),
                _ => home?.join(".config"),
            },
            Base::AppData => env.appdata.clone()?,
            Base::CodexHome => match &env.codex_home {
                Some(c) => c.clone(),
                None => home?.join(".codex"),
            },
        };
        Some(self.parts.iter().fold(base, |p, c| p.join(c)))
    }

    /// How a person reads it in the help and the wiki (`~/.cursor/mcp.json`).
    pub fn describe(&self, os: Os) -> String {
        let (base, sep) = match (self.base, os) {
            (Base::Home, Os::Windows) => ("%USERPROFILE%", "\\"),
            (Base::Home, _) => ("~", "/"),
            (Base::AppSupport, _) => ("~/Library/Application Support", "/"),
            (Base::XdgConfig, _) => ("~/.config", "/"),
            (Base::AppData, _) => ("%APPDATA%", "\\"),
            (Base::CodexHome, Os::Windows) => ("%USERPROFILE%\\.codex", "\\"),
            (Base::CodexHome, _) => ("~/.codex", "/"),
        };
        let mut s = base.to_string();
        for p in self.parts {
            s.push_str(sep);
            s.push_str(p);
        }
        s
    }
}

impl Client {
    pub const ALL: [Client; 8] = [
        Client::ClaudeDesktop,
        Client::ClaudeCode,
        Client::Cursor,
        Client::Vscode,
        Client::Windsurf,
        Client::Cline,
        Client::Codex,
        Client::Gemini,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Windsurf => "windsurf",
            Client::Cline => "cline",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
        }
    }

    pub fn parse(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The product name a person knows.
    pub fn title(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::ClaudeCode => "Claude Code",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
            Client::Windsurf => "Windsurf",
            Client::Cline => "Cline",
            Client::Codex => "Codex CLI",
            Client::Gemini => "Gemini CLI",
        }
    }

    /// The user-level configuration file on `os`.
    pub fn location(self, os: Os) -> Location {
        use Base::*;
        match (self, os) {
            (Client::ClaudeDesktop, Os::Macos) => Location::new(AppSupport, &["Claude", "claude_desktop_config.json"]),
            (Client::ClaudeDesktop, Os::Windows) => Location::new(AppData, &["Claude", "claude_desktop_config.json"]),
            (Client::ClaudeDesktop, Os::Linux) => Location::new(XdgConfig, &["Claude", "claude_desktop_config.json"]),
            (Client::ClaudeCode, _) => Location::new(Home, &[".claude.json"]),
            (Client::Cursor, _) => Location::new(Home, &[".cursor", "mcp.json"]),
            (Client::Vscode, Os::Macos) => Location::new(AppSupport, &["Code", "User", "mcp.json"]),
            (Client::Vscode, Os::Windows) => Location::new(AppData, &["Code", "User", "mcp.json"]),
            (Client::Vscode, Os::Linux) => Location::new(XdgConfig, &["Code", "User", "mcp.json"]),
            (Client::Windsurf, _) => Location::new(Home, &[".codeium", "windsurf", "mcp_config.json"]),
            (Client::Cline, Os::Macos) => Location::new(AppSupport, CLINE),
            (Client::Cline, Os::Windows) => Location::new(AppData, CLINE),
            (Client::Cline, Os::Linux) => Location::new(XdgConfig, CLINE),
            (Client::Codex, _) => Location::new(CodexHome, &["config.toml"]),
            (Client::Gemini, _) => Location::new(Home, &[".gemini", "settings.json"]),
        }
    }

    /// The configuration file on this machine, if the variables its location needs are set.
    pub fn config_path(self, env: &Env) -> Option<PathBuf> {
        self.location(env.os).resolve(env)
    }

    pub fn format(self) -> Format {
        match self {
            // These read their file with JSON.parse, so a comment would break them: refuse one.
            Client::ClaudeDesktop | Client::ClaudeCode | Client::Cline => Format::Json,
            Client::Cursor | Client::Vscode | Client::Windsurf | Client::Gemini => Format::Jsonc,
            Client::Codex => Format::Toml,
        }
    }

    /// The key (JSON) or table (TOML) that holds the servers.
    pub fn servers_key(self) -> &'static str {
        match self {
            Client::Vscode => "servers",
            Client::Codex => "mcp_servers",
            _ => "mcpServers",
        }
    }

    /// Whether the entry carries `"type": "stdio"` (VS Code and Claude Code write it themselves).
    pub fn typed_entry(self) -> bool {
        matches!(self, Client::Vscode | Client::ClaudeCode)
    }

    /// Clients without MCP prompt support: they get the prompts as tools (`--prompt-tools`).
    /// Codex exposes MCP tools only (prompts are an open feature request); Windsurf's Cascade
    /// documents tools only. Cursor, Cline (since 3.4x), VS Code, Gemini CLI and both Claudes
    /// offer server prompts as slash commands.
    pub fn lacks_prompts(self) -> bool {
        matches!(self, Client::Codex | Client::Windsurf)
    }

    /// Whether the client is configured through its own CLI, so that we print its command
    /// instead of editing its file unless asked to.
    pub fn has_own_cli(self) -> bool {
        matches!(self, Client::ClaudeCode)
    }
}

/// What our entry says: the command and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub command: String,
    pub args: Vec<String>,
}

/// The result of an edit: the new text, or nothing to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// The file already says what was asked; nothing to write.
    Unchanged,
    /// The new text of the file.
    Changed(String),
}

/// A configuration file that could not be parsed: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at line {line}, column {column}")]
pub struct ParseError {
    pub message: String,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// Byte range of the offending text.
    pub span: std::ops::Range<usize>,
}

impl ParseError {
    /// An error at a byte range of `text`, with its line and column computed.
    pub fn at(text: &str, span: std::ops::Range<usize>, message: impl Into<String>) -> Self {
        let start = span.start.min(text.len());
        let before = &text[..floor_char_boundary(text, start)];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        ParseError { message: message.into(), line, column, span }
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Why a file cannot take our entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("not valid {format}: {error}")]
    Parse { format: &'static str, error: ParseError },
    /// The file parses but has a shape we must not guess at (the servers key is a list, ...).
    #[error("{0}")]
    Shape(String),
}

/// A UTF-8 byte-order mark, which Windows editors write at the start of a JSON file.
const BOM: char = '\u{feff}';

/// `edit` applied to `text` without its byte-order mark, the mark put back on what it changed:
/// a config saved with one is read, and kept as it was.
fn keeping_bom(text: &str, edit: impl FnOnce(&str) -> Result<Edit, EditError>) -> Result<Edit, EditError> {
    match text.strip_prefix(BOM) {
        None => edit(text),
        Some(rest) => Ok(match edit(rest)? {
            Edit::Changed(t) => Edit::Changed(format!("{BOM}{t}")),
            Edit::Unchanged => Edit::Unchanged,
        }),
    }
}

/// Adds or updates our entry in `text` (empty text = a new file).
pub fn register(client: Client, text: &str, entry: &Entry) -> Result<Edit, EditError> {
    keeping_bom(text, |text| match client.format() {
        Format::Toml => toml::register(text, client.servers_key(), SERVER_NAME, entry),
        f => json::register(text, f, client.servers_key(), SERVER_NAME, &json_entry(client, entry)),
    })
}

/// Removes our entry from `text`; other servers and settings stay as they are.
pub fn remove(client: Client, text: &str) -> Result<Edit, EditError> {
    keeping_bom(text, |text| match client.format() {
        Format::Toml => toml::remove(text, client.servers_key(), SERVER_NAME),
        f => json::remove(text, f, client.servers_key(), SERVER_NAME),
    })
}

/// Our entry as `text` has it, if it has one.
pub fn find(client: Client, text: &str) -> Result<Option<Entry>, EditError> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    match client.format() {
        Format::Toml => toml::find(text, client.servers_key(), SERVER_NAME),
        f => json::find(text, f, client.servers_key(), SERVER_NAME),
    }
}

/// The environment our entry in `text` gives the server (its `env`), string values only.
pub fn find_env(client: Client, text: &str) -> Result<Vec<(String, String)>, EditError> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    match client.format() {
        Format::Toml => toml::find_env(text, client.servers_key(), SERVER_NAME),
        f => json::find_env(text, f, client.servers_key(), SERVER_NAME),
    }
}

/// The value an entry's arguments give a flag (`--root DIR` or `--root=DIR`, under any of its
/// `names`), the last one when given twice.
pub fn flag_value<'a>(args: &'a [String], names: &[&str]) -> Option<&'a str> {
    let mut found = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if names.contains(&a.as_str()) {
            found = it.next().map(String::as_str).or(found);
        } else if let Some((flag, value)) = a.split_once('=')
            && names.contains(&flag)
        {
            found = Some(value);
        }
    }
    found
}

/// The fields of our JSON entry, in the order they are written.
fn json_entry(client: Client, entry: &Entry) -> Vec<(&'static str, json::Value)> {
    let mut fields = Vec::new();
    if client.typed_entry() {
        fields.push(("type", json::Value::Str("stdio".into())));
    }
    fields.push(("command", json::Value::Str(entry.command.clone())));
    fields.push(("args", json::Value::StrList(entry.args.clone())));
    fields
}

/// `claude mcp add` / `claude mcp remove` for Claude Code, quoted for a POSIX shell.
pub fn claude_code_command(entry: Option<&Entry>) -> String {
    match entry {
        Some(e) => {
            let mut words = vec!["claude", "mcp", "add", "--scope", "user", SERVER_NAME, "--"]
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>();
            words.push(e.command.clone());
            words.extend(e.args.iter().cloned());
            words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
        }
        None => format!("claude mcp remove --scope user {SERVER_NAME}"),
    }
}

/// One word for a POSIX shell: as is when it holds only safe characters, else single-quoted.
pub fn shell_quote(word: &str) -> String {
    let safe = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if safe { word.to_string() } else { format!("'{}'", word.replace('\'', "'\\''")) }
}

/// The locations of every client, as the `--help` text and the wiki show them.
pub fn locations_help() -> String {
    let mut s = String::from("Configuration files (user level):\n");
    for c in Client::ALL {
        s.push_str(&format!("  {} ({}), key `{}`:\n", c.name(), c.title(), c.servers_key()));
        if c == Client::Cline {
            // Its paths are too long for a help line; they are the VS Code folder's plus this.
            s.push_str("    in the VS Code user folder (see vscode, without mcp.json):\n");
            s.push_str(&format!("    {}\n", CLINE[2..].join("/")));
            continue;
        }
        for os in Os::ALL {
            s.push_str(&format!("    {:<8} {}\n", os.name(), c.location(os).describe(os)));
        }
    }
    s.push_str("On Linux, $XDG_CONFIG_HOME replaces ~/.config when set; $CODEX_HOME replaces ~/.codex.\n");
    let no_prompts: Vec<_> = Client::ALL.into_iter().filter(|c| c.lacks_prompts()).map(Client::name).collect();
    s.push_str(&format!("{} get --prompt-tools: they do not offer MCP prompts.\n", no_prompts.join(", ")));
    s.push_str("claude-code prints the `claude mcp add` command to run; --write edits the file instead.\n");
    s
}

#[cfg(test)]
mod tests;
