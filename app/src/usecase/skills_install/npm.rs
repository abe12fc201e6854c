//! npm sources, through the person's own `npm` (their `.npmrc`, registry and token do the
//! reaching): `npm view` resolves the version and names the tarball's integrity, `npm pack
//! --ignore-scripts` downloads the tarball into a temporary folder, its SHA-512 is checked
//! against that integrity here, and it is unpacked here, in memory: nothing of the package is
//! run, and no file of it reaches the disk but the tarball itself.
//!
//! The package says where its skills are as skill-central asks:
//! `"skill-central": {"paths": ["skills/review.yaml", "skills/code-review"]}` in package.json.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use domain::skills::install::plan::newer_versions;
use domain::skills::install::{RelPath, Source, Tree, check_integrity};
use ports::fs::FileSystem;
use serde_json::Value;

use super::{Fetched, MAX_SOURCE_BYTES, Refusal, Resolved};

pub struct Npm<'a> {
    pub fs: &'a dyn FileSystem,
}

const NPM_HELP: &str = "check the package name and version (`npm view PACKAGE versions`) and that your npm can reach its registry (your .npmrc)";

impl Npm<'_> {
    fn run(&self, source: &Source, args: &[&str], doing: &str) -> Result<Value, Refusal> {
        let out = Command::new("npm")
            .args(args)
            .arg("--json")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| {
                Refusal::new(
                    format!("{source}: could not run npm to {doing}: {e}"),
                    "install Node.js and npm (https://nodejs.org) and make sure `npm` is on your PATH",
                )
            })?;
        let parsed: Option<Value> = serde_json::from_slice(&out.stdout).ok();
        if !out.status.success() {
            let summary =
                parsed.as_ref().and_then(|v| v["error"]["summary"].as_str().map(str::to_owned)).unwrap_or_else(|| {
                    let e = String::from_utf8_lossy(&out.stderr);
                    let lines: Vec<&str> = e.lines().filter(|l| !l.trim().is_empty()).collect();
                    lines[lines.len().saturating_sub(3)..].join("\n  ")
                });
            return Err(Refusal::new(format!("{source}: npm could not {doing}:\n  {summary}"), NPM_HELP));
        }
        parsed.ok_or_else(|| {
            Refusal::new(format!("{source}: npm answered something that is not JSON when asked to {doing}"), NPM_HELP)
        })
    }

    /// The version a spec names and its tarball's integrity: the highest version when a range
    /// matches several.
    fn view(&self, source: &Source, spec: &str) -> Result<(String, String), Refusal> {
        let v =
            self.run(source, &["view", spec, "version", "dist.integrity", "dist.unpackedSize"], "look the package up")?;
        let last = match &v {
            Value::Array(all) => all.last().cloned().unwrap_or(Value::Null),
            one => one.clone(),
        };
        let version = last["version"].as_str().map(str::to_owned);
        let integrity = last["dist.integrity"].as_str().map(str::to_owned);
        // Known before anything is downloaded (npm has published it for years): a package past
        // what a source may hold is refused without fetching its tarball.
        if let (Some(v), Some(size)) = (&version, last["dist.unpackedSize"].as_u64())
            && size > MAX_SOURCE_BYTES
        {
            return Err(Refusal::new(
                format!(
                    "{source}: version {v} unpacks to {size} bytes, more than the {} MiB a source may hold",
                    MAX_SOURCE_BYTES >> 20
                ),
                "install from a package that holds skills, not a large project",
            ));
        }
        match (version, integrity) {
            (Some(v), Some(i)) => Ok((v, i)),
            (Some(v), None) => Err(Refusal::new(
                format!(
                    "{source}: the registry gives no integrity for version {v}, so what is downloaded could not be checked"
                ),
                "use a version published with an integrity (any npm of the last years writes one)",
            )),
            _ => Err(Refusal::new(format!("No tarball for {spec} ({source})"), NPM_HELP)),
        }
    }

    /// The package's skills at the version asked for (or exactly the locked version, whose
    /// integrity must then be the lock's).
    pub fn fetch(&self, source: &Source, locked: Option<(&String, &String)>) -> Result<Fetched, Refusal> {
        let Source::Npm { name, spec } = source else {
            return Err(Refusal::new(format!("{source} is not an npm source"), NPM_HELP));
        };
        let wanted = match locked {
            Some((v, _)) => format!("{name}@{v}"),
            None => spec.as_ref().map_or_else(|| name.clone(), |s| format!("{name}@{s}")),
        };
        let (version, integrity) = self.view(source, &wanted)?;
        if let Some((_, lock_integrity)) = locked
            && *lock_integrity != integrity
        {
            return Err(Refusal::new(
                format!(
                    "{source}: the registry now gives {name}@{version} the integrity {integrity}, not the lock's {lock_integrity}"
                ),
                "a published version's bytes never change on a registry: do not install it; check with the package's maintainers",
            ));
        }
        let tmp = tempfile::Builder::new().prefix("vitaecontext-npm-").tempdir().map_err(|e| {
            Refusal::new(format!("{source}: no temporary folder for npm: {e}"), "free some space in $TMPDIR")
        })?;
        let dest = tmp.path().display().to_string();
        let exact = format!("{name}@{version}");
        let packed = self.run(
            source,
            &["pack", &exact, "--ignore-scripts", "--pack-destination", &dest],
            "download the package",
        )?;
        let filename = packed[0]["filename"].as_str().unwrap_or_default().to_owned();
        let tarball = tmp.path().join(Path::new(&filename).file_name().unwrap_or_default());
        let bytes = self.fs.read(&tarball, MAX_SOURCE_BYTES).map_err(|e| {
            Refusal::new(format!("{source}: the downloaded tarball cannot be read: {}", e.detail), NPM_HELP)
        })?;
        check_integrity(&integrity, &bytes).map_err(|e| {
            Refusal::new(
                format!("{source}: {exact}: {e}"),
                "the bytes downloaded are not the ones the registry published: nothing was installed; try again, and tell the package's maintainers if it persists",
            )
        })?;
        let files = unpack(source, &bytes)?;
        let tree = skills_of(source, &exact, &files)?;
        Ok(Fetched {
            resolved: Resolved { version: Some(version), integrity: Some(integrity), ..Resolved::default() },
            tree,
        })
    }

    /// Newer versions than the locked one.
    pub fn available(&self, source: &Source, locked: &str) -> Result<Vec<String>, Refusal> {
        let Source::Npm { name, .. } = source else {
            return Err(Refusal::new(format!("{source} is not an npm source"), NPM_HELP));
        };
        let v = self.run(source, &["view", name, "versions"], "list its versions")?;
        let versions: Vec<String> = match v {
            Value::Array(a) => a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect(),
            Value::String(s) => vec![s],
            _ => Vec::new(),
        };
        Ok(newer_versions(locked, &versions).into_iter().map(|v| format!("version {v}")).collect())
    }
}

/// The regular files of a gzipped npm tarball, below its `package/` folder, by path. Anything
/// else (links, devices, paths that climb or are absolute) is left out; sizes are bounded.
fn unpack(source: &Source, gz: &[u8]) -> Result<BTreeMap<String, Vec<u8>>, Refusal> {
    let bad = |e: std::io::Error| Refusal::new(format!("{source}: the tarball cannot be read: {e}"), NPM_HELP);
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(gz).take(MAX_SOURCE_BYTES * 2));
    let mut files = BTreeMap::new();
    let mut total = 0u64;
    for entry in archive.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        if entry.header().entry_type() != tar::EntryType::Regular {
            continue;
        }
        let path = entry.path().map_err(bad)?.to_string_lossy().replace('\\', "/");
        let Some(rel) = path.strip_prefix("package/").and_then(RelPath::parse) else { continue };
        total += entry.size();
        if total > MAX_SOURCE_BYTES {
            return Err(Refusal::new(
                format!("{source}: the package holds more than {} MiB", MAX_SOURCE_BYTES >> 20),
                NPM_HELP,
            ));
        }
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).map_err(bad)?;
        files.insert(rel.to_string(), bytes);
    }
    Ok(files)
}

/// The files `skill-central.paths` names, as one tree the skills are found in.
fn skills_of(source: &Source, exact: &str, files: &BTreeMap<String, Vec<u8>>) -> Result<Tree, Refusal> {
    let manifest_help = "the package's author must declare \"skill-central\": {\"paths\": [...]} in package.json";
    let package_json = files.get("package.json").ok_or_else(|| {
        Refusal::new(
            format!("{source}: Tarball missing package/package.json"),
            "retry, then file an issue with the package",
        )
    })?;
    let manifest: Value = serde_json::from_slice(package_json)
        .map_err(|e| Refusal::new(format!("{source}: its package.json is not JSON: {e}"), manifest_help))?;
    let paths: Vec<&str> = manifest["skill-central"]["paths"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if paths.is_empty() {
        return Err(Refusal::new(
            format!("Package {exact} has no \"skill-central.paths\" in its package.json."),
            manifest_help,
        ));
    }
    let mut tree = Tree { folder_name: exact.to_owned(), ..Tree::default() };
    for declared in paths {
        let trimmed = declared.trim_start_matches("./").trim_end_matches('/');
        let Some(rel) = RelPath::parse(trimmed) else {
            return Err(Refusal::new(
                format!("{source}: the path {declared:?} in skill-central.paths is not a plain relative path"),
                manifest_help,
            ));
        };
        let prefix = format!("{rel}/");
        let mut any = false;
        for (p, bytes) in files.iter().filter(|(p, _)| **p == rel.as_str() || p.starts_with(&prefix)) {
            if let Some(r) = RelPath::parse(p) {
                tree.files.insert(r, bytes.clone());
                any = true;
            }
        }
        if !any {
            return Err(Refusal::new(
                format!("{source}: Path \"{declared}\" declared in skill-central.paths not found in tarball."),
                manifest_help,
            ));
        }
    }
    Ok(tree)
}
