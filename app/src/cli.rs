//! Command-line arguments.

use std::path::PathBuf;

use clap::builder::TypedValueParser as _;
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

/// `--version` (not `-V`): the version on the first line, as `doctor` and scripts read it, then
/// the commit and the target it was built for (`build.rs`).
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\ncommit ",
    env!("VITAECONTEXT_COMMIT"),
    "\ntarget ",
    env!("VITAECONTEXT_TARGET")
);

#[derive(Debug, Parser)]
#[command(
    name = "vitaecontext",
    version,
    long_version = LONG_VERSION,
    about = ABOUT,
    long_about = LONG_ABOUT,
    propagate_version = true
)]
pub struct Cli {
    /// How much to log on stderr. Overrides RUST_LOG; without either, warnings and errors only,
    /// plus one line when `mcp` starts saying which files it serves.
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

    /// Add vitaecontext to an AI assistant's MCP configuration, or list the assistants found.
    ///
    /// With --client, the entry runs vitaecontext as it was installed: `npx -y vitaecontext@VERSION`
    /// when npx ran it from its cache, `uvx vitaecontext@VERSION` from uvx, the command on PATH
    /// that leads to an installed copy (npm -g, uv tool, pipx, Homebrew, cargo install), else this
    /// binary's absolute path (with a warning when that path is in a cargo target/ folder, a
    /// cache or a temporary folder). It runs `mcp` with your
    /// --context, --root and --skills choices. The file is merged (other servers, settings and
    /// comments stay), backed up beside itself as <file>.vitaecontext-backup-<UTC time>, then
    /// replaced atomically; registering twice changes nothing. Without --client, it lists the
    /// clients found here and whether each has vitaecontext.
    #[command(after_long_help = domain::clients::locations_help())]
    Register(RegisterArgs),
    /// List, check, create and remove skills: layered prompt and tool definitions.
    #[command(long_about = SKILLS_LONG_ABOUT)]
    Skills(SkillsArgs),

    /// Check the whole setup as the server would see it, and say what to fix.
    #[command(long_about = DOCTOR_LONG_ABOUT)]
    Doctor(DoctorArgs),

    /// Open the board: a local web page to see and fix your setup, browse your records and
    /// check a draft.
    #[command(long_about = BOARD_LONG_ABOUT)]
    Board(BoardArgs),

    /// Check a draft's claims against your files: each sentence or list item with a number,
    /// date or name is supported, partly supported, unsupported or contradicted. Exits 1 when
    /// anything is unsupported or contradicted, 2 when the draft, a file named by --context or
    /// --root, or both sources could not be read (nothing is checked then).
    Check(CheckArgs),

    /// Import your career from LinkedIn's data archive or a JSON Resume.
    #[command(subcommand, long_about = IMPORT_LONG_ABOUT)]
    Import(ImportCommand),

    /// Export your career as a JSON Resume.
    #[command(subcommand)]
    Export(ExportCommand),

    /// Compare a job posting with your files: which must-have and nice-to-have requirements they
    /// cover, and which supported keywords your CV packet leaves out. Exits 2, as check does,
    /// when the posting or the files to compare it with could not be read.
    Match(MatchArgs),
}

const IMPORT_LONG_ABOUT: &str = "\
Import your career from LinkedIn's data archive or a JSON Resume into a Career Context and \
VitaeGraph records: roles, degrees, certifications, projects, honors and awards, publications, \
languages with levels and skills, and the QUICK REFERENCE (name, headline as \
positioning_summary, location). Every imported entry names its source file and row.

Where: the Career Context and VitaeGraph root the server would serve (--context, --root, their \
environment variables, else ~/.vitaecontext/career-context.md and ~/.vitaecontext/vitaegraph).

Never overwrites: with no files there it writes new ones; with files there it shows a plan (new, \
changed, unchanged, only-yours) with a diff of each changed file, and writes only with --write, \
adding what is missing and keeping what you wrote by hand. All files are written as one set, or \
none.

What an import cannot know (the scope paragraph, your goals, a TL;DR line per role and project, \
the VERIFIED FACTS comment) is left as FILL IN comments; the command lists them and `doctor` \
says what is left.

A damaged archive, a CSV with a broken quote, an archive that unpacks to more than 64 MiB (a ZIP \
bomb), text that is not UTF-8 or a JSON Resume that fails its schema: an error naming the file \
and row, and nothing written.

Exit status: 0 done (or planned), 1 bad input, 2 bad usage.";

/// `vitaecontext import ...`.
#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// LinkedIn's "Get a copy of your data" archive (the .zip as LinkedIn sends it).
    ///
    /// Reads only your own files: Profile.csv, Positions.csv, Education.csv, Skills.csv,
    /// Languages.csv, Certifications.csv, Projects.csv, Honors.csv and Publications.csv.
    /// Every other file (Connections.csv, messages.csv, Invitations.csv, endorsements: other
    /// people's data) is never opened, and the command says it skipped them.
    Linkedin {
        /// The archive.
        #[arg(value_name = "ARCHIVE.zip")]
        archive: PathBuf,
        #[command(flatten)]
        files: FilesArgs,
        /// Write the plan into files that exist (adding what is missing, keeping your text).
        #[arg(long)]
        write: bool,
    },
    /// A JSON Resume (https://jsonresume.org/schema): every section; volunteer work becomes
    /// roles; interests and references (other people's words) are not imported.
    JsonResume {
        /// The resume.json file.
        #[arg(value_name = "resume.json")]
        file: PathBuf,
        #[command(flatten)]
        files: FilesArgs,
        /// Write the plan into files that exist (adding what is missing, keeping your text).
        #[arg(long)]
        write: bool,
    },
}

/// `vitaecontext export ...`.
#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// Write a JSON Resume (schema 1.0.0, ISO dates) from your Career Context and VitaeGraph
    /// records, for resume builders and JSON Resume themes.
    ///
    /// The person from the QUICK REFERENCE (name, positioning_summary, location, email, phone,
    /// website, profiles, languages), the summary from a "Profile summary" section, skills
    /// from the Skills Index, roles, degrees, certifications, projects, awards and publications
    /// from the records. Records with `visibility: private` are left out unless
    /// --include-private. Prints to stdout without --out.
    JsonResume {
        /// Write to this file (never replaced without --force).
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Replace --out if it exists.
        #[arg(long, requires = "out")]
        force: bool,
        /// Add the records marked `visibility: private`.
        #[arg(long)]
        include_private: bool,
        #[command(flatten)]
        redact: RedactArg,
        #[command(flatten)]
        files: FilesArgs,
    },
}

/// `--redact CLASSES`.
#[derive(Debug, Clone, Args)]
pub struct RedactArg {
    /// Leave these classes of QUICK REFERENCE keys (and labelled lines such as `Email: ...`) out
    /// of everything shared: `contact` (email, phone, address, postcode, birthday...), `salary`
    /// (salary, compensation, rate, pay...), comma-separated. Default: $VITAECONTEXT_REDACT,
    /// else nothing is redacted.
    #[arg(long, value_name = "CLASSES", value_parser = parse_redact)]
    pub redact: Option<domain::portable::redact::Redact>,
}

fn parse_redact(s: &str) -> Result<domain::portable::redact::Redact, String> {
    domain::portable::redact::Redact::parse(s)
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
    #[arg(long, conflicts_with = "explain")]
    pub json: bool,
    /// After the report, say how every claim was read, supported ones too: each typed
    /// assertion (title at employer, dates, degree...) with the entity and value it was judged
    /// against, and each number, date or name with the file and line it was found at.
    #[arg(long)]
    pub explain: bool,
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

const DOCTOR_LONG_ABOUT: &str = "\
Check the whole setup as the server would see it, and say what to fix.

Uses the server's own rules: which Career Context and VitaeGraph root the same flags and \
environment select (or why none), every validation finding, a Career Context other users can \
read, whether the VitaeGraph's generated index is missing or stale (compared with what `graph \
index` would write now, naming the records that changed) and whether a record path in it leads \
outside the root, the skill layers (missing folders, files that do not parse, id conflicts, ids \
of the server's own prompts and tools, `{{placeholders}}` nothing fills), and the MCP clients \
that register vitaecontext (a command that no longer exists, another binary than this one).

With --live, each client's command is also run: `COMMAND --version`, and `COMMAND ARGS` sent \
one `initialize` request (5 s each at most), which must be answered with JSON-RPC only on \
stdout. It is opt-in because it starts programs named in the clients' config files.

Every finding is printed once, then `N errors, M warnings`.
Exit status: 0 no errors (warnings allowed), 1 errors, 2 bad usage.";

/// `vitaecontext doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The Career Context to check, as `mcp --context` takes it.
    #[arg(long, visible_alias = "context-path", value_name = "FILE")]
    pub context: Option<PathBuf>,
    /// The VitaeGraph folder to check, as `mcp --root` takes it.
    #[arg(long, visible_alias = "vitaegraph", value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// A skill layer folder, as `mcp --skills` takes it (repeatable).
    #[arg(long = "skills", value_name = "DIR[=PRIORITY]", value_parser = parse_skills_dir)]
    pub skills: Vec<SkillsDir>,
    /// The skills config, as `mcp --skills-config` takes it.
    #[arg(long = "skills-config", value_name = "FILE")]
    pub skills_config: Option<PathBuf>,
    /// Also run each registered client's command (`--version`, one `initialize`).
    #[arg(long)]
    pub live: bool,
    /// The redact classes, as `mcp --redact` takes them (doctor shows what they leave out).
    #[command(flatten)]
    pub redact: RedactArg,
    /// Print the findings as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Record types by name, with the names listed in `--help` and in errors.
fn record_type_parser() -> impl clap::builder::TypedValueParser<Value = domain::graph::RecordType> {
    use domain::graph::RecordType;
    clap::builder::PossibleValuesParser::new(RecordType::ALL.iter().map(|t| t.as_str()))
        .map(|name| RecordType::parse(&name).expect("a possible value is a record type"))
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
            | Command::Graph(GraphCommand::Validate { json, .. })
            | Command::Doctor(DoctorArgs { json, .. }) => *json,
            Command::Check(CheckArgs { json, .. }) | Command::Match(MatchArgs { json, .. }) => *json,
            // Found in review: `skills list --json` with an unreadable config printed no JSON.
            Command::Skills(SkillsArgs {
                command: SkillsCommand::List { json, .. } | SkillsCommand::Show { json, .. },
                ..
            }) => *json,
            _ => false,
        }
    }
}

const BOARD_LONG_ABOUT: &str = "\
Open the board: a local web page to see and fix your setup, browse your records and check a draft.

It serves, on this machine only, the doctor report with each fix, your Career Context's \
diagnostics on the file's lines, the VitaeGraph's state with a button to re-index it, your skills \
(layers, what shadows what, a prompt preview, editing with a conflict check and backups), a \
search of your records, and the check of a draft or a job posting (the same engine as `check` and \
`match`).

The URL printed holds a one-time secret: open it (or pass --open) and the browser gets a cookie \
for this run; the page is then at the URL without the secret. Nothing else can use the board: \
every request must come from that browser with the Host it was opened at, and every change \
from the board's own pages. It listens on 127.0.0.1 unless --host names another address, and \
refuses an address other machines can reach unless --i-understand-nonlocal is given. It stops \
with Ctrl-C.

Examples:
  vitaecontext board
  vitaecontext board --open --port 8080
  vitaecontext board --root ~/vitaegraph --skills ~/team-skills=50";

const SKILLS_LONG_ABOUT: &str = "\
List, check, create and remove skills: prompt and tool definitions that the MCP server offers \
next to its own, in the skill-central model (its files and skill-central.yaml work unchanged).

A skill is a file in a layer folder:
  id: cv-bullet-rewriter          (required; kebab-case for `skills add`)
  type: prompt                    (required: prompt | tool)
  name, description, version      (optional)
  tags: [cv, writing]             (a string or a list; `skills:compose` matches them)
  arguments:                      (prompt arguments: name, description, required)
    - {name: bullet, required: true}
  prompt: |                       (the template; or prompt_zh, or both)
    Rewrite {{bullet}} using only these facts:
    {{career_context.cv}}
  inputSchema: {...}              (tools: a JSON Schema object for the arguments)
Files are .yaml, .yml or .json, or a folder with a SKILL.md (Agent Skills: YAML front matter, \
the body is the prompt). Names starting with `.` or `_` are skipped (`_template.yaml`).

{{name}} is filled from the arguments; {{career_context}} and {{career_context.SURFACE}} (cv, \
github, linkedin, portfolio, x, general) with your own Career Context packets, so a skill is \
grounded in your facts.

Layers have a name and a priority; on the same id the higher priority wins. Two definitions at \
the same top priority are a conflict: neither is served until you remove or rename one. Layers \
come from a config file (`layers: [{name, path, priority}]`, paths relative to it): \
--skills-config, else $VITAECONTEXT_SKILLS_CONFIG, else ~/.vitaecontext/skills.yaml when it \
exists; and from --skills DIR[=PRIORITY] (priority 100 by default).

Start with `vitaecontext skills init`, then `vitaecontext skills list`.
Exit status: 0 done, 1 failed (an invalid file, a refused overwrite), 2 bad usage.";

/// Where the skill layers are (shared by every `skills` command).
#[derive(Debug, Clone, Default, Args)]
pub struct SkillsSourceArgs {
    /// A skill layer folder, optionally with its priority (default 100): `--skills ~/team=50`.
    /// Repeatable; `~` expands. Default: the folders in $VITAECONTEXT_SKILLS (separated as in
    /// PATH).
    #[arg(long = "skills", value_name = "DIR[=PRIORITY]", value_parser = parse_skills_dir, global = true)]
    pub dirs: Vec<SkillsDir>,
    /// The layer config: `layers: [{name, path, priority}]`. Default: $VITAECONTEXT_SKILLS_CONFIG,
    /// then ~/.vitaecontext/skills.yaml when it exists.
    #[arg(long = "skills-config", value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,
}

/// One `--skills DIR[=PRIORITY]`, parsed where `$VITAECONTEXT_SKILLS` is too.
pub use crate::sources::{SkillsDir, parse_skills_dir};

impl SkillsSourceArgs {
    pub fn dirs(&self) -> Vec<(String, i64)> {
        self.dirs.iter().map(|d| (d.dir.clone(), d.priority)).collect()
    }
}

#[derive(Debug, Args)]
pub struct SkillsArgs {
    #[command(flatten)]
    pub sources: SkillsSourceArgs,
    #[command(subcommand)]
    pub command: SkillsCommand,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SkillTypeArg {
    Prompt,
    Tool,
}

impl From<SkillTypeArg> for domain::skills::SkillType {
    fn from(t: SkillTypeArg) -> Self {
        match t {
            SkillTypeArg::Prompt => domain::skills::SkillType::Prompt,
            SkillTypeArg::Tool => domain::skills::SkillType::Tool,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// The skills the server would serve, in listing order (broadest layer first), with
    /// skipped files, conflicts and refused ids as warnings on stderr.
    List {
        /// Only prompts or only tools.
        #[arg(long = "type", value_enum, value_name = "TYPE")]
        kind: Option<SkillTypeArg>,
        /// Only skills with this tag (case does not matter).
        #[arg(long, value_name = "TAG")]
        tag: Option<String>,
        /// Only skills served from this layer (by name).
        #[arg(long, value_name = "LAYER")]
        layer: Option<String>,
        /// Print {skills, conflicts, skipped, refused} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// One skill: the winning definition, its layer and file, and the definitions it shadows.
    Show {
        id: String,
        /// Print it as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check skill files, SKILL.md folders, or a layer folder (walked as the server walks it)
    /// without serving them: every problem with its line, a label under it and how to fix it,
    /// and the warnings `doctor` gives (a placeholder nothing fills). Files whose name starts
    /// with `_` are templates the server skips: said so. Exit 1 when one is invalid.
    Validate {
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
    },
    /// Write a starter layer set: a config (skills.yaml) and two layers with examples grounded
    /// in your Career Context. Never overwrites: existing files are kept.
    Init {
        /// Where (default ~/.vitaecontext, where the server finds skills.yaml by itself).
        dir: Option<PathBuf>,
    },
    /// Add a skill to a layer, from flags or from a file.
    ///
    /// From flags: `skills add --id cover-letter --prompt "Write ... {{career_context.cv}}" --tag cv`
    /// (add `--layer personal` when the config has several layers, as `skills init` makes).
    /// From a file: `skills add --from my-skill.yaml`. The id must be kebab-case. An existing
    /// file is replaced only with --force, which keeps the old one beside it as
    /// FILE.vitaecontext-backup-<UTC time>.
    Add {
        /// The skill id (kebab-case: lower-case words joined by `-`).
        #[arg(long, value_name = "ID")]
        id: Option<String>,
        /// The kind of skill.
        #[arg(long = "type", value_enum, value_name = "TYPE", default_value_t = SkillTypeArg::Prompt)]
        kind: SkillTypeArg,
        /// The display name (default: the id).
        #[arg(long)]
        name: Option<String>,
        /// One sentence on what the skill is for, shown to the assistant in the prompt or tool
        /// list (default: none).
        #[arg(long)]
        description: Option<String>,
        /// A tag; repeat for more.
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// The prompt template.
        #[arg(long, value_name = "TEXT", conflicts_with = "from")]
        prompt: Option<String>,
        /// An argument the template fills as `{{NAME}}`: `--arg job`, `--arg "job:the posting"`,
        /// `--arg "job:the posting:required"`; repeat for more. A placeholder that no argument
        /// declares (and that is not `{{career_context...}}`) is warned of.
        #[arg(long = "arg", value_name = "NAME[:DESCRIPTION][:required]", conflicts_with = "from")]
        args: Vec<String>,
        /// Copy this skill file (YAML, JSON or SKILL.md) instead of building one from flags.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["name", "description", "tags"])]
        from: Option<PathBuf>,
        /// The layer to write into (by name); required when there are several.
        #[arg(long, value_name = "LAYER")]
        layer: Option<String>,
        /// Replace an existing file, keeping it as FILE.vitaecontext-backup-<UTC time>.
        #[arg(long)]
        force: bool,
    },
    /// Write every skill the server serves as an Agent Skills folder (DIR/<name>/SKILL.md and
    /// its files), for tools that read skill folders from disk: the files and bytes the MCP
    /// skills extension serves (a YAML or JSON skill as a generated SKILL.md). Each skill is
    /// written whole or not at all; files already there byte for byte are up to date. Never
    /// replaces a file without --force. DIR may not be, hold or lie inside a skill layer (exit
    /// 2). Ends with a line of totals. Exit 1 when a skill could not be written (each is named
    /// on stderr, with why); the others are written. A tool skill without a template is skipped.
    Export {
        /// The folder to write the skill folders into (made if missing).
        #[arg(long = "agent-skills", value_name = "DIR", required = true)]
        agent_skills: PathBuf,
        /// Replace files already there, and remove the files an earlier export left that a skill
        /// no longer has (each skill's changes as one set: all or none).
        #[arg(long)]
        force: bool,
    },
    /// Remove a skill's file from its layer. Refuses when the id lives in several layers and
    /// no --layer is given.
    Remove {
        id: String,
        /// The layer to remove it from (by name).
        #[arg(long, value_name = "LAYER")]
        layer: Option<String>,
    },
    /// Install skills from a source into a layer, and record them in a lock.
    #[command(long_about = INSTALL_LONG_ABOUT)]
    Install {
        /// github:USER/REPO[/PATH][@REF], git+URL[#PATH][@REF], npm:PACKAGE[@VERSION], or a folder.
        #[arg(required_unless_present = "frozen", value_name = "SOURCE")]
        source: Option<String>,
        /// The layer to install into (by name); required when there are several.
        #[arg(long, value_name = "LAYER", conflicts_with = "frozen")]
        layer: Option<String>,
        /// Install exactly what the lock says, and fail on any difference (as `skills sync`).
        #[arg(long, conflicts_with = "source")]
        frozen: bool,
        /// Write without asking (otherwise a terminal asks, and without one nothing is written).
        #[arg(long, short = 'y')]
        yes: bool,
        /// Overwrite installed files that were edited since (each kept as FILE.vitaecontext-backup-<UTC time>).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        scope: ScopeFlags,
        #[command(flatten)]
        token: TokenFlag,
    },
    /// Install exactly what the lock says (the same as `skills install --frozen`): each skill at
    /// its locked commit or version, checked file by file against the lock's SHA-256; any
    /// difference (in the source or on disk) fails and nothing is written. Shows what it will
    /// write and writes after a yes.
    Sync {
        /// Write without asking (otherwise a terminal asks, and without one nothing is written).
        #[arg(long, short = 'y')]
        yes: bool,
        #[command(flatten)]
        scope: ScopeFlags,
        #[command(flatten)]
        token: TokenFlag,
    },
    /// Fetch installed skills again at their ref (a branch moves on; a tag stays) or at --ref,
    /// show a diff per file, and write after a yes. Refuses to overwrite files edited since they
    /// were installed unless --force, and a tag that now names another commit unless --force.
    Update {
        /// One installed skill (default: all of the scope's).
        id: Option<String>,
        /// Move the skill to this git ref (branch, tag, commit) or npm version.
        #[arg(long = "ref", value_name = "REF|VERSION")]
        to: Option<String>,
        /// Show what would change, write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Overwrite edited files (each kept as FILE.vitaecontext-backup-<UTC time>).
        #[arg(long)]
        force: bool,
        /// Write without asking.
        #[arg(long, short = 'y')]
        yes: bool,
        #[command(flatten)]
        scope: ScopeFlags,
        #[command(flatten)]
        token: TokenFlag,
    },
    /// Remove an installed skill's files and its lock entry, after showing them and a yes.
    /// Refuses files edited since they were installed unless --force; `skills remove` is for skills that were not installed.
    Uninstall {
        id: String,
        /// Also remove the backups `--force` kept beside its files.
        #[arg(long)]
        purge_backups: bool,
        /// Remove it even when its files were edited.
        #[arg(long)]
        force: bool,
        /// Remove without asking (otherwise a terminal asks, and without one nothing is removed).
        #[arg(long, short = 'y')]
        yes: bool,
        #[command(flatten)]
        scope: ScopeFlags,
    },
    /// List installed skills with newer commits (a branch), newer tags or npm versions, or a
    /// changed folder.
    Outdated {
        /// Exit with status 3 when a skill has something newer (for scripts and CI); without
        /// it the status is 0 whether or not there is (1 when a source could not be checked).
        #[arg(long)]
        exit_code: bool,
        #[command(flatten)]
        scope: ScopeFlags,
        #[command(flatten)]
        token: TokenFlag,
    },
    /// Bring the skills skill-central installed (its ~/.skill-central/lock.json, version 1 or 2)
    /// into this lock: each fetched again at the ref or version it recorded and adopted only
    /// when the source still gives the bytes skill-central installed.
    Adopt {
        /// The layer to install them into (by name); required when there are several.
        #[arg(long, value_name = "LAYER")]
        layer: Option<String>,
        /// Write without asking.
        #[arg(long, short = 'y')]
        yes: bool,
        #[command(flatten)]
        scope: ScopeFlags,
        #[command(flatten)]
        token: TokenFlag,
    },
}

/// Whose skills an install command works on.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ScopeFlags {
    /// The project's: layers from ./skill-central.yaml (or --skills-config), the lock
    /// ./skills-lock.json (meant to be committed). The default where that lock exists.
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Yours: layers from ~/.vitaecontext/skills.yaml (or --skills-config), the lock
    /// ~/.vitaecontext/skills-lock.json. The default elsewhere.
    #[arg(long)]
    pub user: bool,
}

/// `--github-token`.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct TokenFlag {
    /// Send $GITHUB_TOKEN (or $GH_TOKEN) to github.com, over https, and to no other host; it is
    /// never printed or written. Without it your git's credentials and SSH keys do the work.
    #[arg(long)]
    pub github_token: bool,
}

const INSTALL_LONG_ABOUT: &str = "\
Install skills from a source into a layer, and record them in a lock.

Sources:
  github:USER/REPO[/PATH][@REF]      skill-central's syntax, fetched with your git over https
  git+URL[#PATH][@REF]               any git remote: https://, ssh://, user@host:path, file://
                                     (a REF with '/' needs the # form: git+URL#PATH@feat/x)
  npm:PACKAGE[@VERSION]              fetched with your npm (--ignore-scripts), its integrity
                                     checked; package.json lists its skills as skill-central
                                     asks: \"skill-central\": {\"paths\": [...]}
  a folder                           ./team-skills, ~/skills, /abs/path
A source holds skill-central YAML/JSON skills and Agent Skills folders (SKILL.md with the files
beside it); PATH may name one skill or a folder of them.

Before writing, the ref is resolved to a commit (or the npm version and its integrity), every
skill is checked with the validator `skills validate` uses, text hiding Unicode controls (bidi,
zero-width, tag characters) is refused, and what will be written is shown: ids, files, sizes,
SHA-256, where, and what each shadows. It is written only after --yes or a yes on a terminal,
all at once: a failure leaves nothing. Nothing from a source is ever run.

The lock (skills-lock.json: sorted, no time stamps, one entry per skill with its source, commit or
version and integrity, layer, path and the SHA-256 of each file) lives in the project for
--project installs, meant to be committed, and in ~/.vitaecontext/ for --user installs.
`skills sync` (or `install --frozen`) installs exactly what it says; `skills update`,
`uninstall`, `outdated` and `adopt` (skill-central's lock) work from it; `doctor` reports installed
files that differ from it.

Private sources: your git configuration (credential helpers, SSH keys, insteadOf rules) and your
npm configuration (.npmrc) do the authentication; --github-token sends $GITHUB_TOKEN or $GH_TOKEN
to github.com only.";

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
        /// as `<name>.vitaecontext-backup-<UTC time>` beside it.
        #[arg(long)]
        force: bool,
    },
    /// Add a record: writes TYPE's file at its canonical path with valid front matter and a
    /// skeleton of what a good record of that type says. Never overwrites.
    ///
    /// Paths: project -> projects/SLUG/project.md, experience -> experience/SLUG/experience.md,
    /// education -> education/SLUG/education.md, thesis -> education/PARENT/thesis.md, course ->
    /// education/PARENT/courses/SLUG.md, certification | award | publication ->
    /// <folder>/SLUG.md. A course or thesis needs --parent education:<slug>. An id another
    /// record already has, or a --parent no record has, is refused (exit 1), as `graph
    /// validate` would refuse the graph.
    Add {
        /// The record type.
        #[arg(value_name = "TYPE", value_parser = record_type_parser())]
        kind: domain::graph::RecordType,
        /// Lower-case letters, digits and dashes; the id becomes TYPE:SLUG.
        slug: String,
        /// The title (default: the slug in words).
        #[arg(long)]
        title: Option<String>,
        /// The id of the record it belongs to (required for course and thesis: an education id).
        #[arg(long, value_name = "ID")]
        parent: Option<String>,
        /// Tags, comma-separated.
        #[arg(long, value_delimiter = ',', value_name = "TAGS")]
        tags: Vec<String>,
        #[command(flatten)]
        root: RootArg,
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
    /// search index and writes only diagnostics.json. Beside them, .generated/search-index.bin
    /// holds the search structures for the server to load at once (a cache: one that is missing
    /// or does not match search-index.json is ignored).
    ///
    /// Incremental: .generated/manifest.bin remembers what each file held, so a rerun parses
    /// only the records that changed, and .generated/documents.bin where each search document
    /// lies, so a rerun copies those of unchanged records from the previous search index (the
    /// output is the same as a full run's). Deleting either is safe: the next run parses or
    /// renders everything. A rerun with no record changed, whose generated files are all as the
    /// last run left them (.generated/outputs.bin lists them), writes none of them and says so
    /// (a record saved with the same bytes has only the manifest and that list written again).
    /// --full ignores those three caches: every record is parsed and every file written.
    ///
    /// With --watch, it keeps running: after the first index, every batch of changes to the
    /// records (a burst is one batch: it closes 200 ms after the last change, or 1 s after the
    /// first) is re-indexed, with one line on stderr each; so is an index removed from
    /// .generated/ (the folder, or one of the JSON files). An invalid graph is reported and the
    /// watch goes on. Ctrl-C (or SIGTERM) stops it after the index under way; a second one at
    /// once.
    Index {
        #[command(flatten)]
        root: RootArg,
        /// Keep the index current as records change, until Ctrl-C or SIGTERM.
        #[arg(long)]
        watch: bool,
        /// Ignore the caches in .generated/: parse, render and write everything.
        ///
        /// The caches are manifest.bin, documents.bin and outputs.bin; they are written anew.
        /// The output is the same as a rerun's, unless a cache vouches for what no longer
        /// holds (a copied or edited cache, a filesystem whose file times do not change with
        /// the content): use it when `doctor` finds the index stale and a plain rerun does not
        /// fix it.
        #[arg(long, conflicts_with = "watch")]
        full: bool,
        /// Print the outcome as one JSON line on stdout, for `mcp --watch`, which indexes in a
        /// child process (hidden: not for people).
        #[arg(long, hide = true, conflicts_with = "watch")]
        summary_json: bool,
        #[command(flatten)]
        debounce: DebounceArgs,
    },
}

/// The debounce timings of `--watch`, hidden: tests stretch them so that a burst written on a
/// loaded machine is still one batch.
#[derive(Debug, Args)]
pub struct DebounceArgs {
    #[arg(long, hide = true, value_name = "MS", default_value_t = crate::usecase::watch::QUIET.as_millis() as u64)]
    pub watch_quiet_ms: u64,
    #[arg(long, hide = true, value_name = "MS", default_value_t = crate::usecase::watch::MAX_WAIT.as_millis() as u64)]
    pub watch_max_wait_ms: u64,
}

impl DebounceArgs {
    pub fn timings(&self) -> crate::usecase::watch::Timings {
        use std::time::Duration;
        crate::usecase::watch::Timings {
            quiet: Duration::from_millis(self.watch_quiet_ms),
            max_wait: Duration::from_millis(self.watch_max_wait_ms),
        }
    }
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
        /// The same as FILE, spelled as every other command spells it.
        #[arg(long = "context", visible_alias = "context-path", value_name = "FILE", conflicts_with = "file")]
        context: Option<PathBuf>,
        /// Print the result as JSON on stdout: {schemaVersion, valid, path, title, sectionNames, errors, warnings}.
        #[arg(long)]
        json: bool,
    },
    /// Print the packet an assistant gets for one surface: the QUICK REFERENCE plus the sections
    /// that surface needs, copied verbatim.
    Summary {
        /// The Career Context file; without it, the same selection as `validate`.
        file: Option<PathBuf>,
        /// The same as FILE, spelled as every other command spells it.
        #[arg(long = "context", visible_alias = "context-path", value_name = "FILE", conflicts_with = "file")]
        context: Option<PathBuf>,
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
        /// Replace the file if it already exists; the old one is kept beside it as
        /// NAME.vitaecontext-backup-TIME. A read-only file, a folder or a device is never
        /// replaced.
        #[arg(long)]
        force: bool,
        /// Print {schemaVersion, path} as JSON (and backup, when a file was replaced).
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
pub struct BoardArgs {
    /// The Career Context file to show. Default: as `mcp` chooses it ($VITAECONTEXT_CAREER_CONTEXT,
    /// then ~/.vitaecontext/career-context.md, then the one *-career-context.md or *.context.md
    /// file in ~/.vitaecontext/).
    #[arg(long, visible_alias = "context-path", value_name = "FILE")]
    pub context: Option<PathBuf>,

    /// The VitaeGraph folder to show. Default: $VITAEGRAPH_ROOT, then ~/.vitaecontext/vitaegraph.
    #[arg(long, visible_alias = "vitaegraph", value_name = "DIR")]
    pub root: Option<PathBuf>,

    #[command(flatten)]
    pub skills: SkillsSourceArgs,

    /// The port to listen on; 0 picks a free one (the URL printed says which).
    #[arg(long, default_value_t = 5417, value_name = "PORT")]
    pub port: u16,

    /// The address to listen on: 127.0.0.1, ::1 or localhost. Any other address needs
    /// --i-understand-nonlocal.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDRESS")]
    pub host: String,

    /// Open the board in the default web browser.
    #[arg(long)]
    pub open: bool,

    /// Allow --host to name an address other machines can reach. The board shows your career
    /// files and can change your skills: anyone on that network who gets the printed URL can too.
    #[arg(long)]
    pub i_understand_nonlocal: bool,
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

    /// The longest message accepted, in bytes: at least 4096 (4 KiB); the default, 10485760, is
    /// 10 MiB. A longer message is answered with a parse error (-32700) and skipped.
    #[arg(long, value_name = "BYTES", default_value_t = stdio::DEFAULT_MAX_FRAME_BYTES,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(MIN_FRAME_BYTES..))]
    pub max_frame_bytes: usize,

    #[command(flatten)]
    pub skills: SkillsSourceArgs,

    /// Also offer the prompts as a tool, `get_prompt {name, arguments}`, for clients that show
    /// no MCP prompts (Cursor, Codex, Windsurf...). Off by default: the tools are then
    /// `get_career_context`, `search_vitaegraph`, `validate_career_context`, `check_claims`
    /// and `match_job`.
    #[arg(long)]
    pub prompt_tools: bool,

    /// Keep the VitaeGraph's index current while serving: index at start and again after every
    /// batch of changes to the records, as `graph index --watch` does. An edited, new or
    /// removed record is searchable at once (a few tens of milliseconds, whatever the graph's
    /// size): the server reads the changed records as soon as they change and searches them
    /// beside the index on disk until the index run that writes them lands. Each index run is
    /// a child process, so its memory is never the server's. The server answers at once: the
    /// watch is set up and the first index runs in the background, and until then searches are
    /// served from the index already on disk. Off by default because it writes: it replaces the
    /// files in the graph's .generated/ folder.
    #[arg(long)]
    pub watch: bool,

    #[command(flatten)]
    pub redact: RedactArg,

    #[command(flatten)]
    pub debounce: DebounceArgs,
}

/// `vitaecontext register`.
#[derive(Debug, Args)]
pub struct RegisterArgs {
    /// The client to configure. Without it, list the clients found on this machine.
    #[arg(long, value_name = "NAME", value_parser = client_parser())]
    pub client: Option<domain::clients::Client>,

    /// Print the change as a unified diff; write nothing.
    #[arg(long, requires = "client")]
    pub dry_run: bool,

    /// Remove the vitaecontext entry (and nothing else).
    #[arg(long, requires = "client", conflicts_with_all = ["context", "root", "skills", "skills_config"])]
    pub remove: bool,

    /// Claude Code: edit ~/.claude.json instead of printing the `claude mcp add` command.
    #[arg(long, requires = "client")]
    pub write: bool,

    /// The Career Context the server should serve (made absolute).
    #[arg(long, visible_alias = "context-path", value_name = "FILE")]
    pub context: Option<PathBuf>,

    /// The VitaeGraph folder the server should serve (made absolute).
    #[arg(long, visible_alias = "vitaegraph", value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// A skills folder, passed on to `mcp` (repeatable; DIR made absolute).
    #[arg(long, value_name = "DIR[=PRIORITY]")]
    pub skills: Vec<String>,

    /// A skills configuration file, passed on to `mcp` (made absolute).
    #[arg(long, value_name = "FILE")]
    pub skills_config: Option<PathBuf>,

    /// Leave `--watch` out of the entry. By default the entry runs `mcp --watch`, so the
    /// VitaeGraph's index follows your edits while the assistant runs (a server without it
    /// serves the index as it was when last built); this writes nothing into `.generated/`.
    #[arg(long, requires = "client", conflicts_with = "remove")]
    pub no_watch: bool,
}

fn client_parser() -> impl clap::builder::TypedValueParser<Value = domain::clients::Client> {
    use domain::clients::Client;
    clap::builder::PossibleValuesParser::new(Client::ALL.map(Client::name))
        .map(|name: String| Client::parse(&name).expect("a possible value is a client name"))
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
    fn skills_dirs_take_an_optional_priority() {
        assert_eq!(parse_skills_dir("a=5").unwrap(), SkillsDir { dir: "a".into(), priority: 5 });
        assert_eq!(parse_skills_dir("a").unwrap(), SkillsDir { dir: "a".into(), priority: 100 });
        assert_eq!(parse_skills_dir("x=y").unwrap(), SkillsDir { dir: "x=y".into(), priority: 100 });
        assert_eq!(parse_skills_dir("a=-3").unwrap().priority, -3);
        assert!(parse_skills_dir("=3").is_err());
        let e = Cli::try_parse_from(["vitaecontext", "skills", "list", "--type", "widget"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn a_flag_and_its_alias_together_are_a_usage_error() {
        // formats.md's aliases work wherever the server's flags are taken (found in review:
        // doctor and register refused them).
        for cmd in
            [&["mcp"][..], &["doctor"], &["check", "d.md"], &["match", "p.md"], &["register", "--client", "cursor"]]
        {
            let mut args = vec!["vitaecontext"];
            args.extend_from_slice(cmd);
            args.extend_from_slice(&["--context-path", "c.md", "--vitaegraph", "g"]);
            assert!(Cli::try_parse_from(&args).is_ok(), "{args:?}");
        }
        let e = Cli::try_parse_from(["vitaecontext", "mcp", "--context", "a", "--context-path", "b"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let e = Cli::try_parse_from(["vitaecontext", "mcp", "--root", "a", "--vitaegraph", "b"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }
}
