//! `vitaecontext skills install | sync | update | uninstall | outdated | adopt`: the scope and
//! its layers, what will be written (ids, files, sizes, SHA-256, where, what it shadows) shown
//! before anything is, the person's yes, and the outcome.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use domain::skills::install::{FileChange, Lock, Source, parse_skill_central_lock, sha256_hex};
use miette::miette;
use ports::fs::FileSystem;

use super::{Failure, Outcome, err, out};
use crate::sources::Sources;
use crate::usecase::skills_install::{
    self as usecase, Fetchers, Pin, Refusal, Resolved, Scope, ScopeKind, SkillPlan, Token, git::short,
};

impl From<Refusal> for Failure {
    fn from(r: Refusal) -> Self {
        Failure::failed(miette!(help = r.help, "{}", r.message))
    }
}

/// `--project` / `--user`, as every command here takes them.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScopeChoice {
    pub project: bool,
    pub user: bool,
}

impl From<crate::cli::ScopeFlags> for ScopeChoice {
    fn from(f: crate::cli::ScopeFlags) -> Self {
        ScopeChoice { project: f.project, user: f.user }
    }
}

/// The edge's facts for these commands: the token, when the person asked for it.
#[derive(Debug, Default)]
pub struct Edge {
    /// `--github-token`: the value of $GITHUB_TOKEN or $GH_TOKEN, read only when asked.
    pub github_token: Option<Result<String, String>>,
}

/// The host a GitHub token is ever sent to.
const GITHUB_HOST: &str = "github.com";

fn token(edge: &Edge) -> Result<Option<Token>, Failure> {
    match &edge.github_token {
        None => Ok(None),
        Some(Ok(t)) => Ok(Some(Token::new(GITHUB_HOST.to_owned(), t.clone()))),
        Some(Err(why)) => Err(Failure::usage(miette!(
            help = "set GITHUB_TOKEN (or GH_TOKEN) for this command, or leave --github-token out to let your git credentials do it",
            "--github-token: {why}"
        ))),
    }
}

/// The scope and its layers, or a usage failure.
pub fn scope(fs: &dyn FileSystem, sources: &Sources, choice: ScopeChoice) -> Result<Scope, Failure> {
    usecase::scope(fs, sources, choice.project, choice.user)
        .map_err(|r| Failure::usage(miette!(help = r.help, "{}", r.message)))
}

fn fetchers<'a>(fs: &'a dyn FileSystem, sources: &Sources, scope: &Scope, token: Option<&'a Token>) -> Fetchers<'a> {
    Fetchers { fs, token, base: scope.lock_dir().to_path_buf(), home: sources.home.clone() }
}

/// Asks on the terminal; `false` when nobody can answer (stdin or stderr not a terminal).
fn confirm(question: &str) -> bool {
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return false;
    }
    err(&format!("{question} [y/N] "));
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn size(bytes: usize) -> String {
    match bytes {
        b if b < 10 * 1024 => format!("{b} B"),
        b if b < 10 * 1024 * 1024 => format!("{} KiB", b / 1024),
        b => format!("{} MiB", b / 1024 / 1024),
    }
}

/// A unified diff of one file, or a line saying why there is none (binary, too large).
fn file_diff(path: &str, before: Option<&[u8]>, after: Option<&[u8]>) -> String {
    fn text(b: Option<&[u8]>) -> Result<Option<&str>, std::str::Utf8Error> {
        b.map(std::str::from_utf8).transpose()
    }
    match (text(before), text(after)) {
        (Ok(a), Ok(b)) if a.unwrap_or("").len() + b.unwrap_or("").len() <= 512 * 1024 => {
            let old_name = if before.is_some() { format!("a/{path}") } else { "/dev/null".to_owned() };
            let new_name = if after.is_some() { format!("b/{path}") } else { "/dev/null".to_owned() };
            similar::TextDiff::from_lines(a.unwrap_or(""), b.unwrap_or(""))
                .unified_diff()
                .context_radius(3)
                .header(&old_name, &new_name)
                .to_string()
        }
        _ => format!(
            "Binary or large file {path}: {} -> {}\n",
            before.map_or("absent".to_owned(), |b| size(b.len())),
            after.map_or("absent".to_owned(), |b| size(b.len()))
        ),
    }
}

fn kind_of(p: &SkillPlan) -> String {
    let form = if p.found.is_folder() { ", Agent Skills folder" } else { "" };
    format!("{} skill{form}", p.found.kind.as_str())
}

/// What a plan will write, as the person reads it before saying yes.
fn describe(
    scope: &Scope,
    source: &Source,
    resolved: &Resolved,
    plans: &[SkillPlan],
    left_out: &[(String, String)],
    diffs: bool,
) -> String {
    let mut t = format!("From {source}\n  resolved: {}\n", resolved.describe());
    t.push_str(&format!("  scope:    {} (lock {})\n", scope.kind.as_str(), scope.lock_path.display()));
    for p in plans {
        describe_plan(&mut t, p, diffs);
    }
    for (name, why) in left_out {
        t.push_str(&format!("\nleft out: {name} ({why})"));
    }
    if !left_out.is_empty() {
        t.push('\n');
    }
    t
}

/// One skill of a plan: where it goes, each file with its size and SHA-256, what it shadows.
fn describe_plan(t: &mut String, p: &SkillPlan, diffs: bool) {
    {
        let mark = match &p.old {
            None => "+",
            Some(_) if p.changes_anything() => "~",
            Some(_) => "=",
        };
        t.push_str(&format!(
            "\n{mark} {} ({}) in layer {} (priority {})\n",
            p.id(),
            kind_of(p),
            p.layer.name,
            p.layer.priority
        ));
        let shown =
            if p.place.folder { format!("{}/", p.place.path.display()) } else { p.place.path.display().to_string() };
        t.push_str(&format!("    at {shown}\n"));
        let width = p.found.files.keys().map(|k| k.as_str().chars().count()).max().unwrap_or(0);
        for (rel, bytes) in &p.found.files {
            let change = p.changes.iter().find(|(r, _)| r == rel).map(|(_, c)| *c);
            let note = match change {
                Some(FileChange::Added) if p.old.is_some() => "  (new)",
                Some(FileChange::Changed) => "  (changed)",
                _ => "",
            };
            t.push_str(&format!(
                "      {:<width$}  {:>9}  sha256 {}{note}\n",
                rel.as_str(),
                size(bytes.len()),
                sha256_hex(bytes)
            ));
        }
        for (rel, c) in &p.changes {
            if *c == FileChange::Removed {
                t.push_str(&format!("      {:<width$}  removed\n", rel.as_str()));
            }
        }
        t.push_str(&format!("    set sha256 {}\n", p.entry.sha256()));
        if p.old.is_some() && p.changes.iter().all(|(_, c)| *c == FileChange::Same) && p.changes_anything() {
            t.push_str(&format!(
                "    files unchanged; the lock moves to {}\n",
                p.entry.commit.as_deref().or(p.entry.version.as_deref()).unwrap_or("the new source")
            ));
        }
        if let Some(old) = &p.old {
            if let Some(c) = old.commit.as_deref().filter(|c| Some(*c) != p.entry.commit.as_deref()) {
                t.push_str(&format!("    was commit {}\n", short(c)));
            }
            if let Some(v) = old.version.as_deref().filter(|v| Some(*v) != p.entry.version.as_deref()) {
                t.push_str(&format!("    was version {v}\n"));
            }
        }
        for s in &p.shadows {
            t.push_str(&format!("    {s}\n"));
        }
        for (rel, d) in &p.drift {
            t.push_str(&format!("    on disk: {} is {}\n", p.place.file(rel).display(), d.as_str()));
        }
        if diffs && p.old.is_some() {
            for (rel, c) in &p.changes {
                let (before, after) = (p.disk.get(rel).map(Vec::as_slice), p.found.files.get(rel).map(Vec::as_slice));
                if *c != FileChange::Same {
                    t.push_str(&indent(&file_diff(rel.as_str(), before, after)));
                }
            }
        }
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// Writes only after a yes: `--yes`, or an answer on a terminal.
fn agreed(yes: bool, what: &str) -> Result<(), Failure> {
    if yes || confirm(&format!("\n{what}?")) {
        return Ok(());
    }
    Err(Failure::failed(miette!(
        help = "read what is shown above, then pass --yes to write it (or run the command on a terminal and answer y)",
        "nothing was written ({what}: not confirmed)"
    )))
}

fn lock_scope(fs: &dyn FileSystem, scope: &Scope) -> Result<Option<ports::fs::DirLock>, Failure> {
    // One install at a time per lock: two at once would each write the lock without the other's
    // entries. A folder that does not exist yet is made by the first write, under no lock.
    match fs.lock_dir(scope.lock_dir(), true) {
        Ok(l) => Ok(l),
        Err(e) if e.kind == ports::fs::FsErrorKind::NotFound => Ok(None),
        Err(e) => Err(Failure::failed(miette!("could not lock {}: {}", scope.lock_dir().display(), e.detail))),
    }
}

pub struct InstallArgs<'a> {
    pub source: &'a str,
    pub layer: Option<&'a str>,
    pub scope: ScopeChoice,
    pub yes: bool,
    pub force: bool,
}

pub fn install(
    fs: &dyn FileSystem,
    clock: &dyn ports::Clock,
    sources: &Sources,
    edge: &Edge,
    a: &InstallArgs<'_>,
) -> Outcome {
    let source = Source::parse(a.source).map_err(|e| {
        Failure::usage(miette!(
            help = "sources: github:USER/REPO[/PATH][@REF], git+URL[#PATH][@REF], npm:PACKAGE[@VERSION], or a folder",
            "{e}"
        ))
    })?;
    let token = token(edge)?;
    if token.is_some() && source.https_host().as_deref() != Some(GITHUB_HOST) {
        return Err(Failure::usage(miette!(
            help = "leave --github-token out: your git credentials or SSH key reach other hosts",
            "--github-token sends the token to {GITHUB_HOST} over https only, and {source} is not there"
        )));
    }
    let scope = scope(fs, sources, a.scope)?;
    // Relative folders are relative to where the person runs the command; the lock records
    // them relative to its own folder.
    let source = match &source {
        Source::Local { path } => {
            let abs = domain::career::select::expand_path(path, sources.home.as_deref(), &sources.cwd);
            Source::Local { path: local_as_stored(&scope, &abs) }
        }
        other => other.clone(),
    };
    let _guard = lock_scope(fs, &scope)?;
    let mut lock = usecase::read_lock(fs, &scope)?;
    let fetched = fetchers(fs, sources, &scope, token.as_ref()).fetch(&source, Pin::Resolve)?;
    let found = usecase::found_in(&source, &fetched)?;
    let plans = usecase::plan(fs, &scope, &lock, &source, &fetched, found, a.layer)?;
    out(&describe(&scope, &source, &fetched.resolved, &plans, &fetched.tree.left_out, true));
    let changing: Vec<SkillPlan> = plans.into_iter().filter(SkillPlan::changes_anything).collect();
    if changing.is_empty() {
        out("\nNothing to do: every skill is installed as the source has it.\n");
        return Ok(ExitCode::SUCCESS);
    }
    usecase::check_edits(&changing, a.force)?;
    let files: usize = changing.iter().map(|p| p.found.files.len()).sum();
    agreed(a.yes, &format!("Install {} skill(s), {files} file(s)", changing.len()))?;
    let applied = usecase::apply(fs, clock, &scope, &mut lock, &changing, a.force)?;
    for b in &applied.backups {
        out(&format!("kept your edited file as {}\n", b.display()));
    }
    for p in &changing {
        let verb = if p.old.is_some() { "Updated" } else { "Installed" };
        out(&format!("{verb} {} into layer {} ({})\n", p.id(), p.layer.name, p.place.path.display()));
    }
    out(&format!("Lock: {}\n", scope.lock_path.display()));
    offer_adoption(fs, sources, &lock);
    Ok(ExitCode::SUCCESS)
}

/// A local source as the lock keeps it: relative to the lock's folder when inside it.
fn local_as_stored(scope: &Scope, abs: &Path) -> String {
    match abs.strip_prefix(scope.lock_dir()) {
        Ok(rel) if scope.kind == ScopeKind::Project => format!("./{}", rel.display()),
        _ => abs.display().to_string(),
    }
}

/// `skills install --frozen` / `skills sync`: exactly what the lock says, or nothing.
pub fn sync(
    fs: &dyn FileSystem,
    clock: &dyn ports::Clock,
    sources: &Sources,
    edge: &Edge,
    choice: ScopeChoice,
    yes: bool,
) -> Outcome {
    let token = token(edge)?;
    let scope = scope(fs, sources, choice)?;
    let _guard = lock_scope(fs, &scope)?;
    let mut lock = usecase::read_lock(fs, &scope)?;
    if fs.metadata(&scope.lock_path).is_err() {
        return Err(Failure::failed(miette!(
            help = "install skills with `vitaecontext skills install SOURCE` first; it writes the lock",
            "there is no lock at {}",
            scope.lock_path.display()
        )));
    }
    let fetchers = fetchers(fs, sources, &scope, token.as_ref());
    let mut to_write = Vec::new();
    let mut up_to_date = 0;
    let mut problems: Vec<Refusal> = Vec::new();
    for (id, entry) in &lock.skills {
        match usecase::frozen_plan(fs, &fetchers, &scope, id, entry) {
            Ok(Some(p)) => to_write.push(p),
            Ok(None) => up_to_date += 1,
            Err(r) => problems.push(r),
        }
    }
    if !problems.is_empty() {
        let message: Vec<String> = problems.iter().map(|r| format!("- {}", r.message)).collect();
        let help = problems.first().map(|r| r.help.clone()).unwrap_or_default();
        return Err(Failure::failed(miette!(
            help = help,
            "the skills do not match the lock {}; nothing was installed:\n{}",
            scope.lock_path.display(),
            message.join("\n")
        )));
    }
    if !to_write.is_empty() {
        // A clone's lock and config say what is written where: shown, and written after a yes.
        let mut t = format!("Lock {} (scope {})\n", scope.lock_path.display(), scope.kind.as_str());
        for p in &to_write {
            t.push_str(&format!("\nFrom {}\n", p.entry.source));
            describe_plan(&mut t, p, false);
        }
        out(&t);
        let files: usize = to_write.iter().map(|p| p.found.files.len()).sum();
        agreed(yes, &format!("Install {} skill(s), {files} file(s), as locked", to_write.len()))?;
        usecase::apply(fs, clock, &scope, &mut lock, &to_write, false)?;
    }
    for p in &to_write {
        out(&format!("Installed {} into layer {} ({})\n", p.id(), p.layer.name, p.place.path.display()));
    }
    out(&format!(
        "{} skill(s) installed, {up_to_date} already as locked ({})\n",
        to_write.len(),
        scope.lock_path.display()
    ));
    Ok(ExitCode::SUCCESS)
}

pub struct UpdateArgs<'a> {
    pub id: Option<&'a str>,
    pub to: Option<&'a str>,
    pub dry_run: bool,
    pub force: bool,
    pub yes: bool,
    pub scope: ScopeChoice,
}

pub fn update(
    fs: &dyn FileSystem,
    clock: &dyn ports::Clock,
    sources: &Sources,
    edge: &Edge,
    a: &UpdateArgs<'_>,
) -> Outcome {
    let token = token(edge)?;
    let scope = scope(fs, sources, a.scope)?;
    let _guard = lock_scope(fs, &scope)?;
    let mut lock = usecase::read_lock(fs, &scope)?;
    let ids: Vec<String> = match a.id {
        Some(id) if lock.skills.contains_key(id) => vec![id.to_owned()],
        Some(id) => return Err(not_installed(&scope, &lock, id).into()),
        None if a.to.is_some() => {
            return Err(Failure::usage(miette!(
                help = "name the skill: `skills update ID --ref REF`",
                "--ref needs an ID"
            )));
        }
        None => lock.skills.keys().cloned().collect(),
    };
    if ids.is_empty() {
        out(&format!("Nothing is installed in the {} scope ({}).\n", scope.kind.as_str(), scope.lock_path.display()));
        return Ok(ExitCode::SUCCESS);
    }
    let fetchers = fetchers(fs, sources, &scope, token.as_ref());
    let mut changing: Vec<SkillPlan> = Vec::new();
    let mut text = String::new();
    let mut fetched_by_source: std::collections::HashMap<String, usecase::Fetched> = Default::default();
    for id in &ids {
        let entry = &lock.skills[id];
        let locked = Source::parse(&entry.source).map_err(|e| {
            Failure::from(Refusal::new(format!("the lock's source for {id:?} does not parse: {e}"), "restore the lock"))
        })?;
        let source = match a.to {
            Some(r) => locked.with_wanted(r).ok_or_else(|| {
                Failure::usage(miette!(
                    help = "a git ref (branch, tag, full commit id) or an npm version; a folder has none",
                    "{r:?} cannot be the ref or version of {locked}"
                ))
            })?,
            None => locked.clone(),
        };
        // Skills from one source are fetched once.
        let key = source.to_string();
        if !fetched_by_source.contains_key(&key) {
            fetched_by_source.insert(key.clone(), fetchers.fetch(&source, Pin::Resolve)?);
        }
        let fetched = &fetched_by_source[&key];
        if let (Some(usecase::RefKind::Tag(t)), None, Some(was), Some(now)) =
            (&fetched.resolved.ref_kind, a.to, &entry.commit, &fetched.resolved.commit)
            && was != now
            && !a.force
        {
            return Err(Failure::failed(miette!(
                help = "a tag that moves may mean the source was tampered with: check with its maintainers; pass --force to take the new commit",
                "{source}: the tag {t} now names commit {now}, not {was} as when {id} was installed; nothing was written"
            )));
        }
        let found = usecase::found_in(&source, fetched)?;
        let Some(skill) = found.into_iter().find(|f| &f.id == id) else {
            return Err(Failure::failed(miette!(
                help = format!(
                    "uninstall it (`vitaecontext skills uninstall {id}`), or update to a ref that has it with --ref"
                ),
                "{source} at {} no longer holds {id:?}",
                fetched.resolved.describe()
            )));
        };
        let plans = usecase::plan(fs, &scope, &lock, &source, fetched, vec![skill], None)?;
        for p in plans {
            if p.changes_anything() {
                text.push_str(&describe(&scope, &source, &fetched.resolved, std::slice::from_ref(&p), &[], true));
                changing.push(p);
            } else {
                text.push_str(&format!("{id}: up to date ({})\n", fetched.resolved.describe()));
            }
        }
    }
    out(&text);
    let summary = format!("{} of {} updated", if a.dry_run { 0 } else { changing.len() }, ids.len());
    if changing.is_empty() {
        out(&format!("{summary}\n"));
        return Ok(ExitCode::SUCCESS);
    }
    usecase::check_edits(&changing, a.force)?;
    if a.dry_run {
        out(&format!("\n{summary} (--dry-run: {} would change, nothing was written)\n", changing.len()));
        return Ok(ExitCode::SUCCESS);
    }
    agreed(a.yes, &format!("Update {} skill(s)", changing.len()))?;
    let applied = usecase::apply(fs, clock, &scope, &mut lock, &changing, a.force)?;
    for b in &applied.backups {
        out(&format!("kept your edited file as {}\n", b.display()));
    }
    out(&format!("{summary}\n"));
    Ok(ExitCode::SUCCESS)
}

fn not_installed(scope: &Scope, lock: &Lock, id: &str) -> Refusal {
    let installed: Vec<&str> = lock.skills.keys().map(String::as_str).collect();
    Refusal::new(
        format!("{id:?} is not in the lock {}", scope.lock_path.display()),
        if installed.is_empty() {
            format!("nothing is installed in the {} scope (try --project or --user)", scope.kind.as_str())
        } else {
            format!("installed: {}", installed.join(", "))
        },
    )
}

pub fn uninstall(
    fs: &dyn FileSystem,
    sources: &Sources,
    id: &str,
    force: bool,
    purge_backups: bool,
    yes: bool,
    choice: ScopeChoice,
) -> Outcome {
    let scope = scope(fs, sources, choice)?;
    let _guard = lock_scope(fs, &scope)?;
    let mut lock = usecase::read_lock(fs, &scope)?;
    if let Some(entry) = lock.skills.get(id) {
        let (place, layer) = usecase::place_of(&scope, id, entry)?;
        let mut t = format!("- {id} from layer {} ({})\n", layer.name, place.path.display());
        for rel in entry.files.keys() {
            t.push_str(&format!("    {}\n", place.file(rel).display()));
        }
        if purge_backups {
            t.push_str("    and the backups kept beside them\n");
        }
        t.push_str(&format!("  and its entry in {}\n", scope.lock_path.display()));
        out(&t);
        agreed(yes, &format!("Uninstall {id}, {} file(s)", entry.files.len()))?;
    }
    let done = usecase::uninstall(fs, &scope, &mut lock, id, force, purge_backups)?;
    out(&format!(
        "Uninstalled {id} from layer {} ({}, {} file(s) removed)\n",
        done.layer,
        done.place.display(),
        done.files
    ));
    if purge_backups {
        out(&format!("{} backup(s) removed\n", done.backups_removed));
    }
    out(&format!("Lock: {}\n", scope.lock_path.display()));
    Ok(ExitCode::SUCCESS)
}

/// Status 3 of `skills outdated --exit-code`: something newer is available.
const NEWER_AVAILABLE: u8 = 3;

pub fn outdated(fs: &dyn FileSystem, sources: &Sources, edge: &Edge, exit_code: bool, choice: ScopeChoice) -> Outcome {
    let token = token(edge)?;
    let scope = scope(fs, sources, choice)?;
    let lock = usecase::read_lock(fs, &scope)?;
    let fetchers = fetchers(fs, sources, &scope, token.as_ref());
    let mut rows: Vec<[String; 4]> = Vec::new();
    let mut failures = Vec::new();
    for (id, entry) in &lock.skills {
        let locked = entry
            .commit
            .as_deref()
            .map(|c| short(c).to_owned())
            .or(entry.version.clone())
            .unwrap_or_else(|| "folder".into());
        let available = Source::parse(&entry.source)
            .map_err(|e| Refusal::new(e.to_string(), "restore the lock"))
            .and_then(|s| fetchers.available(&s, entry));
        match available {
            Ok(newer) if newer.is_empty() => {}
            Ok(newer) => rows.push([id.clone(), entry.source.clone(), locked, newer.join(", ")]),
            Err(r) => failures.push(format!("{id}: {}", r.message)),
        }
    }
    if rows.is_empty() {
        out(&format!("All {} installed skill(s) are up to date ({}).\n", lock.skills.len(), scope.lock_path.display()));
    } else {
        out(&super::skills::table(["ID", "SOURCE", "LOCKED", "AVAILABLE"], &rows));
        err(
            "`vitaecontext skills update ID` follows a branch; `skills update ID --ref TAG` moves to a tag or version.\n",
        );
    }
    if !failures.is_empty() {
        return Err(Failure::failed(miette!(
            help = "check that the sources can be reached (network, credentials), then run it again",
            "could not check {} source(s):\n{}",
            failures.len(),
            failures.join("\n")
        )));
    }
    Ok(if exit_code && !rows.is_empty() { ExitCode::from(NEWER_AVAILABLE) } else { ExitCode::SUCCESS })
}

/// Where skill-central keeps its lock.
fn skill_central_lock(sources: &Sources) -> Option<PathBuf> {
    sources.home.as_ref().map(|h| h.join(".skill-central").join("lock.json"))
}

/// After an install into the person's scope: a note when skill-central's lock holds skills
/// that ours does not.
fn offer_adoption(fs: &dyn FileSystem, sources: &Sources, lock: &Lock) {
    let Some(path) = skill_central_lock(sources) else { return };
    let Ok(bytes) = fs.read(&path, 16 * 1024 * 1024) else { return };
    let Ok(entries) = parse_skill_central_lock(&String::from_utf8_lossy(&bytes)) else { return };
    let new = entries.iter().filter(|e| !lock.skills.contains_key(&e.id)).count();
    if new > 0 {
        err(&format!(
            "note: skill-central's lock ({}) has {new} skill(s) this one does not; `vitaecontext skills adopt --layer LAYER` brings them over\n",
            path.display()
        ));
    }
}

pub struct AdoptArgs<'a> {
    pub layer: Option<&'a str>,
    pub yes: bool,
    pub scope: ScopeChoice,
}

/// `skills adopt`: each entry of skill-central's lock resolved again at the ref or version it
/// recorded, kept only when the source still gives the very bytes skill-central installed (its
/// SHA-256), then installed and locked as `skills install` would.
pub fn adopt(
    fs: &dyn FileSystem,
    clock: &dyn ports::Clock,
    sources: &Sources,
    edge: &Edge,
    a: &AdoptArgs<'_>,
) -> Outcome {
    let token = token(edge)?;
    let path = skill_central_lock(sources)
        .ok_or_else(|| Failure::usage(miette!(help = "set HOME", "no home folder: HOME is not set")))?;
    let bytes = fs.read(&path, 16 * 1024 * 1024).map_err(|e| {
        Failure::failed(miette!(
            help = "skill-central keeps its lock at ~/.skill-central/lock.json once it has installed something",
            "failed to read lock file {}: {}",
            path.display(),
            e.detail
        ))
    })?;
    let entries = parse_skill_central_lock(&String::from_utf8_lossy(&bytes)).map_err(|e| {
        Failure::failed(miette!(
            help = "fix it with skill-central, or move it aside",
            "failed to read lock file {}: {e}",
            path.display()
        ))
    })?;
    let scope = scope(fs, sources, ScopeChoice { user: !a.scope.project, ..a.scope })?;
    let _guard = lock_scope(fs, &scope)?;
    let mut lock = usecase::read_lock(fs, &scope)?;
    let fetchers = fetchers(fs, sources, &scope, token.as_ref());
    let mut plans = Vec::new();
    let mut text = String::new();
    let mut skipped = Vec::new();
    for e in &entries {
        if lock.skills.contains_key(&e.id) {
            skipped.push(format!("{}: already in {}", e.id, scope.lock_path.display()));
            continue;
        }
        // skill-central 0.4 wrote the ref it fetched at the end of the source, or only in
        // `version`: the source is taken at that ref.
        let parsed = Source::parse(&e.source).map(|s| match s.wanted() {
            None if !e.version.is_empty() => s.with_wanted(&e.version).unwrap_or(s),
            _ => s,
        });
        let source = match parsed {
            Ok(s) => s,
            Err(err) => {
                skipped.push(format!("{}: {err}", e.id));
                continue;
            }
        };
        let fetched = match fetchers.fetch(&source, Pin::Resolve) {
            Ok(f) => f,
            Err(r) => {
                skipped.push(format!("{}: {}", e.id, r.message));
                continue;
            }
        };
        let found = match usecase::found_in(&source, &fetched) {
            Ok(f) => f,
            Err(r) => {
                skipped.push(format!("{}: {}", e.id, r.message));
                continue;
            }
        };
        let Some(skill) = found.into_iter().find(|f| f.id == e.id) else {
            skipped.push(format!("{}: {source} no longer holds it", e.id));
            continue;
        };
        let file_sha = skill.files.values().next().map(|b| sha256_hex(b)).unwrap_or_default();
        if skill.files.len() != 1 || file_sha != e.sha256 {
            skipped.push(format!(
                "{}: {source} now gives other bytes (sha256 {}) than skill-central installed ({}); install it anew with `vitaecontext skills install {source}` and review it",
                e.id,
                short(&file_sha),
                short(&e.sha256)
            ));
            continue;
        }
        let on_disk = fs.read(Path::new(&e.file_path), 16 * 1024 * 1024).ok().map(|b| sha256_hex(&b));
        if on_disk.as_deref().is_some_and(|d| d != e.sha256) {
            text.push_str(&format!(
                "note: {} was edited since skill-central installed it; the source's version is adopted, yours stays at {}\n",
                e.id, e.file_path
            ));
        }
        match usecase::plan(fs, &scope, &lock, &source, &fetched, vec![skill], a.layer) {
            Ok(p) => {
                text.push_str(&describe(&scope, &source, &fetched.resolved, &p, &[], false));
                plans.extend(p);
            }
            Err(r) => return Err(r.into()),
        }
    }
    out(&format!("skill-central's lock {}: {} entr(ies)\n", path.display(), entries.len()));
    out(&text);
    for s in &skipped {
        out(&format!("not adopted: {s}\n"));
    }
    if plans.is_empty() {
        out("Nothing to adopt.\n");
        return Ok(ExitCode::SUCCESS);
    }
    agreed(a.yes, &format!("Adopt {} skill(s)", plans.len()))?;
    usecase::apply(fs, clock, &scope, &mut lock, &plans, false)?;
    for p in &plans {
        out(&format!("Adopted {} into layer {} ({})\n", p.id(), p.layer.name, p.place.path.display()));
    }
    out(&format!("Lock: {}\n", scope.lock_path.display()));
    Ok(ExitCode::SUCCESS)
}
