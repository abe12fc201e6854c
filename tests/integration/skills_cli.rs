// `vitaecontext skills list | show | validate | init | add | remove` as a person runs them.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::util::{Cmd, copy_dir, repo_root};

fn run(args: &[&str], home: &Path) -> (Option<i32>, String, String) {
    let mut cmd = Cmd::new(args);
    cmd.cmd.env("HOME", home);
    let (st, out, err) = cmd.output();
    (st.code(), out, err)
}

fn ids(json: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    v["skills"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn init_writes_a_starter_set_that_lists_and_never_overwrites() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, err) = run(&["skills", "init"], home.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("created") && out.contains("finds this config by itself"), "{out}");
    let (code, out, err) = run(&["skills", "list", "--json"], home.path());
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(ids(&out), ["achievement-bullet", "cv-bullet-rewriter", "interview-story", "recruiter-reply"]);
    let mine = home.path().join(".vitaecontext/skills/10-base/cv-bullet-rewriter.yaml");
    fs::write(&mine, "id: cv-bullet-rewriter\ntype: prompt\nprompt: mine\n").unwrap();
    let (code, out, _) = run(&["skills", "init"], home.path());
    assert_eq!(code, Some(0));
    assert!(out.contains("kept"), "{out}");
    assert_eq!(fs::read_to_string(&mine).unwrap(), "id: cv-bullet-rewriter\ntype: prompt\nprompt: mine\n");
    let (code, out, _) = run(&["skills", "show", "cv-bullet-rewriter"], home.path());
    assert_eq!(code, Some(0));
    assert!(out.contains("layer:       base (priority 10)") && out.ends_with("mine\n"), "{out}");
}

#[test]
fn skill_central_projects_load_unchanged_through_the_flag_or_the_environment() {
    let home = tempfile::tempdir().unwrap();
    let config = repo_root().join("tests/fixtures/skill-central-0.4/init-project/skill-central.yaml");
    let expected = ["architectural-mindset", "commit-conventions", "debugging-expert", "container-infra"];
    let (code, out, err) = run(&["skills", "list", "--json", "--skills-config", config.to_str().unwrap()], home.path());
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(ids(&out), expected);
    let (st, out, _) =
        Cmd::new(["skills", "list", "--json", "--type", "tool"]).env("VITAECONTEXT_SKILLS_CONFIG", &config).output();
    assert!(st.success());
    assert_eq!(ids(&out), ["commit-conventions"]);
    // A config that cannot be read is a JSON error too, as in the other --json modes.
    let (code, out, _) = run(&["skills", "list", "--json", "--skills-config", "/no/such.yaml"], home.path());
    assert_eq!(code, Some(2));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(v["error"]["exitCode"], 2, "{v}");
    let (st, table, _) =
        Cmd::new(["skills", "list", "--tag", "DOCKER"]).env("VITAECONTEXT_SKILLS_CONFIG", &config).output();
    assert!(st.success());
    assert!(
        table.starts_with("ID ") && table.contains("container-infra") && !table.contains("debugging-expert"),
        "{table}"
    );
    let (code, _, err) = run(&["skills", "list", "--skills-config", "/no/such.yaml"], home.path());
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn validate_labels_the_exact_span_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.yml");
    fs::write(&good, "id: ok\ntype: prompt\nprompt: hi\n").unwrap();
    let bad = dir.path().join("bad.json");
    fs::write(&bad, "{\"id\": \"b\",\n \"type\": \"widget\", \"prompt\": \"x\"}").unwrap();
    let (code, out, err) = run(&["skills", "validate", good.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("ok:") && out.contains("prompt skill ok"), "{out}");
    let (code, _, err) = run(&["skills", "validate", good.to_str().unwrap(), bad.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("vitaecontext::skills::invalid_skill"), "{err}");
    assert!(err.contains("bad.json:2: `type` must be \"prompt\" or \"tool\", found \"widget\""), "{err}");
    assert!(err.contains("──┬─") && err.contains("expected `prompt` or `tool`"), "a label under the value: {err}");
    let (code, _, _) = run(&["skills", "validate", dir.path().join("notes.txt").to_str().unwrap()], dir.path());
    assert_eq!(code, Some(2));
    let (code, _, _) = run(&["skills", "validate"], dir.path());
    assert_eq!(code, Some(2), "a missing FILE is a usage error");
}

/// `skills validate DIR` walks a layer as the server does, reporting `_template.yaml` as
/// skipped; it warns of what doctor warns of (a placeholder nothing fills); a `_` file named
/// alone is checked, and said not to be served.
#[test]
fn validate_walks_a_folder_and_warns_as_doctor_does() {
    let dir = tempfile::tempdir().unwrap();
    let layer = dir.path().join("layer");
    fs::create_dir_all(layer.join("nested/recruiter")).unwrap();
    fs::write(layer.join("a.yaml"), "id: a\ntype: prompt\nprompt: Hello {{who}}\n").unwrap();
    fs::write(layer.join("_template.yaml"), "id: t\ntype: prompt\nprompt: x\n").unwrap();
    fs::write(layer.join("nested/b.json"), "{\"id\": \"b\", \"type\": \"prompt\", \"prompt\": \"x\"}").unwrap();
    fs::write(
        layer.join("nested/recruiter/SKILL.md"),
        "---\nname: recruiter\ndescription: Replies to recruiters.\n---\nReply.\n",
    )
    .unwrap();
    fs::write(layer.join("notes.txt"), "not a skill").unwrap();
    let (code, out, err) = run(&["skills", "validate", layer.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("skipped: ") && out.contains("_template.yaml"), "{out}");
    for f in ["a.yaml", "nested/b.json", "nested/recruiter/SKILL.md"] {
        assert!(out.contains(&format!("ok: {}", layer.join(f).display())), "{f}: {out}");
    }
    assert!(err.contains("{{who}} is neither a declared argument nor a server value"), "{err}");
    let (code, _, err) = run(&["skills", "validate", layer.join("_template.yaml").to_str().unwrap()], dir.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("the server does not load it"), "{err}");
}

#[test]
fn conflicts_and_broken_files_are_warnings_naming_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    fs::create_dir_all(a.join("_drafts")).unwrap();
    fs::create_dir_all(&b).unwrap();
    fs::write(a.join("same.yaml"), "id: same\ntype: prompt\nprompt: a\n").unwrap();
    fs::write(b.join("same.yaml"), "id: same\ntype: prompt\nprompt: b\n").unwrap();
    fs::write(b.join("broken.yaml"), "id: broken\ntype: prompt\nprompt: [\n").unwrap();
    fs::write(a.join("_drafts/x.yaml"), "not: a skill\n").unwrap();
    let (code, out, err) = run(
        &["skills", "list", "--skills", &format!("{}=20", a.display()), "--skills", &format!("{}=20", b.display())],
        dir.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.contains("same"), "neither side of a conflict is served: {out}");
    assert!(err.contains("\"same\"") && err.contains("a/same.yaml") && err.contains("b/same.yaml"), "{err}");
    assert!(err.contains("broken.yaml:") && err.contains("not valid YAML"), "{err}");
    assert!(!err.contains("_drafts"), "names starting with _ are skipped silently: {err}");
    let (code, _, err) = run(
        &[
            "skills",
            "show",
            "same",
            "--skills",
            &format!("{}=20", a.display()),
            "--skills",
            &format!("{}=20", b.display()),
        ],
        dir.path(),
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("neither is served"), "{err}");
}

#[test]
fn add_and_remove_respect_layers_and_never_overwrite_silently() {
    let home = tempfile::tempdir().unwrap();
    assert_eq!(run(&["skills", "init"], home.path()).0, Some(0));
    let add = |extra: &[&str]| {
        let mut args = vec!["skills", "add", "--id", "cv-bullet-rewriter", "--prompt", "Mine: {{career_context.cv}}"];
        args.extend_from_slice(extra);
        run(&args, home.path())
    };
    let (code, _, err) = add(&[]);
    assert_eq!(code, Some(2), "several layers need --layer: {err}");
    assert!(err.contains("--layer"), "{err}");
    let (code, out, err) = add(&["--layer", "personal", "--tag", "cv"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("It overrides") && out.contains("10-base/cv-bullet-rewriter.yaml"), "{out}");
    let target = home.path().join(".vitaecontext/skills/50-personal/cv-bullet-rewriter.yaml");
    let (code, _, err) = add(&["--layer", "personal"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("--force"), "{err}");
    let before = fs::read_to_string(&target).unwrap();
    let (code, _, err) = run(
        &["skills", "add", "--id", "cv-bullet-rewriter", "--prompt", "v2", "--layer", "personal", "--force"],
        home.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    let backups = || {
        fs::read_dir(target.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().contains("cv-bullet-rewriter.yaml.vitaecontext-backup-"))
            .collect::<Vec<_>>()
    };
    assert_eq!(backups().len(), 1);
    assert_eq!(fs::read_to_string(&backups()[0]).unwrap(), before, "the old file is kept");
    // Regression: a second replacement used to overwrite the first backup (`.bak`).
    let (code, _, err) = run(
        &["skills", "add", "--id", "cv-bullet-rewriter", "--prompt", "v3", "--layer", "personal", "--force"],
        home.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(backups().len(), 2, "every replaced version is kept");
    let (code, _, err) =
        run(&["skills", "add", "--id", "Not_Kebab", "--prompt", "x", "--layer", "personal"], home.path());
    assert_eq!(code, Some(2), "{err}");

    let (code, _, err) = run(&["skills", "remove", "cv-bullet-rewriter"], home.path());
    assert_eq!(code, Some(2), "two layers hold it: {err}");
    assert!(err.contains("base") && err.contains("personal"), "{err}");
    let (code, out, err) = run(&["skills", "remove", "cv-bullet-rewriter", "--layer", "personal"], home.path());
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Now served") && out.contains("10-base"), "{out}");
    assert!(!target.exists());

    // From a file, into a layer, unchanged.
    let src = home.path().join("mine.json");
    fs::write(&src, r#"{"id": "cover-letter", "type": "prompt", "prompt": "Write it from {{career_context.cv}}"}"#)
        .unwrap();
    let (code, _, err) = run(&["skills", "add", "--from", src.to_str().unwrap(), "--layer", "base"], home.path());
    assert_eq!(code, Some(0), "{err}");
    let written = home.path().join(".vitaecontext/skills/10-base/cover-letter.json");
    assert_eq!(fs::read_to_string(written).unwrap(), fs::read_to_string(&src).unwrap());
}

#[test]
fn help_teaches_the_model() {
    let (st, out, _) = Cmd::new(["skills", "--help"]).output();
    assert!(st.success());
    for needle in ["{{career_context.cv}}", "priority", "conflict", "SKILL.md", "_template.yaml", "skills init"] {
        assert!(out.contains(needle), "{needle} missing from:\n{out}");
    }
    let (st, _, _) = Cmd::new(["skills", "frobnicate"]).output();
    assert_eq!(st.code(), Some(2));
}

#[test]
fn a_copied_layer_set_works_from_any_folder() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    copy_dir(&repo_root().join("tests/fixtures/skill-central-0.4/init-project"), &project);
    // A relative --skills-config resolves against the working directory, its layers against it.
    let (st, out, err) =
        Cmd::new(["skills", "show", "debugging-expert", "--json", "--skills-config", "skill-central.yaml"])
            .current_dir(&project)
            .output();
    assert!(st.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["layer"], "02-workflows");
    assert_eq!(v["priority"], 20);
}

/// A symlink in a layer is skipped, as skill-central's walker skips it. Found in review: a
/// `SKILL.md` linked to a file outside the layer was served as a prompt, and a link to a skill
/// of the same layer made that skill conflict with itself and vanish.
#[test]
fn symlinks_in_a_layer_are_skipped() {
    let home = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (layer, outside) = (tmp.path().join("layer"), tmp.path().join("outside"));
    fs::create_dir_all(layer.join("linked-skill")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(layer.join("ok.yaml"), "id: ok\ntype: prompt\nprompt: fine\n").unwrap();
    fs::write(outside.join("SKILL.md"), "---\nname: leak\ndescription: d\n---\nSECRET-OUTSIDE\n").unwrap();
    fs::write(outside.join("other.yaml"), "id: other\ntype: prompt\nprompt: SECRET-OUTSIDE\n").unwrap();
    std::os::unix::fs::symlink(outside.join("SKILL.md"), layer.join("linked-skill/SKILL.md")).unwrap();
    // The folder's resources are not skills of their own.
    fs::write(layer.join("linked-skill/data.yaml"), "id: helper-data\ntype: prompt\nprompt: x\n").unwrap();
    std::os::unix::fs::symlink(outside.join("other.yaml"), layer.join("other.yaml")).unwrap();
    std::os::unix::fs::symlink(layer.join("ok.yaml"), layer.join("again.yaml")).unwrap();
    let (code, out, err) = run(&["skills", "list", "--json", "--skills", layer.to_str().unwrap()], home.path());
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(ids(&out), ["ok"], "{out}");
    assert!(!out.contains("SECRET") && !err.contains("conflict"), "{out}\n{err}");
}

/// Run in a skill-central project with nothing else configured, the skills commands read its
/// `skill-central.yaml`, as skill-central does, and say so.
#[test]
fn a_skill_central_project_is_read_from_the_folder_it_runs_in() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("tests/fixtures/skill-central-0.4/init-project"), project.path());
    let mut cmd = Cmd::new(["skills", "list", "--json"]).current_dir(project.path());
    cmd.cmd.env("HOME", home.path());
    let (st, out, err) = cmd.output();
    assert!(st.success(), "{err}");
    assert_eq!(ids(&out).len(), 4, "{out}");
    assert!(err.contains("skill-central.yaml (skill-central's project config)"), "{err}");
}

/// `skills add --arg NAME[:DESCRIPTION][:required]` declares arguments (a prompt's `arguments`,
/// a tool's `inputSchema`), and a placeholder no argument declares is warned of as it is added.
#[test]
fn add_declares_arguments_and_warns_of_an_undeclared_placeholder() {
    let home = tempfile::tempdir().unwrap();
    let layer = home.path().join("layer");
    fs::create_dir_all(&layer).unwrap();
    let l = layer.to_str().unwrap();
    let prompt = "Write for {{job}} in a {{tone}} tone from {{career_context.cv}}";
    let (code, out, err) = run(
        &[
            "skills",
            "add",
            "--skills",
            l,
            "--id",
            "cover",
            "--prompt",
            prompt,
            "--arg",
            "job:the posting: full text:required",
        ],
        home.path(),
    );
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(err.contains("{{tone}} is neither a declared argument") && err.contains("--arg tone"), "{err}");
    assert!(!err.contains("{{job}}") && !err.contains("career_context"), "{err}");
    let (code, out, err) = run(&["skills", "show", "cover", "--json", "--skills", l], home.path());
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let args = v["skill"]["arguments"].as_array().or(v["arguments"].as_array()).expect("arguments").clone();
    assert_eq!(args.len(), 1, "{v}");
    assert_eq!((args[0]["name"].as_str(), args[0]["required"].as_bool()), (Some("job"), Some(true)), "{v}");
    assert_eq!(args[0]["description"], "the posting: full text");
    let (code, _, err) = run(
        &["skills", "add", "--skills", l, "--id", "t", "--type", "tool", "--prompt", "x {{a}}", "--arg", "a::required"],
        home.path(),
    );
    assert_eq!(code, Some(0), "{err}");
    let text = fs::read_to_string(layer.join("t.yaml")).unwrap();
    assert!(text.contains("\"a\":\n      type: string") && text.contains("required: [\"a\"]"), "{text}");
    let (code, _, _) = run(&["skills", "add", "--skills", l, "--id", "u", "--prompt", "x", "--arg", ":x"], home.path());
    assert_eq!(code, Some(2), "an argument needs a name");
}

/// `$VITAECONTEXT_SKILLS` names layer folders when no `--skills` is given (how a Claude Desktop
/// bundle passes its optional skills folder); empty is none; `--skills` wins over it.
#[test]
fn skill_folders_come_from_the_environment_when_no_flag_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    fs::create_dir_all(&a).unwrap();
    fs::create_dir_all(&b).unwrap();
    fs::write(a.join("one.yaml"), "id: one\ntype: prompt\nprompt: from a\n").unwrap();
    fs::write(b.join("two.yaml"), "id: two\ntype: prompt\nprompt: from b\n").unwrap();
    let both = std::env::join_paths([&a, &b]).unwrap();
    let (st, out, err) = Cmd::new(["skills", "list", "--json"]).env("VITAECONTEXT_SKILLS", &both).output();
    assert!(st.success(), "{err}");
    assert_eq!(ids(&out), ["one", "two"]);
    let (st, out, err) = Cmd::new(["skills", "list", "--json"]).env("VITAECONTEXT_SKILLS", "").output();
    assert!(st.success(), "{err}");
    assert!(ids(&out).is_empty(), "{out}");
    let (st, out, _) = Cmd::new(["skills", "list", "--json", "--skills", b.to_str().unwrap()])
        .env("VITAECONTEXT_SKILLS", &both)
        .output();
    assert!(st.success());
    assert_eq!(ids(&out), ["two"]);
}
