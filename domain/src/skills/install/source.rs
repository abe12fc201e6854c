//! Where `skills install` takes skills from, parsed from what the person typed:
//! `github:user/repo[/path][@ref]` (skill-central's syntax, fetched with git over https),
//! `git+URL[#path][@ref]` (any remote git reaches: https, SSH, `file://`), `npm:pkg[@version]`,
//! or a local folder. The text form ([`Source`]'s `Display`) is what a lock records, and it
//! parses back to the same value.

use std::fmt;

use super::tree::RelPath;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A GitHub repository, fetched from `https://github.com/USER/REPO.git`.
    Github { user: String, repo: String, path: RelPath, git_ref: Option<String> },
    /// Any git remote, as git itself takes it.
    Git { url: String, path: RelPath, git_ref: Option<String> },
    /// An npm package, fetched with the npm client.
    Npm { name: String, spec: Option<String> },
    /// A folder on this machine, as written (relative paths against the folder of the lock).
    Local { path: String },
}

/// Why a source does not parse, in skill-central's words where it has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("Invalid github source: \"{input}\"\nExpected: github:<user>/<repo>[/<path>][@<ref>]")]
    Github { input: String },
    #[error("Invalid git source: \"{input}\" ({why})\nExpected: git+<url>[#<path>][@<ref>]")]
    Git { input: String, why: &'static str },
    #[error("Invalid npm source: \"{input}\"\nExpected: npm:<pkg>[@<version>]")]
    Npm { input: String },
    #[error(
        "Unknown source prefix: \"{input}\". Supported: \"github:\", \"git+\", \"npm:\" and a local folder (write ./{input} for a folder of that name)."
    )]
    UnknownPrefix { input: String },
    #[error(
        "Refusing non-HTTPS URL: {input} (plain http and git:// can be altered on the way; use https://, ssh:// or file://)"
    )]
    Insecure { input: String },
    #[error(
        "Refusing a git URL with a password in it: {redacted} (it would be kept in the lock and shown in messages; use a git credential helper, or --github-token for github.com)"
    )]
    Credentials { redacted: String },
    #[error("an empty source: name a folder, github:user/repo/path, git+URL or npm:package")]
    Empty,
}

/// The kind of a source, as messages and the lock's readers name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Github,
    Git,
    Npm,
    Local,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Github => "github",
            SourceKind::Git => "git",
            SourceKind::Npm => "npm",
            SourceKind::Local => "local",
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// A git ref as we pass it to git: no option, no whitespace or control, none of the characters
/// `git check-ref-format` refuses, no `..`.
fn valid_ref(r: &str) -> bool {
    !r.is_empty()
        && !r.starts_with('-')
        && !r.starts_with('/')
        && !r.ends_with('/')
        && !r.ends_with('.')
        && !r.contains("..")
        && !r.contains("@{")
        && !r.contains("//")
        && r.chars()
            .all(|c| !c.is_control() && !c.is_whitespace() && !matches!(c, '~' | '^' | ':' | '?' | '*' | '[' | '\\'))
}

/// An npm version, tag or range written after `@` (no spaces: `^1.2.0`, `>=2`, `latest`).
fn valid_npm_spec(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-' | '^' | '~' | '<' | '>' | '=' | '*')
        })
}

/// An npm package name, scoped or not (`pkg`, `@scope/pkg`).
fn valid_npm_name(s: &str) -> bool {
    let plain = |p: &str| !p.is_empty() && !p.starts_with('.') && !p.starts_with('-') && p.chars().all(is_name_char);
    match s.strip_prefix('@') {
        Some(scoped) => scoped.split_once('/').is_some_and(|(scope, name)| plain(scope) && plain(name)),
        None => plain(s),
    }
}

/// A git remote as git takes it, refusing what would let a source run a command (`ext::`),
/// read a descriptor (`fd::`), be read as an option (`-...`), or travel in the clear.
fn check_git_url(input: &str, url: &str) -> Result<(), SourceError> {
    // First, before any message that would echo the input.
    if let Some(password) = password_of(url) {
        let redacted = input.replacen(&format!(":{password}@"), ":***@", 1);
        return Err(SourceError::Credentials { redacted });
    }
    let bad = |why| Err(SourceError::Git { input: input.to_owned(), why });
    if url.is_empty() {
        return bad("no URL");
    }
    if url.starts_with('-') {
        return bad("a URL may not start with '-'");
    }
    if url.contains("::") {
        return bad("git's <transport>::<address> form is refused: it can run commands");
    }
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return bad("a URL may not hold spaces or control characters");
    }
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("git://") {
        return Err(SourceError::Insecure { input: input.to_owned() });
    }
    let known = ["https://", "ssh://", "git+ssh://", "ssh+git://", "file://"];
    if known.iter().any(|k| lower.starts_with(k)) {
        return Ok(());
    }
    if lower.contains("://") {
        return bad("the URL's scheme is not https, ssh or file");
    }
    // scp-like `user@host:path` (SSH), which git takes as it is.
    match url.split_once(':') {
        Some((host, path)) if !host.is_empty() && !path.is_empty() && !host.contains('/') => Ok(()),
        _ => bad("not a URL git reaches (https://, ssh://, user@host:path or file://)"),
    }
}

/// The password in a URL's user-info (`scheme://user:PASSWORD@host/...`, or scp-like
/// `user:PASSWORD@host:path`); a bare user (`git@host`) has none.
fn password_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    let (user_info, _) = authority.rsplit_once('@')?;
    user_info.split_once(':').map(|(_, p)| p)
}

impl Source {
    pub fn parse(input: &str) -> Result<Source, SourceError> {
        let s = input.trim();
        if s.is_empty() {
            return Err(SourceError::Empty);
        }
        if let Some(rest) = s.strip_prefix("github:") {
            return Self::parse_github(input, rest);
        }
        if let Some(rest) = s.strip_prefix("git+") {
            return Self::parse_git(input, rest);
        }
        if let Some(rest) = s.strip_prefix("npm:") {
            let (name, spec) = match rest.strip_prefix('@') {
                Some(scoped) => match scoped.split_once('@') {
                    Some((n, v)) => (format!("@{n}"), Some(v)),
                    None => (rest.to_owned(), None),
                },
                None => match rest.split_once('@') {
                    Some((n, v)) => (n.to_owned(), Some(v)),
                    None => (rest.to_owned(), None),
                },
            };
            if !valid_npm_name(&name) || spec.is_some_and(|v| !valid_npm_spec(v)) {
                return Err(SourceError::Npm { input: input.to_owned() });
            }
            return Ok(Source::Npm { name, spec: spec.map(str::to_owned) });
        }
        // `gitlab:x/y`, `https://...`: a prefix we do not know, rather than a folder of that name.
        let scheme = s.split_once(':').map(|(p, _)| p);
        if scheme.is_some_and(|p| {
            !p.is_empty()
                && p.starts_with(|c: char| c.is_ascii_alphabetic())
                && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        }) {
            return Err(SourceError::UnknownPrefix { input: s.to_owned() });
        }
        Ok(Source::Local { path: s.to_owned() })
    }

    fn parse_github(input: &str, rest: &str) -> Result<Source, SourceError> {
        let bad = || SourceError::Github { input: input.to_owned() };
        let (user, rest) = rest.split_once('/').ok_or_else(bad)?;
        let repo_end = rest.find(['/', '@']).unwrap_or(rest.len());
        let (repo, rest) = rest.split_at(repo_end);
        // The ref is everything after the first `@` (a ref may hold `/`, as in `feat/auth`).
        let (path, git_ref) = match rest.split_once('@') {
            Some((p, r)) => (p, Some(r)),
            None => (rest, None),
        };
        let path = path.strip_prefix('/').unwrap_or(path);
        let plain = |p: &str| !p.is_empty() && p != "." && p != ".." && p.chars().all(is_name_char);
        if !plain(user) || !plain(repo) || git_ref.is_some_and(|r| !valid_ref(r)) {
            return Err(bad());
        }
        let path = RelPath::parse_or_root(path).ok_or_else(bad)?;
        Ok(Source::Github { user: user.to_owned(), repo: repo.to_owned(), path, git_ref: git_ref.map(str::to_owned) })
    }

    fn parse_git(input: &str, rest: &str) -> Result<Source, SourceError> {
        let bad = |why| SourceError::Git { input: input.to_owned(), why };
        let (url, path, git_ref) = match rest.split_once('#') {
            Some((url, fragment)) => {
                let (path, r) = match fragment.split_once('@') {
                    Some((p, r)) => (p, Some(r)),
                    None => (fragment, None),
                };
                (url, path, r)
            }
            None => {
                // `URL@ref` only when the `@` comes after the last `/` and `:` (so that
                // `git@host:org/repo.git` keeps its user); a ref with `/` needs `#@ref`.
                let at = rest.rfind('@').filter(|&i| rest[i..].find(['/', ':']).is_none());
                match at {
                    Some(i) => (&rest[..i], "", Some(&rest[i + 1..])),
                    None => (rest, "", None),
                }
            }
        };
        check_git_url(input, url)?;
        if git_ref.is_some_and(|r| !valid_ref(r)) {
            return Err(bad("not a valid git ref"));
        }
        let path = RelPath::parse_or_root(path.trim_matches('/'))
            .ok_or_else(|| bad("the path must be plain names joined by '/', without '..'"))?;
        Ok(Source::Git { url: url.to_owned(), path, git_ref: git_ref.map(str::to_owned) })
    }

    pub fn kind(&self) -> SourceKind {
        match self {
            Source::Github { .. } => SourceKind::Github,
            Source::Git { .. } => SourceKind::Git,
            Source::Npm { .. } => SourceKind::Npm,
            Source::Local { .. } => SourceKind::Local,
        }
    }

    /// The URL git fetches, for git sources.
    pub fn git_url(&self) -> Option<String> {
        match self {
            Source::Github { user, repo, .. } => Some(format!("https://github.com/{user}/{repo}.git")),
            Source::Git { url, .. } => Some(url.clone()),
            _ => None,
        }
    }

    /// The path inside a git source.
    pub fn git_path(&self) -> Option<&RelPath> {
        match self {
            Source::Github { path, .. } | Source::Git { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The ref asked for (git) or the version asked for (npm).
    pub fn wanted(&self) -> Option<&str> {
        match self {
            Source::Github { git_ref, .. } | Source::Git { git_ref, .. } => git_ref.as_deref(),
            Source::Npm { spec, .. } => spec.as_deref(),
            Source::Local { .. } => None,
        }
    }

    /// The same source at another ref or version (`skills update --ref`); a local folder has none.
    pub fn with_wanted(&self, wanted: &str) -> Option<Source> {
        let mut s = self.clone();
        match &mut s {
            Source::Github { git_ref, .. } | Source::Git { git_ref, .. } => {
                if !valid_ref(wanted) {
                    return None;
                }
                *git_ref = Some(wanted.to_owned());
            }
            Source::Npm { spec, .. } => {
                if !valid_npm_spec(wanted) {
                    return None;
                }
                *spec = Some(wanted.to_owned());
            }
            Source::Local { .. } => return None,
        }
        Some(s)
    }

    /// The host an https git URL talks to: the only host a token may be sent to.
    pub fn https_host(&self) -> Option<String> {
        let url = self.git_url()?;
        let rest = url.strip_prefix("https://")?;
        let authority = rest.split('/').next()?;
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        (!host.is_empty()).then(|| host.to_ascii_lowercase())
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Github { user, repo, path, git_ref } => {
                write!(f, "github:{user}/{repo}")?;
                if !path.is_root() {
                    write!(f, "/{path}")?;
                }
                if let Some(r) = git_ref {
                    write!(f, "@{r}")?;
                }
                Ok(())
            }
            Source::Git { url, path, git_ref } => {
                write!(f, "git+{url}")?;
                if !path.is_root() || git_ref.is_some() {
                    write!(f, "#{path}")?;
                }
                if let Some(r) = git_ref {
                    write!(f, "@{r}")?;
                }
                Ok(())
            }
            Source::Npm { name, spec } => match spec {
                Some(v) => write!(f, "npm:{name}@{v}"),
                None => write!(f, "npm:{name}"),
            },
            Source::Local { path } => f.write_str(path),
        }
    }
}
