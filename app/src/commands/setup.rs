//! `vitaecontext init`: first-time set-up, then the next steps.

use std::process::ExitCode;

use miette::miette;
use ports::Clock;
use ports::fs::FileSystem;

use super::{Failure, Outcome, err, out};
use crate::sources::Sources;
use crate::usecase::setup::{self, ContextSetup, SetupError};

/// `default_home`: $HOME, to tell whether `--home` put the files elsewhere.
pub fn init(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    sources: &Sources,
    default_home: Option<&std::path::Path>,
) -> Outcome {
    let default_home = default_home.map(std::path::Path::to_path_buf);
    let r = setup::init(fs, clock, sources).map_err(|e| match e {
        SetupError::NoHome => Failure::usage(miette!(help = "set HOME, or pass --home DIR", "{e}")),
        SetupError::NotAFolder(_) | SetupError::NotAFile(_) => Failure::failed(miette!("{e}")),
        SetupError::Fs(_) => Failure::failed(miette!("could not set up {e}")),
    })?;
    let mut text = String::new();
    if r.dir_created {
        text.push_str(&format!("Created {} (readable by you only)\n", r.dir.display()));
    } else if let Some(old) = r.tightened_from {
        text.push_str(&format!(
            "Tightened {} from {old:04o} to {:04o}: it holds personal data, so only you may read it\n",
            r.dir.display(),
            old & 0o7700
        ));
    }
    let context = match &r.context {
        ContextSetup::Created(path) => {
            text.push_str(&format!("Created a starter Career Context at {}\n", path.display()));
            Some(path)
        }
        ContextSetup::Existing(path, rule) => {
            text.push_str(&format!("Kept your Career Context at {} ({})\n", path.display(), rule.describe()));
            Some(path)
        }
        ContextSetup::Ambiguous(candidates) => {
            // `init` takes no --context (found in review: the advice could not be followed).
            text.push_str(
                "Found several Career Context files and wrote none; rename the one you use to career-context.md \
                 in that folder, or set VITAECONTEXT_CAREER_CONTEXT to it, so the server knows which to serve:\n",
            );
            for c in candidates {
                text.push_str(&format!("- {}\n", c.display()));
            }
            None
        }
    };
    text.push_str(&super::graph::describe_init(&r.graph_root, &r.graph));
    out(&text);
    let mut next = String::from("\nNext steps:\n");
    let mut n = 0;
    let mut step = |s: String| {
        n += 1;
        next.push_str(&format!("  {n}. {s}\n"));
    };
    // With --home elsewhere than $HOME, the commands below would look in $HOME: they are given
    // the files this run set up (found in review).
    let elsewhere = sources.home != default_home;
    let root = if elsewhere { format!(" --root {}", super::shell_path(&r.graph_root)) } else { String::new() };
    let context_flag = match context {
        Some(path) if elsewhere => format!(" --context {}", super::shell_path(path)),
        _ => String::new(),
    };
    if let Some(path) = context {
        step(format!("Fill {} with your own facts (replace every [bracketed] placeholder).", path.display()));
        step(format!("Check it: vitaecontext context validate {}", super::shell_path(path)));
    }
    step(format!(
        "Add records to your VitaeGraph: vitaecontext graph add project my-project --title \"My project\"{root}"
    ));
    step(format!("Index them: vitaecontext graph index{root}"));
    step(format!(
        "Wire the server into your assistant: vitaecontext register --client claude-desktop{context_flag}{root} (or cursor, vscode, ...)"
    ));
    err(&next);
    Ok(ExitCode::SUCCESS)
}
