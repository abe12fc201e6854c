//! `vitaecontext register`: add (or remove) vitaecontext in an MCP client's configuration, or
//! list the clients found on this machine.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use domain::career::select::expand_path;
use domain::clients::install::{self, Launch};
use domain::clients::{self, Client, EditError, Entry, Env};
use miette::{NamedSource, SourceSpan, miette};
use ports::Clock;
use ports::fs::FileSystem;

use super::{Failure, Outcome, err, out};
use crate::cli::RegisterArgs;
use crate::sources::Sources;
use crate::usecase::register::{self as usecase, Action, ClientStatus, Plan, RegisterError, Registration};

/// A configuration file that does not parse: shown with the line, nothing written.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{path} is not valid {format} (line {line}, column {column}); nothing was written")]
#[diagnostic(
    code(vitaecontext::register::unparseable),
    help("fix the file by hand (or restore one of its .vitaecontext-backup-* copies), then run this again")
)]
struct Unparseable {
    path: String,
    format: &'static str,
    line: usize,
    column: usize,
    #[source_code]
    src: NamedSource<String>,
    #[label("{message}")]
    span: SourceSpan,
    message: String,
}

/// What the edge captured for this command: where clients keep their files, and which binary
/// they should start.
#[derive(Debug)]
pub struct Edge {
    pub env: Env,
    pub exe: std::io::Result<PathBuf>,
    /// How that binary was installed: what the entry starts (`npx -y vitaecontext@V`...).
    pub install: Option<install::Facts>,
    pub sources: Sources,
}

pub fn run(fs: &dyn FileSystem, clock: &dyn Clock, edge: &Edge, args: &RegisterArgs) -> Outcome {
    let Some(client) = args.client else {
        let this = launch(edge).ok().map(|l| l.command);
        out(&listing(&usecase::status(fs, &edge.env), this.as_deref()));
        return Ok(ExitCode::SUCCESS);
    };
    // Paths the existing entry gives the server and this command does not: kept, and said so
    // (found in review: `register --client cursor` again, without its flags, dropped
    // `--context` and `--root`).
    let mut kept = Vec::new();
    let action = if args.remove {
        Action::Remove
    } else {
        let launch = launch(edge)?;
        let mut new = entry(fs, edge, args, client, &launch.command);
        if let Registration::Present(old) = usecase::client_status(fs, &edge.env, client).registration {
            kept = keep_existing_paths(&mut new, &old);
        }
        new.args.splice(0..0, launch.before_mcp);
        if let Some(w) = launch.warning {
            err(&format!("warning: {w}\n"));
        }
        Action::Register(new)
    };
    for k in &kept {
        err(&format!(
            "Kept {k} from the existing entry (give the flag to change it; `register --client {} --remove` first \
             to drop it).\n",
            client.name()
        ));
    }

    if args.write && !client.has_own_cli() {
        err(&format!("note: --write only matters for claude-code; {} is edited directly\n", client.name()));
    }
    if client.has_own_cli() && !args.write {
        let entry = match &action {
            Action::Register(e) => Some(e),
            Action::Remove => None,
        };
        err(&format!(
            "{} manages its configuration with its own CLI; run this (vitaecontext runs nothing itself),\n\
             or pass --write to edit {} directly:\n",
            client.title(),
            client.config_path(&edge.env).map(|p| p.display().to_string()).unwrap_or_else(|| "~/.claude.json".into())
        ));
        out(&format!("{}\n", clients::claude_code_command(entry)));
        return Ok(ExitCode::SUCCESS);
    }

    let plan = usecase::plan(fs, &edge.env, client, &action).map_err(failure)?;
    let path = plan.path.display();
    if !plan.changes() {
        match (&action, &plan.before) {
            (Action::Register(e), _) => {
                out(&format!("vitaecontext is already registered with {} in {path}\n", client.title()));
                err(&format!("  {}\n", command_line(e)));
            }
            (Action::Remove, None) => out(&format!("{path} does not exist; nothing to remove\n")),
            (Action::Remove, Some(_)) => {
                out(&format!("vitaecontext is not registered with {} in {path}; nothing to remove\n", client.title()))
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    if args.dry_run {
        out(&plan.diff());
        err("Dry run: nothing was written.\n");
        return Ok(ExitCode::SUCCESS);
    }
    let applied = usecase::apply(fs, clock, &edge.env, &action, plan).map_err(failure)?;
    report(&applied.plan, &action, &applied);
    Ok(ExitCode::SUCCESS)
}

fn report(plan: &Plan, action: &Action, applied: &usecase::Applied) {
    let (client, path) = (plan.client.title(), plan.path.display());
    match action {
        Action::Register(_) if applied.created => {
            out(&format!("Registered vitaecontext with {client}: created {path}\n"))
        }
        Action::Register(_) => out(&format!("Registered vitaecontext with {client} in {path}\n")),
        Action::Remove => out(&format!("Removed vitaecontext from {client} in {path}\n")),
    }
    if applied.merged_again > 0 {
        err(&format!(
            "Note: {path} changed while vitaecontext was writing it (another program saved it); the entry was merged \
             again into what it held then, so nothing of that change was lost.\n"
        ));
    }
    if let Some(b) = &applied.backup {
        err(&format!("Backup of the previous file: {}\n", b.display()));
    }
    err(&format!("Restart {client} to load the change.\n"));
}

/// The paths the entry `old` gives the server that `new` does not (`--context`, `--root`,
/// `--skills-config`, every `--skills`), copied into `new`; each as `--flag value`.
fn keep_existing_paths(new: &mut Entry, old: &Entry) -> Vec<String> {
    let mut kept = Vec::new();
    for (flag, names) in [
        ("--context", &["--context", "--context-path"][..]),
        ("--root", &["--root", "--vitaegraph"]),
        ("--skills-config", &["--skills-config"]),
    ] {
        if clients::flag_value(&new.args, names).is_none()
            && let Some(v) = clients::flag_value(&old.args, names)
        {
            kept.push(format!("{flag} {}", clients::shell_quote(v)));
            let v = v.to_owned();
            new.args.extend([flag.to_owned(), v]);
        }
    }
    if !new.args.iter().any(|a| a == "--skills" || a.starts_with("--skills=")) {
        let mut it = old.args.iter();
        while let Some(a) = it.next() {
            let value = match a.strip_prefix("--skills=") {
                Some(v) => Some(v.to_owned()),
                None if a == "--skills" => it.next().cloned(),
                None => None,
            };
            if let Some(v) = value {
                kept.push(format!("--skills {}", clients::shell_quote(&v)));
                new.args.extend(["--skills".to_owned(), v]);
            }
        }
    }
    if !kept.is_empty() {
        new.args = in_entry_order(&new.args);
    }
    kept
}

/// `mcp` arguments in the order `entry` writes them (`--context`, `--root`, `--skills`...,
/// `--skills-config`, then the switches), so that an entry with kept paths equals the one
/// written with them given: registering again changes nothing.
fn in_entry_order(args: &[String]) -> Vec<String> {
    const ORDER: [&str; 4] = ["--context", "--root", "--skills", "--skills-config"];
    let mut pairs: Vec<(usize, String, String)> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match ORDER.iter().position(|f| f == a) {
            Some(rank) => pairs.push((rank, a.clone(), it.next().cloned().unwrap_or_default())),
            None => rest.push(a.clone()),
        }
    }
    // Stable: the `--skills` layers keep their order.
    pairs.sort_by_key(|p| p.0);
    let mut out = vec![args.first().cloned().unwrap_or_else(|| "mcp".into())];
    for (_, flag, value) in pairs {
        out.extend([flag, value]);
    }
    out.extend(rest);
    out
}

/// What the entry starts, from how this binary was installed (npm launcher, uvx, a tool
/// install's command, or the binary's own path).
fn launch(edge: &Edge) -> Result<Launch, Failure> {
    let exe = edge.exe.as_ref().map_err(|e| {
        Failure::failed(miette!(
            help = "run vitaecontext by its full path, or add the entry by hand (see `vitaecontext register --help`)",
            "could not find the path of the running vitaecontext binary: {e}"
        ))
    })?;
    let facts = edge.install.clone().unwrap_or_else(|| install::Facts { exe: exe.clone(), ..Default::default() });
    Ok(install::launch(&facts, env!("CARGO_PKG_VERSION")))
}

/// `COMMAND mcp` with the person's choices, paths made absolute, and `--prompt-tools` for
/// clients that do not offer prompts. The launcher's own arguments go before `mcp` afterwards.
fn entry(fs: &dyn FileSystem, edge: &Edge, args: &RegisterArgs, client: Client, command: &str) -> Entry {
    let abs = |p: &Path| expand_path(&p.to_string_lossy(), edge.sources.home.as_deref(), &edge.sources.cwd);
    let mut mcp_args = vec!["mcp".to_string()];
    let mut push = |flag: &str, path: PathBuf, what: &str| {
        if fs.metadata(&path).is_err() {
            err(&format!("note: {what} {} does not exist yet\n", path.display()));
        }
        mcp_args.push(flag.to_string());
        mcp_args.push(path.display().to_string());
    };
    if let Some(c) = &args.context {
        push("--context", abs(c), "the Career Context");
    }
    if let Some(r) = &args.root {
        push("--root", abs(r), "the VitaeGraph folder");
    }
    for s in &args.skills {
        let (dir, priority) = split_priority(s);
        mcp_args.push("--skills".into());
        let dir = abs(Path::new(dir)).display().to_string();
        mcp_args.push(match priority {
            Some(p) => format!("{dir}={p}"),
            None => dir,
        });
    }
    if let Some(c) = &args.skills_config {
        mcp_args.push("--skills-config".into());
        mcp_args.push(abs(c).display().to_string());
    }
    if client.lacks_prompts() {
        mcp_args.push("--prompt-tools".into());
    }
    // The index follows the records while the assistant runs (README, "Register"); the way
    // out is --no-watch.
    if !args.no_watch {
        mcp_args.push("--watch".into());
    }
    Entry { command: command.to_owned(), args: mcp_args }
}

/// `DIR=PRIORITY` when what follows the last `=` is an integer; otherwise the whole is the DIR
/// (a folder name may hold `=`).
fn split_priority(s: &str) -> (&str, Option<&str>) {
    match s.rsplit_once('=') {
        Some((dir, p)) if !dir.is_empty() && p.parse::<i64>().is_ok() => (dir, Some(p)),
        _ => (s, None),
    }
}

fn command_line(e: &Entry) -> String {
    std::iter::once(e.command.as_str())
        .chain(e.args.iter().map(String::as_str))
        .map(clients::shell_quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The clients found on this machine, registered or not, then the ones not found.
/// `this` is the running binary: an entry that starts another one is pointed out.
fn listing(all: &[ClientStatus], this: Option<&str>) -> String {
    let found: Vec<_> = all.iter().filter(|s| s.found).collect();
    let mut s = String::new();
    if found.is_empty() {
        s.push_str("No MCP client configuration found on this machine.\n");
    } else {
        s.push_str("MCP clients found on this machine:\n");
        for c in &found {
            let path = c.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
            let state = match &c.registration {
                Registration::Present(e)
                    if this.is_some_and(|t| t != e.command)
                        && install::launcher_entry(&e.command, &e.args).is_none() =>
                {
                    format!("registered, with another binary: {}", command_line(e))
                }
                Registration::Present(e) => format!("registered: {}", command_line(e)),
                Registration::Absent => "not registered".to_string(),
                Registration::Unreadable(why) => format!("unreadable: {why}"),
            };
            s.push_str(&format!("  {:<15} {path}\n  {:<15} {state}\n", c.client.name(), ""));
        }
    }
    let missing: Vec<_> = all.iter().filter(|s| !s.found).map(|s| s.client.name()).collect();
    if !missing.is_empty() {
        s.push_str(&format!("Not found: {}\n", missing.join(", ")));
    }
    s.push_str("Register with one: vitaecontext register --client NAME [--context FILE] [--root DIR]\n");
    s
}

fn failure(e: RegisterError) -> Failure {
    match e {
        RegisterError::Edit { path, text, error: EditError::Parse { format, error } } => {
            let span = error.span.start.min(text.len())..error.span.end.min(text.len());
            Failure::failed(miette::Report::new(Unparseable {
                path: path.display().to_string(),
                format,
                line: error.line,
                column: error.column,
                src: NamedSource::new(path.display().to_string(), text),
                span: SourceSpan::from(span),
                message: error.message,
            }))
        }
        RegisterError::Edit { path, error: EditError::Shape(why), .. } => Failure::failed(miette!(
            code = "vitaecontext::register::unexpected_shape",
            help = "fix the file by hand, then run this again",
            "{}: {why}; nothing was written",
            path.display()
        )),
        e @ RegisterError::NoLocation { .. } => Failure::usage(miette!(
            code = "vitaecontext::register::no_location",
            help = "set the variable, or add the entry by hand (see `vitaecontext register --help`)",
            "{e}"
        )),
        e => Failure::failed(miette!(code = "vitaecontext::register::io", "{e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_names_found_clients_and_points_out_another_binary() {
        use domain::clients::Entry;
        let status = |client, found, registration| ClientStatus {
            client,
            path: Some(PathBuf::from(format!("/h/{}", Client::name(client)))),
            found,
            registration,
        };
        let e = |c: &str| Entry { command: c.into(), args: vec!["mcp".into()] };
        let all = [
            status(Client::Cursor, true, Registration::Present(e("/bin/vc"))),
            status(Client::Codex, true, Registration::Present(e("/old/vc"))),
            status(Client::Vscode, true, Registration::Absent),
            status(Client::Gemini, false, Registration::Absent),
        ];
        let text = listing(&all, Some("/bin/vc"));
        assert_eq!(
            text,
            "MCP clients found on this machine:\n\
             \x20 cursor          /h/cursor\n                  registered: /bin/vc mcp\n\
             \x20 codex           /h/codex\n                  registered, with another binary: /old/vc mcp\n\
             \x20 vscode          /h/vscode\n                  not registered\n\
             Not found: gemini\n\
             Register with one: vitaecontext register --client NAME [--context FILE] [--root DIR]\n"
        );
    }

    #[test]
    fn an_unparseable_file_renders_with_its_line_and_a_label() {
        let text = "{\n  // mine\n  \"mcpServers\": {}\n}\n".to_string();
        let error = match clients::register(Client::ClaudeDesktop, &text, &Entry { command: "v".into(), args: vec![] })
        {
            Err(e) => e,
            Ok(edit) => panic!("accepted: {edit:?}"),
        };
        let f =
            failure(RegisterError::Edit { path: "/h/.config/Claude/claude_desktop_config.json".into(), text, error });
        assert_eq!(f.code, 1);
        let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .with_links(false);
        let mut rendered = String::new();
        handler.render_report(&mut rendered, f.report.as_ref()).unwrap();
        insta::assert_snapshot!(rendered);
    }

    #[test]
    fn skills_priority_is_split_only_on_a_number() {
        assert_eq!(split_priority("~/skills=10"), ("~/skills", Some("10")));
        assert_eq!(split_priority("a=b/skills"), ("a=b/skills", None));
        assert_eq!(split_priority("skills"), ("skills", None));
        assert_eq!(split_priority("=5"), ("=5", None));
    }
}
