//! `vitaecontext check FILE` and `vitaecontext match FILE`: the grounding tools on the command
//! line, over the same files `mcp` would serve.

use std::path::Path;
use std::process::ExitCode;

use domain::career::Surface;
use miette::miette;
use ports::fs::FileSystem;

use super::{Failure, Outcome, err, out, pretty};
use crate::graph_store::GraphStore;
use crate::report;
use crate::sources::Sources;
use crate::usecase::career::ContextCache;
use crate::usecase::grounding::{self, Files, MAX_DRAFT_BYTES};

fn read_input(fs: &dyn FileSystem, sources: &Sources, file: &Path) -> Result<(String, String), Failure> {
    let path = domain::career::select::expand_path(&file.to_string_lossy(), sources.home.as_deref(), &sources.cwd);
    let bytes = fs.read(&path, MAX_DRAFT_BYTES as u64).map_err(|e| {
        Failure::usage(miette!(
            help = "pass the path of a readable text file",
            "cannot read {}: {}",
            path.display(),
            e.detail
        ))
    })?;
    // A NUL byte is in no text file: a binary one was read as thousands of claims (found in
    // review). Other invalid UTF-8 (a file saved as Latin-1) is read, and said to be.
    if bytes.contains(&0) {
        return Err(Failure::usage(miette!(
            help = "pass a text file: Markdown or plain text",
            "{} is not text (it holds NUL bytes); nothing was checked",
            path.display()
        )));
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            err(&format!(
                "warning: {} is not UTF-8 text; its invalid bytes were read as U+FFFD (save it as UTF-8 to check every \
                 word)\n",
                path.display()
            ));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    Ok((path.display().to_string(), text))
}

/// What `answer` makes of the person's files (see [`Files::answer`]), and the files. Exit 2
/// when there is nothing to answer from, or when a file named by `--context` or `--root` (or
/// their environment variables) could not be read: a typo in a path must not turn a true draft's claims into "unsupported"
/// (the MCP tools, which have no flags to get wrong, answer with a note instead).
fn answered<R>(fs: &dyn FileSystem, sources: &Sources, answer: impl Fn(&Files) -> R) -> Result<(Files, R), Failure> {
    let current = ContextCache::default().current(fs, sources);
    let graph = GraphStore::new(sources.graph_root());
    let mut files = Files::gather(current, &graph, fs);
    files.year_now = Some(crate::usecase::grounding::year_now(&fs_std::SystemClock::default()));
    let mut unread = Vec::new();
    // Named: by a flag or by the environment (a mistyped variable is a typo too).
    let context_named = sources.context_flag.is_some() || sources.context_env.is_some();
    let root_named = sources.root_flag.is_some() || sources.root_env.is_some();
    if let Some(why) = &files.context_unread
        && (context_named || files.searcher.is_none())
    {
        unread.push(format!("no Career Context was read ({why})"));
    }
    if files.searcher.is_none() && (root_named || files.context.is_none()) {
        unread.push(match sources.graph_root() {
            Some(root) => format!("no VitaeGraph search index could be read in {}", root.join(".generated").display()),
            None => "no VitaeGraph was named (--root) and there is no home folder to look in".to_owned(),
        });
    }
    if !unread.is_empty() {
        return Err(Failure::usage(miette!(
            help = "check the paths given with --context and --root (`vitaecontext doctor` with the same flags says \
                    what it finds); a VitaeGraph is searched once `vitaecontext graph index` has indexed it",
            "nothing was checked: {}",
            unread.join("; ")
        )));
    }
    let made = files.answer(&graph, fs, answer);
    Ok((files, made))
}

pub fn check(
    fs: &dyn FileSystem,
    sources: &Sources,
    file: &Path,
    surface: Option<Surface>,
    json: bool,
    explain: bool,
) -> Outcome {
    let (path, draft) = read_input(fs, sources, file)?;
    let (files, claims) = answered(fs, sources, |f| f.check(&draft))?;
    let problems = claims.iter().any(|c| c.status.is_problem());
    if json {
        out(&format!("{}\n", pretty(&grounding::claims_json(&claims))));
    } else {
        // The findings are the command's output, as the summary is: stdout (a pipe to `less`
        // or a file gets them all); stderr is for errors only.
        for n in &files.notes {
            out(&format!("note: {n}\n"));
        }
        out(&report::render_all(&report::claim_findings(&path, &draft, &claims), 100, report::stdout_color()));
        let counts: Vec<String> = domain::grounding::counts(&claims)
            .iter()
            .map(|(s, n)| format!("{n} {}", s.as_str().replace('_', " ")))
            .collect();
        if explain {
            out(&grounding::claims_explained(&claims));
            out("\n");
        }
        out(&format!("{} in {path}: {}\n", domain::text::count(claims.len(), "claim"), counts.join(", ")));
        if let Some(s) = surface {
            out(&format!(
                "the {s} packet (`vitaecontext context summary --for {s}`) holds the facts meant for this surface\n"
            ));
        }
    }
    Ok(if problems { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

pub fn match_job(fs: &dyn FileSystem, sources: &Sources, file: &Path, json: bool) -> Outcome {
    let (_, posting) = read_input(fs, sources, file)?;
    let (files, m) = answered(fs, sources, |f| f.match_job(&posting))?;
    if json {
        out(&format!("{}\n", pretty(&grounding::job_json(&m))));
    } else {
        out(&grounding::job_text(&m, &files.notes));
    }
    Ok(ExitCode::SUCCESS)
}
