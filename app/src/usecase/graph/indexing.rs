//! `graph index`: the generated set written from the records, incrementally, with its caches
//! and its generation marker.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use domain::graph::checksum::Summed;
use domain::graph::index::{self, Diagnostics, Plan};
use domain::graph::manifest::{self, MANIFEST_FILE, Seen};
use domain::graph::outputs::{self, OUTPUTS_FILE, Outputs};
use domain::graph::set;
use domain::graph::spans::SPANS_FILE;
use domain::graph::{
    DIAGNOSTICS_FILE, GENERATED_DIR, GRAPH_FILE, GraphValidation, Page, SEARCH_INDEX_FILE, SEARCH_SIDECAR_FILE,
};
use ports::Clock;
use ports::fs::{Change, FileKind, FileSystem, FsError, FsErrorKind, HeldDir};
use sha2::{Digest, Sha256};

use super::read::{Caches, Reading, previous_manifest, read};
use super::search_index::{previous_spans, write_search_index};
use super::shared::{GraphError, Progress, plain_folders};
use super::validate::{template_errors, validate_pages};

/// JSON as VitaeContext 2.x writes it: 2-space indentation and one final newline.
pub fn json_bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("generated data always serialises");
    bytes.push(b'\n');
    bytes
}

#[derive(Debug)]
pub struct Indexed {
    pub validation: GraphValidation,
    pub nodes: usize,
    pub generated: PathBuf,
    /// Files parsed in this run (all of them without a usable manifest).
    pub parsed: usize,
    /// Files read in all.
    pub files: usize,
    /// Search documents copied from the previous `search-index.json`, not rendered.
    pub copied: usize,
    /// Whether the run wrote its outputs: a rerun with no record changed, whose outputs are as
    /// the last run left them, writes none ([`outputs`]), and nothing at all unless a record
    /// file was touched (then the manifest and the list of outputs alone).
    pub written: bool,
}

/// What an index run reports to the process that started it: `graph index --summary-json`
/// prints it as one JSON line for `mcp --watch`, which indexes in a child process so that the
/// run's memory (hundreds of MB at 100,000 records) is never the server's. It names no path
/// (a root's need not be UTF-8): the server knows the root it asked for.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Summary {
    Indexed {
        valid: bool,
        record_count: usize,
        errors: Vec<domain::graph::validate::GraphDiagnostic>,
        warnings: Vec<domain::graph::validate::GraphDiagnostic>,
        nodes: usize,
        parsed: usize,
        files: usize,
        copied: usize,
        written: bool,
    },
    Failed {
        message: String,
        /// The root is gone: live indexing ends there.
        no_root: bool,
    },
}

impl Summary {
    pub fn of(result: &Result<Indexed, GraphError>) -> Summary {
        match result {
            Ok(done) => Summary::Indexed {
                valid: done.validation.valid,
                record_count: done.validation.record_count,
                errors: done.validation.errors.clone(),
                warnings: done.validation.warnings.clone(),
                nodes: done.nodes,
                parsed: done.parsed,
                files: done.files,
                copied: done.copied,
                written: done.written,
            },
            Err(e) => Summary::Failed { message: e.to_string(), no_root: matches!(e, GraphError::NoRoot(_)) },
        }
    }

    /// The outcome of the run of `root` this summary reports.
    pub fn into_result(self, root: &Path) -> Result<Indexed, GraphError> {
        match self {
            Summary::Indexed { valid, record_count, errors, warnings, nodes, parsed, files, copied, written } => {
                Ok(Indexed {
                    validation: GraphValidation { valid, record_count, errors, warnings },
                    nodes,
                    generated: root.join(GENERATED_DIR),
                    parsed,
                    files,
                    copied,
                    written,
                })
            }
            Summary::Failed { no_root: true, .. } => Err(GraphError::NoRoot(root.to_path_buf())),
            Summary::Failed { message, .. } => Err(GraphError::Reported(message)),
        }
    }
}

/// What `index` writes, in `.generated/` (the manifest aside, which is a cache). The sidecar
/// is written after the others, so that its mtime is never older than the JSON's (the server
/// checks that).
pub const GENERATED_FILES: [&str; 4] = [GRAPH_FILE, SEARCH_INDEX_FILE, SEARCH_SIDECAR_FILE, DIAGNOSTICS_FILE];

/// Validates and writes `.generated/`; a failed validation removes the stale graph and search
/// index and writes only the diagnostics. The files change together or not at all
/// ([`FileSystem::write_atomic_set`]): a failure (a full disk) leaves the previous set whole.
/// The graph goes first, so that while the renames run a reader sees either no graph (the
/// invalid case) or a graph whose search index follows a few renames later, never a search
/// index for records the graph no longer has for longer than that.
///
/// Incremental: `.generated/manifest.bin` lets the next run parse only the records that
/// changed; the output is byte-identical to a run without it. It is written apart from the
/// set, on its own thread: it describes the files as read, not the outputs, so it is right
/// whether or not the set lands, and a manifest that cannot be written fails nothing.
///
/// The search index is streamed into its temporary file document by document, rendered on
/// every core ([`write_search_index`]): memory holds the records' plain text, not the file.
pub fn index(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    progress: &dyn Progress,
) -> Result<Indexed, GraphError> {
    index_with(fs, clock, root, progress, Caches::Use)
}

/// [`index`], trusting the caches or not.
pub fn index_with(
    fs: &dyn FileSystem,
    clock: &dyn Clock,
    root: &Path,
    progress: &dyn Progress,
    caches: Caches,
) -> Result<Indexed, GraphError> {
    let t0 = clock.monotonic();
    let trusted = caches == Caches::Use;
    let turn = take_turn(fs, root, progress);
    outputs_free(fs, root)?;
    // The canonical root names the graph the manifest describes (a manifest copied beside
    // another graph is ignored).
    let identity = fs.canonicalize(root).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
    let Reading { pages, texts, templates, seen, parsed, unchanged, records_as_before } =
        read(fs, clock, root, progress, caches, || trusted.then(|| previous_manifest(fs, root, &identity)).flatten())?;
    let t1 = clock.monotonic();
    let files = pages.len();
    let generated = root.join(GENERATED_DIR);
    plain_folders(fs, root, &generated)?;
    make_generated(fs, root, &generated)?;
    // Every write and removal below goes through this handle on the folder checked above: a
    // `.generated` renamed or swapped for a symlink from now on cannot redirect them.
    let out = fs.open_dir_beneath(root, Path::new(GENERATED_DIR))?;
    let out = &*out;
    if turn.is_some() {
        remove_leftovers(out);
    }
    let [graph_path, search_path, sidecar_path, diagnostics_path] = GENERATED_FILES.map(Path::new);
    let spans_path = Path::new(SPANS_FILE);
    // The caches beside the set that a folder holds the name of (no run makes one): there is
    // no old cache to remove there and no new one is written, rather than fail the run.
    let outputs_path = Path::new(OUTPUTS_FILE);
    let caches = caches_free(out, &[sidecar_path, spans_path, outputs_path]);
    // No record changed since a run whose outputs are all still as it left them: they are what
    // this run would write, unless the validation, which also looks at link targets that are
    // not records, now says otherwise. A file only touched, or one checked by content because
    // it was modified close to that run, changes the manifest alone: it is written again, and
    // the list of outputs with it (at 100,000 records, 120 MB instead of 530).
    let kept = if records_as_before { kept_outputs(fs, root) } else { None };
    let validated = match kept {
        Some(kept) => {
            let validation = template_errors(
                validate_pages(fs, root, &pages),
                pages.iter().map(|p| p.path.as_str()).zip(templates.iter().copied()),
            );
            let diagnostics = json_bytes(&Diagnostics::of(&validation));
            if validation.valid && <[u8; 32]>::from(Sha256::digest(&diagnostics)) == kept.diagnostics_sha256 {
                let nodes = usize::try_from(kept.nodes).unwrap_or(usize::MAX);
                if !unchanged {
                    // Until the new list is in place, the one there names the old manifest:
                    // a run stopped between the two writes everything next time.
                    match write_manifest(out, &identity, &seen, pages, &texts, &templates) {
                        Ok(()) => list_outputs(out, naming_the_new_manifest(fs, root, kept)),
                        Err(e) => tracing::warn!(
                            "the index manifest was not written ({e}); the next `graph index` reads again the files it checked"
                        ),
                    }
                }
                tracing::debug!("graph index: no record changed since the last run; no output written");
                return Ok(Indexed { validation, nodes, generated, parsed, files, copied: nodes, written: false });
            }
            Some(validation)
        }
        None => None,
    };
    // Validated while the plan's edges are made, then the plan's nodes: made while the graph
    // was validated, the nodes' strings (40 MB at 100,000 records) sat beside validation's
    // maps (17 MB), and that was the run's peak, 247-253 MB; this way 235-240 MB, for about
    // 0.08 s more (validation, 0.15-0.2 s, no longer beside the whole plan).
    // The plan borrows the texts only: after this, nothing but the manifest needs the pages.
    // The documents of the JSON in place that can be copied are found with the plan.
    let (plan, validation) = Plan::split_after(&pages, &texts, || {
        validated.unwrap_or_else(|| {
            template_errors(
                validate_pages(fs, root, &pages),
                pages.iter().map(|p| p.path.as_str()).zip(templates.iter().copied()),
            )
        })
    });
    let mut splice = if trusted { previous_spans(fs, root, &plan, &seen) } else { None };
    // The previous sidecar goes with the sidecar's parts, laid out once the JSON is written.
    let previous = Mutex::new(splice.as_mut().and_then(|s| s.sidecar.take()));
    let t2 = clock.monotonic();
    tracing::debug!(records = files, parsed, read = ?(t1 - t0), validate_and_plan = ?(t2 - t1), "graph index: read, validated and planned");
    std::thread::scope(|s| {
        // The manifest describes the files as read, whatever the outputs: it is written on a
        // thread of its own while the graph is written, apart from their set, so that a
        // manifest that cannot be written costs the next run speed, not this run's index. It
        // takes the pages and drops each once written, so that they are gone (about 90 MB at
        // 100,000 records) before the search sidecar is laid out. It is a cache that checks
        // itself, so it is not synced to the disk; an unchanged one is not rewritten.
        let manifest_written = if unchanged {
            drop(pages);
            None
        } else {
            let (seen, texts, templates, identity) = (&seen, &texts, &templates, &identity);
            // Said once the JSON set is written: a run that fails says why, once (found in
            // review: a folder the user may not write in gave this warning, then the error).
            Some(s.spawn(move || write_manifest(out, identity, seen, pages, texts, templates)))
        };
        let diagnostics = json_bytes(&Diagnostics::of(&validation));
        let done = |nodes, copied| Indexed {
            validation: validation.clone(),
            nodes,
            generated: generated.clone(),
            parsed,
            files,
            copied,
            written: true,
        };
        // The list of what the last run left goes first: a run that changes the set leaves
        // none until its own outputs are all in place.
        let removed_caches = caches.iter().map(|c| Change::Remove(c));
        if !validation.valid {
            let mut set = vec![Change::Remove(graph_path), Change::Remove(search_path)];
            set.extend(removed_caches);
            set.push(Change::Write(diagnostics_path, &diagnostics));
            out.write_atomic_set(&set)?;
            mark_set(out, None, None);
            return Ok(done(0, 0));
        }
        // The graph's length and checksum as written, for the generation marker.
        let graph_piece = Mutex::new(None);
        let graph = |out: &mut dyn Write| {
            let mut out = Summed::new(out);
            index::write_graph(&plan.graph, &mut out)?;
            *graph_piece.lock().unwrap_or_else(|p| p.into_inner()) = Some(set::Piece::summed(&out.sum));
            Ok(())
        };
        let search_piece = Mutex::new(None);
        // The sidecar is made while the search index streams, laid out on a thread of its own
        // once the stream ends (while the set is synced and renamed, and the old files'
        // blocks freed: 0.1 s at 100,000 records), and written once the set is in place: the
        // set removes the old one, so no reader pairs the new JSON with it, and a sidecar
        // that cannot be written costs only speed (the server reads the JSON).
        let manifest_written = Mutex::new(manifest_written);
        let laying_out = Mutex::new(None);
        let copied = AtomicUsize::new(0);
        let search = |out: &mut dyn Write| {
            let previous = previous.lock().unwrap_or_else(|p| p.into_inner()).take();
            let parts = write_search_index(&plan, splice.as_ref(), previous, out)?;
            copied.store(parts.copied, Ordering::Relaxed);
            *search_piece.lock().unwrap_or_else(|p| p.into_inner()) = Some(parts.json_piece());
            let manifest_written = manifest_written.lock().unwrap_or_else(|p| p.into_inner()).take();
            let laid = s.spawn(move || {
                // The pages go with the manifest (usually written well before the JSON):
                // waited for here, so that they are gone when the sidecar's postings are made.
                let manifest_current = manifest_written.is_none_or(|written| {
                    let written = written.join().expect("the manifest writer panicked");
                    if let Err(e) = &written {
                        tracing::warn!("the index manifest was not written ({e}); the next `graph index` parses again what changed since the one before");
                    }
                    written.is_ok()
                });
                (parts.lay_out(), manifest_current)
            });
            *laying_out.lock().unwrap_or_else(|p| p.into_inner()) = Some(laid);
            Ok(())
        };
        let mut set = vec![Change::Stream(graph_path, &graph), Change::Stream(search_path, &search)];
        set.extend(removed_caches);
        set.push(Change::Write(diagnostics_path, &diagnostics));
        out.write_atomic_set(&set)?;
        let piece = |m: Mutex<Option<set::Piece>>| m.into_inner().unwrap_or_else(|p| p.into_inner());
        mark_set(out, piece(graph_piece), piece(search_piece));
        // The JSON it was copied from is gone: its handle goes too.
        drop(splice);
        let t3 = clock.monotonic();
        tracing::debug!(set = ?(t3 - t2), "graph index: JSON written");
        let indexed = done(plan.graph.nodes.len(), copied.load(Ordering::Relaxed));
        if let Some(laid) = laying_out.into_inner().unwrap_or_else(|p| p.into_inner()) {
            let (laid, manifest_current) = laid.join().expect("the sidecar's layout panicked");
            // Written in pieces, its strings read from the plan and the texts: never held whole.
            // It keeps the JSON's stamp as the set left it, which the server compares before
            // trusting the sidecar without hashing the JSON first (none: it always hashes).
            let json = Path::new(GENERATED_DIR).join(SEARCH_INDEX_FILE);
            let stamp = fs.metadata_beneath(root, &json).map_or(0, |m| m.stamp);
            let (write, spans) = laid.writers(stamp, &seen);
            let written: Vec<Change<'_>> = caches
                .iter()
                .filter(|&&c| c != outputs_path)
                .map(|&c| if c == sidecar_path { Change::Cache(c, &write) } else { Change::Cache(c, &spans) })
                .collect();
            match out.write_atomic_set(&written) {
                Err(e) => tracing::warn!(
                    "the search sidecar was not written ({e}); the server will read search-index.json instead"
                ),
                // Everything is in place, and the manifest describes the records it was made
                // from: the next run with nothing changed may keep it all.
                Ok(()) if manifest_current && caches.contains(&outputs_path) => {
                    list_outputs(out, left_outputs(fs, root, indexed.nodes, Sha256::digest(&diagnostics).into()));
                }
                Ok(()) => {}
            }
        }
        tracing::debug!(sidecar = ?(clock.monotonic() - t3), "graph index: sidecar written");
        Ok(indexed)
    })
}

/// Writes the manifest of the files as this run read them, taking the pages: each is dropped
/// once written. A cache that checks itself: not synced to the disk.
fn write_manifest(
    out: &dyn HeldDir,
    identity: &str,
    seen: &[Option<Seen>],
    pages: Vec<Page>,
    texts: &[String],
    templates: &[Option<u16>],
) -> Result<(), FsError> {
    let pages = Mutex::new(Some(pages));
    let manifest = |out: &mut dyn Write| {
        let pages = pages.lock().unwrap_or_else(|p| p.into_inner()).take();
        let pages = pages.ok_or_else(|| std::io::Error::other("the manifest is written once"))?;
        let count = seen.iter().flatten().count();
        let entries = seen.iter().zip(pages).zip(texts).zip(templates);
        let entries =
            entries.filter_map(|(((s, page), text), &template)| Some((s.as_ref()?, page, text.as_str(), template)));
        manifest::write(identity, count, entries, out)
    };
    out.write_atomic_set(&[Change::Cache(Path::new(MANIFEST_FILE), &manifest)])
}

/// Writes the generation marker ([`set`]) naming the graph and search index a run has just
/// put in place. The marker before it stays until then: a reader pairs it with whatever the
/// renames left. One that cannot be written leaves the old, which then tells nothing of the
/// new pair (the reader compares their contents), and is said in the log.
fn mark_set(out: &dyn HeldDir, graph: Option<set::Piece>, search: Option<set::Piece>) {
    let bytes = set::encode(&set::Marker { graph, search });
    if let Err(e) = out.write_atomic_set(&[Change::Write(Path::new(set::SET_FILE), &bytes)]) {
        tracing::warn!(
            "{} was not written ({e}); the server compares the index files' contents instead",
            set::SET_FILE
        );
    }
}

/// Writes `listed` as the list of what is in `.generated/` (`OUTPUTS_FILE`), for the next run
/// to compare with; a list that could not be made (`None`) or written costs the next run speed
/// only.
fn list_outputs(out: &dyn HeldDir, listed: Option<Outputs>) {
    if let Some(bytes) = listed.as_ref().map(outputs::encode)
        && let Err(e) = out.write_atomic_set(&[Change::Write(Path::new(OUTPUTS_FILE), &bytes)])
    {
        tracing::debug!("{OUTPUTS_FILE} was not written ({e}); the next run writes everything");
    }
}

/// `kept`, the list this run checked the outputs against, naming the manifest now in place
/// instead of the one it named: the other files are not looked at again, so nothing written
/// to them since the check is vouched for.
fn naming_the_new_manifest(fs: &dyn FileSystem, root: &Path, mut kept: Outputs) -> Option<Outputs> {
    let manifest = left_now(fs, root, MANIFEST_FILE).ok()?;
    let (_, left) = kept.files.iter_mut().find(|(name, _)| name == MANIFEST_FILE)?;
    *left = manifest;
    kept.manifest_checksum = manifest_checksum(fs, root)?;
    Some(kept)
}

/// The files of `.generated/` that a run with nothing changed keeps only while each is as the
/// last run left it: the outputs, the generation marker, the caches, and the manifest that
/// says nothing changed.
const KEPT: [&str; 7] =
    [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE, set::SET_FILE, SEARCH_SIDECAR_FILE, SPANS_FILE, MANIFEST_FILE];

/// How `.generated/NAME` is now: absent (`None`), or a regular file's length and stamp; `Err`
/// for anything else (a folder, a symlink, an error), which is never kept.
fn left_now(fs: &dyn FileSystem, root: &Path, name: &str) -> Result<Option<outputs::Left>, ()> {
    match fs.metadata_beneath(root, &Path::new(GENERATED_DIR).join(name)) {
        Ok(m) if m.kind == FileKind::File => Ok(Some(outputs::Left { len: m.len, stamp: m.stamp })),
        Err(e) if e.kind == FsErrorKind::NotFound => Ok(None),
        _ => Err(()),
    }
}

/// The checksum that ends `.generated/manifest.bin` (of everything before it).
fn manifest_checksum(fs: &dyn FileSystem, root: &Path) -> Option<u64> {
    let (file, meta) = fs.open_beneath(root, &Path::new(GENERATED_DIR).join(MANIFEST_FILE)).ok()?;
    let mut sum = [0; 8];
    file.read_exact_at(&mut sum, meta.len.checked_sub(8)?).ok()?;
    Some(u64::from_le_bytes(sum))
}

/// What this run leaves in `.generated/`, for the next run to compare with; `None` when a file
/// is neither a regular file nor absent.
fn left_outputs(fs: &dyn FileSystem, root: &Path, nodes: usize, diagnostics_sha256: [u8; 32]) -> Option<Outputs> {
    let files =
        KEPT.iter().map(|&name| Some((name.to_owned(), left_now(fs, root, name).ok()?))).collect::<Option<_>>()?;
    let manifest_checksum = manifest_checksum(fs, root)?;
    Some(Outputs { nodes: nodes as u64, diagnostics_sha256, manifest_checksum, files })
}

/// The last run's list of what it left in `.generated/`, when every file on it is still as it
/// was left (same length and stamp, or still absent).
///
/// The caches are not synced: after a crash one may hold zeros where its bytes were, with its
/// stamp intact (XFS does that). The server and the next run ignore such a cache by its
/// checksum, but a run that kept it would leave the server without its sidecar until a record
/// changed, so the sidecar's header must still name the JSON beside it (its 56-byte header read).
fn kept_outputs(fs: &dyn FileSystem, root: &Path) -> Option<Outputs> {
    let generated = Path::new(GENERATED_DIR);
    let (bytes, _) = fs.read_beneath(root, &generated.join(OUTPUTS_FILE), 64 * 1024).ok()?;
    let listed = outputs::decode(&bytes)?;
    let names_kept = listed.files.iter().map(|(name, _)| name.as_str()).eq(KEPT);
    let as_left = || listed.files.iter().all(|(name, left)| left_now(fs, root, name) == Ok(*left));
    let sidecar_names_the_json = || {
        let (_, json) = listed.files.iter().find(|(name, _)| name == SEARCH_INDEX_FILE)?;
        let json = (*json)?;
        let (file, _) = fs.open_beneath(root, &generated.join(SEARCH_SIDECAR_FILE)).ok()?;
        let mut header = [0; domain::graph::sidecar::HEADER_LEN];
        file.read_exact_at(&mut header, 0).ok()?;
        let named = domain::graph::sidecar::source(&header).ok()?;
        (named.json_len == json.len && named.json_stamp == json.stamp).then_some(())
    };
    let same_manifest = || manifest_checksum(fs, root) == Some(listed.manifest_checksum);
    (names_kept && as_left() && same_manifest() && sidecar_names_the_json().is_some()).then_some(listed)
}

/// Fails when a folder holds the name of an output of `graph index` (`graph.json`,
/// `search-index.json`, `diagnostics.json`): checked before the records are read, so that
/// such a run fails in a moment, naming the folder, rather than after reading every record
/// with "is a directory". A folder made later still fails the set, which changes nothing.
fn outputs_free(fs: &dyn FileSystem, root: &Path) -> Result<(), GraphError> {
    let generated = root.join(GENERATED_DIR);
    for name in [GRAPH_FILE, SEARCH_INDEX_FILE, DIAGNOSTICS_FILE] {
        let path = generated.join(name);
        if fs.symlink_metadata(&path).is_ok_and(|m| m.kind == FileKind::Dir) {
            return Err(GraphError::OutputIsFolder(path));
        }
    }
    Ok(())
}

/// Those of the cache files `names` (in `.generated/`) whose name no folder holds; each that
/// one does is named in a warning.
fn caches_free<'n>(generated: &dyn HeldDir, names: &[&'n Path]) -> Vec<&'n Path> {
    let folders: Vec<std::ffi::OsString> = generated
        .read_dir()
        .map(|entries| entries.into_iter().filter(|e| e.kind == FileKind::Dir).map(|e| e.name).collect())
        .unwrap_or_default();
    let (free, taken): (Vec<&Path>, Vec<&Path>) =
        names.iter().partition(|name| !folders.iter().any(|f| f.as_os_str() == name.as_os_str()));
    for name in taken {
        tracing::warn!(
            "{} is a folder, so that cache is not written (the index is, a little slower); remove the folder",
            generated.path().join(name).display()
        );
    }
    free
}

/// Removes the temporaries and kept names that an index run killed while writing (Ctrl-C, a
/// full disk's OOM killer) left in `.generated/`: at 100,000 records they are hundreds of MB,
/// and each interrupted run would add more. Only while this run holds the root's lock: every
/// writer of `.generated/` is an index run, so none of them is under way.
fn remove_leftovers(generated: &dyn HeldDir) {
    let Ok(entries) = generated.read_dir() else { return };
    let leftovers = entries.iter().filter(|e| e.kind == FileKind::File && ports::fs::is_set_leftover(&e.name));
    let removed = leftovers.filter(|e| generated.remove_file(&e.name).is_ok()).count();
    if removed > 0 {
        let at = generated.path().display();
        tracing::info!("removed {removed} temporary file(s) that an interrupted run left in {at}");
    }
}

/// An exclusive lock on the graph's root for one index run. Indexers of one graph take turns
/// (`graph index` beside `mcp --watch`, or two of either): two runs at once would interleave
/// their writes of `.generated/`, one run's `graph.json` beside the other's search index. Where
/// the filesystem cannot lock, the run goes on without (a missing root is reported by the read).
/// Makes `.generated/` when it is not there, never the root: a root removed while its
/// records were read (a watch then ends) is not made again by the run, with only an index in
/// it (found when `mcp --watch` indexed in a child process: the root a test deleted came back).
/// The root is looked at just before `.generated/` is made; a root removed in between is the
/// one case left.
pub(super) fn make_generated(fs: &dyn FileSystem, root: &Path, generated: &Path) -> Result<(), GraphError> {
    match fs.symlink_metadata(generated) {
        Err(e) if e.kind == FsErrorKind::NotFound => {}
        _ => return Ok(()),
    }
    match fs.symlink_metadata(root) {
        Err(e) if e.kind == FsErrorKind::NotFound => Err(GraphError::NoRoot(root.to_path_buf())),
        _ => Ok(fs.create_dir_all(generated)?),
    }
}

fn take_turn(fs: &dyn FileSystem, root: &Path, progress: &dyn Progress) -> Option<ports::fs::DirLock> {
    // A server asking whether an index is under way (`dir_locked`) holds the lock for an
    // instant: a few quick tries tell that from another index, before saying it waits.
    let mut tries = 0;
    let waited = loop {
        match fs.lock_dir(root, false) {
            Ok(Some(lock)) => return Some(lock),
            Ok(None) if tries < 5 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(2));
            }
            Ok(None) => {
                progress.waiting(root);
                break fs.lock_dir(root, true);
            }
            Err(e) => break Err(e),
        }
    };
    waited.unwrap_or_else(|e| {
        tracing::debug!("indexing {} without a lock: {e}", root.display());
        None
    })
}
