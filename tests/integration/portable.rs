// `import linkedin | json-resume`, `export json-resume`, the JSON Resume resource, private records
// and `--redact`, as a person and an MCP client meet them.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::util::{Cmd, Server, repo_root};

const CSV_FILES: [&str; 10] = [
    "Profile.csv",
    "Positions.csv",
    "Education.csv",
    "Skills.csv",
    "Languages.csv",
    "Certifications.csv",
    "Projects.csv",
    "Honors.csv",
    "Publications.csv",
    "Connections.csv",
];

fn fixture(rel: &str) -> PathBuf {
    repo_root().join("tests/fixtures").join(rel)
}

/// A ZIP of `(name, bytes)` entries, deflated, as LinkedIn sends its archive.
fn zip_of(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        w.start_file(name.as_str(), opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// The fictional LinkedIn archive: every file the import reads, plus Connections.csv (other
/// people's data, with a broken quote and a byte that is not UTF-8: reading it would fail).
fn linkedin_entries() -> Vec<(String, Vec<u8>)> {
    CSV_FILES.iter().map(|n| (n.to_string(), fs::read(fixture(&format!("linkedin/{n}"))).unwrap())).collect()
}

struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Self {
        Place { dir: tempfile::tempdir().unwrap() }
    }
    fn context(&self) -> PathBuf {
        self.dir.path().join("career-context.md")
    }
    fn root(&self) -> PathBuf {
        self.dir.path().join("vitaegraph")
    }
    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.dir.path().join(name);
        fs::write(&p, bytes).unwrap();
        p
    }
    fn cmd(&self, args: &[&str]) -> Cmd {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        if args[0] != "graph" {
            all.extend(["--context".into(), self.context().display().to_string()]);
        }
        all.extend(["--root".into(), self.root().display().to_string()]);
        Cmd::new(all)
    }
    fn import(&self, kind: &str, file: &Path, extra: &[&str]) -> (i32, String, String) {
        let mut args = vec!["import", kind, file.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (st, out, err) = self.cmd(&args).output();
        (st.code().unwrap(), out, err)
    }
    /// Every file below the folder, with its bytes.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![self.dir.path().to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    out.push((p.clone(), fs::read(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }
}

#[test]
fn a_linkedin_archive_becomes_a_valid_graph_and_a_career_context_that_names_what_to_fill() {
    let place = Place::new();
    let archive = place.write("Basic_LinkedInDataExport.zip", &zip_of(&linkedin_entries()));
    let (code, out, err) = place.import("linkedin", &archive, &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Skipped, never read (other people's data): Connections.csv"), "{out}");
    assert!(out.contains("Found 54 facts: 3 roles, 1 degree, 1 certification, 1 project, 1 award, 1 publication, 3 languages, 4 skills."), "{out}");
    assert!(out.contains("Wrote 9 file(s)."), "{out}");
    assert!(out.contains("(the VitaeGraph layout, as `graph init` makes it"), "the layout is in the plan: {out}");
    for fill in ["scope", "goals", "TL;DR (4 entries)", "VERIFIED FACTS"] {
        assert!(out.contains(&format!("  - {fill}\n")), "{fill}: {out}");
    }
    let context = fs::read_to_string(place.context()).unwrap();
    assert!(context.starts_with("# Mira Kovač - Platform engineer building reliable data pipelines\n"), "{context}");
    assert!(context.contains("positioning_summary: \"Platform engineer building reliable data pipelines\""));
    assert!(context.contains("location: \"Berlin, Germany\""));
    assert!(context.contains("  - \"German (Professional working proficiency)\""));
    // Provenance: the file and the row each fact was read from.
    assert!(context.contains(
        "### [ROLE] Senior Backend Engineer - Contoso Analytics (Jan 2017 – Feb 2021)\n<!-- source: Positions.csv row 3 · record: experience:contoso-analytics-senior-backend-engineer -->"
    ), "{context}");
    assert!(context.contains("- Apache Kafka <!-- source: Skills.csv row 3 -->"));
    // Nothing of other people's, nor the person's address or birth date, is carried.
    for absent in ["Jonas", "jonas@example.com", "Example Street", "1990"] {
        assert!(!context.contains(absent), "{absent}");
    }
    let role = fs::read_to_string(place.root().join("experience/northwind-data-staff-platform-engineer/experience.md"))
        .unwrap();
    assert!(role.starts_with("---\ntype: experience\nid: experience:northwind-data-staff-platform-engineer\ntitle: Staff Platform Engineer at Northwind Data\n"), "{role}");
    assert!(
        role.contains("\nstart: 2021-03\ncurrent: true\n") && role.contains("\nsource: Positions.csv row 2\n"),
        "{role}"
    );
    let cert = fs::read_to_string(
        place.root().join("certifications/the-linux-foundation-certified-kubernetes-administrator.md"),
    )
    .unwrap();
    assert!(cert.contains("\nstart: 2022-06\n"), "{cert}");
    let paper =
        fs::read_to_string(place.root().join("publications/example-engineering-blog-backpressure-in-practice.md"))
            .unwrap();
    assert!(paper.contains("\nstart: 2019-03-15\n"), "{paper}");

    // The records validate; the Career Context fails only for what the person must add.
    let (st, out, err) = place.cmd(&["graph", "validate"]).output();
    assert_eq!(st.code(), Some(0), "{out}{err}");
    let (st, out, _) = Cmd::new(["context", "validate", "--json", place.context().to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(1));
    let v: Value = serde_json::from_str(&out).unwrap();
    let mut codes: Vec<&str> = v["errors"].as_array().unwrap().iter().map(|e| e["code"].as_str().unwrap()).collect();
    codes.sort();
    assert_eq!(codes, ["missing_scope_declaration", "missing_verified_facts"], "{out}");
    assert_eq!(v["warnings"].as_array().unwrap().len(), 4, "one missing TL;DR per role and project: {out}");
    // doctor says what is left.
    let (_, out, _) = place.cmd(&["doctor"]).output();
    assert!(out.contains("left to fill in after an import: scope, goals, TL;DR (4 entries), VERIFIED FACTS"), "{out}");
}

#[test]
fn an_import_into_files_that_exist_shows_a_plan_and_writes_only_with_write_keeping_hand_edits() {
    let place = Place::new();
    let archive = place.write("a.zip", &zip_of(&linkedin_entries()));
    assert_eq!(place.import("linkedin", &archive, &[]).0, 0);
    // The same archive again: nothing to do.
    let (code, out, _) = place.import("linkedin", &archive, &[]);
    assert_eq!(code, 0);
    assert!(out.contains("Nothing to write: your files already hold everything"), "{out}");
    assert!(!out.contains("  new ") && !out.contains("  changed "), "{out}");

    // The person writes: a scope paragraph, words in a record, a record of their own.
    let context = fs::read_to_string(place.context()).unwrap();
    let scope = "My work since 2014, for CVs and LinkedIn.";
    let edited = context.replacen("<!-- FILL IN (scope)", &format!("{scope}\n\n<!-- FILL IN (scope)"), 1);
    fs::write(place.context(), &edited).unwrap();
    let role = place.root().join("experience/fabrikam-backend-engineer/experience.md");
    let role_text = fs::read_to_string(&role)
        .unwrap()
        .replace("# Backend Engineer at Fabrikam\n", "# Backend Engineer at Fabrikam\n\nMy own account of Fabrikam.\n");
    fs::write(&role, &role_text).unwrap();
    fs::create_dir_all(place.root().join("projects/mine")).unwrap();
    fs::write(
        place.root().join("projects/mine/project.md"),
        "---\ntype: project\nid: project:mine\ntitle: Mine\n---\n",
    )
    .unwrap();

    // A newer export: one new position, and Fabrikam's end date corrected.
    let mut entries = linkedin_entries();
    let positions = &mut entries.iter_mut().find(|(n, _)| n == "Positions.csv").unwrap().1;
    let text = String::from_utf8(positions.clone()).unwrap().replace("2014,Dec 2016", "2014,Jan 2017")
        + "Tailspin Toys,Intern,Summer internship,Zagreb,Jun 2013,Aug 2013\r\n";
    *positions = text.into_bytes();
    let newer = place.write("b.zip", &zip_of(&entries));
    let before = place.snapshot();
    let (code, out, err) = place.import("linkedin", &newer, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("  changed    {}", place.context().display())), "{out}");
    assert!(out.contains("  new        ") && out.contains("experience/tailspin-toys-intern/experience.md"), "{out}");
    assert!(out.contains(&format!("  changed    {}", role.display())), "{out}");
    assert!(out.contains("  only-yours ") && out.contains("projects/mine/project.md"), "{out}");
    assert!(out.contains("  unchanged  "), "{out}");
    assert!(out.contains("-end: 2016-12\n+end: 2017-01\n"), "the diff of the record: {out}");
    assert!(
        out.contains("+### [ROLE] Intern - Tailspin Toys (Jun 2013 – Aug 2013)"),
        "the diff of the Career Context: {out}"
    );
    assert!(out.contains("Run it again with --write"), "{out}");
    assert_eq!(place.snapshot(), before, "nothing is written without --write");

    let (code, out, err) = place.import("linkedin", &newer, &["--write"]);
    assert_eq!(code, 0, "{out}{err}");
    let context = fs::read_to_string(place.context()).unwrap();
    assert!(context.contains(scope), "the person's paragraph is kept");
    assert!(context.contains("### [ROLE] Intern - Tailspin Toys (Jun 2013 – Aug 2013)"));
    assert_eq!(context.matches("### [ROLE] Staff Platform Engineer").count(), 1, "no entry twice");
    let role_now = fs::read_to_string(&role).unwrap();
    assert!(role_now.contains("My own account of Fabrikam.") && role_now.contains("\nend: 2017-01\n"), "{role_now}");
    assert!(place.root().join("experience/tailspin-toys-intern/experience.md").is_file());
    assert!(place.root().join("projects/mine/project.md").is_file());
}

/// Each bad input: a clear error naming the file (and row), exit 1, and nothing written.
#[test]
fn bad_inputs_are_refused_with_the_file_and_row_and_nothing_is_written() {
    let entries = linkedin_entries();
    let with = |name: &str, bytes: Vec<u8>| -> Vec<u8> {
        let mut e: Vec<(String, Vec<u8>)> = entries.iter().filter(|(n, _)| n != name).cloned().collect();
        e.push((name.to_owned(), bytes));
        zip_of(&e)
    };
    let good = zip_of(&entries);
    let mut damaged = good.clone();
    damaged.truncate(good.len() / 2);
    let broken_quote =
        with("Positions.csv", b"Company Name,Title\r\nAcme,Engineer\r\n\"Beta,Lead\r\nGamma,CTO\r\n".to_vec());
    let not_utf8 = with("Skills.csv", b"Name\r\nRust\r\nC\xe9dric's tools\r\n".to_vec());
    // 40 MiB of one byte deflates to about 40 KiB: a ZIP bomb for a CSV reader.
    let bomb = with("Positions.csv", vec![b'a'; 40 << 20]);
    let many: Vec<(String, Vec<u8>)> = (0..10_001).map(|i| (format!("x/{i}.txt"), Vec::new())).collect();
    let too_many = zip_of(&many);
    // A Skills.csv that declares fewer bytes than it inflates to (the sizes in both headers
    // patched): refused while inflating, not trusted.
    let liar = {
        let real = b"Name\r\nRust\r\nGo\r\n".to_vec();
        let mut z = zip_of(&[("Skills.csv".to_owned(), real.clone())]);
        let size = (real.len() as u32).to_le_bytes();
        let smaller = 4u32.to_le_bytes();
        let mut i = 0;
        while i + 4 <= z.len() {
            if z[i..i + 4] == size {
                z[i..i + 4].copy_from_slice(&smaller);
            }
            i += 1;
        }
        z
    };
    let cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        ("damaged.zip", damaged, vec!["damaged.zip", "not a readable ZIP archive"]),
        ("quote.zip", broken_quote, vec!["Positions.csv row 3 (line 3)", "never closed"]),
        ("utf8.zip", not_utf8, vec!["Skills.csv line 3", "not UTF-8"]),
        ("bomb.zip", bomb, vec!["bomb.zip: Positions.csv", "too large"]),
        ("many.zip", too_many, vec!["many.zip", "10001 entries"]),
        ("liar.zip", liar, vec!["liar.zip"]),
    ];
    for (name, bytes, wanted) in cases {
        let place = Place::new();
        let archive = place.write(name, &bytes);
        let before = place.snapshot();
        let (code, out, err) = place.import("linkedin", &archive, &[]);
        assert_eq!(code, 1, "{name}: {out}{err}");
        for w in wanted {
            assert!(err.contains(w), "{name}: {w:?} not in {err}");
        }
        assert!(err.contains("nothing was written"), "{name}: {err}");
        assert_eq!(place.snapshot(), before, "{name}: nothing written");
        assert!(!place.root().exists() && !place.context().exists(), "{name}");
    }

    // A JSON Resume that fails its schema, one that is not JSON, one that is not UTF-8.
    for (bytes, wanted) in [
        (
            br#"{"work": [{"name": "Acme", "startDate": "March 2020"}]}"#.to_vec(),
            "at /work/0/startDate: fails the JSON Resume schema",
        ),
        (br#"{"skills": {"name": "Rust"}}"#.to_vec(), "at /skills: fails the JSON Resume schema"),
        (b"{\n  \"basics\": {\"name\": \"A\",}\n}".to_vec(), "resume.json line 2: not valid JSON"),
        (b"{\"basics\": {\"name\": \"C\xe9dric\"}}".to_vec(), "resume.json line 1: the text is not UTF-8"),
    ] {
        let place = Place::new();
        let file = place.write("resume.json", &bytes);
        let (code, out, err) = place.import("json-resume", &file, &[]);
        assert_eq!(code, 1, "{out}{err}");
        assert!(err.contains(wanted), "{wanted:?} not in {err}");
        assert!(!place.root().exists() && !place.context().exists());
    }
}

#[test]
fn a_json_resume_with_every_section_imports_and_exports_valid_against_the_official_schema() {
    let place = Place::new();
    let (code, out, err) = place.import("json-resume", &fixture("json-resume/resume.json"), &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Skipped, never read (other people's data): references (1)"), "{out}");
    assert!(out.contains("Skipped, not read (1 not imported): interests (1)"), "{out}");
    assert!(out.contains("Found 68 facts: 3 roles, 1 degree, 1 certification, 1 project, 1 award, 1 publication, 2 languages, 2 skills."), "{out}");
    let context = fs::read_to_string(place.context()).unwrap();
    assert!(context.contains("email: \"tomas@example.org\""));
    assert!(context.contains("### [ROLE] Mentor (volunteer) - Code Club Lisboa (2018 – 2021)"), "{context}");
    assert!(
        context.contains(
            "- Machine Learning (Expert): learning to rank, PyTorch, XGBoost <!-- source: resume.json /skills/0 -->"
        ),
        "{context}"
    );
    let degree = fs::read_to_string(place.root().join("education/university-of-lisbon-msc/education.md")).unwrap();
    assert!(degree.contains("\narea: Applied Mathematics\n") && degree.contains("\nscore: 18/20\n"), "{degree}");
    assert!(!context.contains("Ana Example") && !context.contains("best ranker"), "references are not imported");

    // Mark one record private; the export leaves it out unless asked, and is valid JSON Resume.
    let award = place.root().join("awards/example-retrieval-workshop-best-paper-award.md");
    let text = fs::read_to_string(&award).unwrap().replacen(
        "tags: [imported]\n",
        "tags: [imported]\nvisibility: private\n",
        1,
    );
    fs::write(&award, text).unwrap();
    let out_file = place.dir.path().join("out.json");
    let (st, _, err) = place.cmd(&["export", "json-resume", "--out", out_file.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(err.contains("Left out 1 private record(s)"), "{err}");
    let exported: Value = serde_json::from_str(&fs::read_to_string(&out_file).unwrap()).unwrap();
    assert!(exported.get("awards").is_none(), "{exported}");
    assert_eq!(exported["work"][0]["startDate"], "2020-04");
    assert!(exported["work"][0].get("endDate").is_none(), "current: no end date");
    let atlas = exported["work"].as_array().unwrap().iter().find(|w| w["name"] == "Atlas Retail").unwrap();
    assert_eq!((&atlas["startDate"], &atlas["endDate"]), (&json!("2016-09-01"), &json!("2020-03-31")));
    assert_eq!(exported["basics"]["email"], "tomas@example.org");
    assert_schema_valid(&out_file);
    // --out is never replaced without --force.
    let (st, _, err) =
        place.cmd(&["export", "json-resume", "--out", out_file.to_str().unwrap(), "--include-private"]).output();
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("already exists; nothing was written"), "{err}");
    let (st, _, err) = place
        .cmd(&[
            "export",
            "json-resume",
            "--out",
            out_file.to_str().unwrap(),
            "--include-private",
            "--force",
            "--redact",
            "contact",
        ])
        .output();
    assert_eq!(st.code(), Some(0), "{err}");
    let exported: Value = serde_json::from_str(&fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(exported["awards"][0]["title"], "Best Paper Award");
    assert!(exported["basics"].get("email").is_none() && exported["basics"].get("phone").is_none(), "{exported}");
    assert_schema_valid(&out_file);

    // Round trip through the files: the export imported again gives the same resume back.
    let again = Place::new();
    let (code, out, err) = again.import("json-resume", &out_file, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let (st, second, err) = again.cmd(&["export", "json-resume", "--include-private"]).output();
    assert_eq!(st.code(), Some(0), "{err}");
    let second: Value = serde_json::from_str(&second).unwrap();
    assert_eq!(second, exported);
}

/// The export of the LinkedIn fixture is valid too (URLs without a scheme gain one).
#[test]
fn the_linkedin_import_exports_a_valid_json_resume() {
    let place = Place::new();
    let archive = place.write("a.zip", &zip_of(&linkedin_entries()));
    assert_eq!(place.import("linkedin", &archive, &[]).0, 0);
    let out_file = place.dir.path().join("resume.json");
    let (st, _, err) = place.cmd(&["export", "json-resume", "-o", out_file.to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(0), "{err}");
    let v: Value = serde_json::from_str(&fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(v["projects"][0]["url"], "https://github.com/mirak/streamcheck");
    assert_eq!(v["work"].as_array().unwrap().len(), 3);
    assert_schema_valid(&out_file);
}

/// Validates with `@jsonresume/schema` through node (tests/clients/validate_json_resume.cjs).
fn assert_schema_valid(file: &Path) {
    let clients = crate::clients::clients_dir();
    let mut c = Command::new("node");
    c.current_dir(&clients).arg("validate_json_resume.cjs").arg(file);
    let out = c.output().expect("node");
    if out.status.code() == Some(3) {
        let required = std::env::var_os(crate::clients::REQUIRE_CLIENTS).is_some_and(|v| v == "1");
        assert!(!required, "@jsonresume/schema is not installed and clients are required: run npm ci in tests/clients");
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED JSON Resume schema check: @jsonresume/schema is not installed (npm ci in tests/clients)"
        );
        return;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout} {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["valid"], true, "{}: {v}", file.display());
}

/// A small graph with one private record, indexed, and a Career Context with contact and
/// salary keys.
fn private_setup() -> Place {
    let place = Place::new();
    let (code, out, err) = place.import("json-resume", &fixture("json-resume/resume.json"), &[]);
    assert_eq!(code, 0, "{out}{err}");
    let context = fs::read_to_string(place.context())
        .unwrap()
        .replace("<!-- FILL IN (scope)", "My career since 2016.\n\n<!-- FILL IN (scope)")
        .replace("```\n\nMy career", "salary_expectation: \"95k EUR\"\n```\n\nMy career")
        .replace(
            "<!-- FILL IN (VERIFIED FACTS)",
            "<!-- VERIFIED FACTS: current_title=Senior ML Engineer -->\n<!-- FILL IN (VERIFIED FACTS)",
        );
    fs::write(place.context(), context).unwrap();
    let award = place.root().join("awards/example-retrieval-workshop-best-paper-award.md");
    let text = fs::read_to_string(&award).unwrap().replacen(
        "tags: [imported]\n",
        "tags: [imported]\nvisibility: private\n",
        1,
    );
    fs::write(&award, text).unwrap();
    let (st, _, err) = place.cmd(&["graph", "index"]).output();
    assert_eq!(st.code(), Some(0), "{err}");
    place
}

fn mcp(place: &Place, extra: &[&str]) -> Server {
    let mut args = vec!["mcp".to_owned(), "--context".into(), place.context().display().to_string()];
    args.extend(["--root".into(), place.root().display().to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    Server::init(Cmd::new(args))
}

#[test]
fn private_records_carry_their_flag_in_search_and_reads_and_stay_out_of_the_resource() {
    let place = private_setup();
    let mut s = mcp(&place, &[]);
    let r = s.ok("tools/call", json!({"name": "search_vitaegraph", "arguments": {"query": "workshop"}}));
    let found: Value = serde_json::from_str(crate::util::tool_text(&r)).unwrap();
    let records = found["records"].as_array().unwrap();
    let award = records.iter().find(|h| h["id"] == "award:example-retrieval-workshop-best-paper-award").expect("found");
    assert_eq!(award["visibility"], "private", "{found}");
    let paper = records.iter().find(|h| h["id"].as_str().unwrap().starts_with("publication:")).expect("the paper");
    assert!(paper.get("visibility").is_none(), "only private records carry the flag: {found}");
    let read =
        s.ok("resources/read", json!({"uri": "vitaegraph://record/award:example-retrieval-workshop-best-paper-award"}));
    assert_eq!(read["_meta"]["vitaecontext/visibility"], "private", "{read}");
    let read = s.ok(
        "resources/read",
        json!({"uri": "vitaegraph://record/publication:example-retrieval-workshop-counterfactual-evaluation-for-sit"}),
    );
    assert!(read.get("_meta").is_none(), "{read}");

    let list = s.ok("resources/list", json!({}));
    let entry = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "career-context://json-resume")
        .expect("listed");
    assert_eq!(entry["mimeType"], "application/json");
    let read = s.ok("resources/read", json!({"uri": "career-context://json-resume"}));
    assert_eq!(read["contents"][0]["mimeType"], "application/json");
    let resume: Value = serde_json::from_str(read["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(resume["basics"]["name"], "Tomás Ferreira");
    assert!(resume.get("awards").is_none(), "the private award stays out: {resume}");
    assert_eq!(resume["publications"][0]["name"], "Counterfactual evaluation for site search");

    let prompt = s.ok("prompts/get", json!({"name": "cv_tailoring", "arguments": {"targetRole": "ML Engineer"}}));
    let text = prompt["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(
        text.contains(
            "may inform your advice, but never name it, quote it or use its facts in anything written for publication"
        ),
        "{text}"
    );
}

#[test]
fn redact_leaves_contact_and_salary_out_of_every_packet_and_is_off_by_default() {
    let place = private_setup();
    let (st, cli_packet, err) =
        Cmd::new(["context", "summary", "--for", "cv", place.context().to_str().unwrap()]).output();
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(cli_packet.contains("email: \"tomas@example.org\"") && cli_packet.contains("95k EUR"), "{cli_packet}");
    let packet = |s: &mut Server| {
        let r = s.ok("tools/call", json!({"name": "get_career_context", "arguments": {"for": "cv"}}));
        crate::util::tool_text(&r).to_owned()
    };
    let mut plain = mcp(&place, &[]);
    assert_eq!(packet(&mut plain), cli_packet, "off by default: the same bytes");

    let mut redacted = mcp(&place, &["--redact", "contact,salary"]);
    let p = packet(&mut redacted);
    for gone in ["tomas@example.org", "+351", "95k EUR", "salary_expectation"] {
        assert!(!p.contains(gone), "{gone}: {p}");
    }
    assert!(p.contains("name: \"Tomás Ferreira\"") && p.contains("location: "), "{p}");
    let current = redacted.ok("resources/read", json!({"uri": "career-context://current"}));
    let text = current["contents"][0]["text"].as_str().unwrap();
    assert!(!text.contains("tomas@example.org") && !text.contains("95k"), "{text}");
    let resume = redacted.ok("resources/read", json!({"uri": "career-context://json-resume"}));
    let resume = resume["contents"][0]["text"].as_str().unwrap();
    assert!(!resume.contains("tomas@example.org") && !resume.contains("+351"), "{resume}");
    let prompt =
        redacted.ok("prompts/get", json!({"name": "cv_tailoring", "arguments": {"targetRole": "ML Engineer"}}));
    assert!(!prompt.to_string().contains("tomas@example.org"));

    // The environment works where a launcher cannot pass flags; an unknown class is refused.
    let mut env = Server::init(
        Cmd::new(["mcp", "--context", place.context().to_str().unwrap()]).env("VITAECONTEXT_REDACT", "salary"),
    );
    let p = packet(&mut env);
    assert!(!p.contains("95k") && p.contains("tomas@example.org"), "{p}");
    let (st, _, err) = Cmd::new(["mcp", "--redact", "contact,wages"]).output();
    assert_eq!(st.code(), Some(2));
    assert!(err.contains("unknown redact class \"wages\""), "{err}");

    // doctor shows what is shared.
    let (_, out, _) = place.cmd(&["doctor", "--redact", "contact,salary"]).output();
    assert!(out.contains("(left out: email, phone, salary_expectation); redacted: contact, salary"), "{out}");
    assert!(out.contains("Private records: 1 (awards/example-retrieval-workshop-best-paper-award.md)"), "{out}");
}

/// An official client (the TypeScript SDK) lists and reads the JSON Resume resource.
#[test]
fn a_real_client_reads_the_json_resume_resource() {
    if !crate::clients::installed(&[crate::clients::TS_SDK]) {
        return;
    }
    let place = private_setup();
    let env = crate::clients::Env::new(&[
        "mcp",
        "--context",
        place.context().to_str().unwrap(),
        "--root",
        place.root().to_str().unwrap(),
    ]);
    let out = env.typescript("sdk1", &json!({"reads": ["career-context://json-resume"]}));
    let listed = out["resources"]["items"].as_array().unwrap();
    assert!(
        listed.iter().any(|r| r["uri"] == "career-context://json-resume" && r["mimeType"] == "application/json"),
        "{out}"
    );
    let content = &out["reads"][0]["result"]["contents"][0];
    assert_eq!(content["mimeType"], "application/json", "{out}");
    let resume: Value = serde_json::from_str(content["text"].as_str().unwrap()).unwrap();
    assert_eq!(resume["work"][0]["position"], "Senior ML Engineer", "{resume}");
    let file = place.write("from-client.json", content["text"].as_str().unwrap().as_bytes());
    assert_schema_valid(&file);
}
