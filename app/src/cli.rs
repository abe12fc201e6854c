//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Below this, even an `initialize` request may not fit: every message would fail.
const MIN_FRAME_BYTES: u64 = 4096;

const ABOUT: &str = "Give AI assistants the truth about your career, from files you own.";

const LONG_ABOUT: &str = "\
vitaecontext serves your Career Context (one curated Markdown file) and your VitaeGraph (a \
folder of Markdown records) to AI assistants over the Model Context Protocol, so that a CV, a \
LinkedIn section or a profile README is written from your facts instead of invented ones.

Start the server for an MCP client:
    vitaecontext mcp --context ~/.vitaecontext/career-context.md --root ~/.vitaecontext/vitaegraph";

#[derive(Debug, Parser)]
#[command(name = "vitaecontext", version, about = ABOUT, long_about = LONG_ABOUT, propagate_version = true)]
pub struct Cli {
    /// How much to log on stderr. Overrides RUST_LOG; without either, warnings and errors only.
    #[arg(long, global = true, value_name = "LEVEL", value_enum)]
    pub log_level: Option<LogLevel>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LogLevel {
    Off,
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Set up vitaecontext for the first time, then print the next steps.
    ///
    /// Creates ~/.vitaecontext/ (readable by you only; a folder that exists with wider
    /// permissions is tightened, and you are told), a starter Career Context unless the server
    /// already finds yours, and an empty VitaeGraph in ~/.vitaecontext/vitaegraph (only what is
    /// missing). Never overwrites anything; safe to run again.
    Init {
        /// Use DIR as the home folder (~/.vitaecontext becomes DIR/.vitaecontext).
        #[arg(long, value_name = "DIR")]
        home: Option<PathBuf>,
    },

    /// Run the MCP server over stdio (newline-delimited JSON-RPC on stdin/stdout).
    ///
    /// stdout carries protocol frames only; logs go to stderr. The files it serves are chosen
    /// here, by the person, never by the model: see `--context` and `--root`.
    Mcp(McpArgs),

    /// Create, check and cut your Career Context file.
    #[command(subcommand)]
    Context(ContextCommand),

    /// Create, check and index your VitaeGraph (a folder of Markdown records).
    #[command(subcommand)]
    Graph(GraphCommand),

    /// Check a draft's claims against your files: each sentence or list item with a number,
    /// date or name is supported, partly supported, unsupported or contradicted. Exits 1 when
    /// anything is unsupported or contradicted.
    Check(CheckArgs),

    /// Compare a job posting with your files: which must-have and nice-to-have requirements they
    /// cover, and which supported keywords your CV packet leaves out.
    Match(MatchArgs),
}

/// Where the person's files are, as `mcp` takes them.
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// The Career Context file (default: as `mcp` selects it).
    #[arg(long, visible_alias = "context-path", value_name = "FILE")]
    pub context: Option<PathBuf>,

    /// The VitaeGraph root (default: $VITAEGRAPH_ROOT, else ~/.vitaecontext/vitaegraph).
    #[arg(long, visible_alias = "vitaegraph", value_name = "DIR")]
    pub root: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The draft to check (Markdown or plain text).
    pub file: PathBuf,
    /// The surface the draft is for.
    #[arg(long = "for", value_name = "SURFACE", value_enum, ignore_case = true)]
    pub surface: Option<SurfaceArg>,
    /// Print `{"claims": [...], "counts": {...}}` instead of the report.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub files: FilesArgs,
}

#[derive(Debug, Args)]
pub struct MatchArgs {
    /// The job posting (Markdown or plain text).
    pub file: PathBuf,
    /// Print the coverage as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub files: FilesArgs,
}

impl Command {
    /// Whether the command was asked for `--json`: its failures are then printed as a JSON
    /// object on stdout too, so a script never reads an empty stdout.
    pub fn wants_json(&self) -> bool {
        match self {
            Command::Context(
                ContextCommand::Validate { json, .. }
                | ContextCommand::Summary { json, .. }
                | ContextCommand::Init { json, .. },
            )
            | Command::Graph(GraphCommand::Validate { json, .. }) => *json,
            Command::Check(CheckArgs { json, .. }) | Command::Match(MatchArgs { json, .. }) => *json,
            _ => false,
        }
    }
}

/// Where the VitaeGraph is: `--root`, else $VITAEGRAPH_ROOT, else ~/.vitaecontext/vitaegraph.
#[derive(Debug, Args)]
pub struct RootArg {
    /// The VitaeGraph folder (`~` expands). Default: $VITAEGRAPH_ROOT, then
    /// ~/.vitaecontext/vitaegraph.
    #[arg(long, visible_alias = "vitaegraph", value_name = "DIR")]
    pub root: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum GraphCommand {
    /// Create what is missing of the layout: the folder, VITAEGRAPH.md, index.md and the record
    /// folders (readable by you only). Never replaces anything without --force, so it is safe
    /// to run on a graph full of records.
    Init {
        #[command(flatten)]
        root: RootArg,
        /// Rewrite VITAEGRAPH.md and index.md from the starter text, keeping each replaced file
        /// as `<name>.backup-<UTC time>` beside it.
        #[arg(long)]
        force: bool,
    },
    /// Check every record: front matter, ids, types, parents, related records, links.
    ///
    /// Exit status: 0 valid (warnings allowed), 1 invalid, 2 bad usage or missing root.
    Validate {
        #[command(flatten)]
        root: RootArg,
        /// Print {version, valid, root, records, errors, warnings} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Validate, then write .generated/graph.json, search-index.json and diagnostics.json
    /// (atomically, byte-identical on reruns). An invalid graph removes the stale graph and
    /// search index and writes only diagnostics.json.
    Index {
        #[command(flatten)]
        root: RootArg,
    },
}

#[derive(Debug, Subcommand)]
pub enum ContextCommand {
    /// Check a Career Context against the format: every finding with its line, and how to fix it.
    ///
    /// Without FILE, the file the server would serve is checked: $VITAECONTEXT_CAREER_CONTEXT,
    /// then ~/.vitaecontext/career-context.md, then the one *-career-context.md or *.context.md
    /// file in ~/.vitaecontext/ (stderr says which). Exit status: 0 valid (warnings allowed),
    /// 1 invalid, 2 bad usage or unreadable file.
    Validate {
        /// The Career Context file (`~` expands).
        file: Option<PathBuf>,
        /// Print the result as JSON on stdout: {schemaVersion, valid, path, title, sectionNames, errors, warnings}.
        #[arg(long)]
        json: bool,
    },
    /// Print the packet an assistant gets for one surface: the QUICK REFERENCE plus the sections
    /// that surface needs, copied verbatim.
    Summary {
        /// The Career Context file; without it, the same selection as `validate`.
        file: Option<PathBuf>,
        /// The surface to cut for.
        #[arg(long = "for", value_name = "SURFACE", value_enum, ignore_case = true, default_value_t = SurfaceArg::General)]
        surface: SurfaceArg,
        /// Write the packet to this file (atomically) instead of stdout.
        #[arg(long, short, value_name = "PATH")]
        output: Option<PathBuf>,
        /// Replace --output if it already exists.
        #[arg(long, requires = "output")]
        force: bool,
        /// Print {schemaVersion, source, surface, title, selectedSections, content, output} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write a starter Career Context with every required section and guidance comments.
    ///
    /// It does not validate until you replace its [bracketed] placeholders with your facts.
    Init {
        /// Where to write it (default ~/.vitaecontext/career-context.md; the folder is created
        /// readable by you only).
        #[arg(long, short, value_name = "PATH")]
        output: Option<PathBuf>,
        /// Replace the file if it already exists.
        #[arg(long)]
        force: bool,
        /// Print {schemaVersion, path} as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// The surfaces a packet can be cut for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SurfaceArg {
    Cv,
    Github,
    Linkedin,
    Portfolio,
    X,
    General,
}

impl From<SurfaceArg> for domain::career::Surface {
    fn from(s: SurfaceArg) -> Self {
        use domain::career::Surface;
        match s {
            SurfaceArg::Cv => Surface::Cv,
            SurfaceArg::Github => Surface::Github,
            SurfaceArg::Linkedin => Surface::Linkedin,
            SurfaceArg::Portfolio => Surface::Portfolio,
            SurfaceArg::X => Surface::X,
            SurfaceArg::General => Surface::General,
        }
    }
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// The Career Context file to serve. Default: $VITAECONTEXT_CAREER_CONTEXT, then
    /// ~/.vitaecontext/career-context.md, then the one *-career-context.md or *.context.md file
    /// in ~/.vitaecontext/.
    #[arg(long, visible_alias = "context-path", value_name = "FILE")]
    pub context: Option<PathBuf>,

    /// The VitaeGraph folder to serve. Default: $VITAEGRAPH_ROOT, then ~/.vitaecontext/vitaegraph.
    #[arg(long, visible_alias = "vitaegraph", value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// The longest message accepted, in bytes (at least 4096); a longer one is answered with a
    /// parse error (-32700) and skipped.
    #[arg(long, value_name = "BYTES", default_value_t = stdio::DEFAULT_MAX_FRAME_BYTES,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(MIN_FRAME_BYTES..))]
    pub max_frame_bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn a_frame_cap_too_small_for_any_message_is_refused() {
        let e = Cli::try_parse_from(["vitaecontext", "mcp", "--max-frame-bytes", "0"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(Cli::try_parse_from(["vitaecontext", "mcp", "--max-frame-bytes", "4096"]).is_ok());
    }

    #[test]
    fn surfaces_are_accepted_in_any_case() {
        let cli = Cli::try_parse_from(["vitaecontext", "context", "summary", "--for", "CV"]).unwrap();
        let Command::Context(ContextCommand::Summary { surface, .. }) = cli.command else { panic!("summary") };
        assert_eq!(surface, SurfaceArg::Cv);
    }

    #[test]
    fn a_flag_and_its_alias_together_are_a_usage_error() {
        let e = Cli::try_parse_from(["vitaecontext", "mcp", "--context", "a", "--context-path", "b"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let e = Cli::try_parse_from(["vitaecontext", "mcp", "--root", "a", "--vitaegraph", "b"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }
}
