//! How the running binary was installed, and so what command a client should start: `register`
//! writes it, `doctor` recognises it.
//!
//! A client keeps the command for months; it must outlive upgrades and cache clean-ups. So a
//! launcher run is written as the launcher (`npx -y vitaecontext@VERSION`, `uvx
//! vitaecontext@VERSION`), whose own cache holds the binary; an installed copy (a uv tool or
//! pipx install, `npm install -g`, Homebrew, a link in `~/.local/bin`) as the command on PATH
//! that leads to it, which upgrades keep; anything else as the binary's absolute path, with a
//! warning when that path is one a clean-up removes (a cargo `target/` folder, a cache, a
//! temporary folder).

use std::path::{Component, Path, PathBuf};

use super::Os;

/// The package name on npm and PyPI, and the binary's name.
pub const PACKAGE: &str = "vitaecontext";

/// What the edge found out about the running binary.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The binary's path, symlinks resolved.
    pub exe: PathBuf,
    /// `VITAECONTEXT_LAUNCHER`, set by the npm launcher for the binary it starts: `npx` when
    /// it runs from npx's cache, `npm` from an installed package (global or a project's).
    pub launcher: Option<String>,
    /// A Python virtual environment holds the binary (`pyvenv.cfg` beside its `bin/` or
    /// `Scripts/` folder): a wheel install.
    pub in_python_env: bool,
    /// The first `vitaecontext` on PATH that resolves to `exe` from another folder (a link
    /// made by uv tool, pipx, npm or Homebrew).
    pub on_path: Option<PathBuf>,
    /// Where the client runs: on Windows a launcher is started through `cmd /c` (`npx` is a
    /// `.cmd` script, which a client that spawns without a shell cannot start).
    pub os: Os,
}

/// How the binary was installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    /// Started by the npm launcher from npx's cache (`npx vitaecontext`).
    Npx,
    /// A wheel in uv's cache: a `uvx vitaecontext` run.
    Uvx,
    /// A wheel installed as a tool (`uv tool install`, `pipx install`): the command on PATH.
    PythonTool(PathBuf),
    /// A binary on its own (`cargo install`, a download, a build, an npm install's platform
    /// package), or the PATH link to it.
    Binary,
}

/// The command a client starts, the arguments before `mcp`, and what to warn about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub installed: Installed,
    pub command: String,
    pub before_mcp: Vec<String>,
    pub warning: Option<String>,
}

pub fn installed(facts: &Facts) -> Installed {
    if facts.launcher.as_deref() == Some("npx") {
        return Installed::Npx;
    }
    if facts.in_python_env {
        // uv's cache keeps each unpacked wheel under `archive-v0/<hash>/`.
        if components(&facts.exe).any(|c| c.starts_with("archive-v")) {
            return Installed::Uvx;
        }
        if let Some(link) = &facts.on_path {
            return Installed::PythonTool(link.clone());
        }
    }
    Installed::Binary
}

/// What `register` writes for this install of `version`.
pub fn launch(facts: &Facts, version: &str) -> Launch {
    let pinned = format!("{PACKAGE}@{version}");
    let installed = installed(facts);
    let launcher = |name: &str, args: Vec<String>| match facts.os {
        Os::Windows => ("cmd".to_owned(), [vec!["/c".to_owned(), name.to_owned()], args].concat(), None),
        _ => (name.to_owned(), args, None),
    };
    let (command, before_mcp, warning) = match &installed {
        Installed::Npx => launcher("npx", vec!["-y".to_owned(), pinned]),
        Installed::Uvx => launcher("uvx", vec![pinned]),
        Installed::PythonTool(link) => (link.display().to_string(), Vec::new(), None),
        Installed::Binary => match &facts.on_path {
            Some(link) => (link.display().to_string(), Vec::new(), None),
            None => (facts.exe.display().to_string(), Vec::new(), transient(&facts.exe)),
        },
    };
    Launch { installed, command, before_mcp, warning }
}

/// Why a client should not keep `exe` as its command, if it should not.
pub fn transient(exe: &Path) -> Option<String> {
    let parts: Vec<String> = components(exe).collect();
    let has = |name: &str| parts.iter().any(|p| p.eq_ignore_ascii_case(name));
    let build = parts.windows(2).any(|w| w[0] == "target")
        && parts.iter().rev().nth(1).is_some_and(|dir| matches!(dir.as_str(), "debug" | "release" | "profiling"));
    if build {
        return Some(format!(
            "{} is inside a cargo build folder: `cargo clean` or the next build removes or replaces it. Install it \
             (`cargo install --path app`, or one of the README's install lines) and run register again from there.",
            exe.display()
        ));
    }
    // macOS keeps temporary files in /var/folders, which resolves to /private/var/folders.
    let mac_temp = parts.windows(2).any(|w| w[0] == "var" && w[1] == "folders");
    let temporary = has("tmp") || has("temp") || mac_temp;
    let cache = has(".cache") || has("caches") || has("_npx") || has("_cacache") || has("cache");
    (temporary || cache).then(|| {
        format!(
            "{} is inside a {} folder, which the system or a package manager empties. Install vitaecontext (see the \
             README's install lines) and run register again from the installed command.",
            exe.display(),
            if cache { "cache" } else { "temporary" }
        )
    })
}

/// Whether `command` and the arguments before `mcp` are a launcher entry for vitaecontext
/// (`npx -y vitaecontext@2.3.0`, `uvx vitaecontext`, `uvx --from vitaecontext==2.2.0
/// vitaecontext`, `cmd /c npx ...`), and which version it pins (none for a tag: `@latest`).
pub fn launcher_entry(command: &str, args: &[String]) -> Option<LauncherEntry> {
    let stem = |c: &str| Path::new(c).file_stem().and_then(|s| s.to_str()).map(str::to_ascii_lowercase);
    let mut args = args;
    let mut name = stem(command)?;
    if name == "cmd" && args.first().is_some_and(|a| a.eq_ignore_ascii_case("/c")) {
        name = stem(args.get(1)?)?;
        args = &args[2..];
    }
    if !matches!(name.as_str(), "npx" | "uvx" | "bunx" | "pnpx") {
        return None;
    }
    // Options that take a value: the value is not the package.
    const VALUED: [&str; 6] = ["--from", "--with", "--python", "-p", "--package", "--index"];
    let mut from: Option<&str> = None;
    let mut package: Option<&str> = None;
    let mut it = args.iter().take_while(|a| *a != "mcp");
    while let Some(a) = it.next() {
        if let Some(v) = a.strip_prefix("--from=").or_else(|| a.strip_prefix("--package=")) {
            from = Some(v);
        } else if VALUED.contains(&a.as_str()) {
            let v = it.next().map(String::as_str);
            if matches!(a.as_str(), "--from" | "--package") {
                from = v;
            }
        } else if !a.starts_with('-') && package.is_none() {
            package = Some(a);
        }
    }
    let spec = from.or(package)?;
    let (name_part, version) =
        match spec.split_once("==").or_else(|| spec.rsplit_once('@').filter(|(n, _)| !n.is_empty())) {
            Some((n, v)) => (n, Some(v)),
            None => (spec, None),
        };
    // A tag (`latest`, `next`) or a range pins nothing.
    let version = version.filter(|v| v.starts_with(|c: char| c.is_ascii_digit())).map(str::to_owned);
    (name_part == PACKAGE).then_some(LauncherEntry { launcher: name, version })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LauncherEntry {
    /// `npx`, `uvx`...
    pub launcher: String,
    /// The version it pins, if any.
    pub version: Option<String>,
}

fn components(p: &Path) -> impl Iterator<Item = String> + '_ {
    p.components().filter_map(|c| match c {
        Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(exe: &str) -> Facts {
        Facts { exe: exe.into(), ..Facts::default() }
    }

    #[test]
    fn the_npm_launcher_is_written_as_npx_with_the_version_pinned() {
        let f = Facts { launcher: Some("npx".into()), ..facts("/home/a/.npm/_npx/1f2e/node_modules/x/vitaecontext") };
        let l = launch(&f, "2.3.0");
        assert_eq!(
            (l.command.as_str(), l.before_mcp.as_slice()),
            ("npx", &["-y".to_owned(), "vitaecontext@2.3.0".into()][..])
        );
        assert_eq!(l.warning, None, "the cache is npx's business, not the entry's");
        // On Windows npx is a .cmd script: started through cmd.
        let l = launch(&Facts { os: Os::Windows, ..f }, "2.3.0");
        assert_eq!((l.command.as_str(), l.before_mcp.join(" ")), ("cmd", "/c npx -y vitaecontext@2.3.0".to_owned()));
        // An installed npm package (global or a project's) is its binary, or the link to it.
        let global = Facts {
            launcher: Some("npm".into()),
            on_path: Some("/usr/local/bin/vitaecontext".into()),
            ..facts("/usr/local/lib/node_modules/@vitaecontext/cli-linux-x64/bin/vitaecontext")
        };
        let l = launch(&global, "2.3.0");
        assert_eq!(
            (l.installed, l.command.as_str(), l.warning),
            (Installed::Binary, "/usr/local/bin/vitaecontext", None)
        );
    }

    #[test]
    fn a_uvx_run_is_written_as_uvx_and_a_tool_install_as_its_command() {
        let uvx = Facts { in_python_env: true, ..facts("/home/a/.cache/uv/archive-v0/Xy12/bin/vitaecontext") };
        let l = launch(&uvx, "2.3.0");
        assert_eq!((l.command.as_str(), l.before_mcp.as_slice()), ("uvx", &["vitaecontext@2.3.0".to_owned()][..]));
        let tool = Facts {
            in_python_env: true,
            on_path: Some("/home/a/.local/bin/vitaecontext".into()),
            ..facts("/home/a/.local/share/pipx/venvs/vitaecontext/bin/vitaecontext")
        };
        let l = launch(&tool, "2.3.0");
        assert_eq!(l.installed, Installed::PythonTool("/home/a/.local/bin/vitaecontext".into()));
        assert_eq!((l.command.as_str(), l.before_mcp.len(), l.warning), ("/home/a/.local/bin/vitaecontext", 0, None));
    }

    #[test]
    fn a_plain_binary_is_its_path_and_a_build_or_cache_path_is_warned_about() {
        let l = launch(&facts("/home/a/.cargo/bin/vitaecontext"), "2.3.0");
        assert_eq!(
            (l.installed, l.command.as_str(), l.warning),
            (Installed::Binary, "/home/a/.cargo/bin/vitaecontext", None)
        );
        for exe in [
            "/src/vitaecontext/target/release/vitaecontext",
            "/src/vitaecontext/target/x86_64-unknown-linux-gnu/release/vitaecontext",
            "/home/a/.cache/thing/vitaecontext",
            "/tmp/vitaecontext",
            "/home/a/.npm/_npx/1f2e/node_modules/@vitaecontext/cli-linux-x64/bin/vitaecontext",
        ] {
            assert!(launch(&facts(exe), "2.3.0").warning.is_some(), "{exe}");
        }
        // A folder merely named like one is not a build folder.
        assert_eq!(transient(Path::new("/opt/target/bin/vitaecontext")), None);
        assert!(transient(Path::new("/private/var/folders/x1/T/vitaecontext")).is_some(), "macOS's temporary folder");
        // A link on PATH (Homebrew, ~/.local/bin) outlives the versioned folder it points into.
        let brew = Facts {
            on_path: Some("/opt/homebrew/bin/vitaecontext".into()),
            ..facts("/opt/homebrew/Cellar/vitaecontext/2.3.0/bin/vitaecontext")
        };
        assert_eq!(launch(&brew, "2.3.0").command, "/opt/homebrew/bin/vitaecontext");
        assert_eq!(transient(Path::new("/usr/local/bin/vitaecontext")), None);
    }

    #[test]
    fn launcher_entries_are_recognised_with_their_version() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            launcher_entry("npx", &args(&["-y", "vitaecontext@2.3.0", "mcp", "--watch"])),
            Some(LauncherEntry { launcher: "npx".into(), version: Some("2.3.0".into()) })
        );
        assert_eq!(
            launcher_entry("/usr/bin/uvx", &args(&["vitaecontext", "mcp"])),
            Some(LauncherEntry { launcher: "uvx".into(), version: None })
        );
        assert_eq!(launcher_entry("npx", &args(&["-y", "@bobcgn/skill-central", "mcp"])), None);
        let pinned = |v: &str| Some(LauncherEntry { launcher: "uvx".into(), version: Some(v.into()) });
        assert_eq!(
            launcher_entry("uvx", &args(&["--from", "vitaecontext==2.2.0", "vitaecontext", "mcp"])),
            pinned("2.2.0")
        );
        assert_eq!(launcher_entry("uvx", &args(&["--python", "3.12", "vitaecontext", "mcp"])).unwrap().version, None);
        assert_eq!(launcher_entry("npx", &args(&["-y", "vitaecontext@latest", "mcp"])).unwrap().version, None);
        assert_eq!(
            launcher_entry("cmd", &args(&["/c", "npx", "-y", "vitaecontext@2.3.0", "mcp"])),
            Some(LauncherEntry { launcher: "npx".into(), version: Some("2.3.0".into()) })
        );
        assert_eq!(launcher_entry("/opt/vitaecontext", &args(&["mcp"])), None);
    }
}
