//! Git sources, through the person's own `git` (their credential helpers, SSH keys and
//! `url.<base>.insteadOf` rules do the reaching): the ref resolved with `git ls-remote`, that one
//! commit fetched into a temporary bare repository, and its files read with `git ls-tree` and
//! `git cat-file`. Nothing is checked out, so no hook, filter or attribute of the source runs;
//! `ext::` transports are refused by the source's syntax and disabled again here.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use domain::skills::install::lock::is_commit;
use domain::skills::install::plan::{is_version, newer_versions};
use domain::skills::install::{RelPath, Source, Tree};

use super::{Fetched, MAX_SOURCE_BYTES, RefKind, Refusal, Resolved, Token};

/// The most a git source may download (its whole commit, compressed): past it the fetch is
/// stopped. Four times what the installed files may hold, for a repository whose skills are
/// one folder among others.
pub const MAX_DOWNLOAD_BYTES: u64 = 4 * MAX_SOURCE_BYTES;

/// What `git ls-remote` lists: each ref and the commit it names (annotated tags peeled).
#[derive(Debug, Default)]
pub struct Refs {
    pub head: Option<String>,
    pub heads: BTreeMap<String, String>,
    pub tags: BTreeMap<String, String>,
}

pub struct Git<'a> {
    pub token: Option<&'a Token>,
    /// The most a fetch may download before it is stopped ([`MAX_DOWNLOAD_BYTES`]).
    pub max_download: u64,
}

impl Git<'_> {
    /// `git` with the settings every call gets: no `ext::` transport, no hooks, no prompt when
    /// nobody can answer one, and the token (when asked for) as an extra header for its host
    /// only, given through the environment so that it is in no argument list and no file.
    fn git(&self, source: &Source) -> Command {
        let mut c = Command::new("git");
        // The person's repository, if the command runs in one, has nothing to do with this.
        for v in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_OBJECT_DIRECTORY",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_COMMON_DIR",
        ] {
            c.env_remove(v);
        }
        c.args(["-c", "protocol.ext.allow=never", "-c", "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false"]);
        c.stdin(Stdio::null());
        if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            c.env("GIT_TERMINAL_PROMPT", "0");
        }
        if let (Some(token), Some(host)) = (self.token, source.https_host())
            && token.host == host
        {
            let n: usize = std::env::var("GIT_CONFIG_COUNT").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
            c.env("GIT_CONFIG_COUNT", (n + 1).to_string());
            c.env(format!("GIT_CONFIG_KEY_{n}"), format!("http.https://{host}/.extraHeader"));
            c.env(format!("GIT_CONFIG_VALUE_{n}"), token.header());
        }
        c
    }

    fn run(&self, source: &Source, c: &mut Command, doing: &str) -> Result<Vec<u8>, Refusal> {
        let out = c.stdout(Stdio::piped()).stderr(Stdio::piped()).output().map_err(|e| {
            Refusal::new(
                format!("{source}: could not run git to {doing}: {e}"),
                "install git (https://git-scm.com) and make sure `git` is on your PATH",
            )
        })?;
        if !out.status.success() {
            return Err(git_failed(source, doing, &out.stderr));
        }
        Ok(out.stdout)
    }

    /// [`Git::run`] for a download into `dir`: git is stopped, and the source refused, once
    /// `dir` holds more than [`MAX_DOWNLOAD_BYTES`], so a huge repository costs that much disk
    /// and time at most, not all of it (its files' sizes are known only once it has come).
    fn run_bounded(&self, source: &Source, c: &mut Command, doing: &str, dir: &Path) -> Result<(), Refusal> {
        let failed = |e: std::io::Error| {
            Refusal::new(
                format!("{source}: could not run git to {doing}: {e}"),
                "install git (https://git-scm.com) and make sure `git` is on your PATH",
            )
        };
        let mut child = c.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().map_err(failed)?;
        let mut stderr = child.stderr.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = (&mut stderr).take(64 * 1024).read_to_end(&mut text);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
            text
        });
        let status = loop {
            if let Some(status) = child.try_wait().map_err(failed)? {
                break status;
            }
            if folder_bytes(dir) > self.max_download {
                let _ = child.kill();
                let _ = child.wait();
                let _ = reader.join();
                return Err(Refusal::new(
                    format!(
                        "{source}: stopped the download past {} MiB; the commit is larger than a skills source may be",
                        self.max_download >> 20
                    ),
                    "install from a repository or folder that holds skills, not a large project (git+URL#PATH names a folder, but git still downloads the whole commit)",
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        };
        let stderr = reader.join().unwrap_or_default();
        if status.success() {
            return Ok(());
        }
        Err(git_failed(source, doing, &stderr))
    }

    /// Every ref the remote has.
    pub fn refs(&self, source: &Source) -> Result<Refs, Refusal> {
        let url = source.git_url().unwrap_or_default();
        let out = self.run(source, self.git(source).args(["ls-remote", "--", &url]), "list its refs")?;
        let mut refs = Refs::default();
        let mut peeled: BTreeMap<String, String> = BTreeMap::new();
        for line in String::from_utf8_lossy(&out).lines() {
            let Some((commit, name)) = line.split_once('\t') else { continue };
            if name == "HEAD" {
                refs.head = Some(commit.to_owned());
            } else if let Some(b) = name.strip_prefix("refs/heads/") {
                refs.heads.insert(b.to_owned(), commit.to_owned());
            } else if let Some(t) = name.strip_prefix("refs/tags/") {
                match t.strip_suffix("^{}") {
                    Some(t) => {
                        peeled.insert(t.to_owned(), commit.to_owned());
                    }
                    None => {
                        refs.tags.insert(t.to_owned(), commit.to_owned());
                    }
                }
            }
        }
        refs.tags.extend(peeled);
        Ok(refs)
    }

    /// The commit the source's ref names, and what kind of ref it is.
    pub fn resolve(&self, source: &Source) -> Result<(String, RefKind), Refusal> {
        let wanted = source.wanted();
        if let Some(w) = wanted.filter(|w| is_commit(&w.to_ascii_lowercase())) {
            return Ok((w.to_ascii_lowercase(), RefKind::Commit));
        }
        let refs = self.refs(source)?;
        let found = match wanted {
            None => refs.head.clone().map(|c| (c, RefKind::Head)),
            Some(w) => {
                let w = w.strip_prefix("refs/").map_or(w, |r| r.split_once('/').map_or(r, |(_, n)| n));
                refs.tags
                    .get(w)
                    .map(|c| (c.clone(), RefKind::Tag(w.to_owned())))
                    .or_else(|| refs.heads.get(w).map(|c| (c.clone(), RefKind::Branch(w.to_owned()))))
            }
        };
        found.ok_or_else(|| {
            let mut names: Vec<&str> = refs.tags.keys().chain(refs.heads.keys()).map(String::as_str).collect();
            names.truncate(20);
            Refusal::new(
                match wanted {
                    Some(w) => format!("{source}: the remote has no branch or tag {w:?}"),
                    None => format!("{source}: the remote has no default branch (HEAD)"),
                },
                if names.is_empty() {
                    "the repository is empty: push a commit first".to_owned()
                } else {
                    format!(
                        "name one it has after '@' (a branch, a tag, or a full 40-digit commit id): {}",
                        names.join(", ")
                    )
                },
            )
        })
    }

    /// The files below the source's path at `commit`.
    pub fn fetch(&self, source: &Source, commit: &str, kind: RefKind) -> Result<Fetched, Refusal> {
        let url = source.git_url().unwrap_or_default();
        let tmp = tempfile::Builder::new().prefix("vitaecontext-git-").tempdir().map_err(|e| {
            Refusal::new(format!("{source}: no temporary folder for git: {e}"), "free some space in $TMPDIR")
        })?;
        let dir = tmp.path();
        let git_dir = format!("--git-dir={}", dir.display());
        self.run(
            source,
            self.git(source).args(["init", "--quiet", "--bare", "--template="]).arg(dir),
            "make a temporary repository",
        )?;
        let fetch = |refspecs: &[&str], depth: bool, what: &str| {
            let mut c = self.git(source);
            c.args([git_dir.as_str(), "fetch", "--quiet", "--no-tags", "--no-write-fetch-head"]);
            if depth {
                c.arg("--depth=1");
            }
            c.args(["--", &url]).args(refspecs);
            self.run_bounded(source, &mut c, &format!("fetch {what}"), dir)
        };
        // By commit id (servers with protocol v2, GitHub and local ones among them, allow it);
        // else by the ref, which must still name that commit.
        if fetch(&[&format!("{commit}:refs/vitaecontext/fetched")], true, commit).is_err() {
            let by_name = match &kind {
                RefKind::Tag(t) => Some(format!("refs/tags/{t}")),
                RefKind::Branch(b) => Some(format!("refs/heads/{b}")),
                RefKind::Head => Some("HEAD".to_owned()),
                RefKind::Commit => None,
            };
            match by_name {
                Some(name) => fetch(&[&format!("{name}:refs/vitaecontext/fetched")], true, &name)?,
                None => fetch(
                    &["+refs/heads/*:refs/vitaecontext/heads/*", "+refs/tags/*:refs/vitaecontext/tags/*"],
                    false,
                    "its branches and tags",
                )?,
            };
        }
        let has = self.git(source).args([git_dir.as_str(), "cat-file", "-e", &format!("{commit}^{{commit}}")]).status();
        if !has.is_ok_and(|s| s.success()) {
            return Err(Refusal::new(
                format!("{source}: the commit {commit} is not on the remote any more"),
                "the branch or tag was rewritten: run `vitaecontext skills update` to move to what it names now, or ask the source's maintainers",
            ));
        }
        let path = source.git_path().cloned().unwrap_or_default();
        let object = if path.is_root() { format!("{commit}^{{tree}}") } else { format!("{commit}:{path}") };
        let kind_of = self.run(
            source,
            self.git(source).args([git_dir.as_str(), "cat-file", "-t", &object]),
            &format!("find {path:?} at {commit}"),
        );
        let object_type = match kind_of {
            Ok(t) => String::from_utf8_lossy(&t).trim().to_owned(),
            Err(_) => {
                return Err(Refusal::new(
                    format!("{source}: there is no \"{path}\" at commit {commit}"),
                    "check the path after the repository (github:user/repo/PATH, git+URL#PATH)",
                ));
            }
        };
        let mut tree = Tree {
            folder_name: if path.is_root() { repo_name(&url) } else { path.file_name().to_owned() },
            ..Tree::default()
        };
        let mut blobs: Vec<(RelPath, String)> = Vec::new();
        if object_type == "blob" {
            let oid = String::from_utf8_lossy(&self.run(
                source,
                self.git(source).args([git_dir.as_str(), "rev-parse", &object]),
                "read the file",
            )?)
            .trim()
            .to_owned();
            let name = RelPath::parse(path.file_name()).unwrap_or_default();
            tree.file = Some(name.to_string());
            blobs.push((name, oid));
        } else {
            let listing = self.run(
                source,
                self.git(source).args([git_dir.as_str(), "ls-tree", "-r", "-z", "-l", &object]),
                "list the files",
            )?;
            let mut total = 0u64;
            for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
                let record = String::from_utf8_lossy(record);
                let Some((meta, name)) = record.split_once('\t') else { continue };
                let fields: Vec<&str> = meta.split_whitespace().collect();
                let [mode, _, oid, size] = fields[..] else { continue };
                let Some(rel) = RelPath::parse(name) else {
                    tree.left_out.push((name.to_owned(), "not a plain path".into()));
                    continue;
                };
                match mode {
                    "100644" | "100755" => {
                        total += size.parse::<u64>().unwrap_or(0);
                        blobs.push((rel, oid.to_owned()));
                    }
                    "120000" => tree.left_out.push((name.to_owned(), "a symlink is not installed".into())),
                    "160000" => tree.left_out.push((name.to_owned(), "a submodule is not installed".into())),
                    _ => tree.left_out.push((name.to_owned(), format!("mode {mode} is not installed"))),
                }
            }
            if total > MAX_SOURCE_BYTES {
                return Err(Refusal::new(
                    format!(
                        "{source}: {total} bytes below {path:?}, more than the {} MiB a source may hold",
                        MAX_SOURCE_BYTES >> 20
                    ),
                    "name the folder of the skills you want after the repository (github:user/repo/PATH, git+URL#PATH)",
                ));
            }
        }
        let contents = self.cat_blobs(source, &git_dir, &blobs)?;
        tree.files = blobs.into_iter().map(|(p, _)| p).zip(contents).collect();
        Ok(Fetched {
            resolved: Resolved { commit: Some(commit.to_owned()), ref_kind: Some(kind), ..Resolved::default() },
            tree,
        })
    }

    /// The contents of blobs, in order, through one `git cat-file --batch`.
    fn cat_blobs(&self, source: &Source, git_dir: &str, blobs: &[(RelPath, String)]) -> Result<Vec<Vec<u8>>, Refusal> {
        let failed = |e: std::io::Error| {
            Refusal::new(format!("{source}: could not read its files with git: {e}"), "run the command again")
        };
        let mut child = self
            .git(source)
            .args([git_dir, "cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(failed)?;
        let mut stdin = child.stdin.take().expect("piped");
        let ids: String = blobs.iter().map(|(_, oid)| format!("{oid}\n")).collect();
        // Written from another thread: the answers fill stdout while the questions are written.
        let writer = std::thread::spawn(move || stdin.write_all(ids.as_bytes()));
        let mut out = BufReader::new(child.stdout.take().expect("piped"));
        let mut contents = Vec::with_capacity(blobs.len());
        for _ in blobs {
            let mut header = String::new();
            out.read_line(&mut header).map_err(failed)?;
            let size: usize = header.split_whitespace().nth(2).and_then(|s| s.parse().ok()).ok_or_else(|| {
                Refusal::new(format!("{source}: git answered {header:?} for a file"), "run the command again")
            })?;
            let mut bytes = vec![0; size + 1];
            out.read_exact(&mut bytes).map_err(failed)?;
            bytes.pop();
            contents.push(bytes);
        }
        let _ = writer.join();
        let _ = child.wait();
        Ok(contents)
    }

    /// Newer tags than the one locked, or the commit the branch names now when it moved.
    pub fn available(&self, source: &Source, locked_commit: &str) -> Result<Vec<String>, Refusal> {
        let refs = self.refs(source)?;
        let mut out = Vec::new();
        let tags: Vec<String> = refs.tags.keys().cloned().collect();
        match source.wanted() {
            Some(w) if refs.tags.contains_key(w) || is_version(w) => {
                if refs.tags.get(w).is_some_and(|c| c != locked_commit) {
                    out.push(format!("tag {w} now names {}", short(&refs.tags[w])));
                }
                out.extend(newer_versions(w, &tags).into_iter().map(|t| format!("tag {t}")));
            }
            Some(w) if refs.heads.contains_key(w) => {
                if refs.heads[w] != locked_commit {
                    out.push(format!("branch {w} at {}", short(&refs.heads[w])));
                }
            }
            Some(_) => {}
            None => {
                if let Some(h) = refs.head.as_ref().filter(|h| *h != locked_commit) {
                    out.push(format!("default branch at {}", short(h)));
                }
            }
        }
        Ok(out)
    }
}

/// What to say when git failed: the last lines it wrote, and how to check the source.
fn git_failed(source: &Source, doing: &str, stderr: &[u8]) -> Refusal {
    let stderr = String::from_utf8_lossy(stderr);
    let detail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let detail = detail[detail.len().saturating_sub(4)..].join("\n  ");
    Refusal::new(
        format!("{source}: git could not {doing}:\n  {detail}"),
        "check the URL and that your git can reach it (`git ls-remote URL`); a private repository needs your git credentials or SSH key, or --github-token for GitHub over https",
    )
}

/// The bytes of the files below `dir` (what a download has written so far).
fn folder_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum()
}

pub fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

fn repo_name(url: &str) -> String {
    let last = url.trim_end_matches('/').rsplit(['/', ':']).next().unwrap_or_default();
    last.strip_suffix(".git").unwrap_or(last).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository at `dir` whose one commit holds `skills/review/SKILL.md` and `bytes` bytes of
    /// noise (which no compression shrinks) in `assets/noise.bin`.
    fn repository(dir: &Path, noise: usize) -> String {
        let git = |args: &[&str]| {
            let out = Command::new("git").current_dir(dir).args(args).output().unwrap();
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8(out.stdout).unwrap()
        };
        git(&["init", "--quiet", "--initial-branch=main"]);
        std::fs::create_dir_all(dir.join("skills/review")).unwrap();
        std::fs::create_dir_all(dir.join("assets")).unwrap();
        std::fs::write(dir.join("skills/review/SKILL.md"), "---\nname: review\ndescription: d\n---\nReview.\n")
            .unwrap();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let bytes: Vec<u8> = (0..noise)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        std::fs::write(dir.join("assets/noise.bin"), bytes).unwrap();
        git(&["add", "."]);
        git(&["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "--quiet", "-m", "one"]);
        git(&["rev-parse", "HEAD"]).trim().to_owned()
    }

    #[test]
    fn a_download_past_its_cap_is_stopped_and_refused_and_one_within_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let commit = repository(dir.path(), 3 << 20);
        let source = Source::parse(&format!("git+file://{}#skills/review", dir.path().display())).unwrap();
        let capped = Git { token: None, max_download: 1 << 20 };
        let Err(err) = capped.fetch(&source, &commit, RefKind::Head) else {
            panic!("a download past its cap was read")
        };
        assert!(err.message.contains("stopped the download past 1 MiB"), "{}", err.message);

        let fetched =
            Git { token: None, max_download: MAX_DOWNLOAD_BYTES }.fetch(&source, &commit, RefKind::Head).unwrap();
        let names: Vec<String> = fetched.tree.files.keys().map(ToString::to_string).collect();
        assert_eq!(names, ["SKILL.md"]);
    }
}
