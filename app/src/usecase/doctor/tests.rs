//! Unit tests of the doctor use case over MemoryFs: a healthy setup has no findings, and each
//! check has a fixture that triggers it. The snapshot tests in `commands/doctor` reuse them.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Duration;

use domain::clients::{Client, Edit, Entry, Os};
use fs_memory::MemoryFs;
use ports::Clock;
use ports::fs::FileSystem;

use super::*;

pub struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> std::time::SystemTime {
        std::time::UNIX_EPOCH
    }
    fn monotonic(&self) -> Duration {
        Duration::ZERO
    }
}

/// A probe that runs nothing: each client command answers as told, and calls are recorded.
#[derive(Default)]
pub struct FakeProbe {
    pub fail_initialize: Option<String>,
    pub calls: RefCell<Vec<String>>,
}

impl Probe for FakeProbe {
    fn version(&self, command: &Path, args: &[String]) -> Option<String> {
        self.calls.borrow_mut().push(format!("version {} {}", command.display(), args.join(" ")));
        Some("vitaecontext 0.0.1".into())
    }
    fn initialize(&self, command: &Path, args: &[String]) -> Result<(), String> {
        self.calls.borrow_mut().push(format!("initialize {} {}", command.display(), args.join(" ")));
        self.fail_initialize.clone().map_or(Ok(()), Err)
    }
}

pub const HOME: &str = "/home/ada";
pub const EXE: &str = "/usr/local/bin/vitaecontext";
const CONTEXT: &str = include_str!("../../../../examples/career-context.md");
const RECORD: &str = "---\ntype: project\nid: project:a\ntitle: A\ntags: [rust]\n---\n# A\nBuilt it in 2024.\n";
const SKILL: &str = "id: cv-helper\ntype: prompt\narguments:\n  - name: bullet\nprompt: |\n  Rewrite {{bullet}} from {{career_context.cv}}.\n";

pub fn env() -> Env {
    Env { os: Os::Linux, home: Some(HOME.into()), appdata: None, xdg_config_home: None, codex_home: None }
}

pub fn sources() -> Sources {
    Sources { home: Some(HOME.into()), cwd: HOME.into(), ..Sources::default() }
        .with_skills(&[("/home/ada/skills".into(), 100)], None)
}

fn write(fs: &MemoryFs, path: &str, text: &str) {
    let path = Path::new(path);
    fs.create_dir_all(path.parent().unwrap()).unwrap();
    fs.write_atomic(path, text.as_bytes()).unwrap();
}

fn register(fs: &MemoryFs, client: Client, command: &str) {
    let path = client.config_path(&env()).unwrap();
    let Edit::Changed(text) =
        domain::clients::register(client, "", &Entry { command: command.into(), args: vec!["mcp".into()] }).unwrap()
    else {
        panic!("a new entry changes the file")
    };
    write(fs, &path.to_string_lossy(), &text);
}

struct Quiet;
impl graph::Progress for Quiet {
    fn update(&self, _: usize, _: usize, _: Duration) {}
}

/// A setup the server serves without a problem: a private Career Context, an indexed
/// VitaeGraph, one skill layer, Cursor registered with this binary.
pub fn healthy() -> MemoryFs {
    let fs = MemoryFs::new();
    let context = "/home/ada/.vitaecontext/career-context.md";
    write(&fs, context, CONTEXT);
    fs.set_mode(Path::new(context), 0o600).unwrap();
    let root = Path::new("/home/ada/.vitaecontext/vitaegraph");
    graph::init(&fs, &FixedClock, root, false).unwrap();
    write(&fs, "/home/ada/.vitaecontext/vitaegraph/projects/a/project.md", RECORD);
    graph::index(&fs, &FixedClock, root, &Quiet).unwrap();
    write(&fs, "/home/ada/skills/cv-helper.yaml", SKILL);
    write(&fs, EXE, "binary");
    register(&fs, Client::Cursor, EXE);
    fs
}

/// Every check failing at once.
pub fn broken() -> MemoryFs {
    let fs = healthy();
    // Career Context: an entry without TL;DR, and readable by everyone.
    let context = Path::new("/home/ada/.vitaecontext/career-context.md");
    write(
        &fs,
        "/home/ada/.vitaecontext/career-context.md",
        include_str!("../../../../examples/broken/missing_tldr.md"),
    );
    fs.set_mode(context, 0o644).unwrap();
    // VitaeGraph: a broken link, a record added and one changed since indexing, and a graph.json
    // node whose path climbs out of the root.
    let root = "/home/ada/.vitaecontext/vitaegraph";
    write(&fs, &format!("{root}/projects/a/project.md"), &RECORD.replace("Built it", "Built [it](missing.md)"));
    write(&fs, &format!("{root}/projects/b/project.md"), &RECORD.replace(":a", ":b").replace("title: A", "title: B"));
    let graph_json = format!("{root}/.generated/graph.json");
    let text = String::from_utf8(fs.read(Path::new(&graph_json), u64::MAX).unwrap()).unwrap();
    write(&fs, &graph_json, &text.replace("\"path\": \"projects/a/project.md\"", "\"path\": \"../../secret.md\""));
    // Skills: a layer folder that is missing, a file that does not parse, a conflict, a built-in
    // id, a placeholder nothing fills.
    write(&fs, "/home/ada/skills/broken.yaml", "id: [unclosed\n");
    write(&fs, "/home/ada/skills/b/cv-helper.yaml", SKILL);
    write(&fs, "/home/ada/skills/builtin.yaml", &SKILL.replace("cv-helper", "cv_tailoring"));
    write(
        &fs,
        "/home/ada/skills/role.yaml",
        &SKILL.replace("cv-helper", "role-note").replace("{{bullet}}", "{{ role }}"),
    );
    // Clients: Cursor points at a binary that was removed; Gemini at another vitaecontext.
    register(&fs, Client::Cursor, "/opt/old/vitaecontext");
    write(&fs, "/opt/other/vitaecontext", "another binary");
    register(&fs, Client::Gemini, "/opt/other/vitaecontext");
    fs
}

pub fn broken_sources() -> Sources {
    let mut s = sources();
    s.skills_dirs.push(("/home/ada/gone".into(), 50));
    s
}

pub fn run_on(fs: &MemoryFs, sources: &Sources, live: bool, probe: &FakeProbe) -> Report {
    let env = env();
    let inputs = Inputs { sources, env: &env, exe: Some(EXE.into()), path_dirs: vec!["/usr/local/bin".into()], live };
    run(fs, &FixedClock, &inputs, probe)
}

fn codes(r: &Report) -> Vec<&str> {
    r.findings.iter().map(|f| f.code.as_str()).collect()
}

/// Doctor on `fs` with the usual sources, no live check.
fn doctor_on(fs: &MemoryFs) -> Report {
    run_on(fs, &sources(), false, &FakeProbe::default())
}

/// The healthy setup's VitaeGraph root.
const GRAPH: &str = "/home/ada/.vitaecontext/vitaegraph";

/// Writes the record `projects/<dir>/project.md` of the healthy setup's graph.
fn write_record(fs: &MemoryFs, dir: &str, text: &str) {
    write(fs, &format!("{GRAPH}/projects/{dir}/project.md"), text);
}

/// Indexes the healthy setup's graph again.
fn reindex(fs: &MemoryFs) {
    graph::index(fs, &FixedClock, Path::new(GRAPH), &Quiet).unwrap();
}

#[test]
fn a_healthy_setup_has_no_findings() {
    let fs = healthy();
    let probe = FakeProbe::default();
    let r = run_on(&fs, &sources(), true, &probe);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!(r.context.rule, Some(Rule::Canonical.describe()));
    assert_eq!((r.graph.records, r.graph.valid, r.graph.index), (Some(1), Some(true), "current"));
    assert_eq!(r.skills.served, 1);
    assert_eq!(r.clients.len(), 1);
    // Same binary: no `--version`; --live starts it with its configured args.
    assert_eq!(*probe.calls.borrow(), vec![format!("version {EXE} "), format!("initialize {EXE} mcp")]);
    assert_eq!(r.clients[0].version.as_deref(), Some("vitaecontext 0.0.1"), "the version it says is reported");
}

#[test]
fn every_check_fires_on_the_broken_setup() {
    let fs = broken();
    let r = run_on(&fs, &broken_sources(), true, &FakeProbe::default());
    let codes = codes(&r);
    for want in [
        "vitaecontext::context::missing_tldr",
        "vitaecontext::context::readable_by_others",
        "vitaecontext::graph::broken_internal_link",
        "vitaecontext::graph::index_stale",
        "vitaecontext::graph::path_outside_root",
        "vitaecontext::skills::layer_missing",
        "vitaecontext::skills::yaml_syntax",
        "vitaecontext::skills::conflict",
        "vitaecontext::skills::builtin_id",
        "vitaecontext::skills::unknown_placeholder",
        "vitaecontext::client::stale_path",
        "vitaecontext::client::other_binary",
    ] {
        assert!(codes.contains(&want), "{want} missing from {codes:#?}");
    }
    let stale = r.findings.iter().find(|f| f.code.ends_with("index_stale")).unwrap();
    // The graph is invalid: indexing now would take the served index away, so no record is
    // called removed and the errors come first.
    assert!(stale.message.contains("the records have errors"), "{}", stale.message);
    assert!(!stale.message.contains("removed: project:a"), "{}", stale.message);
    let outside = r.findings.iter().find(|f| f.code.ends_with("path_outside_root")).unwrap();
    assert!(matches!(&outside.source, Source::Text { text, span, .. } if &text[span.clone()] == "\"../../secret.md\""));
    let mode = r.findings.iter().find(|f| f.code.ends_with("readable_by_others")).unwrap();
    assert_eq!(
        mode.help,
        "It holds personal data: make it private with `chmod 600 /home/ada/.vitaecontext/career-context.md`."
    );
    let other = r.findings.iter().find(|f| f.code.ends_with("other_binary")).unwrap();
    assert!(other.message.contains("vitaecontext 0.0.1"), "{}", other.message);
    let placeholder = r.findings.iter().find(|f| f.code.ends_with("unknown_placeholder")).unwrap();
    assert!(matches!(&placeholder.source, Source::Text { text, span, .. } if &text[span.clone()] == "{{ role }}"));
    assert!(r.count(Severity::Error) > 0);
}

/// A stale index names the files and the records that changed, by id, and nothing else.
#[test]
fn a_stale_index_names_added_and_changed_records() {
    let fs = healthy();
    write_record(&fs, "a", &RECORD.replace("Built it", "Shipped it"));
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::graph::index_stale"]);
    let m = &r.findings[0].message;
    assert!(m.contains(": search-index.json differs from") && m.ends_with("records changed: project:a"), "{m}");
    assert_eq!(r.graph.index, "stale");

    write_record(&fs, "b", &RECORD.replace(":a", ":b"));
    let r = doctor_on(&fs);
    let m = &r.findings[0].message;
    assert!(m.contains("records added: project:b; changed: project:a"), "{m}");
}

/// A stale index names removed records too, and one whose tags changed (node and document);
/// a `search-index.json` that does not read as one counts as no documents, so each record
/// it should hold is named as changed.
#[test]
fn a_stale_index_names_removed_records_and_reads_a_broken_search_index_as_none() {
    let fs = healthy();
    for id in ["b", "c"] {
        write_record(&fs, id, &RECORD.replace(":a", &format!(":{id}")));
    }
    reindex(&fs);
    fs.remove_file(&Path::new(GRAPH).join("projects/b/project.md")).unwrap();
    write_record(&fs, "c", &RECORD.replace(":a", ":c").replace("rust", "go"));
    let r = doctor_on(&fs);
    let m = &r.findings[0].message;
    assert!(m.contains(": graph.json, search-index.json, diagnostics.json differ"), "{m}");
    assert!(m.ends_with("records removed: project:b; changed: project:c"), "{m}");

    reindex(&fs);
    let search = Path::new(GRAPH).join(".generated/search-index.json");
    let json = fs.read(&search, u64::MAX).unwrap();
    fs.write_atomic(&search, &json[..json.len() - 2]).unwrap();
    let r = doctor_on(&fs);
    let m = &r.findings[0].message;
    assert!(m.ends_with("records changed: project:a, project:c"), "{m}");
}

/// A record whose folder name holds a `\` (Linux allows it) has a path the server refuses to
/// open: doctor says so with the index current, as with it stale (found in review: a current
/// index had every node path skipped).
#[test]
fn a_record_path_the_server_refuses_is_reported_with_the_index_current() {
    let fs = healthy();
    write_record(&fs, "a\\b", &RECORD.replace(":a", ":b"));
    reindex(&fs);
    let r = doctor_on(&fs);
    assert_eq!((codes(&r), r.graph.index), (vec!["vitaecontext::graph::path_outside_root"], "current"));
    assert!(r.findings[0].message.contains("project:b"), "{}", r.findings[0].message);
    write_record(&fs, "a", &RECORD.replace("Built it", "Shipped it"));
    let r = doctor_on(&fs);
    let want = vec!["vitaecontext::graph::index_stale", "vitaecontext::graph::path_outside_root"];
    assert_eq!((codes(&r), r.graph.index), (want, "stale"));
}

/// The index is compared with what `graph index` would write byte for byte, as it is made: a
/// file with one byte more, one byte less or one byte changed (its length kept) is stale, and
/// only that file is named.
#[test]
fn an_index_is_current_only_while_every_byte_is_as_graph_index_writes_it() {
    let generated = Path::new("/home/ada/.vitaecontext/vitaegraph/.generated");
    for name in ["graph.json", "search-index.json", "diagnostics.json"] {
        let fs = healthy();
        let path = generated.join(name);
        let good = fs.read(&path, u64::MAX).unwrap();
        let mut changed = good.clone();
        *changed.last_mut().unwrap() ^= 0x20;
        let cases = [[good.as_slice(), b" "].concat(), good[..good.len() - 1].to_vec(), changed];
        for bytes in cases {
            fs.write_atomic(&path, &bytes).unwrap();
            let r = doctor_on(&fs);
            assert_eq!(r.graph.index, "stale", "{name}");
            // A graph.json cut or changed at its end is no longer JSON: that is said too.
            let stale = r.findings.iter().find(|f| f.code.ends_with("index_stale")).expect(name);
            assert!(stale.message.contains(&format!("stale: {name} differs from")), "{}", stale.message);
        }
        fs.write_atomic(&path, &good).unwrap();
        let r = doctor_on(&fs);
        assert_eq!((r.findings.len(), r.graph.index), (0, "current"), "{name}: {:#?}", r.findings);
    }
}

#[test]
fn a_missing_index_is_a_warning() {
    let fs = healthy();
    for f in ["graph.json", "search-index.json", "diagnostics.json"] {
        fs.remove_file(&Path::new("/home/ada/.vitaecontext/vitaegraph/.generated").join(f)).unwrap();
    }
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::graph::index_missing"]);
    assert_eq!(r.count(Severity::Error), 0);
}

#[test]
fn selection_problems_are_findings() {
    let fs = healthy();
    fs.remove_file(Path::new("/home/ada/.vitaecontext/career-context.md")).unwrap();
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::context::not_found"]);
    assert_eq!(r.context.status, "missing");

    write(&fs, "/home/ada/.vitaecontext/a-career-context.md", CONTEXT);
    write(&fs, "/home/ada/.vitaecontext/b.context.md", CONTEXT);
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::context::ambiguous"]);
    assert_eq!(r.context.candidates.len(), 2);

    let mut flagged = sources();
    flagged.context_flag = Some("/home/ada/nowhere.md".into());
    let r = run_on(&fs, &flagged, false, &FakeProbe::default());
    assert_eq!(codes(&r), ["vitaecontext::context::unreadable"]);
    assert!(r.findings[0].message.contains("chosen by --context"), "{}", r.findings[0].message);
}

#[test]
fn graph_roots_missing_by_default_warn_and_named_ones_fail() {
    let fs = healthy();
    let mut s = sources();
    s.root_flag = Some("/home/ada/nope".into());
    assert_eq!(codes(&run_on(&fs, &s, false, &FakeProbe::default())), ["vitaecontext::graph::no_root"]);
    s.root_flag = None;
    s.home = Some("/home/bob".into());
    let r = run_on(&fs, &s, false, &FakeProbe::default());
    assert!(codes(&r).contains(&"vitaecontext::graph::not_set_up"), "{:?}", codes(&r));
}

#[test]
fn live_check_failure_and_stale_paths_are_errors_and_missing_commands_are_not_started() {
    let fs = healthy();
    register(&fs, Client::Gemini, "/opt/old/vitaecontext");
    let probe = FakeProbe { fail_initialize: Some("no answer within 5 s".into()), ..FakeProbe::default() };
    let r = run_on(&fs, &sources(), true, &probe);
    assert_eq!(codes(&r), ["vitaecontext::client::live_failed", "vitaecontext::client::stale_path"]);
    assert_eq!(*probe.calls.borrow(), vec![format!("version {EXE} "), format!("initialize {EXE} mcp")]);
    assert_eq!(r.clients[0].version.as_deref(), Some("vitaecontext 0.0.1"), "the version it says is reported");
    assert!(r.findings[1].help.contains("register --client gemini"), "{}", r.findings[1].help);
    // Without --live nothing is run.
    let probe = FakeProbe::default();
    run_on(&fs, &sources(), false, &probe);
    assert!(probe.calls.borrow().is_empty());
}

#[test]
fn a_bare_command_is_found_on_path() {
    let fs = healthy();
    register(&fs, Client::Cursor, "vitaecontext");
    let r = doctor_on(&fs);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    register(&fs, Client::Cursor, "vitaecontext-gone");
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::client::stale_path"]);
    // A bare name is not a file: it is not found on PATH.
    assert!(r.findings[0].message.contains("vitaecontext-gone is not found on PATH"), "{}", r.findings[0].message);
    register(&fs, Client::Cursor, "/usr/bin/gone");
    let r = doctor_on(&fs);
    assert!(r.findings[0].message.contains("/usr/bin/gone does not exist"), "{}", r.findings[0].message);
}

/// `npx -y vitaecontext@V mcp` (what `register` writes from the npm launcher) is vitaecontext,
/// not a foreign `npx`; --live asks its version through the launcher; a pin of another version
/// than this one is pointed out.
#[test]
fn a_launcher_entry_is_vitaecontext_and_its_version_is_asked_through_it() {
    let fs = healthy();
    fs.create_dir_all(Path::new("/usr/bin")).unwrap();
    fs.create_dir_all(Path::new("/usr/local/bin")).unwrap();
    fs.write_atomic(Path::new("/usr/local/bin/npx"), b"").unwrap();
    let entry = |version: &str| {
        let path = Client::Cursor.config_path(&env()).unwrap();
        let args = ["-y", &format!("vitaecontext@{version}"), "mcp"].map(String::from).to_vec();
        let Edit::Changed(text) =
            domain::clients::register(Client::Cursor, "", &Entry { command: "npx".into(), args }).unwrap()
        else {
            panic!("a new entry changes the file")
        };
        write(&fs, &path.to_string_lossy(), &text);
    };
    entry(env!("CARGO_PKG_VERSION"));
    let probe = FakeProbe::default();
    let r = run_on(&fs, &sources(), true, &probe);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    let pinned = format!("vitaecontext@{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(probe.calls.borrow()[0], format!("version /usr/local/bin/npx -y {pinned}"));
    assert_eq!(r.clients[0].version.as_deref(), Some("vitaecontext 0.0.1"));
    entry("1.0.0");
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::client::other_binary"]);
    assert!(
        r.findings[0].message.contains("starts vitaecontext 1.0.0 through npx; this is vitaecontext"),
        "{}",
        r.findings[0].message
    );
}

/// A command that is no vitaecontext at all (`node` running another server) is named as
/// foreign, not as another build.
#[test]
fn a_foreign_command_is_named_foreign() {
    let fs = healthy();
    fs.create_dir_all(Path::new("/usr/bin")).unwrap();
    fs.write_atomic(Path::new("/usr/bin/node"), b"").unwrap();
    register(&fs, Client::Cursor, "/usr/bin/node");
    let r = doctor_on(&fs);
    let other = r.findings.iter().find(|f| f.code.ends_with("other_binary")).expect("other_binary");
    assert!(other.message.contains("/usr/bin/node is a foreign command, not vitaecontext"), "{}", other.message);
}

#[test]
fn json_has_the_findings_counts_and_selection() {
    let fs = broken();
    let r = run_on(&fs, &broken_sources(), false, &FakeProbe::default());
    let j = r.json();
    assert_eq!(j["errors"], r.count(Severity::Error));
    assert_eq!(j["warnings"], r.count(Severity::Warning));
    assert_eq!(j["context"]["status"], "selected");
    assert_eq!(j["graph"]["index"], "stale");
    let f = &j["findings"][0];
    assert_eq!(f["code"], "vitaecontext::context::missing_tldr");
    assert_eq!(f["severity"], r.findings[0].severity.as_str());
    assert!(f["line"].is_u64() && f["help"].is_string() && f["file"].is_string(), "{f}");
    // A Career Context finding gives the line a person sees and, named, 2.3.0's.
    assert!(f["legacyLine"].is_u64(), "{f}");
}

/// A QUICK REFERENCE value is where a person sees it (`line`), not at its block's start as
/// VitaeContext 2.3.0 numbers it (`legacyLine`).
#[test]
fn json_lines_are_the_ones_a_person_sees_with_the_legacy_one_named() {
    let fs = healthy();
    let context = "/home/ada/.vitaecontext/career-context.md";
    let text = String::from_utf8(fs.read(Path::new(context), 1 << 20).unwrap()).unwrap();
    let edited = text.replacen("location:", "location: TODO\nold_location:", 1);
    assert_ne!(edited, text, "the fixture has a location key");
    write(&fs, context, &edited);
    let j = doctor_on(&fs).json();
    let f = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "vitaecontext::context::empty_quick_value")
        .expect("finding")
        .clone();
    let seen = edited.lines().position(|l| l.starts_with("location: TODO")).unwrap() + 1;
    assert_eq!(f["line"], seen, "{f}");
    assert!(f["legacyLine"].as_u64().unwrap() < seen as u64, "{f}");
}

#[test]
fn paths_are_compared_not_strings() {
    let fs = healthy();
    fs.symlink(PathBuf::from(EXE), Path::new("/home/ada/vc")).unwrap();
    register(&fs, Client::Cursor, "/home/ada/vc");
    assert!(doctor_on(&fs).findings.is_empty());
}

#[test]
fn unreadable_index_config_and_client_files_and_invalid_skills_are_errors() {
    let fs = healthy();
    write(&fs, "/home/ada/.vitaecontext/vitaegraph/.generated/graph.json", "{ not json");
    write(&fs, "/home/ada/skills/no-type.yaml", "id: no-type\nprompt: Hi\n");
    let cursor = Client::Cursor.config_path(&env()).unwrap();
    write(&fs, &cursor.to_string_lossy(), "{ \"mcpServers\": [");
    let r = doctor_on(&fs);
    assert_eq!(
        codes(&r),
        [
            "vitaecontext::graph::index_unreadable",
            "vitaecontext::graph::index_stale",
            "vitaecontext::skills::invalid_skill",
            "vitaecontext::client::config_unreadable",
        ]
    );
    assert!(r.findings[2].line.is_some() && matches!(r.findings[2].source, Source::Skill { .. }));
    assert!(r.findings[3].help.contains("--client cursor"), "{}", r.findings[3].help);

    write(&fs, "/home/ada/skills.yaml", "layers: 3\n");
    let s = sources().with_skills(&[], Some(Path::new("/home/ada/skills.yaml")));
    let r = run_on(&fs, &s, false, &FakeProbe::default());
    let config = r.findings.iter().find(|f| f.code == "vitaecontext::skills::config_invalid").expect("config_invalid");
    assert_eq!(config.file.as_deref(), Some(Path::new("/home/ada/skills.yaml")));
    assert_eq!(config.line, Some(1));
}

/// The realistic escape: a record replaced by a symlink to a file outside the root, after
/// indexing. The server would refuse it; doctor names the record.
#[test]
fn a_record_symlinked_out_of_the_root_is_an_error() {
    let fs = healthy();
    let record = Path::new("/home/ada/.vitaecontext/vitaegraph/projects/a/project.md");
    write(&fs, "/home/ada/secret.md", RECORD);
    fs.remove_file(record).unwrap();
    fs.symlink(PathBuf::from("/home/ada/secret.md"), record).unwrap();
    let r = doctor_on(&fs);
    let outside = r.findings.iter().find(|f| f.code == "vitaecontext::graph::path_outside_root").expect("outside");
    assert!(
        outside.message.contains("project:a") && outside.message.contains("outside the root"),
        "{}",
        outside.message
    );
}

/// Regression (issue 11): doctor read the graph through the same walker but dropped what it
/// passed over; a symlinked record leading out of the root is now a warning it shows.
#[test]
fn a_symlinked_record_the_walk_passes_over_is_a_warning() {
    let fs = healthy();
    write(&fs, "/home/ada/secret.md", RECORD);
    let link = Path::new("/home/ada/.vitaecontext/vitaegraph/awards/secret.md");
    fs.symlink(PathBuf::from("/home/ada/secret.md"), link).unwrap();
    let r = doctor_on(&fs);
    let skipped = r.findings.iter().find(|f| f.code == "vitaecontext::graph::symlink_skipped").expect("skipped");
    assert!(skipped.message.contains("awards/secret.md") && skipped.message.contains("outside"), "{}", skipped.message);
    assert_eq!(skipped.severity, domain::career::Severity::Warning);
}

/// A `.generated/` the user cannot search (`chmod 000`): indexing again cannot help, so the
/// help says to give access back, naming the folder.
#[test]
fn an_index_the_user_may_not_read_says_to_give_access_back() {
    let fs = healthy();
    let generated = Path::new("/home/ada/.vitaecontext/vitaegraph/.generated");
    fs.set_mode(generated, 0o000).unwrap();
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::graph::index_unreadable"]);
    assert!(r.findings[0].message.contains("Permission denied"), "{}", r.findings[0].message);
    assert!(
        r.findings[0].help.starts_with("Give your user access to /home/ada/.vitaecontext/vitaegraph/.generated"),
        "{}",
        r.findings[0].help
    );
    fs.set_mode(generated, 0o700).unwrap();
    assert!(doctor_on(&fs).findings.is_empty());
}

/// A record folder the user cannot search: the root is there (found in review: this was
/// `graph::no_root`, with help to create the root).
#[test]
fn a_record_the_user_may_not_read_is_named_not_a_missing_root() {
    let fs = healthy();
    let folder = Path::new("/home/ada/.vitaecontext/vitaegraph/projects/a");
    fs.set_mode(folder, 0o000).unwrap();
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::graph::unreadable"]);
    let f = &r.findings[0];
    assert!(f.message.contains("projects/a/project.md") && f.message.contains("Permission denied"), "{}", f.message);
    assert_eq!(f.file.as_deref(), Some(folder.join("project.md").as_path()));
    assert!(f.help.contains("give your user access to it again"), "{}", f.help);
    fs.set_mode(folder, 0o700).unwrap();
    assert!(doctor_on(&fs).findings.is_empty());
}

/// A skill folder the user may not list: its skills are not served, and doctor says so with
/// the help to give access back (found in review: it said nothing, "0 errors").
#[test]
fn a_skill_folder_the_user_may_not_list_is_an_error() {
    let fs = healthy();
    write(&fs, "/home/ada/skills/team/cv-helper.yaml", SKILL);
    fs.set_mode(Path::new("/home/ada/skills/team"), 0o000).unwrap();
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::skills::unreadable"]);
    assert_eq!(r.findings[0].file.as_deref(), Some(Path::new("/home/ada/skills/team")));
    assert!(r.findings[0].message.contains("cannot be listed"), "{}", r.findings[0].message);
    assert!(r.findings[0].help.contains("give your user access to it again"), "{}", r.findings[0].help);
}

/// A client config the user may not read: `register` cannot edit it either, so the help is to
/// give access back (found in review: it said to run `register`, which fails the same way).
#[test]
fn a_client_config_the_user_may_not_read_says_to_give_access_back() {
    let fs = healthy();
    let cursor = Client::Cursor.config_path(&env()).unwrap();
    let folder = cursor.parent().unwrap();
    fs.set_mode(folder, 0o600).unwrap();
    let r = doctor_on(&fs);
    let f = r.findings.iter().find(|f| f.code == "vitaecontext::client::config_unreadable").expect("config_unreadable");
    assert!(f.help.starts_with(&format!("Give your user read and write access to {}", cursor.display())), "{}", f.help);
}

/// A folder at an output's name makes `graph index` fail: the help says to move it, not to
/// index again.
#[test]
fn a_folder_at_an_index_file_is_named_with_what_to_do() {
    let fs = healthy();
    let search = "/home/ada/.vitaecontext/vitaegraph/.generated/search-index.json";
    fs.write_atomic_set(&[ports::fs::Change::Remove(Path::new(search))]).unwrap();
    fs.create_dir_all(Path::new(search)).unwrap();
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::graph::index_unreadable"]);
    assert!(r.findings[0].message.ends_with("search-index.json is a folder, where `graph index` writes a file"));
    assert!(r.findings[0].help.starts_with("Move or remove that folder"), "{}", r.findings[0].help);
}

/// Found in review: a client told to serve files that are not there passed, even with
/// `--live`, and "register again" dropped the files its entry named.
#[test]
fn the_files_a_client_is_told_to_serve_are_checked() {
    let fs = healthy();
    write(
        &fs,
        "/home/ada/.cursor/mcp.json",
        &format!(
            r#"{{"mcpServers": {{"vitaecontext": {{"command": "{EXE}", "args": ["mcp", "--context", "/gone/c c.md", "--root=/home/ada/.vitaecontext/vitaegraph"], "env": {{"VITAEGRAPH_ROOT": "~/nope"}}}}}}}}"#
        ),
    );
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::client::path_missing"], "{:#?}", r.findings);
    assert!(r.findings[0].message.contains("/gone/c c.md, does not exist"), "{}", r.findings[0].message);
    // The flag wins over `env`; without the flag, `env` is read, `~` its home.
    write(
        &fs,
        "/home/ada/.cursor/mcp.json",
        &format!(
            r#"{{"mcpServers": {{"vitaecontext": {{"command": "{EXE}", "args": ["mcp"], "env": {{"VITAEGRAPH_ROOT": "~/nope", "VITAECONTEXT_CAREER_CONTEXT": "/home/ada/.vitaecontext"}}}}}}}}"#
        ),
    );
    let r = doctor_on(&fs);
    let messages: Vec<&str> = r.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "cursor: the Career Context its entry names, /home/ada/.vitaecontext, is not a file",
            "cursor: the VitaeGraph root its entry names, /home/ada/nope, does not exist",
        ]
    );
    // A relative path depends on where the client starts the server: not judged.
    write(
        &fs,
        "/home/ada/.cursor/mcp.json",
        r#"{"mcpServers": {"vitaecontext": {"command": "/opt/old/vitaecontext", "args": ["mcp", "--root", "graph", "--context-path", "/home/ada/my cv.md", "--skills", "/home/ada/skills=20", "--skills=~/team"]}}}"#,
    );
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::client::path_missing", "vitaecontext::client::stale_path"]);
    assert!(
        r.findings[1]
            .help
            .contains("`vitaecontext register --client cursor --context '/home/ada/my cv.md' --skills /home/ada/skills=20 --skills '~/team'` (with absolute paths for what the entry gives as --root graph)"),
        "{}",
        r.findings[1].help
    );
    // The missing file's fix is a command valid as printed: create it where the entry looks, or
    // name another (register keeps the entry's other paths); not the same missing path again.
    assert!(
        r.findings[0].help.contains("`vitaecontext context init --output '/home/ada/my cv.md'`")
            && r.findings[0].help.contains("run `vitaecontext register --client cursor` with --context and your"),
        "{}",
        r.findings[0].help
    );
}

/// Found in review: a record losing its id made every record "removed", with the advice to
/// run `graph index`, which would then take the served index away.
#[test]
fn a_stale_index_of_an_invalid_graph_says_to_fix_the_errors_first() {
    let fs = healthy();
    write_record(&fs, "a", &RECORD.replace("id: project:a\n", ""));
    let r = doctor_on(&fs);
    let stale = r.findings.iter().find(|f| f.code == "vitaecontext::graph::index_stale").expect("stale");
    assert!(
        stale.message.contains("the records have errors") && !stale.message.contains("removed:"),
        "{}",
        stale.message
    );
    assert!(stale.help.starts_with("Fix the errors above"), "{}", stale.help);
    assert!(codes(&r).contains(&"vitaecontext::graph::missing_id"), "{:?}", codes(&r));
}

/// Found in review: with the Career Context named only in a client's `env` block (the
/// README's Cursor example), doctor said "none found" with no word of the client's file.
#[test]
fn no_context_here_points_at_the_one_a_client_names() {
    let fs = healthy();
    let mine = "/home/ada/cv/career-context.md";
    write(&fs, mine, CONTEXT);
    fs.remove_file(Path::new("/home/ada/.vitaecontext/career-context.md")).unwrap();
    write(
        &fs,
        "/home/ada/.cursor/mcp.json",
        &format!(
            r#"{{"mcpServers": {{"vitaecontext": {{"command": "{EXE}", "env": {{"VITAECONTEXT_CAREER_CONTEXT": "{mine}"}}}}}}}}"#
        ),
    );
    let r = doctor_on(&fs);
    assert_eq!(codes(&r), ["vitaecontext::context::not_found"]);
    assert!(
        r.findings[0].help.starts_with(&format!(
            "The cursor entry names {mine}, which its server serves: run `vitaecontext doctor --context {mine}`"
        )),
        "{}",
        r.findings[0].help
    );
}
