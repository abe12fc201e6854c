//! What an install, an update or a check would change, file by file, from digests alone: the
//! app reads the files and writes what these say.

use std::cmp::Ordering;

use super::digest::FileDigests;
use super::tree::RelPath;

/// How one file differs between two sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileChange {
    Added,
    Removed,
    Changed,
    Same,
}

/// Every path of either set and how it changed from `old` to `new`, in path order.
pub fn compare(old: &FileDigests, new: &FileDigests) -> Vec<(RelPath, FileChange)> {
    let mut out: Vec<(RelPath, FileChange)> = Vec::new();
    let mut a = old.iter().peekable();
    let mut b = new.iter().peekable();
    loop {
        let step = match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((pa, _)), Some((pb, _))) => pa.cmp(pb),
        };
        match step {
            Ordering::Less => {
                let (p, _) = a.next().expect("peeked");
                out.push((p.clone(), FileChange::Removed));
            }
            Ordering::Greater => {
                let (p, _) = b.next().expect("peeked");
                out.push((p.clone(), FileChange::Added));
            }
            Ordering::Equal => {
                let ((p, da), (_, db)) = (a.next().expect("peeked"), b.next().expect("peeked"));
                out.push((p.clone(), if da == db { FileChange::Same } else { FileChange::Changed }));
            }
        }
    }
    out
}

/// How a file on disk differs from the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drift {
    /// Its content is not what was installed.
    Edited,
    /// It is gone.
    Missing,
    /// It was not installed (a file added to a skill's folder).
    Extra,
}

impl Drift {
    pub fn as_str(self) -> &'static str {
        match self {
            Drift::Edited => "edited",
            Drift::Missing => "missing",
            Drift::Extra => "not installed by vitaecontext",
        }
    }
}

/// The files on disk that differ from the lock; empty when the skill is as installed.
pub fn drift(locked: &FileDigests, on_disk: &FileDigests) -> Vec<(RelPath, Drift)> {
    compare(locked, on_disk)
        .into_iter()
        .filter_map(|(p, c)| match c {
            FileChange::Same => None,
            FileChange::Changed => Some((p, Drift::Edited)),
            FileChange::Removed => Some((p, Drift::Missing)),
            FileChange::Added => Some((p, Drift::Extra)),
        })
        .collect()
}

/// A version or tag read as numbers: `v1.2.3`, `1.2`, `2.0.0-rc.1`. `None` for anything else
/// (a branch name, a date).
fn version_key(s: &str) -> Option<(Vec<u64>, bool, String)> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let (core, pre) = match s.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (s, None),
    };
    let core = core.split('+').next()?;
    let numbers: Option<Vec<u64>> = core.split('.').map(|n| n.parse().ok()).collect();
    let mut numbers = numbers.filter(|n| !n.is_empty() && n.len() <= 4)?;
    while numbers.len() < 3 {
        numbers.push(0);
    }
    // A release sorts after its pre-releases.
    Some((numbers, pre.is_none(), pre.unwrap_or_default().to_owned()))
}

/// The versions among `candidates` newer than `current`, oldest first. Pre-releases count only
/// when `current` is one. Candidates that are not versions are left out.
pub fn newer_versions(current: &str, candidates: &[String]) -> Vec<String> {
    let Some(now) = version_key(current) else { return Vec::new() };
    let mut newer: Vec<(_, &String)> = candidates
        .iter()
        .filter_map(|c| version_key(c).map(|k| (k, c)))
        .filter(|(k, _)| *k > now && (k.1 || !now.1))
        .collect();
    newer.sort();
    newer.dedup_by(|a, b| a.0 == b.0);
    newer.into_iter().map(|(_, c)| c.clone()).collect()
}

/// Whether a text is a version (`v1.2.3`, `1.2.0`), as a tag that names one.
pub fn is_version(s: &str) -> bool {
    version_key(s).is_some()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn set(pairs: &[(&str, &str)]) -> FileDigests {
        pairs.iter().map(|(p, d)| (RelPath::parse(p).unwrap(), (*d).to_owned())).collect()
    }

    #[test]
    fn a_file_edited_removed_or_added_is_each_named_once() {
        let locked = set(&[("SKILL.md", "a"), ("ref/x.md", "b"), ("scripts/s.sh", "c")]);
        let disk = set(&[("SKILL.md", "a"), ("ref/x.md", "B"), ("zz.md", "d")]);
        let d: Vec<(String, Drift)> = drift(&locked, &disk).into_iter().map(|(p, d)| (p.to_string(), d)).collect();
        assert_eq!(
            d,
            [
                ("ref/x.md".into(), Drift::Edited),
                ("scripts/s.sh".into(), Drift::Missing),
                ("zz.md".into(), Drift::Extra)
            ]
        );
        assert!(drift(&locked, &locked).is_empty());
    }

    #[test]
    fn newer_versions_compare_as_numbers_and_skip_what_is_not_one() {
        let tags: Vec<String> = ["v1.0.0", "v1.10.0", "v1.2.0", "v2.0.0-rc.1", "main", "v0.9", "1.2.0", "v2.0.0"]
            .map(String::from)
            .to_vec();
        // `1.2.0` and `v1.2.0` are one version, named once.
        assert_eq!(newer_versions("v1.0.0", &tags), ["1.2.0", "v1.10.0", "v2.0.0"]);
        assert_eq!(newer_versions("2.0.0-rc.0", &tags), ["v2.0.0-rc.1", "v2.0.0"]);
        assert!(newer_versions("main", &tags).is_empty());
        assert!(is_version("v3") && !is_version("feat/x"));
    }

    proptest! {
        /// `compare` names every path of either side once, in order, and says `Same` exactly
        /// where both sides agree.
        #[test]
        fn compare_covers_both_sides_in_order(
            a in proptest::collection::btree_map("[a-c]{1,2}(/[a-c]{1,2})?", "[xy]", 0..8),
            b in proptest::collection::btree_map("[a-c]{1,2}(/[a-c]{1,2})?", "[xy]", 0..8),
        ) {
            let to = |m: &std::collections::BTreeMap<String, String>| -> FileDigests {
                m.iter().map(|(k, v)| (RelPath::parse(k).unwrap(), v.clone())).collect()
            };
            let (old, new) = (to(&a), to(&b));
            let out = compare(&old, &new);
            let paths: Vec<&RelPath> = out.iter().map(|(p, _)| p).collect();
            let mut all: Vec<&RelPath> = old.keys().chain(new.keys()).collect();
            all.sort();
            all.dedup();
            prop_assert_eq!(paths, all);
            for (p, c) in &out {
                let expected = match (old.get(p), new.get(p)) {
                    (Some(x), Some(y)) if x == y => FileChange::Same,
                    (Some(_), Some(_)) => FileChange::Changed,
                    (Some(_), None) => FileChange::Removed,
                    _ => FileChange::Added,
                };
                prop_assert_eq!(*c, expected);
            }
        }
    }
}
