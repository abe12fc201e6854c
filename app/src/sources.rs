//! Where the files come from: flags, environment, home and working directory, captured once at
//! start-up so that nothing later reads them from the process.

use std::path::{Path, PathBuf};

use domain::career::SelectionInput;
use domain::career::select::{CANONICAL_NAME, DEFAULT_DIR, expand_path};
use ports::fs::{FileKind, FileSystem, FsErrorKind};

pub const CONTEXT_ENV: &str = "VITAECONTEXT_CAREER_CONTEXT";
pub const GRAPH_ENV: &str = "VITAEGRAPH_ROOT";
pub const SKILLS_CONFIG_ENV: &str = "VITAECONTEXT_SKILLS_CONFIG";
/// Skill layer folders when no `--skills` is given: `DIR[=PRIORITY]` entries separated as in
/// PATH (`:`, `;` on Windows). For launchers that pass settings as environment variables
/// (a Claude Desktop bundle's optional setting arrives empty when not filled in).
pub const SKILLS_ENV: &str = "VITAECONTEXT_SKILLS";
/// The redact classes when no `--redact` is given (`contact,salary`), for launchers that pass
/// settings as environment variables. There is no config file for the server's own settings.
pub const REDACT_ENV: &str = "VITAECONTEXT_REDACT";
/// The skills config used when no flag or environment names one, if it exists.
pub const DEFAULT_SKILLS_CONFIG: &str = "skills.yaml";
/// The priority of a `--skills DIR` layer without `=PRIORITY`.
pub const DEFAULT_SKILLS_PRIORITY: i64 = 100;

/// One `--skills DIR[=PRIORITY]` (or one entry of `$VITAECONTEXT_SKILLS`). Here rather than in
/// `cli.rs`, so that this file depends only on `domain`, `ports` and external crates (the skills
/// bench compiles it in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillsDir {
    pub dir: String,
    pub priority: i64,
}

/// `DIR=PRIORITY` when the text after the last `=` is a whole number; otherwise all of it is
/// the folder (a folder name may contain `=`).
pub fn parse_skills_dir(raw: &str) -> Result<SkillsDir, String> {
    let (dir, priority) = match raw.rsplit_once('=') {
        Some((dir, p)) if p.trim().parse::<i64>().is_ok() => (dir, p.trim().parse().unwrap_or_default()),
        _ => (raw, DEFAULT_SKILLS_PRIORITY),
    };
    if dir.is_empty() {
        return Err("expected a folder, e.g. --skills ~/team-skills=50".into());
    }
    Ok(SkillsDir { dir: dir.to_owned(), priority })
}

#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub context_flag: Option<String>,
    pub context_env: Option<String>,
    pub root_flag: Option<String>,
    pub root_env: Option<String>,
    /// `--skills-config FILE`.
    pub skills_config_flag: Option<String>,
    pub skills_config_env: Option<String>,
    /// `--skills DIR[=PRIORITY]`, in the order given.
    pub skills_dirs: Vec<(String, i64)>,
    /// `$VITAECONTEXT_SKILLS`, used when no `--skills` is given.
    pub skills_env: Vec<(String, i64)>,
    pub home: Option<PathBuf>,
    pub cwd: PathBuf,
    /// `$VITAECONTEXT_REDACT`, used when no `--redact` is given.
    pub redact_env: Option<String>,
    /// What is left out of everything shared (`--redact`, else the environment; none by default).
    pub redact: domain::portable::redact::Redact,
}

fn non_empty(v: Option<std::ffi::OsString>) -> Option<String> {
    v.map(|s| s.to_string_lossy().into_owned()).filter(|s| !s.is_empty())
}

impl Sources {
    /// Reads the process environment for file locations (the only place that does).
    pub fn from_process(context_flag: Option<&Path>, root_flag: Option<&Path>) -> Self {
        Sources {
            context_flag: context_flag.map(|p| p.to_string_lossy().into_owned()),
            context_env: non_empty(std::env::var_os(CONTEXT_ENV)),
            root_flag: root_flag.map(|p| p.to_string_lossy().into_owned()),
            root_env: non_empty(std::env::var_os(GRAPH_ENV)),
            skills_config_flag: None,
            skills_config_env: non_empty(std::env::var_os(SKILLS_CONFIG_ENV)),
            skills_dirs: Vec::new(),
            skills_env: std::env::var_os(SKILLS_ENV)
                .map(|v| {
                    std::env::split_paths(&v)
                        .filter_map(|p| parse_skills_dir(&p.to_string_lossy()).ok())
                        .map(|d| (d.dir, d.priority))
                        .collect()
                })
                .unwrap_or_default(),
            home: home_dir(),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            redact_env: non_empty(std::env::var_os(REDACT_ENV)),
            redact: domain::portable::redact::Redact::none(),
        }
    }

    /// The facts the selection rules need, looked up through the filesystem port.
    pub fn selection_input(&self, fs: &dyn FileSystem) -> SelectionInput {
        let dir = self.home.as_ref().map(|h| h.join(DEFAULT_DIR));
        // A folder the user may not search hides the file: it is taken as there, so that
        // reading it says why (found in review: `~/.vitaecontext` at 000 was "No Career
        // Context found", with advice to create one, which fails the same way).
        let canonical_exists = dir.as_ref().is_some_and(|d| match fs.metadata(&d.join(CANONICAL_NAME)) {
            Ok(m) => m.kind == FileKind::File,
            Err(e) => e.kind == FsErrorKind::PermissionDenied,
        });
        let default_dir_files = dir
            .as_ref()
            .and_then(|d| fs.read_dir(d).ok())
            .map(|entries| {
                entries
                    .into_iter()
                    .filter(|e| {
                        let path = dir.as_ref().map(|d| d.join(&e.name));
                        e.kind == FileKind::File
                            || (e.kind == FileKind::Symlink
                                && path.and_then(|p| fs.metadata(&p).ok()).is_some_and(|m| m.kind == FileKind::File))
                    })
                    // A name that is not UTF-8 cannot be selected by name: leave it out.
                    .filter_map(|e| e.name.into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        SelectionInput {
            flag: self.context_flag.clone(),
            env: self.context_env.clone(),
            home: self.home.clone(),
            cwd: self.cwd.clone(),
            canonical_exists,
            default_dir_files,
        }
    }

    /// The VitaeGraph root: `--root`, `$VITAEGRAPH_ROOT`, then `~/.vitaecontext/vitaegraph`.
    pub fn graph_root(&self) -> Option<PathBuf> {
        let home = self.home.as_deref();
        if let Some(r) = self.root_flag.as_deref().or(self.root_env.as_deref()) {
            return Some(expand_path(r, home, &self.cwd));
        }
        home.map(|h| h.join(DEFAULT_DIR).join("vitaegraph"))
    }

    /// Sets what `--redact` (else `$VITAECONTEXT_REDACT`) leaves out of what is shared; an
    /// unknown class in the environment is an error naming the variable.
    pub fn with_redact(mut self, flag: Option<domain::portable::redact::Redact>) -> Result<Self, String> {
        self.redact = match (flag, self.redact_env.as_deref()) {
            (Some(r), _) => r,
            (None, Some(env)) => {
                domain::portable::redact::Redact::parse(env).map_err(|e| format!("{REDACT_ENV}: {e}"))?
            }
            (None, None) => domain::portable::redact::Redact::none(),
        };
        Ok(self)
    }

    /// Adds the skills flags (`--skills DIR[=PRIORITY]`, `--skills-config FILE`).
    /// Without `--skills`, the folders of `$VITAECONTEXT_SKILLS`.
    pub fn with_skills(mut self, dirs: &[(String, i64)], config: Option<&Path>) -> Self {
        self.skills_dirs = if dirs.is_empty() { std::mem::take(&mut self.skills_env) } else { dirs.to_vec() };
        self.skills_config_flag = config.map(|p| p.to_string_lossy().into_owned());
        self
    }

    /// Where the skill layers come from: the config file (`--skills-config`, then
    /// `$VITAECONTEXT_SKILLS_CONFIG`, then `~/.vitaecontext/skills.yaml` when it exists) and the
    /// `--skills` folders.
    pub fn skill_sources(&self, fs: &dyn FileSystem) -> SkillSources {
        let home = self.home.as_deref();
        let named = self.skills_config_flag.as_deref().or(self.skills_config_env.as_deref());
        let config = match named {
            Some(c) => Some(expand_path(c, home, &self.cwd)),
            None => home
                .map(|h| h.join(DEFAULT_DIR).join(DEFAULT_SKILLS_CONFIG))
                .filter(|p| fs.metadata(p).is_ok_and(|m| m.kind == FileKind::File)),
        };
        SkillSources {
            config,
            config_named: named.is_some(),
            dirs: self.skills_dirs.iter().map(|(d, p)| (d.clone(), expand_path(d, home, &self.cwd), *p)).collect(),
        }
    }

    /// Where `skills init` writes by default: `~/.vitaecontext`.
    pub fn default_dir(&self) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join(DEFAULT_DIR))
    }
}

/// The skill layers' sources, resolved to absolute paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillSources {
    pub config: Option<PathBuf>,
    /// Whether the config was named (flag or environment): then a missing file is an error.
    pub config_named: bool,
    /// `--skills` folders: as given (the layer's name), absolute, priority.
    pub dirs: Vec<(String, PathBuf, i64)>,
}

/// The person's home folder, where `~` and `~/.vitaecontext` start: `$HOME`, and on Windows,
/// which does not set it, `%USERPROFILE%` (found in review: the Claude Desktop bundle's default
/// `~/.vitaecontext/vitaegraph` was resolved against the working folder there).
pub fn home_dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("HOME").or_else(|| if cfg!(windows) { var("USERPROFILE") } else { None })
}

/// Where MCP clients keep their configuration on this machine: the OS and the folders their
/// locations start from (`vitaecontext register`, `doctor`).
pub fn client_env() -> domain::clients::Env {
    use domain::clients::Os;
    let os = Os::from_consts(std::env::consts::OS);
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = match os {
        Os::Windows => var("USERPROFILE").or_else(|| var("HOME")),
        _ => var("HOME"),
    };
    domain::clients::Env {
        os,
        home,
        appdata: var("APPDATA"),
        xdg_config_home: var("XDG_CONFIG_HOME"),
        codex_home: var("CODEX_HOME"),
    }
}

/// `$GITHUB_TOKEN`, else `$GH_TOKEN` (as the GitHub CLI reads them), for `--github-token`; why
/// not when neither is set.
pub fn github_token() -> Result<String, String> {
    ["GITHUB_TOKEN", "GH_TOKEN"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|t| !t.trim().is_empty()))
        .map(|t| t.trim().to_owned())
        .ok_or_else(|| "neither GITHUB_TOKEN nor GH_TOKEN is set".to_owned())
}

/// The folders of `$PATH`, where a client finds a command given as a bare name (`doctor`).
pub fn path_dirs() -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).filter(|d| d.is_absolute()).collect())
        .unwrap_or_default()
}

/// The absolute path of the running binary: the command a client should start.
pub fn current_exe() -> std::io::Result<PathBuf> {
    std::env::current_exe()
}

/// How the running binary was installed (`register`): its resolved path, the npm launcher's
/// mark, a Python environment around it, and the PATH command that leads to it.
pub fn install_facts(exe: &Path) -> domain::clients::install::Facts {
    let exe = std::fs::canonicalize(exe).unwrap_or_else(|_| exe.to_path_buf());
    let in_python_env = exe.parent().and_then(Path::parent).is_some_and(|env| env.join("pyvenv.cfg").is_file());
    let name = exe.file_name().map(ToOwned::to_owned);
    let on_path = name.and_then(|name| {
        path_dirs()
            .into_iter()
            .map(|d| d.join(&name))
            .find(|c| std::fs::canonicalize(c).is_ok_and(|real| real == exe) && c.parent() != exe.parent())
    });
    domain::clients::install::Facts {
        exe,
        launcher: std::env::var("VITAECONTEXT_LAUNCHER").ok().filter(|v| !v.is_empty()),
        in_python_env,
        on_path,
        os: client_env().os,
    }
}
