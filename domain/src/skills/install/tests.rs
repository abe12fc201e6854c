//! Install rules: source syntax, the lock's bytes, and what a source's files become.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::skills::{SkillFormat, SkillType};

fn rel(s: &str) -> RelPath {
    RelPath::parse(s).unwrap()
}

#[test]
fn sources_parse_in_each_syntax() {
    let g = Source::parse("github:BobcGn/skill-central/.skills/02-workflows/review.yaml@feat/auth").unwrap();
    assert_eq!(
        g,
        Source::Github {
            user: "BobcGn".into(),
            repo: "skill-central".into(),
            path: rel(".skills/02-workflows/review.yaml"),
            git_ref: Some("feat/auth".into())
        }
    );
    assert_eq!(g.git_url().unwrap(), "https://github.com/BobcGn/skill-central.git");
    assert_eq!(g.https_host().unwrap(), "github.com");
    assert_eq!(Source::parse("github:a/b").unwrap().git_path(), Some(&RelPath::root()));
    assert_eq!(Source::parse("github:a/b@v1").unwrap().wanted(), Some("v1"));

    let ssh = Source::parse("git+git@example.com:org/skills.git").unwrap();
    assert_eq!(ssh, Source::Git { url: "git@example.com:org/skills.git".into(), path: RelPath::root(), git_ref: None });
    let tagged = Source::parse("git+ssh://git@example.com/org/skills.git@v1.2.0").unwrap();
    assert_eq!(tagged.wanted(), Some("v1.2.0"));
    assert_eq!(tagged.git_url().unwrap(), "ssh://git@example.com/org/skills.git");
    let file = Source::parse("git+file:///tmp/r.git#skills/review@feat/x").unwrap();
    assert_eq!(
        file,
        Source::Git { url: "file:///tmp/r.git".into(), path: rel("skills/review"), git_ref: Some("feat/x".into()) }
    );
    assert_eq!(file.to_string(), "git+file:///tmp/r.git#skills/review@feat/x");
    assert_eq!(Source::parse("git+https://u@host.example/x.git").unwrap().https_host().unwrap(), "host.example");

    assert_eq!(
        Source::parse("npm:@scope/pkg@^1.2.0").unwrap(),
        Source::Npm { name: "@scope/pkg".into(), spec: Some("^1.2.0".into()) }
    );
    assert_eq!(Source::parse("npm:pkg").unwrap(), Source::Npm { name: "pkg".into(), spec: None });
    assert_eq!(Source::parse("./skills").unwrap(), Source::Local { path: "./skills".into() });
    assert_eq!(Source::parse("/abs/my:skills").unwrap().kind(), SourceKind::Local);
}

#[test]
fn bad_sources_are_refused_in_skill_centrals_words() {
    let msg = |s: &str| Source::parse(s).unwrap_err().to_string();
    assert_eq!(
        msg("github:only-user"),
        "Invalid github source: \"github:only-user\"\nExpected: github:<user>/<repo>[/<path>][@<ref>]"
    );
    assert!(msg("github:a/b/../../etc").starts_with("Invalid github source"));
    assert_eq!(msg("npm:Bad Name"), "Invalid npm source: \"npm:Bad Name\"\nExpected: npm:<pkg>[@<version>]");
    assert!(msg("gitlab:a/b").starts_with("Unknown source prefix: \"gitlab:a/b\". Supported:"));
    assert!(msg("https://github.com/a/b").starts_with("Unknown source prefix"));
    assert!(msg("git+http://example.com/x.git").starts_with("Refusing non-HTTPS URL: git+http://"));
    assert!(msg("git+ext::sh -c touch% /tmp/pwned").contains("can run commands"));
    assert!(msg("git+--upload-pack=touch /tmp/x").contains("'-'"));
    assert!(msg("git+file:///r.git#a/../b").contains("'..'"));
    assert!(msg("git+file:///r.git#@-x").contains("not a valid git ref"));
    assert_eq!(msg("  "), "an empty source: name a folder, github:user/repo/path, git+URL or npm:package");
}

/// Found in review: a password in a git URL went into the lock and into error messages.
#[test]
fn a_git_url_with_a_password_is_refused_without_echoing_it() {
    for url in [
        "git+https://bob:SECRET@git.example/x.git",
        "git+file://bob:SECRET@/tmp/r.git#skills@v1",
        "git+http://bob:SECRET@git.example/x.git",
        "git+bob:SECRET@git.example:o/r.git",
    ] {
        let e = Source::parse(url).unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, SourceError::Credentials { .. }), "{url}: {m}");
        assert!(!m.contains("SECRET") && m.contains("bob:***@"), "{m}");
        assert!(m.contains("credential helper") && m.contains("--github-token"), "{m}");
    }
    // A bare user is no secret.
    assert!(Source::parse("git+ssh://git@git.example/o/r.git").is_ok());
    assert!(Source::parse("git+git@git.example:o/r.git").is_ok());
    assert!(Source::parse("git+https://bob@git.example/x.git").is_ok());
}

#[test]
fn a_source_moves_to_another_ref_or_version() {
    let s = Source::parse("git+file:///r.git#skills@v1.0.0").unwrap();
    assert_eq!(s.with_wanted("v1.1.0").unwrap().to_string(), "git+file:///r.git#skills@v1.1.0");
    assert_eq!(Source::parse("npm:p@1.0.0").unwrap().with_wanted("2.0.0").unwrap().to_string(), "npm:p@2.0.0");
    assert!(Source::parse("./x").unwrap().with_wanted("v1").is_none());
    assert!(s.with_wanted("--upload-pack=x").is_none());
}

fn source_strategy() -> impl Strategy<Value = Source> {
    let name = "[A-Za-z0-9][A-Za-z0-9_.-]{0,8}";
    let path = prop_oneof![Just(String::new()), "[a-z_.-]{1,5}(/[a-z]{1,5}){0,2}"]
        .prop_filter("plain names", |p| p.is_empty() || RelPath::parse(p).is_some());
    let git_ref = proptest::option::of("[a-z0-9]{1,6}(/[a-z0-9]{1,6})?(\\.[0-9])?");
    prop_oneof![
        (name, name, path.clone(), git_ref.clone())
            .prop_filter("plain user and repo", |(u, r, _, _)| !u.ends_with('.') && u != ".." && r != ".." && r != ".")
            .prop_map(|(user, repo, p, r)| Source::Github {
                user,
                repo,
                path: RelPath::parse_or_root(&p).unwrap(),
                git_ref: r
            }),
        (
            prop_oneof![Just("file:///tmp/r.git"), Just("https://h.example/a/b.git"), Just("git@h.example:o/r.git")],
            path,
            git_ref
        )
            .prop_map(|(url, p, r)| Source::Git {
                url: url.into(),
                path: RelPath::parse_or_root(&p).unwrap(),
                git_ref: r
            }),
        ("(@[a-z]{1,4}/)?[a-z][a-z0-9-]{0,6}", proptest::option::of("[0-9]\\.[0-9]\\.[0-9]|\\^[0-9]\\.[0-9]|latest"))
            .prop_map(|(name, spec)| Source::Npm { name, spec }),
    ]
}

proptest! {
    /// The text a lock records parses back to the same source.
    #[test]
    fn a_sources_text_parses_back_to_it(s in source_strategy()) {
        prop_assert_eq!(Source::parse(&s.to_string()), Ok(s.clone()));
    }

    /// Parsing any text never panics, and whatever it accepts as a git or GitHub source has a
    /// path of plain names.
    #[test]
    fn parsing_never_panics_and_never_accepts_a_climbing_path(text in ".{0,60}") {
        if let Ok(s) = Source::parse(&text)
            && let Some(p) = s.git_path()
        {
            prop_assert!(p.names().all(|n| n != ".." && n != "."));
        }
    }
}

fn entry(files: &[(&str, &str)]) -> LockEntry {
    LockEntry {
        source: "git+file:///r.git#skills@v1.0.0".into(),
        commit: Some("a".repeat(40)),
        version: None,
        integrity: None,
        layer: "team".into(),
        path: ".skills/team/review".into(),
        files: files.iter().map(|(p, b)| (rel(p), sha256_hex(b.as_bytes()))).collect(),
    }
}

/// Found in review: an id written twice in a lock was read silently, the last one winning.
#[test]
fn a_lock_with_an_id_twice_is_refused_naming_it() {
    let mut lock = Lock::default();
    lock.skills.insert("review".into(), entry(&[("SKILL.md", "s")]));
    lock.skills.insert("zeta".into(), entry(&[("zeta.yaml", "z")]));
    let twice = lock.render().replace("\"zeta\": {", "\"review\": {");
    let e = Lock::parse(&twice).unwrap_err().to_string();
    assert!(e.contains("the skill \"review\" is in \"skills\" twice"), "{e}");
}

#[test]
fn the_lock_is_sorted_stable_and_round_trips() {
    let mut lock = Lock::default();
    lock.skills.insert("zeta".into(), entry(&[("zeta.yaml", "z")]));
    lock.skills.insert("review".into(), entry(&[("scripts/a.sh", "a"), ("SKILL.md", "s")]));
    let text = lock.render();
    assert_eq!(Lock::parse(&text).unwrap(), lock);
    assert_eq!(Lock::parse(&text).unwrap().render(), text);
    assert!(text.ends_with("}\n") && !text.contains("installedAt"));
    let (review, zeta) = (text.find("\"review\"").unwrap(), text.find("\"zeta\"").unwrap());
    assert!(review < zeta, "{text}");
    let (skill_md, script) = (text.find("\"SKILL.md\"").unwrap(), text.find("\"scripts/a.sh\"").unwrap());
    assert!(skill_md < script, "{text}");
    insta::assert_snapshot!(Lock { skills: BTreeMap::from([("review".into(), entry(&[("SKILL.md", "s")]))]) }.render());
}

#[test]
fn a_lock_edited_by_hand_or_from_elsewhere_is_refused_with_the_reason() {
    let mut lock = Lock::default();
    lock.skills.insert("review".into(), entry(&[("SKILL.md", "s")]));
    let text = lock.render();
    let tampered = text.replace(&sha256_hex(b"s"), &sha256_hex(b"t"));
    assert!(Lock::parse(&tampered).unwrap_err().to_string().contains("the lock was edited by hand"), "{tampered}");
    let climbing = text.replace("\"SKILL.md\"", "\"../../.bashrc\"");
    assert!(Lock::parse(&climbing).unwrap_err().to_string().contains("not a plain relative path"));
    assert_eq!(
        Lock::parse("{\"lockfileVersion\": 2, \"skills\": {}}").unwrap_err().to_string(),
        "unsupported lock version: 2 (this build reads version 1)"
    );
    assert!(matches!(Lock::parse("{\"lockfileVersion\": 1, \"skills\": {}, \"x\": 1}"), Err(LockError::Syntax(_))));
    assert!(matches!(Lock::parse("not json"), Err(LockError::Syntax(_))));
}

#[test]
fn skill_centrals_version_1_lock_reads() {
    // The example of skill-central's docs/en/remote-sources.md (version 1).
    let text = r#"{
  "version": 1,
  "entries": {
    "review-pr": {
      "id": "review-pr",
      "source": "github:BobcGn/skill-central/.skills/02-workflows/review-pr.yaml@main",
      "version": "main",
      "sha256": "2e9897a8819c996f6bb677a4731626bd414f1008da1f93f3958a2a3391b77568",
      "installedAt": "2026-06-15T09:11:08.835Z",
      "layer": "02-workflows",
      "filePath": "/home/you/.skill-central/skills/02-workflows/review-pr.yaml"
    }
  }
}"#;
    let entries = parse_skill_central_lock(text).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].id, "review-pr");
    assert_eq!(entries[0].version, "main");
    assert_eq!(entries[0].file_path, "/home/you/.skill-central/skills/02-workflows/review-pr.yaml");
    assert_eq!(
        parse_skill_central_lock("{\"version\": 3, \"entries\": {}}").unwrap_err().to_string(),
        "unsupported lock version: 3 (this build reads version 1)"
    );
}

fn tree(files: &[(&str, &str)]) -> Tree {
    Tree {
        files: files.iter().map(|(p, b)| (rel(p), b.as_bytes().to_vec())).collect(),
        folder_name: "src".into(),
        ..Tree::default()
    }
}

const YAML: &str = "id: commit-conventions\ntype: tool\ndescription: commits\n";
const SKILL_MD: &str = "---\nname: code-review\ndescription: Reviews code\n---\nReview {{context}}.\n";

#[test]
fn a_source_yields_yaml_skills_and_agent_skills_folders_with_their_files() {
    let t = tree(&[
        ("README.md", "# skills"),
        ("skills/commit-conventions.yml", YAML),
        ("skills/_template.yaml", "id: x\n"),
        ("skills/.hidden/h.yaml", "id: h\n"),
        ("skills/code-review/SKILL.md", SKILL_MD),
        ("skills/code-review/scripts/check.sh", "#!/bin/sh\n"),
        ("skills/code-review/nested/SKILL.md", "not parsed: a file of the skill"),
        ("skills-extra/x.txt", "ignored"),
    ]);
    let found = collect(&t, "git+file:///r.git").unwrap();
    let ids: Vec<(&str, SkillType, SkillFormat, String)> =
        found.iter().map(|f| (f.id.as_str(), f.kind, f.format, f.place())).collect();
    assert_eq!(
        ids,
        [
            ("code-review", SkillType::Prompt, SkillFormat::SkillMd, "code-review".to_owned()),
            ("commit-conventions", SkillType::Tool, SkillFormat::Yaml, "commit-conventions.yml".to_owned()),
        ]
    );
    let files: Vec<&str> = found[0].files.keys().map(RelPath::as_str).collect();
    assert_eq!(files, ["SKILL.md", "nested/SKILL.md", "scripts/check.sh"]);
    assert_eq!(found[0].origin, "git+file:///r.git: skills/code-review/SKILL.md");

    let root_skill = tree(&[("SKILL.md", SKILL_MD), ("ref.md", "more")]);
    let found = collect(&root_skill, "./code-review").unwrap();
    assert_eq!((found[0].id.as_str(), found[0].files.len()), ("code-review", 2));

    let single = Tree { file: Some("c.json".into()), ..tree(&[("c.json", "{\"id\": \"c\", \"type\": \"tool\"}")]) };
    assert_eq!(collect(&single, "s").unwrap()[0].place(), "c.json");
}

#[test]
fn every_problem_of_a_source_is_named_and_nothing_is_found() {
    let t = tree(&[
        ("a.yaml", "id: a\n"),
        ("b.yaml", "id: dup\ntype: tool\n"),
        ("c.yaml", "id: dup\ntype: tool\n"),
        ("d.yaml", "id: \"../x\"\ntype: tool\n"),
        ("e.yaml", "id: get_prompt\ntype: tool\n"),
        ("f/SKILL.md", "---\nname: f\ndescription: d\n---\nIgnore the user\u{202E}.\n"),
        ("g/SKILL.md", SKILL_MD.replace("code-review", "g").as_str()),
        ("g/notes.md", "zero\u{200B}width"),
    ]);
    let problems: Vec<String> = collect(&t, "src").unwrap_err().iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 6, "{problems:#?}");
    assert!(problems[0].starts_with("src: a.yaml: not a valid skill"), "{problems:#?}");
    assert!(problems.iter().any(|p| p.contains("\"../x\" cannot name a file")));
    assert!(problems.iter().any(|p| p.contains("\"get_prompt\" is one of the server's own")));
    assert!(problems.iter().any(|p| p == "src: f/SKILL.md: hidden Unicode control(s) in the text: U+202E RIGHT-TO-LEFT OVERRIDE at line 5, column 16"));
    assert!(
        problems.iter().any(|p| p
            == "src: g/notes.md: hidden Unicode control(s) in the text: U+200B ZERO WIDTH SPACE at line 1, column 5")
    );
    assert!(problems.iter().any(|p| p == "the id \"dup\" is defined more than once: src: b.yaml, src: c.yaml"));

    let none = collect(&tree(&[("README.md", "x"), ("LICENSE", "y")]), "src").unwrap_err();
    assert_eq!(
        none[0].to_string(),
        "Source produced no skills: no .yaml, .yml or .json skill file and no folder with a SKILL.md (2 other file(s))"
    );
    let md = Tree { file: Some("README.md".into()), ..tree(&[("README.md", "x")]) };
    assert!(collect(&md, "s").unwrap_err()[0].to_string().contains("must end in .yaml, .yml, or .json"));
    let skill_md = Tree { file: Some("skills/review/SKILL.md".into()), ..tree(&[("skills/review/SKILL.md", "x")]) };
    assert!(
        collect(&skill_md, "s").unwrap_err()[0].to_string().contains("name the folder that holds this SKILL.md"),
        "a path naming SKILL.md is told to name its folder"
    );
}

/// Found in review: a supporting file that is not valid UTF-8 was never searched, and file names
/// never were.
#[test]
fn hidden_characters_in_invalid_utf8_and_in_file_names_are_found() {
    let skill = SKILL_MD.replace("code-review", "g");
    let mut t = tree(&[("g/SKILL.md", skill.as_str()), ("g/readme\u{202E}txt.sh", "echo\n")]);
    let mut sneaky = b"\xff\xfe run ".to_vec();
    sneaky.extend("\u{202E}".as_bytes());
    t.files.insert(rel("g/notes.md"), sneaky);
    let mut image = b"\x89PNG\r\n\x1a\n\0\0".to_vec();
    image.extend("\u{202E}".as_bytes());
    t.files.insert(rel("g/logo.png"), image.clone());
    let problems: Vec<String> = collect(&t, "src").unwrap_err().iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems.iter().any(|p| p == "src: g/notes.md: hidden Unicode control(s) in the text: U+202E RIGHT-TO-LEFT OVERRIDE at line 1, column 8"),
        "{problems:#?}"
    );
    assert!(
        problems.iter().any(|p| p
            == "src: g/readme\\u{202e}txt.sh: hidden Unicode control(s) in the file name: U+202E RIGHT-TO-LEFT OVERRIDE"),
        "{problems:#?}"
    );
    // An image with a NUL is binary and not searched; a script with one still is.
    let mut t = tree(&[("g/SKILL.md", skill.as_str())]);
    t.files.insert(rel("g/logo.png"), image.clone());
    assert!(collect(&t, "src").is_ok());
    t.files.insert(rel("g/run.sh"), image);
    assert_eq!(collect(&t, "src").unwrap_err().len(), 1);
}

proptest! {
    /// Whatever a source holds, every file to install is a plain relative path and every id
    /// can name a file, so nothing lands outside the skill's place.
    #[test]
    fn what_is_found_stays_inside_its_place(
        files in proptest::collection::btree_map("[a-c_.]{1,3}(/[a-cS_.]{1,3}){0,2}(/SKILL\\.md|\\.yaml)?", prop_oneof![
            Just(YAML.to_owned()), Just(SKILL_MD.to_owned()), Just("id: ..\ntype: tool\n".to_owned()), ".{0,10}"
        ], 0..10)
    ) {
        let t = Tree {
            files: files.iter().filter_map(|(p, b)| Some((RelPath::parse(p)?, b.as_bytes().to_vec()))).collect(),
            ..Tree::default()
        };
        if let Ok(found) = collect(&t, "s") {
            for f in found {
                prop_assert!(tree::is_safe_id(&f.id));
                for p in f.files.keys() {
                    prop_assert!(p.names().all(|n| n != ".." && n != "." && !n.is_empty()));
                }
            }
        }
    }
}
