//! `import linkedin | json-resume` and `export json-resume`: the CLI edge of
//! `usecase::portable` (reports, diffs, exit codes).

use std::path::Path;
use std::process::ExitCode;

use miette::miette;
use ports::Clock;
use ports::fs::FileSystem;

use super::{Failure, Outcome, err, out, shell_path};
use crate::sources::Sources;
use crate::usecase::portable::{self, Plan, PortableError, State};
use domain::portable::redact::Redact;
use domain::portable::{EntryKind, ImportError, Imported, json_resume, linkedin};

/// Which importer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Linkedin,
    JsonResume,
}

fn failure(e: PortableError) -> Failure {
    match e {
        PortableError::Input(e) => {
            let help = e.help();
            Failure::failed(miette!(help = help, "{e}; nothing was written"))
        }
        PortableError::Fs(e) => Failure::failed(miette!("{}: {}; nothing was written", e.path.display(), e.detail)),
        PortableError::Usage(m) => Failure::usage(miette!("{m}; nothing was written")),
    }
}

fn counts(imported: &Imported) -> String {
    let c = &imported.career;
    let mut parts = Vec::new();
    for (kind, one, many) in [
        (EntryKind::Role, "role", "roles"),
        (EntryKind::Degree, "degree", "degrees"),
        (EntryKind::Certification, "certification", "certifications"),
        (EntryKind::Project, "project", "projects"),
        (EntryKind::Award, "award", "awards"),
        (EntryKind::Publication, "publication", "publications"),
    ] {
        let n = c.entries.iter().filter(|e| e.kind == kind).count();
        if n > 0 {
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    }
    for (n, one, many) in [(c.languages.len(), "language", "languages"), (c.skills.len(), "skill", "skills")] {
        if n > 0 {
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    }
    if parts.is_empty() { "no entries".into() } else { parts.join(", ") }
}

/// `vitaecontext import FORMAT FILE [--write]`.
pub fn import(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    sources: &Sources,
    format: Format,
    file: &Path,
    write: bool,
) -> Outcome {
    let path = domain::career::select::expand_path(&file.to_string_lossy(), sources.home.as_deref(), &sources.cwd);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
    let bytes = portable::read_input(fs, &path).map_err(failure)?;
    let (imported, origin) = match format {
        Format::Linkedin => {
            (linkedin::import(&name, &bytes, linkedin::Limits::default()), format!("the LinkedIn archive {name}"))
        }
        Format::JsonResume => (
            domain::portable::utf8_text(&name, bytes).and_then(|text| json_resume::import(&name, &text)),
            format!("the JSON Resume {name}"),
        ),
    };
    let imported = imported.map_err(|e: ImportError| failure(e.into()))?;
    let target = portable::target(fs, sources).map_err(failure)?;
    let plan = portable::plan(fs, &target, &imported, &origin).map_err(failure)?;

    out(&format!("Read {}: {}\n", name, imported.read.join(", ")));
    if !imported.skipped.is_empty() {
        let others: Vec<&str> = imported.skipped.iter().filter(|s| s.others_data).map(|s| s.name.as_str()).collect();
        let rest = imported.skipped.len() - others.len();
        if !others.is_empty() {
            out(&format!("Skipped, never read (other people's data): {}\n", others.join(", ")));
        }
        if rest > 0 {
            let names: Vec<&str> =
                imported.skipped.iter().filter(|s| !s.others_data).map(|s| s.name.as_str()).collect();
            out(&format!("Skipped, not read ({} not imported): {}\n", rest, names.join(", ")));
        }
    }
    for w in &imported.warnings {
        err(&format!("warning: {w}\n"));
    }
    out(&format!("Found {} facts: {}.\n", plan.facts, counts(&imported)));
    print_plan(&plan);

    if plan.touches_existing() && !write {
        let pending = plan.count(State::New) + plan.count(State::Changed);
        if pending == 0 {
            out("Nothing to write: your files already hold everything this import found.\n");
            return Ok(ExitCode::SUCCESS);
        }
        out(&format!(
            "\nNothing written: your files exist. Run it again with --write to write these {pending} file(s); what you wrote by hand is kept.\n"
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let written = portable::apply(fs, clock, &plan).map_err(failure)?;
    out(&format!("\nWrote {written} file(s).\n"));
    if !plan.to_fill.is_empty() {
        out(&format!(
            "Left for you to fill in (the import cannot know them; each is a FILL IN comment in {}):\n",
            target.context.display()
        ));
        for f in &plan.to_fill {
            out(&format!("  - {f}\n"));
        }
    }
    out(&format!(
        "Next: vitaecontext context validate --context {}\n      vitaecontext graph index --root {}\n      vitaecontext doctor (says what is left)\n",
        shell_path(&target.context),
        shell_path(&target.root)
    ));
    Ok(ExitCode::SUCCESS)
}

fn print_plan(plan: &Plan) {
    out(&format!(
        "\nPlan: Career Context {}, VitaeGraph {}\n",
        plan.target.context.display(),
        plan.target.root.display()
    ));
    if plan.layout_missing {
        out(&format!(
            "  {:<10} {} (the VitaeGraph layout, as `graph init` makes it: VITAEGRAPH.md, index.md, record folders)\n",
            "new",
            plan.target.root.display()
        ));
    }
    for f in &plan.files {
        out(&format!("  {:<10} {}\n", f.state.word(), f.path.display()));
    }
    for p in &plan.only_yours {
        out(&format!("  {:<10} {}\n", "only-yours", p.display()));
    }
    for p in &plan.left_alone {
        out(&format!("  {:<10} {} (no front matter to update; left as it is)\n", "kept", p.display()));
    }
    for f in plan.files.iter().filter(|f| f.state == State::Changed) {
        let name = f.path.display().to_string();
        out("\n");
        out(&similar::TextDiff::from_lines(f.old.as_deref().unwrap_or(""), &f.new)
            .unified_diff()
            .context_radius(2)
            .header(&format!("a/{name}"), &format!("b/{name}"))
            .to_string());
    }
}

/// `vitaecontext export json-resume`.
pub fn export(
    fs: &dyn FileSystem,
    sources: &Sources,
    out_path: Option<&Path>,
    force: bool,
    include_private: bool,
    redact: &Redact,
) -> Outcome {
    let (resume, g) = portable::export(fs, sources, include_private, redact).map_err(failure)?;
    let json = json_resume::to_json(&resume);
    match out_path {
        None => out(&json),
        Some(o) => {
            let path = domain::career::select::expand_path(&o.to_string_lossy(), sources.home.as_deref(), &sources.cwd);
            super::context::write_output(fs, &path, json.as_bytes(), force, false, None)?;
            err(&format!("Wrote {}\n", path.display()));
        }
    }
    let from = match (&g.context, &g.root) {
        (Some(c), Some(r)) => format!("{} and {} record(s) in {}", c.display(), g.records, r.display()),
        (Some(c), None) => c.display().to_string(),
        (None, Some(r)) => format!("{} record(s) in {} (no Career Context found)", g.records, r.display()),
        (None, None) => "nothing: no Career Context and no VitaeGraph found".into(),
    };
    err(&format!("Exported from {from}.\n"));
    if g.private_left_out > 0 {
        err(&format!("Left out {} private record(s); --include-private adds them.\n", g.private_left_out));
    }
    if !redact.is_off() {
        err(&format!("Redacted: {}.\n", redact.classes().iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")));
    }
    Ok(ExitCode::SUCCESS)
}
