//! Registering vitaecontext with an MCP client: read the client's configuration through the
//! filesystem port, let the domain edit the text, back the old file up and write the new one
//! atomically. Also what `doctor` asks: which clients register vitaecontext, and how.

use std::path::{Path, PathBuf};

use domain::clients::{self, Client, Edit, EditError, Entry, Env};
use ports::Clock;
use ports::fs::{FileKind, FileSystem, FsError, FsErrorKind};

/// `~/.claude.json` holds Claude Code's history too and can grow large; nothing legitimate is
/// near this.
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024 * 1024;

/// What to do to a client's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Register(Entry),
    Remove,
}

/// What would change: the file, its text now (`None` when it does not exist) and its text
/// after (`None` when nothing changes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub client: Client,
    /// The configuration file as the client names it.
    pub path: PathBuf,
    /// Where the bytes are written: the file a symlinked configuration points at, so that a
    /// dotfiles link stays a link.
    pub target: PathBuf,
    pub before: Option<String>,
    pub after: Option<String>,
}

impl Plan {
    pub fn changes(&self) -> bool {
        self.after.is_some()
    }

    /// A unified diff of the change, with the path as both names.
    pub fn diff(&self) -> String {
        let Some(after) = &self.after else { return String::new() };
        let before = self.before.as_deref().unwrap_or("");
        let name = self.path.display().to_string();
        let old_name = if self.before.is_some() { name.clone() } else { "/dev/null".to_string() };
        similar::TextDiff::from_lines(before, after.as_str())
            .unified_diff()
            .context_radius(3)
            .header(&old_name, &name)
            .to_string()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    #[error("cannot tell where {} keeps its configuration on this machine: {needs} is not set", .client.title())]
    NoLocation { client: Client, needs: &'static str },
    #[error("could not read {}: {}", .0.path.display(), .0.detail)]
    Read(FsError),
    #[error("{} is not UTF-8 text", .0.display())]
    NotText(PathBuf),
    #[error("{}: {error}", .path.display())]
    Edit { path: PathBuf, text: String, error: EditError },
    #[error("could not write {}: {}", .0.path.display(), .0.detail)]
    Write(FsError),
    #[error(
        "{} is a symlink to {}, which does not exist: create that file (it may be `{{}}`) or remove the link, then run register again",
        .link.display(), .target.display()
    )]
    DanglingLink { link: PathBuf, target: PathBuf },
    #[error(
        "{} changed {attempts} times while vitaecontext was merging its entry into it (another program is saving it): nothing was written; close that program or wait, then run register again",
        .path.display()
    )]
    KeptChanging { path: PathBuf, attempts: usize },
}

fn location(client: Client, env: &Env) -> Result<PathBuf, RegisterError> {
    client.config_path(env).ok_or(RegisterError::NoLocation {
        client,
        needs: match env.os {
            domain::clients::Os::Windows if env.appdata.is_none() => "APPDATA or USERPROFILE",
            domain::clients::Os::Windows => "USERPROFILE",
            _ => "HOME",
        },
    })
}

/// The text of a configuration file and the path its bytes live at; `None` when missing.
fn read_config(fs: &dyn FileSystem, path: &Path) -> Result<Option<(String, PathBuf)>, RegisterError> {
    match fs.read(path, MAX_CONFIG_BYTES) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes).map_err(|_| RegisterError::NotText(path.to_path_buf()))?;
            let target = fs.canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            Ok(Some((text, target)))
        }
        // A link to no file: writing a new file in its place would cut the link to the
        // user's dotfiles (found in review), and writing where it points may be a folder that
        // is not there; the user says which.
        Err(e) if e.kind == FsErrorKind::NotFound => match fs.symlink_metadata(path) {
            Ok(m) if m.kind == FileKind::Symlink => Err(RegisterError::DanglingLink {
                link: path.to_path_buf(),
                target: fs.read_link(path).unwrap_or_default(),
            }),
            _ => Ok(None),
        },
        Err(e) => Err(RegisterError::Read(e)),
    }
}

/// What `action` would do to `client`'s configuration; reads, writes nothing.
pub fn plan(fs: &dyn FileSystem, env: &Env, client: Client, action: &Action) -> Result<Plan, RegisterError> {
    let path = location(client, env)?;
    let current = match read_config(fs, &path) {
        // Nothing to remove from a file that is not there, link or not.
        Err(RegisterError::DanglingLink { .. }) if matches!(action, Action::Remove) => None,
        other => other?,
    };
    let before = current.as_ref().map(|(t, _)| t.clone());
    let target = current.map_or_else(|| path.clone(), |(_, t)| t);
    let text = before.as_deref().unwrap_or("");
    let edit = match (action, &before) {
        (Action::Remove, None) => Ok(Edit::Unchanged),
        (Action::Remove, Some(_)) => clients::remove(client, text),
        (Action::Register(entry), _) => clients::register(client, text, entry),
    };
    let edit = edit.map_err(|error| RegisterError::Edit { path: path.clone(), text: text.to_string(), error })?;
    let after = match edit {
        Edit::Unchanged => None,
        Edit::Changed(t) => Some(t),
    };
    Ok(Plan { client, path, target, before, after })
}

/// What [`apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The copy of the old file, when there was one.
    pub backup: Option<PathBuf>,
    /// The file did not exist and was created (with its folder).
    pub created: bool,
    /// How many times the file changed between its read and its replacement (another program
    /// saving it), so that the change was merged again into what it then held.
    pub merged_again: usize,
    /// The plan that was written: `plan`'s, or the last one merged again.
    pub plan: Plan,
}

/// How many times [`apply`] merges again into a file that keeps changing under it.
pub const MERGE_ATTEMPTS: usize = 5;

/// Backs up the old file beside it (`<file>.vitaecontext-backup-<UTC>`), then writes the new
/// text atomically, only if the file still holds what the plan read: when another program
/// changed it meanwhile, `action` is planned again on what it holds now (at most
/// [`MERGE_ATTEMPTS`] times), so nothing that program wrote is lost. Does nothing for a plan
/// without change.
pub fn apply(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    env: &Env,
    action: &Action,
    plan: Plan,
) -> Result<Applied, RegisterError> {
    let mut plan = plan;
    if let Some(dir) = plan.target.parent() {
        remove_stale_leftovers(fs, clock, dir);
    }
    for merged_again in 0..MERGE_ATTEMPTS {
        let Some(after) = &plan.after else {
            return Ok(Applied { backup: None, created: false, merged_again, plan });
        };
        let backup = match &plan.before {
            Some(before) => {
                Some(super::write_backup(fs, clock, &plan.target, before.as_bytes()).map_err(RegisterError::Write)?)
            }
            None => {
                if let Some(dir) = plan.target.parent() {
                    fs.create_dir_all(dir).map_err(RegisterError::Write)?;
                }
                None
            }
        };
        let written = match &plan.before {
            Some(before) => {
                fs.replace_if_unchanged(&plan.target, before.as_bytes(), after.as_bytes(), MAX_CONFIG_BYTES)
            }
            // A file that was not there is created only if it still is not.
            None => match fs.write_new(&plan.target, after.as_bytes()) {
                Err(e) if e.kind == FsErrorKind::AlreadyExists => Ok(false),
                other => other.map(|()| true),
            },
        };
        // Removed meanwhile: changed, too.
        let written = match written {
            Err(e) if e.kind == FsErrorKind::NotFound => Ok(false),
            other => other,
        };
        if let Ok(true) = written {
            return Ok(Applied { created: plan.before.is_none(), backup, merged_again, plan });
        }
        // Nothing was replaced: a backup of it would be one more file for nothing.
        if let Some(b) = &backup {
            let _ = fs.remove_file(b);
        }
        match written {
            Err(e) => return Err(RegisterError::Write(e)),
            _ => plan = self::plan(fs, env, plan.client, action)?,
        }
    }
    Err(RegisterError::KeptChanging { path: plan.path.clone(), attempts: MERGE_ATTEMPTS })
}

/// How old a `.vitaecontext-*.tmp` or `.old` file beside a config must be before the next
/// register removes it: a younger one may be another register's write in flight.
pub const LEFTOVER_AGE: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// Removes what a killed write left beside a client's config (`.vitaecontext-XXXX.tmp`,
/// `.old`), once older than [`LEFTOVER_AGE`]. Best effort: what cannot be removed stays.
fn remove_stale_leftovers(fs: &dyn FileSystem, clock: &dyn Clock, dir: &Path) {
    let Ok(entries) = fs.read_dir(dir) else { return };
    let now = clock.now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64);
    for e in entries.iter().filter(|e| e.kind == FileKind::File && ports::fs::is_set_leftover(&e.name)) {
        let path = dir.join(&e.name);
        let old = fs
            .symlink_metadata(&path)
            .ok()
            .and_then(|m| m.modified_ns)
            .is_some_and(|t| now.saturating_sub(t) >= LEFTOVER_AGE.as_nanos() as i64);
        if old && fs.remove_file(&path).is_ok() {
            tracing::info!("removed {}, left by an interrupted write", path.display());
        }
    }
}

/// Whether a client registers vitaecontext, as far as its file tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    /// The file or its folder is missing, or it has no vitaecontext entry.
    Absent,
    /// The entry and what it runs.
    Present(Entry),
    /// The file exists but could not be read or parsed.
    Unreadable(String),
}

/// One client as `register` (without `--client`) and `doctor` see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientStatus {
    pub client: Client,
    /// The user-level configuration file; `None` when the variables its location needs are unset.
    pub path: Option<PathBuf>,
    /// The configuration file or its folder exists: the client is (or was) on this machine.
    pub found: bool,
    pub registration: Registration,
}

/// Every known client, in table order: its config path, whether it is installed here, and
/// whether (and how) it registers vitaecontext.
pub fn status(fs: &dyn FileSystem, env: &Env) -> Vec<ClientStatus> {
    Client::ALL.into_iter().map(|c| client_status(fs, env, c)).collect()
}

/// [`status`] for one client.
pub fn client_status(fs: &dyn FileSystem, env: &Env, client: Client) -> ClientStatus {
    let Some(path) = client.config_path(env) else {
        return ClientStatus { client, path: None, found: false, registration: Registration::Absent };
    };
    // The client's own folder (`~/.cursor`) tells it is installed; the home folder, where
    // `~/.claude.json` lives, tells nothing.
    let folder_exists = path
        .parent()
        .filter(|d| Some(*d) != env.home.as_deref())
        .and_then(|d| fs.metadata(d).ok())
        .is_some_and(|m| m.kind == FileKind::Dir);
    let (found, registration) = match read_config(fs, &path) {
        Ok(None) => (folder_exists, Registration::Absent),
        Ok(Some((text, _))) => match clients::find(client, &text) {
            Ok(Some(entry)) => (true, Registration::Present(entry)),
            Ok(None) => (true, Registration::Absent),
            Err(e) => (true, Registration::Unreadable(e.to_string())),
        },
        Err(e) => (true, Registration::Unreadable(e.to_string())),
    };
    ClientStatus { client, path: Some(path), found, registration }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use domain::clients::Os;
    use fs_memory::MemoryFs;

    use super::*;

    struct FixedClock;

    impl Clock for FixedClock {
        fn now(&self) -> SystemTime {
            // 2026-11-30T20:45:00Z
            std::time::UNIX_EPOCH + Duration::from_secs(1_796_071_500)
        }
        fn monotonic(&self) -> Duration {
            Duration::ZERO
        }
    }

    fn env() -> Env {
        Env { os: Os::Linux, home: Some("/home/ada".into()), appdata: None, xdg_config_home: None, codex_home: None }
    }

    fn entry() -> Entry {
        Entry { command: "/usr/bin/vitaecontext".into(), args: vec!["mcp".into()] }
    }

    fn text(fs: &MemoryFs, p: &str) -> String {
        String::from_utf8(fs.read(Path::new(p), 1 << 20).unwrap()).unwrap()
    }

    #[test]
    fn register_creates_the_file_then_backs_it_up_on_the_next_change() {
        let fs = MemoryFs::new();
        let reg = Action::Register(entry());
        let p = plan(&fs, &env(), Client::Cursor, &reg).unwrap();
        assert!(p.diff().starts_with("--- /dev/null\n+++ /home/ada/.cursor/mcp.json\n"), "{}", p.diff());
        let done = apply(&fs, &FixedClock, &env(), &reg, p).unwrap();
        assert_eq!((done.backup, done.created, done.merged_again), (None, true, 0));
        assert!(text(&fs, "/home/ada/.cursor/mcp.json").contains("/usr/bin/vitaecontext"));

        // Twice: nothing to do.
        let again = plan(&fs, &env(), Client::Cursor, &reg).unwrap();
        assert!(!again.changes());
        let done = apply(&fs, &FixedClock, &env(), &reg, again).unwrap();
        assert_eq!((done.backup, done.created), (None, false));

        let before = text(&fs, "/home/ada/.cursor/mcp.json");
        let rm = plan(&fs, &env(), Client::Cursor, &Action::Remove).unwrap();
        let done = apply(&fs, &FixedClock, &env(), &Action::Remove, rm).unwrap();
        let backup = "/home/ada/.cursor/mcp.json.vitaecontext-backup-20261130T204500Z";
        assert_eq!(done.backup.as_deref(), Some(Path::new(backup)));
        assert_eq!(text(&fs, backup), before);
        assert!(!text(&fs, "/home/ada/.cursor/mcp.json").contains("vitaecontext"));

        // A second backup within the same second does not overwrite the first.
        let p = plan(&fs, &env(), Client::Cursor, &reg).unwrap();
        let done = apply(&fs, &FixedClock, &env(), &reg, p).unwrap();
        assert_eq!(done.backup, Some(PathBuf::from(format!("{backup}-2"))));
        assert_eq!(text(&fs, backup), before);
    }

    /// Another program saves the config between register's read and its replace: the entry
    /// is merged again into what it saved, and nothing of that save is lost (found in review:
    /// 326 of 1,240 entries vanished). A file that keeps changing is left alone, with an error.
    #[test]
    fn an_edit_between_the_read_and_the_replace_is_merged_not_lost() {
        let fs = MemoryFs::new();
        let path = "/home/ada/.cursor/mcp.json";
        fs.create_dir_all(Path::new("/home/ada/.cursor")).unwrap();
        fs.write_atomic(Path::new(path), b"{\"mcpServers\": {\"a\": {\"command\": \"a\"}}}\n").unwrap();
        let reg = Action::Register(entry());
        let p = plan(&fs, &env(), Client::Cursor, &reg).unwrap();
        // Saved while the backup is written, after the plan read the file.
        let saved = b"{\"mcpServers\": {\"a\": {\"command\": \"a\"}, \"b\": {\"command\": \"b\"}}}\n";
        fs.edit_at_next_write_new(path, saved);
        let done = apply(&fs, &FixedClock, &env(), &reg, p).unwrap();
        assert_eq!(done.merged_again, 1);
        let now = text(&fs, path);
        assert!(now.contains("\"b\"") && now.contains("/usr/bin/vitaecontext"), "{now}");
        // The one backup left is of what was replaced: the saved version.
        let backups = crate::usecase::backups_of(&fs, Path::new(path));
        assert_eq!(backups.len(), 1, "{backups:?}");
        assert_eq!(fs.read(&backups[0], 1 << 20).unwrap(), saved);

        // A file that changes at every attempt: nothing is written, and it says so.
        let rm = plan(&fs, &env(), Client::Cursor, &Action::Remove).unwrap();
        for k in 0..MERGE_ATTEMPTS {
            fs.edit_at_next_write_new(
                path,
                format!("{{\"mcpServers\": {{\"vitaecontext\": {{\"command\": \"x{k}\"}}}}}}\n").as_bytes(),
            );
        }
        let e = apply(&fs, &FixedClock, &env(), &Action::Remove, rm).unwrap_err();
        assert!(matches!(e, RegisterError::KeptChanging { .. }), "{e}");
        assert!(text(&fs, path).contains(&format!("x{}", MERGE_ATTEMPTS - 1)), "the last save stays");
    }

    /// Backups never collide, however many in one second, and only the newest BACKUPS_KEPT of
    /// a file stay.
    #[test]
    fn backups_never_collide_and_the_oldest_go() {
        let fs = MemoryFs::new();
        fs.create_dir_all(Path::new("/d")).unwrap();
        let target = Path::new("/d/f.json");
        let mut made = Vec::new();
        for k in 0..25 {
            made.push(crate::usecase::write_backup(&fs, &FixedClock, target, format!("{k}").as_bytes()).unwrap());
        }
        let kept = crate::usecase::backups_of(&fs, target);
        assert_eq!(kept, made[25 - crate::usecase::BACKUPS_KEPT..], "the newest, oldest first");
        assert_eq!(fs.read(kept.last().unwrap(), 10).unwrap(), b"24");
        assert!(kept.last().unwrap().to_string_lossy().ends_with("-25"));
    }

    /// What a killed write left beside the config is removed by the next register; other
    /// files there stay.
    #[test]
    fn leftovers_of_a_killed_write_are_removed() {
        let fs = MemoryFs::new();
        fs.create_dir_all(Path::new("/home/ada/.cursor")).unwrap();
        for name in
            [".vitaecontext-Mw4sWH.tmp", ".vitaecontext-ORpupy.old", "notes.tmp", "mcp.json.vitaecontext-backup-1"]
        {
            fs.write_atomic(&Path::new("/home/ada/.cursor").join(name), b"x").unwrap();
        }
        let reg = Action::Register(entry());
        let p = plan(&fs, &env(), Client::Cursor, &reg).unwrap();
        apply(&fs, &FixedClock, &env(), &reg, p).unwrap();
        let mut names: Vec<String> = fs
            .read_dir(Path::new("/home/ada/.cursor"))
            .unwrap()
            .into_iter()
            .map(|e| e.name.to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["mcp.json", "mcp.json.vitaecontext-backup-1", "notes.tmp"]);
    }

    #[test]
    fn remove_without_a_file_writes_nothing() {
        let fs = MemoryFs::new();
        let p = plan(&fs, &env(), Client::Codex, &Action::Remove).unwrap();
        assert_eq!((p.before.as_ref(), p.changes()), (None, false));
        apply(&fs, &FixedClock, &env(), &Action::Remove, p).unwrap();
        assert!(fs.read_dir(Path::new("/home/ada")).map(|d| d.is_empty()).unwrap_or(true));
    }

    #[test]
    fn an_unparseable_file_is_refused_and_left_alone() {
        let fs = MemoryFs::new();
        fs.create_dir_all(Path::new("/home/ada/.gemini")).unwrap();
        fs.write_atomic(Path::new("/home/ada/.gemini/settings.json"), b"{ \"mcpServers\": ").unwrap();
        let e = plan(&fs, &env(), Client::Gemini, &Action::Register(entry())).unwrap_err();
        assert!(matches!(e, RegisterError::Edit { .. }), "{e}");
        assert_eq!(fs.read_dir(Path::new("/home/ada/.gemini")).unwrap().len(), 1);
    }

    #[test]
    fn a_failing_write_keeps_the_old_file() {
        let fs = MemoryFs::new();
        fs.create_dir_all(Path::new("/home/ada/.cursor")).unwrap();
        fs.write_atomic(Path::new("/home/ada/.cursor/mcp.json"), b"{}\n").unwrap();
        fs.fail_writes_to("/home/ada/.cursor/mcp.json");
        let reg = Action::Register(entry());
        let p = plan(&fs, &env(), Client::Cursor, &reg).unwrap();
        assert!(matches!(apply(&fs, &FixedClock, &env(), &reg, p), Err(RegisterError::Write(_))));
        assert_eq!(text(&fs, "/home/ada/.cursor/mcp.json"), "{}\n");
    }

    #[test]
    fn a_dangling_symlinked_config_is_refused_and_kept() {
        let fs = MemoryFs::new();
        fs.create_dir_all(Path::new("/home/ada/.cursor")).unwrap();
        fs.symlink("/home/ada/dotfiles/mcp.json", Path::new("/home/ada/.cursor/mcp.json")).unwrap();
        assert!(!plan(&fs, &env(), Client::Cursor, &Action::Remove).unwrap().changes(), "nothing to remove");
        let err = plan(&fs, &env(), Client::Cursor, &Action::Register(entry())).unwrap_err();
        assert!(matches!(err, RegisterError::DanglingLink { .. }), "{err}");
        assert!(err.to_string().contains("/home/ada/dotfiles/mcp.json"), "{err}");
        let link = fs.symlink_metadata(Path::new("/home/ada/.cursor/mcp.json")).unwrap();
        assert_eq!(link.kind, FileKind::Symlink);
    }

    #[test]
    fn a_symlinked_config_is_written_through_the_link() {
        let fs = MemoryFs::new();
        fs.create_dir_all(Path::new("/home/ada/dotfiles")).unwrap();
        fs.create_dir_all(Path::new("/home/ada/.codex")).unwrap();
        fs.write_atomic(Path::new("/home/ada/dotfiles/codex.toml"), b"model = \"x\"\n").unwrap();
        fs.symlink("/home/ada/dotfiles/codex.toml", Path::new("/home/ada/.codex/config.toml")).unwrap();
        let reg = Action::Register(entry());
        let p = plan(&fs, &env(), Client::Codex, &reg).unwrap();
        apply(&fs, &FixedClock, &env(), &reg, p).unwrap();
        let link = fs.symlink_metadata(Path::new("/home/ada/.codex/config.toml")).unwrap();
        assert_eq!(link.kind, FileKind::Symlink);
        assert!(text(&fs, "/home/ada/dotfiles/codex.toml").contains("[mcp_servers.vitaecontext]"));
    }

    #[test]
    fn status_reports_found_registered_and_unreadable_clients() {
        let fs = MemoryFs::new();
        fs.create_dir_all(Path::new("/home/ada/.codeium/windsurf")).unwrap();
        assert!(fs.metadata(Path::new("/home/ada")).is_ok());
        fs.create_dir_all(Path::new("/home/ada/.cursor")).unwrap();
        fs.write_atomic(
            Path::new("/home/ada/.cursor/mcp.json"),
            b"{\"mcpServers\": {\"vitaecontext\": {\"command\": \"/v\", \"args\": [\"mcp\"]}}}",
        )
        .unwrap();
        fs.create_dir_all(Path::new("/home/ada/.gemini")).unwrap();
        fs.write_atomic(Path::new("/home/ada/.gemini/settings.json"), b"{").unwrap();
        let all = status(&fs, &env());
        assert_eq!(all.len(), Client::ALL.len());
        let of = |c| all.iter().find(|s| s.client == c).unwrap();
        assert_eq!(
            of(Client::Cursor).registration,
            Registration::Present(Entry { command: "/v".into(), args: vec!["mcp".into()] })
        );
        assert!(of(Client::Windsurf).found);
        assert_eq!(of(Client::Windsurf).registration, Registration::Absent);
        assert!(matches!(of(Client::Gemini).registration, Registration::Unreadable(_)));
        assert!(!of(Client::Codex).found);
        // The home folder exists, but that does not make Claude Code installed.
        assert!(!of(Client::ClaudeCode).found, "{:?}", of(Client::ClaudeCode));
    }
}
