//! `skills-lock.json`: what `skills install` put where, from which source at which commit or
//! version, with the SHA-256 of every file. Meant to be committed: the bytes depend only on
//! the entries (keys sorted, no time stamps, two-space JSON, one final newline), so installing
//! the same thing twice writes the same file. Also the reader of skill-central's
//! `~/.skill-central/lock.json` (versions 1 and 2), whose entries can be adopted.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::digest::{FileDigests, is_sha256_hex, set_digest};
use super::tree::{RelPath, is_safe_id};

/// The only lock format this build reads and writes.
pub const LOCKFILE_VERSION: u32 = 1;

/// The file name of the lock, in a project's folder and in `~/.vitaecontext/`.
pub const LOCK_FILE: &str = "skills-lock.json";

/// One installed skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockEntry {
    /// The source as `skills install` took it (its text form, [`super::Source`]).
    pub source: String,
    /// The git commit the ref resolved to (git and GitHub sources).
    pub commit: Option<String>,
    /// The npm version the spec resolved to, and the tarball's integrity string.
    pub version: Option<String>,
    pub integrity: Option<String>,
    /// The layer it was installed into, by name.
    pub layer: String,
    /// Where it is: relative to the lock's folder when inside it, else absolute. The skill's
    /// folder (Agent Skills) or its file.
    pub path: String,
    /// Each file, relative to the skill's folder (for a single file: its name), and its SHA-256.
    pub files: FileDigests,
}

impl LockEntry {
    /// The digest of the whole set of files ([`set_digest`]).
    pub fn sha256(&self) -> String {
        set_digest(&self.files)
    }
}

/// A lock: every installed skill of one scope (a project, or the user), by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lock {
    pub skills: BTreeMap<String, LockEntry>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawLock {
    lockfile_version: u32,
    #[serde(deserialize_with = "unique_ids")]
    skills: BTreeMap<String, RawEntry>,
}

/// The `skills` object, refusing an id written twice: JSON readers keep the last, so a reviewer
/// of the lock's diff could read one entry and an install take another (found in review).
fn unique_ids<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<String, RawEntry>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = BTreeMap<String, RawEntry>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of skills by id")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((id, entry)) = map.next_entry::<String, RawEntry>()? {
                if out.contains_key(&id) {
                    return Err(serde::de::Error::custom(format!("the skill {id:?} is in \"skills\" twice")));
                }
                out.insert(id, entry);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Visitor)
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    integrity: Option<String>,
    layer: String,
    path: String,
    sha256: String,
    files: BTreeMap<String, String>,
}

/// Why a lock cannot be used. Messages name the entry; the app adds the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LockError {
    #[error("not a lock: {0}")]
    Syntax(String),
    #[error("unsupported lock version: {0} (this build reads version {LOCKFILE_VERSION})")]
    UnsupportedVersion(u64),
    #[error("entry {id:?}: {why}")]
    Entry { id: String, why: String },
}

/// Whether `s` is a full git commit id (SHA-1 or SHA-256, lower-case hex), as a lock records one.
pub fn is_commit(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Lock {
    pub fn parse(text: &str) -> Result<Lock, LockError> {
        // The version first, so that a newer lock says so rather than failing on a new field.
        let version = serde_json::from_str::<serde::de::IgnoredAny>(text)
            .map_err(|e| LockError::Syntax(e.to_string()))
            .and_then(|_| {
                #[derive(Deserialize)]
                #[serde(rename_all = "camelCase")]
                struct Version {
                    lockfile_version: Option<u64>,
                }
                serde_json::from_str::<Version>(text).map_err(|e| LockError::Syntax(e.to_string()))
            })?;
        match version.lockfile_version {
            Some(v) if v == u64::from(LOCKFILE_VERSION) => {}
            Some(v) => return Err(LockError::UnsupportedVersion(v)),
            None => return Err(LockError::Syntax("no \"lockfileVersion\"".into())),
        }
        let raw: RawLock = serde_json::from_str(text).map_err(|e| LockError::Syntax(e.to_string()))?;
        let mut lock = Lock::default();
        for (id, e) in raw.skills {
            let bad = |why: String| LockError::Entry { id: id.clone(), why };
            if !is_safe_id(&id) {
                return Err(bad("the id cannot name a file".into()));
            }
            if e.layer.is_empty() || e.path.is_empty() {
                return Err(bad("\"layer\" and \"path\" may not be empty".into()));
            }
            if e.path.split('/').any(|n| n == "..") {
                return Err(bad(format!("the path {:?} climbs out with '..'", e.path)));
            }
            if let Some(c) = e.commit.as_deref().filter(|c| !is_commit(c)) {
                return Err(bad(format!("{c:?} is not a full commit id")));
            }
            if e.files.is_empty() {
                return Err(bad("it lists no files".into()));
            }
            let mut files = FileDigests::new();
            for (path, digest) in e.files {
                let p = RelPath::parse(&path)
                    .ok_or_else(|| bad(format!("the file {path:?} is not a plain relative path")))?;
                if !is_sha256_hex(&digest) {
                    return Err(bad(format!("the digest of {path:?} is not a SHA-256")));
                }
                files.insert(p, digest);
            }
            let entry = LockEntry {
                source: e.source,
                commit: e.commit,
                version: e.version,
                integrity: e.integrity,
                layer: e.layer,
                path: e.path,
                files,
            };
            if entry.sha256() != e.sha256 {
                return Err(bad(format!(
                    "its sha256 {} is not that of its files ({}): the lock was edited by hand",
                    e.sha256,
                    entry.sha256()
                )));
            }
            lock.skills.insert(id, entry);
        }
        Ok(lock)
    }

    /// The lock's bytes: a function of the entries alone.
    pub fn render(&self) -> String {
        let raw = RawLock {
            lockfile_version: LOCKFILE_VERSION,
            skills: self
                .skills
                .iter()
                .map(|(id, e)| {
                    let entry = RawEntry {
                        source: e.source.clone(),
                        commit: e.commit.clone(),
                        version: e.version.clone(),
                        integrity: e.integrity.clone(),
                        layer: e.layer.clone(),
                        path: e.path.clone(),
                        sha256: e.sha256(),
                        files: e.files.iter().map(|(p, d)| (p.to_string(), d.clone())).collect(),
                    };
                    (id.clone(), entry)
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&raw).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// One entry of skill-central's `~/.skill-central/lock.json`: a single skill file it installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillCentralEntry {
    pub id: String,
    /// `github:user/repo/path@ref` or `npm:pkg@version`.
    pub source: String,
    /// The ref (github) or version (npm) it resolved; skill-central records no commit.
    pub version: String,
    /// The SHA-256 of the file it wrote.
    pub sha256: String,
    pub layer: String,
    /// Absolute.
    pub file_path: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawScEntry {
    id: String,
    source: String,
    #[serde(default)]
    version: String,
    sha256: String,
    #[serde(default)]
    layer: String,
    file_path: String,
}

/// Reads skill-central's lock (version 1; version 2, a superset, too), in id order. Errors in
/// skill-central's own words.
pub fn parse_skill_central_lock(text: &str) -> Result<Vec<SkillCentralEntry>, LockError> {
    #[derive(Deserialize)]
    struct Raw {
        version: serde_json::Number,
        entries: BTreeMap<String, RawScEntry>,
    }
    let raw: Raw = serde_json::from_str(text).map_err(|e| LockError::Syntax(e.to_string()))?;
    match raw.version.as_u64() {
        Some(1 | 2) => {}
        Some(v) => return Err(LockError::UnsupportedVersion(v)),
        None => return Err(LockError::Syntax(format!("unsupported lock version: {}", raw.version))),
    }
    let mut out = Vec::new();
    for (key, e) in raw.entries {
        if e.id != key || !is_safe_id(&e.id) {
            return Err(LockError::Entry { id: key, why: format!("its id {:?} is not usable", e.id) });
        }
        if !is_sha256_hex(&e.sha256) {
            return Err(LockError::Entry { id: key, why: "its sha256 is not a SHA-256".into() });
        }
        out.push(SkillCentralEntry {
            id: e.id,
            source: e.source,
            version: e.version,
            sha256: e.sha256,
            layer: e.layer,
            file_path: e.file_path,
        });
    }
    Ok(out)
}
