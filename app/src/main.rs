//! `vitaecontext`: parse arguments, build adapters, run, map the outcome to an exit code.

mod board;
mod cancel;
mod cli;
mod commands;
mod graph_store;
mod logging;
mod mcp;
mod report;
mod search_json;
mod signals;
mod sources;
mod usecase;

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use miette::{IntoDiagnostic, WrapErr};

use cli::{Cli, Command, ContextCommand, GraphCommand, McpArgs, SkillsCommand};
use commands::{Failure, Outcome};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let serving = matches!(cli.command, Command::Mcp(_));
    logging::init(cli.log_level, if serving { logging::Delivery::Lossy } else { logging::Delivery::Direct });
    let _ = miette::set_hook(Box::new(|_| {
        // Not wrapped, as `report::render_all`: a path or command stays whole for copying.
        Box::new(miette::MietteHandlerOpts::new().color(report::stderr_color()).wrap_lines(false).build())
    }));
    let json = cli.command.wants_json();
    let outcome = run(cli);
    if serving {
        logging::flush(std::time::Duration::from_millis(500));
    }
    let code = match outcome {
        Ok(code) => code,
        Err(failure) => {
            if json {
                commands::out(&format!("{}\n", commands::pretty(&failure.json())));
            }
            commands::err(&format!("{:?}\n", failure.report));
            failure.exit_code()
        }
    };
    match commands::stdout_error() {
        Some(e) if code == ExitCode::SUCCESS => {
            commands::err(&format!("error: could not write the output to stdout: {e}\n"));
            ExitCode::FAILURE
        }
        _ => code,
    }
}

/// What the install commands take from the process: the token, read only when `--github-token`
/// asks for it.
fn install_edge(flag: cli::TokenFlag) -> commands::skills_install::Edge {
    commands::skills_install::Edge { github_token: flag.github_token.then(sources::github_token) }
}

fn run(cli: Cli) -> Outcome {
    let fs = fs_std::StdFs::new();
    match cli.command {
        Command::Mcp(args) => serve_stdio(args).map_err(Failure::failed),
        Command::Init { home } => {
            let mut sources = sources::Sources::from_process(None, None);
            let default_home = sources.home.clone();
            if let Some(h) = home {
                sources.home = Some(sources.cwd.join(h));
            }
            commands::setup::init(&fs, &fs_std::SystemClock::default(), &sources, default_home.as_deref())
        }
        Command::Context(cmd) => {
            let sources = sources::Sources::from_process(None, None);
            match cmd {
                ContextCommand::Validate { file, context, json } => {
                    commands::context::validate(&fs, &sources, file.or(context).as_deref(), json)
                }
                ContextCommand::Summary { file, context, surface, output, force, json } => commands::context::summary(
                    &fs,
                    &sources,
                    commands::context::SummaryArgs {
                        file: file.or(context).as_deref(),
                        surface: surface.into(),
                        output: output.as_deref(),
                        json,
                        force,
                    },
                ),
                ContextCommand::Init { output, force, json } => commands::context::init(
                    &fs,
                    &fs_std::SystemClock::default(),
                    &sources,
                    output.as_deref(),
                    force,
                    json,
                ),
            }
        }
        Command::Graph(cmd) => {
            let clock = fs_std::SystemClock::default();
            let root_of = |r: &cli::RootArg| sources::Sources::from_process(None, r.root.as_deref());
            match cmd {
                GraphCommand::Init { root, force } => commands::graph::init(&fs, &clock, &root_of(&root), force),
                GraphCommand::Add { kind, slug, title, parent, tags, root } => commands::graph::add(
                    &fs,
                    &clock,
                    &root_of(&root),
                    commands::graph::AddArgs {
                        kind,
                        slug: &slug,
                        title: title.as_deref(),
                        parent: parent.as_deref(),
                        tags: &tags,
                    },
                ),
                GraphCommand::Validate { root, json } => commands::graph::validate(&fs, &clock, &root_of(&root), json),
                GraphCommand::Index { root, watch: false, full, summary_json: true, .. } => {
                    return_freed_memory_after(0);
                    commands::graph::index_summary(&fs, &clock, &root_of(&root), full)
                }
                GraphCommand::Index { root, watch: false, full, .. } => {
                    return_freed_memory_after(0);
                    commands::graph::index(&fs, &clock, &root_of(&root), full)
                }
                GraphCommand::Index { root, watch: true, debounce, .. } => {
                    return_freed_memory_after(0);
                    commands::watch::index(
                        Arc::new(fs),
                        Arc::new(clock),
                        &watch_notify::NotifyWatcher,
                        &root_of(&root),
                        debounce.timings(),
                    )
                }
            }
        }
        Command::Import(cmd) => {
            use cli::ImportCommand;
            use commands::portable::Format;
            let (format, file, files, write) = match cmd {
                ImportCommand::Linkedin { archive, files, write } => (Format::Linkedin, archive, files, write),
                ImportCommand::JsonResume { file, files, write } => (Format::JsonResume, file, files, write),
            };
            let sources = sources::Sources::from_process(files.context.as_deref(), files.root.as_deref());
            commands::portable::import(&fs, &fs_std::SystemClock::default(), &sources, format, &file, write)
        }
        Command::Export(cli::ExportCommand::JsonResume { out, force, include_private, redact, files }) => {
            let sources = sources::Sources::from_process(files.context.as_deref(), files.root.as_deref())
                .with_redact(redact.redact)
                .map_err(|e| Failure::usage(miette::miette!("{e}")))?;
            commands::portable::export(&fs, &sources, out.as_deref(), force, include_private, &sources.redact)
        }
        Command::Register(args) => {
            let exe = sources::current_exe();
            let edge = commands::register::Edge {
                env: sources::client_env(),
                install: exe.as_deref().ok().map(sources::install_facts),
                exe,
                sources: sources::Sources::from_process(None, None),
            };
            commands::register::run(&fs, &fs_std::SystemClock::default(), &edge, &args)
        }
        Command::Doctor(args) => {
            let dirs: Vec<(String, i64)> = args.skills.iter().map(|d| (d.dir.clone(), d.priority)).collect();
            let sources = sources::Sources::from_process(args.context.as_deref(), args.root.as_deref())
                .with_skills(&dirs, args.skills_config.as_deref())
                .with_redact(args.redact.redact.clone())
                .map_err(|e| Failure::usage(miette::miette!("{e}")))?;
            let env = sources::client_env();
            let inputs = usecase::doctor::Inputs {
                sources: &sources,
                env: &env,
                exe: sources::current_exe().ok(),
                path_dirs: sources::path_dirs(),
                live: args.live,
            };
            commands::doctor::run(&fs, &fs_std::SystemClock::default(), &inputs, args.json)
        }
        Command::Skills(args) => {
            use commands::skills::{self as skills, AddArgs, ListArgs};
            use commands::skills_install;
            let sources = sources::Sources::from_process(None, None)
                .with_skills(&args.sources.dirs(), args.sources.config.as_deref());
            match args.command {
                SkillsCommand::List { kind, tag, layer, json } => skills::list(
                    &fs,
                    &sources,
                    &ListArgs { kind: kind.map(Into::into), tag: tag.as_deref(), layer: layer.as_deref(), json },
                ),
                SkillsCommand::Show { id, json } => skills::show(&fs, &sources, &id, json),
                SkillsCommand::Validate { files } => skills::validate(&fs, &sources, &files),
                SkillsCommand::Init { dir } => skills::init(&fs, &sources, dir.as_deref()),
                SkillsCommand::Add { id, kind, name, description, tags, prompt, args, from, layer, force } => {
                    skills::add(
                        &fs,
                        &fs_std::SystemClock::default(),
                        &sources,
                        &AddArgs {
                            id: id.as_deref(),
                            kind: kind.into(),
                            name: name.as_deref(),
                            description: description.as_deref(),
                            tags: &tags,
                            prompt: prompt.as_deref(),
                            args: &args,
                            from: from.as_deref(),
                            layer: layer.as_deref(),
                            force,
                        },
                    )
                }
                SkillsCommand::Remove { id, layer } => skills::remove(&fs, &sources, &id, layer.as_deref()),
                SkillsCommand::Export { agent_skills, force } => skills::export(&fs, &sources, &agent_skills, force),
                SkillsCommand::Install { source, layer, frozen, yes, force, scope, token } => {
                    let (clock, edge) = (fs_std::SystemClock::default(), install_edge(token));
                    match source {
                        Some(source) if !frozen => skills_install::install(
                            &fs,
                            &clock,
                            &sources,
                            &edge,
                            &skills_install::InstallArgs {
                                source: &source,
                                layer: layer.as_deref(),
                                scope: scope.into(),
                                yes,
                                force,
                            },
                        ),
                        _ => skills_install::sync(&fs, &clock, &sources, &edge, scope.into(), yes),
                    }
                }
                SkillsCommand::Sync { yes, scope, token } => skills_install::sync(
                    &fs,
                    &fs_std::SystemClock::default(),
                    &sources,
                    &install_edge(token),
                    scope.into(),
                    yes,
                ),
                SkillsCommand::Update { id, to, dry_run, force, yes, scope, token } => skills_install::update(
                    &fs,
                    &fs_std::SystemClock::default(),
                    &sources,
                    &install_edge(token),
                    &skills_install::UpdateArgs {
                        id: id.as_deref(),
                        to: to.as_deref(),
                        dry_run,
                        force,
                        yes,
                        scope: scope.into(),
                    },
                ),
                SkillsCommand::Uninstall { id, purge_backups, force, yes, scope } => {
                    skills_install::uninstall(&fs, &sources, &id, force, purge_backups, yes, scope.into())
                }
                SkillsCommand::Outdated { exit_code, scope, token } => {
                    skills_install::outdated(&fs, &sources, &install_edge(token), exit_code, scope.into())
                }
                SkillsCommand::Adopt { layer, yes, scope, token } => skills_install::adopt(
                    &fs,
                    &fs_std::SystemClock::default(),
                    &sources,
                    &install_edge(token),
                    &skills_install::AdoptArgs { layer: layer.as_deref(), yes, scope: scope.into() },
                ),
            }
        }
        Command::Board(args) => board::run(args),
        Command::Check(args) => {
            // One pass: what a phase frees (the file read, the index built) goes back at once.
            return_freed_memory_after(0);
            let sources = sources::Sources::from_process(args.files.context.as_deref(), args.files.root.as_deref());
            commands::grounding::check(&fs, &sources, &args.file, args.surface.map(Into::into), args.json, args.explain)
        }
        Command::Match(args) => {
            return_freed_memory_after(0);
            let sources = sources::Sources::from_process(args.files.context.as_deref(), args.files.root.as_deref());
            commands::grounding::match_job(&fs, &sources, &args.file, args.json)
        }
    }
}

/// How often `mcp` polls the Career Context and `graph.json` for resource-updated notifications.
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

fn serve_stdio(args: McpArgs) -> miette::Result<ExitCode> {
    return_freed_memory_after(10);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .into_diagnostic()
        .wrap_err("could not start the async runtime")?;
    let sources = sources::Sources::from_process(args.context.as_deref(), args.root.as_deref())
        .with_skills(&args.skills.dirs(), args.skills.config.as_deref())
        .with_redact(args.redact.redact.clone())
        .map_err(|e| miette::miette!("{e}"))?;
    let fs: Arc<dyn ports::fs::FileSystem> = Arc::new(fs_std::StdFs::new());
    announce(&*fs, &sources);
    let skill_sources = sources.skill_sources(&*fs);
    let skills = (skill_sources.config.is_some() || !skill_sources.dirs.is_empty()).then(|| {
        usecase::skills::Skills::new(Arc::clone(&fs), Arc::new(fs_std::SystemClock::default()), skill_sources)
    });
    let (source, sink) = stdio::stdio(args.max_frame_bytes);
    // The background work below waits for the first answer to be out (or a moment).
    let first = Arc::new(mcp::first_answer::FirstAnswer::default());
    let sink = mcp::first_answer::Announcing::new(Arc::new(sink), Arc::clone(&first));
    let graph_root = sources.graph_root();
    let methods = Arc::new(
        mcp::methods::Methods::new(fs, sources)
            .with_skills(skills)
            .with_prompt_tools(args.prompt_tools)
            .with_live_index(args.watch && graph_root.is_some()),
    );
    let check_now = mcp::methods::Methods::watch_files(&methods, WATCH_EVERY, args.watch, Arc::clone(&first))
        .inspect_err(|e| tracing::warn!("could not start watching the Career Context and VitaeGraph for changes: {e}"))
        .ok();
    let live = match (args.watch, graph_root) {
        (false, _) => None,
        (true, None) => {
            tracing::warn!("--watch: there is no VitaeGraph root to watch (HOME is not set; pass --root)");
            None
        }
        (true, Some(root)) => mcp::live_index::start(
            Arc::new(watch_notify::NotifyWatcher),
            fs_std::StdFs::new(),
            root,
            args.debounce.timings(),
            check_now,
            Arc::clone(methods.pending_records()),
            first,
        ),
    };
    // SIGINT or SIGTERM stops serving as the end of input does: the re-index under way (with
    // --watch) finishes below, so `.generated/` is not left with staged temporaries.
    runtime.block_on(async {
        let mut signals = signals::Signals::listen();
        tokio::select! {
            ended = mcp::serve(source, Arc::new(sink), methods) => tracing::info!(?ended, "MCP server stopped"),
            signal = signals.next() => {
                tracing::info!("MCP server stopped by {signal}");
                if live.is_some() {
                    tracing::info!("finishing the index under way ({signal} again to quit at once)");
                }
            }
        }
        // Stopping now, whichever way: a signal while the index under way finishes quits at
        // once (the handlers stay installed once awaited, so without this it went unheard).
        tokio::spawn(signals.quit_on_next());
    });
    if let Some(live) = live {
        // A re-index under way finishes, so `.generated/` is not left with staged temporaries.
        live.stop();
    }
    // The reader thread may still be blocked on stdin; it must not keep the process alive.
    runtime.shutdown_background();
    Ok(ExitCode::SUCCESS)
}

/// Says once, on stderr, what the server will serve and which rule chose it; a file or folder
/// configured explicitly that does not exist is a warning, since nothing will work until fixed.
fn announce(fs: &dyn ports::fs::FileSystem, sources: &sources::Sources) {
    use domain::career::{Rule, Selection};
    let context = match usecase::career::select(fs, sources) {
        Selection::Selected { path, rule } => {
            if matches!(rule, Rule::Flag | Rule::Env) && fs.metadata(&path).is_err() {
                tracing::warn!(
                    "the Career Context {} ({}) does not exist; create it with `vitaecontext context init --output {}`",
                    path.display(),
                    rule.describe(),
                    path.display()
                );
            }
            format!("{} ({})", path.display(), rule.describe())
        }
        Selection::Missing { .. } => "none found (run `vitaecontext init` to create one)".into(),
        Selection::Ambiguous { candidates } => format!("none chosen among {} candidates", candidates.len()),
    };
    let (root_rule, explicit) = match (&sources.root_flag, &sources.root_env) {
        (Some(_), _) => ("chosen by --root", true),
        (None, Some(_)) => ("chosen by VITAEGRAPH_ROOT", true),
        _ => ("the default ~/.vitaecontext/vitaegraph", false),
    };
    let root = match sources.graph_root() {
        Some(root) => {
            if explicit && fs.metadata(&root).is_err() {
                tracing::warn!(
                    "the VitaeGraph root {} ({root_rule}) does not exist; create it with `vitaecontext graph init --root {}`",
                    root.display(),
                    root.display()
                );
            }
            format!("{} ({root_rule})", root.display())
        }
        None => "none (HOME is not set)".into(),
    };
    tracing::info!(target: logging::STARTUP, "serving Career Context: {context}; VitaeGraph: {root}");
}

/// glibc malloc showed up at ~15% of `graph index` (arena growth and many small frees across
/// threads); mimalloc is a well-kept drop-in that handles this pattern better. Its `no_thp`
/// feature (Cargo.toml) keeps it from asking for huge pages: see ARCHITECTURE.md, Allocation.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc 3's `purge_delay` option: its place in `mi_option_e` (mimalloc.h), for which the
/// bindings name no constant. A test checks that the option there has purge_delay's default.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long mimalloc keeps freed pages before it gives them back to the system
/// (`purge_delay`; 1000 ms by default). An index frees a phase's memory (what was read, then
/// what was rendered) just before the next phase allocates as much again, so at 100,000
/// records a whole second of freed pages sat in its peak. Measured at 100,000 records
/// (ARCHITECTURE.md, Allocation):
/// - `graph index`, 0 ms: peak RSS 263 MB against 324 (full), 288 against 366 (after an edit);
/// - `mcp --watch`, 10 ms: peak RSS over five live edits 584 MB against 735, warm searches
///   asked back to back as fast (0 ms made them about 0.4 ms slower: each search's scratch
///   memory went back and was faulted in again);
/// - `mcp`, 10 ms too: a searcher built from `search-index.json` (no sidecar) frees what its
///   builder outgrew while it reads; with the file held whole at 100,000 records, the server
///   peaked at 606 MB with the default and 398 MB with 10 ms, its first answer as fast.
#[allow(unsafe_code)]
fn return_freed_memory_after(ms: u16) {
    // SAFETY: stores a number in one of mimalloc's option slots; it may be called at any time,
    // from any thread, and touches no memory of ours.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ms.into()) };
}

#[cfg(test)]
mod tests {
    /// The slot `return_freed_memory_after` sets is purge_delay's: it holds purge_delay's
    /// default (1000 ms in mimalloc 3), and no other option has that default. An upgrade of
    /// mimalloc that moves or changes the option fails here.
    #[test]
    #[allow(unsafe_code)]
    fn the_option_set_is_mimallocs_purge_delay() {
        // SAFETY: reads one of mimalloc's option slots.
        let default = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert_eq!(default, 1000);
    }
}
