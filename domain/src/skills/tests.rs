//! Skills: parsing, precedence and conflicts, rendering, argument checks, composition.

use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::career::Surface;

fn yaml(text: &str) -> Skill {
    parse_skill(SkillFormat::Yaml, text).unwrap_or_else(|p| panic!("{p:?}"))
}

fn problems(format: SkillFormat, text: &str) -> Vec<Problem> {
    parse_skill(format, text).expect_err("should not parse")
}

fn prompt(id: &str, tags: &[&str], body: &str) -> Skill {
    Skill {
        id: id.into(),
        kind: SkillType::Prompt,
        name: id.into(),
        description: format!("about {id}"),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        prompt: Some(body.into()),
        arguments: Vec::new(),
        input_schema: None,
        version: None,
        format: SkillFormat::Yaml,
    }
}

fn layer(name: &str, priority: i64) -> LayerInfo {
    LayerInfo { name: name.into(), priority, root: format!("/l/{name}") }
}

fn cand(layer: usize, file: &str, skill: Skill) -> Candidate {
    Candidate { layer, file: file.into(), skill: Arc::new(skill) }
}

fn no_packet(s: Surface) -> String {
    format!("<packet {}>", s.as_str())
}

fn args(pairs: &[(&str, Value)]) -> Vec<(String, Value)> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
}

fn s(v: &str) -> Value {
    Value::String(v.into())
}

#[test]
fn a_full_yaml_skill_parses_with_every_field() {
    let sk = yaml(
        "id: review\nname: Review\ndescription: d\ntype: prompt\ntags: one\nversion: 1.0\narguments:\n  - name: ctx\n    description: c\n    required: true\nprompt: |\n  Hello {{ctx}}\n",
    );
    assert_eq!(sk.id, "review");
    assert_eq!(sk.tags, vec!["one"]);
    assert_eq!(sk.version.as_deref(), Some("1"));
    assert_eq!(sk.arguments, vec![PromptArgument { name: "ctx".into(), description: "c".into(), required: true }]);
    assert_eq!(sk.prompt.as_deref(), Some("Hello {{ctx}}\n"));
}

#[test]
fn json_skills_parse_too() {
    let sk = parse_skill(
        SkillFormat::Json,
        r#"{"id": "t", "type": "tool", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": []}}"#,
    )
    .unwrap();
    assert_eq!(sk.kind, SkillType::Tool);
    assert_eq!(sk.tool_schema().to_json(), r#"{"type":"object","properties":{"a":{"type":"integer"}}}"#);
}

/// Python's `json.dump` writes an emoji as a surrogate pair; skill-central's `JSON.parse`
/// reads it. Found in review: the file was skipped as "not valid YAML".
#[test]
fn json_surrogate_escapes_are_read_as_json_reads_them() {
    let sk = parse_skill(
        SkillFormat::Json,
        r#"{"id": "py-emoji", "type": "prompt", "description": "Debug \ud83d\udc1b \\ud83d", "prompt": "Fix \ud83d\udc1b \udc1b\u00e9"}"#,
    )
    .unwrap();
    assert_eq!(sk.description, "Debug 🐛 \\ud83d", "an escaped backslash is not an escape");
    assert_eq!(sk.prompt.as_deref(), Some("Fix 🐛 \u{fffd}é"));
}

#[test]
fn both_languages_render_as_skill_central_does() {
    let sk = yaml("id: x\ntype: prompt\nprompt: Hi\nprompt_zh: 你好\n");
    assert_eq!(sk.prompt.as_deref(), Some("[English]\nHi\n\n[中文]\n你好"));
    let zh = yaml("id: x\ntype: prompt\nprompt: '  '\nprompt_zh: 你好\n");
    assert_eq!(zh.prompt.as_deref(), Some("你好"));
}

#[test]
fn skill_md_front_matter_and_body() {
    let sk = parse_skill(
        SkillFormat::SkillMd,
        "---\nname: recruiter-reply\ndescription: Reply to a recruiter\ntags: [jobs]\n---\n\nWrite a reply using {{career_context.linkedin}}.\n",
    )
    .unwrap();
    assert_eq!(sk.id, "recruiter-reply");
    assert_eq!(sk.kind, SkillType::Prompt);
    assert_eq!(sk.prompt.as_deref(), Some("Write a reply using {{career_context.linkedin}}.\n"));
    let p = problems(SkillFormat::SkillMd, "no front matter");
    assert!(p[0].message.contains("---"), "{p:?}");
    // A bad front-matter line is reported at its line in the whole file.
    let p = problems(SkillFormat::SkillMd, "---\nname: x\ntype: widget\n---\nbody\n");
    assert_eq!(p[0].line(), Some(3), "{p:?}");
}

#[test]
fn each_missing_or_wrong_field_is_named_with_its_line_and_span() {
    let text = "name: n\ntype: widget\nprompt: x\n";
    let p = problems(SkillFormat::Yaml, text);
    assert!(p.iter().any(|p| p.message == "missing required field `id`"), "{p:?}");
    let t = p.iter().find(|p| p.message.contains("`type` must be")).unwrap();
    assert_eq!(t.line(), Some(2));
    let span = t.span.unwrap();
    assert_eq!(&text[span.start..span.end], "widget");

    let p = problems(SkillFormat::Yaml, "id: a\ntype: prompt\nprompt: '   '\n");
    assert_eq!(p[0].message, "a prompt skill needs a non-blank `prompt` or `prompt_zh`");
    let p = problems(SkillFormat::Yaml, "id: a\ntype: prompt\n  bad: [\n");
    assert!(p[0].message.starts_with("not valid YAML"), "{p:?}");
    assert_eq!(p[0].line(), Some(3));
    let p = problems(SkillFormat::Yaml, "");
    assert!(p[0].message.contains("empty"));
    let p = problems(SkillFormat::Yaml, "- a\n- b\n");
    assert!(p[0].message.contains("mapping"));
    let p = problems(SkillFormat::Yaml, "id: t\ntype: tool\ninputSchema:\n  type: array\n");
    assert!(p[0].message.contains("inputSchema.type"), "{p:?}");
    // Two documents: the second is named where it starts (its first key), never line 0.
    let text = "id: a\ntype: prompt\nprompt: one\n---\nid: b\nprompt: two\n";
    let p = problems(SkillFormat::Yaml, text);
    assert!(p[0].message.contains("expected one YAML document, found 2"), "{p:?}");
    assert_eq!(p[0].line(), Some(5));
    for second in ["- x\n", "[x, y]\n", "\n- - x\n"] {
        let p = problems(SkillFormat::Yaml, &format!("id: a\ntype: prompt\nprompt: one\n---\n{second}"));
        let line = if second.starts_with('\n') { 6 } else { 5 };
        assert_eq!(p[0].line(), Some(line), "{second:?}: {p:?}");
    }
}

/// Aliases are counted as what they expand to before anything is loaded: a file that shares
/// a list a few times loads; ten aliases of ten aliases, level after level, is refused at the
/// alias that goes past the limit (ten levels, in 700 bytes, were 10^10 values and 13 GB).
#[test]
fn aliases_that_expand_past_the_limit_are_refused() {
    let shared =
        yaml("id: t\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    a: &s {type: string}\n    b: *s\n");
    assert_eq!(shared.id, "t");
    let mut bomb = String::from("id: a\ntype: prompt\nprompt: hi\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..6 {
        let aliases = vec![format!("*l{}", i - 1); 10].join(", ");
        bomb.push_str(&format!("l{i}: &l{i} [{aliases}]\n"));
    }
    let p = problems(SkillFormat::Yaml, &bomb);
    assert!(p[0].message.contains("aliases expand to more than 100000 values"), "{p:?}");
    assert_eq!(p[0].line(), Some(8), "the line of the alias that goes past the limit");
    // Values written out are not what the limit counts: a long plain list loads.
    let long = format!("id: a\ntype: prompt\nprompt: hi\ntags: [{}]\n", vec!["x"; 150_000].join(", "));
    assert_eq!(yaml(&long).tags.len(), 150_000);
}

/// Bytes are bounded too: one large anchored value aliased many times is few values but much
/// text (a 100 KB skill file took 1.6 GB and was reported "ok"). A value shared a few times
/// still loads.
#[test]
fn aliases_of_a_large_value_are_refused_by_size() {
    let big = "x".repeat(64 * 1024);
    let aliases = vec!["*b"; 20].join(", ");
    let bomb = format!("id: a\ntype: prompt\nprompt: hi\nbig: &b \"{big}\"\ncopies: [{aliases}]\n");
    assert!(bomb.len() < 100 * 1024);
    let p = problems(SkillFormat::Yaml, &bomb);
    assert!(p[0].message.contains("aliases expand to more than 1024 KiB of text"), "{p:?}");
    assert_eq!(p[0].line(), Some(5), "the line of the alias that goes past the limit");
    let few = format!("id: a\ntype: prompt\nprompt: hi\nbig: &b \"{big}\"\ncopies: [*b, *b, *b]\n");
    assert_eq!(yaml(&few).id, "a");
}

#[test]
fn spans_are_byte_offsets_in_non_ascii_files() {
    let text = "# é€ comment\nid: a\ntype: wídget\nprompt: x\n";
    let p = problems(SkillFormat::Yaml, text);
    let span = p[0].span.unwrap();
    assert_eq!(&text[span.start..span.end], "wídget");
}

#[test]
fn layer_configs_parse_and_skill_central_yaml_works_unchanged() {
    let layers = parse_config(
        "layers:\n  - name: \"01-global\"\n    path: \".skills/01-global\"\n    priority: 10\n  - path: team\n    priority: \"20\"\n",
    )
    .unwrap();
    assert_eq!(layers[0], LayerSpec { name: "01-global".into(), path: ".skills/01-global".into(), priority: 10 });
    assert_eq!(layers[1], LayerSpec { name: "team".into(), path: "team".into(), priority: 20 });
    assert!(parse_config("layers:\n  - name: x\n").is_err());
    assert!(parse_config("layers:\n  - path: x\n    priority: high\n").is_err());
}

#[test]
fn higher_priority_wins_and_takes_the_place_of_what_it_overrides() {
    let set = SkillSet::build(
        vec![layer("team", 50), layer("base", 10)],
        vec![
            cand(0, "team/a.yaml", prompt("a", &[], "team a")),
            cand(1, "base/a.yaml", prompt("a", &[], "base a")),
            cand(1, "base/b.yaml", prompt("b", &[], "base b")),
        ],
        Vec::new(),
    );
    let ids: Vec<&str> = set.entries().iter().map(|e| e.skill.id.as_str()).collect();
    assert_eq!(ids, ["a", "b"], "a keeps the place of base's a");
    let a = set.get("a").unwrap();
    assert_eq!(a.skill.prompt.as_deref(), Some("team a"));
    assert_eq!(a.shadows, vec![Origin { layer: "base".into(), priority: 10, file: "base/a.yaml".into() }]);
    assert!(set.conflicts().is_empty());
}

#[test]
fn an_equal_priority_clash_is_a_conflict_and_neither_is_served() {
    let set = SkillSet::build(
        vec![layer("x", 20), layer("y", 20), layer("z", 5)],
        vec![
            cand(0, "x/a.yaml", prompt("a", &[], "x")),
            cand(1, "y/a.yaml", prompt("a", &[], "y")),
            cand(2, "z/a.yaml", prompt("a", &[], "z")),
        ],
        Vec::new(),
    );
    assert!(set.get("a").is_none());
    assert_eq!(set.conflicts().len(), 1);
    let files: Vec<&str> = set.conflicts()[0].files.iter().map(|o| o.file.as_str()).collect();
    assert_eq!(files, ["x/a.yaml", "y/a.yaml"]);
    // A higher layer resolves it.
    let set = SkillSet::build(
        vec![layer("x", 20), layer("y", 20), layer("top", 30)],
        vec![
            cand(0, "x/a.yaml", prompt("a", &[], "x")),
            cand(1, "y/a.yaml", prompt("a", &[], "y")),
            cand(2, "top/a.yaml", prompt("a", &[], "top")),
        ],
        Vec::new(),
    );
    assert_eq!(set.get("a").unwrap().skill.prompt.as_deref(), Some("top"));
    assert!(set.conflicts().is_empty());
}

#[test]
fn built_in_names_are_refused() {
    let set = SkillSet::build(
        vec![layer("x", 1)],
        vec![
            cand(0, "x/a.yaml", prompt("cv_tailoring", &[], "x")),
            cand(0, "x/b.yaml", prompt("get_career_context", &[], "x")),
        ],
        Vec::new(),
    );
    assert!(set.entries().is_empty());
    assert_eq!(set.refused().len(), 2);
}

fn tool(schema: &str, template: Option<&str>) -> Skill {
    let mut text = format!("id: t\ntype: tool\ninputSchema: {schema}\n");
    if let Some(t) = template {
        text.push_str(&format!("prompt: {}\n", Value::String(t.into()).to_json()));
    }
    yaml(&text)
}

fn one(skill: Skill) -> SkillSet {
    SkillSet::build(vec![layer("l", 1)], vec![cand(0, "l/x.yaml", skill)], Vec::new())
}

#[test]
fn tool_arguments_are_checked_in_skill_central_words() {
    let set = one(tool(
        r#"{"type":"object","properties":{"type":{"type":"string"},"scope":{"type":"string"},"n":{"type":"integer"},"kind":{"enum":["a","b"]},"summary":{"type":"string"}},"required":["type","summary"],"additionalProperties":false}"#,
        Some("{{type}}({{scope}})"),
    ));
    let out = set
        .call_tool(
            "t",
            &args(&[("scope", Value::Int(1)), ("n", Value::Float(1.5)), ("kind", s("c")), ("extra", s("e"))]),
            &no_packet,
        )
        .unwrap();
    assert_eq!(
        out.text(),
        "Missing required argument: \"type\"\nMissing required argument: \"summary\"\nArgument \"scope\" expected string, got number\nArgument \"n\" expected integer, got number\nArgument \"kind\" must be one of: \"a\", \"b\", got \"c\"\nUnexpected argument: \"extra\""
    );
    assert!(out.is_error());
    let ok = set
        .call_tool("t", &args(&[("type", s("feat")), ("summary", s("x")), ("n", Value::Float(2.0))]), &no_packet)
        .unwrap();
    assert_eq!(ok, ToolOutcome::Text("feat()".into()), "a missing optional placeholder renders empty");
    let null_required = set.call_tool("t", &args(&[("type", Value::Null), ("summary", s("x"))]), &no_packet).unwrap();
    assert_eq!(null_required.text(), "Missing required argument: \"type\"");
}

#[test]
fn a_tool_without_a_template_answers_its_arguments_as_pretty_json() {
    let set = one(tool(r#"{"type":"object","properties":{"a":{"type":"array"}}}"#, None));
    let out = set.call_tool("t", &args(&[("a", Value::Array(vec![Value::Int(1)]))]), &no_packet).unwrap();
    assert_eq!(out.text(), "{\n  \"a\": [\n    1\n  ]\n}");
}

#[test]
fn unknown_names_and_wrong_kinds_are_refused_with_the_exact_words() {
    let set = SkillSet::build(
        vec![layer("l", 1)],
        vec![cand(0, "l/p.yaml", prompt("p", &["x"], "hi")), cand(0, "l/t.yaml", tool(r#"{"type":"object"}"#, None))],
        Vec::new(),
    );
    let e = |r: Result<String, SkillError>| r.unwrap_err().message();
    assert_eq!(e(set.render_prompt("nope", &[], &no_packet)), "Unknown prompt skill: nope");
    assert_eq!(set.call_tool("nope", &[], &no_packet).unwrap_err().message(), "Unknown tool: nope");
    assert_eq!(e(set.render_prompt("t", &[], &no_packet)), "t is a tool skill, not a prompt: call it with tools/call");
    assert_eq!(set.call_tool("p", &[], &no_packet).unwrap_err(), SkillError::NotATool("p".into()));
}

#[test]
fn prompts_render_arguments_and_the_persons_own_facts() {
    let mut p = yaml(
        "id: p\ntype: prompt\narguments:\n  - name: job\n    required: true\n  - name: tone\nprompt: 'For {{ job }} ({{tone}}): {{career_context.cv}} / {{career_context}} / {{career_context.nope}} / {{other}}'\n",
    );
    p.description = String::new();
    let set = one(p);
    assert_eq!(set.render_prompt("p", &[], &no_packet).unwrap_err().message(), "Missing required argument: \"job\"");
    let text = set.render_prompt("p", &args(&[("job", s("SRE {{career_context}}"))]), &no_packet).unwrap();
    assert_eq!(
        text, "For SRE {{career_context}} (): <packet cv> / <packet general> / {{career_context.nope}} / {{other}}",
        "argument text is never re-read; unknown placeholders stay"
    );
    assert_eq!(set.get("p").unwrap().description(), "p (prompt skill)");
}

/// skill-central replaces `{{key}}` for any argument name: one in another script, with an
/// accent or a space is filled too, in prompts and in tool templates.
#[test]
fn any_argument_name_is_filled() {
    let set = one(yaml(
        "id: p\ntype: prompt\narguments:\n  - name: 名前\n  - name: résumé\n  - name: a b\n  - name: a:b\nprompt: '{{名前}}|{{ résumé }}|{{a b}}|{{a:b}}|{{#if}}|{{{名前}}}'\n",
    ));
    let given = args(&[("名前", s("Ada")), ("résumé", s("CV")), ("a b", s("1")), ("a:b", s("2"))]);
    assert_eq!(set.render_prompt("p", &given, &no_packet).unwrap(), "Ada|CV|1|2|{{#if}}|{Ada}");
    let tool = one(yaml(
        "id: t\ntype: tool\ninputSchema:\n  type: object\n  properties:\n    名前: {type: string}\n  required: [名前]\nprompt: 'tool={{名前}}'\n",
    ));
    assert_eq!(tool.call_tool("t", &args(&[("名前", s("Ada"))]), &no_packet).unwrap().text(), "tool=Ada");
}

/// Prompt arguments are strings (MCP's `GetPrompt`), for skills as for the career prompts: a
/// number is not rendered, `true` does not count as a required argument given.
#[test]
fn prompt_arguments_that_are_not_strings_are_refused() {
    let set = SkillSet::build(
        vec![layer("l", 1)],
        vec![cand(0, "l/g.yaml", {
            let mut g = prompt("greet", &["hi"], "Hello {{who}}");
            g.arguments = vec![PromptArgument { name: "who".into(), description: String::new(), required: true }];
            g
        })],
        Vec::new(),
    );
    let refused = |args: &[(String, Value)]| set.render_prompt("greet", args, &no_packet).unwrap_err().message();
    assert_eq!(refused(&args(&[("who", Value::Int(5))])), "Argument \"who\" expected string, got number");
    assert_eq!(refused(&args(&[("who", Value::Bool(true))])), "Argument \"who\" expected string, got boolean");
    assert_eq!(refused(&args(&[("who", s("Ada")), ("x", Value::Null)])), "Argument \"x\" expected string, got null");
    assert_eq!(set.render_prompt("greet", &args(&[("who", s("Ada"))]), &no_packet).unwrap(), "Hello Ada");
    let compose = |args: &[(String, Value)]| set.compose_arguments(args, &no_packet).map(|c| c.text);
    assert_eq!(
        compose(&args(&[("tags", Value::Int(5))])).unwrap_err().message(),
        "Argument \"tags\" expected string, got number"
    );
    assert_eq!(compose(&args(&[("tags", s("HI"))])).unwrap(), "## greet\nHello {{who}}");
    assert_eq!(compose(&[]).unwrap_err(), SkillError::NoSkillsForTags(String::new()));
}

#[test]
fn compose_matches_tags_case_insensitively_in_priority_order() {
    let set = SkillSet::build(
        vec![layer("high", 30), layer("low", 10)],
        vec![
            cand(0, "high/a.yaml", prompt("a", &["Docker"], "A body\n")),
            cand(1, "low/b.yaml", prompt("b", &["global"], "\nB {{career_context.github}} {{arg}}\n")),
            cand(1, "low/t.yaml", {
                let mut t = tool(r#"{"type":"object"}"#, None);
                t.tags = vec!["git".into()];
                t
            }),
        ],
        Vec::new(),
    );
    let c = set.compose(" docker, GLOBAL ,,", &no_packet).unwrap();
    assert_eq!(c.description, "Composed prompt from tags: docker, GLOBAL (2 skills)");
    assert_eq!(c.text, "## b\nB <packet github> {{arg}}\n\n---\n\n## a\nA body");
    assert_eq!(set.compose("git", &no_packet).unwrap_err().message(), "No skills found for tags: git");
    assert_eq!(set.compose(" , ", &no_packet).unwrap_err().message(), "No skills found for tags: ");
}

#[test]
fn kebab_case() {
    assert!(is_kebab_case("cv-bullet-2"));
    for bad in ["", "Cv", "a--b", "-a", "a_b", "a b"] {
        assert!(!is_kebab_case(bad), "{bad}");
    }
}

fn value_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        "[ -~{}é]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec(("[a-z]{1,4}", inner), 0..4).prop_map(Value::Object),
        ]
    })
}

proptest! {
    #[test]
    fn parsing_any_text_never_panics(text in "[ -~\n\té中{}\\[\\]:-]{0,300}") {
        let _ = parse_skill(SkillFormat::Yaml, &text);
        let _ = parse_skill(SkillFormat::SkillMd, &format!("---\n{text}\n---\nbody"));
        let _ = parse_config(&text);
    }

    #[test]
    fn problem_spans_lie_on_char_boundaries(text in "(id: [a-zé]{0,4}\n)?(type: [a-zé{}]{0,6}\n)?(prompt: [ -~é]{0,10}\n)?(tags: [\\[\\]a-z,{}]{0,8}\n)?") {
        if let Err(problems) = parse_skill(SkillFormat::Yaml, &text) {
            for p in problems {
                if let Some(span) = p.span {
                    prop_assert!(span.start <= span.end && span.end <= text.len());
                    prop_assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
                }
            }
        }
    }

    #[test]
    fn rendering_never_panics_and_never_rereads_argument_values(
        template in "[a-z{} .]{0,40}",
        value in "[a-z{} .]{0,20}",
    ) {
        let skill = Skill {
            arguments: vec![PromptArgument { name: "a".into(), description: String::new(), required: false }],
            ..prompt("p", &[], &template)
        };
        let set = one(skill);
        let out = set.render_prompt("p", &args(&[("a", s(&value))]), &no_packet).unwrap();
        // Rendering with a marker value, then putting the real value in by hand, gives the same
        // text: the value was inserted verbatim and never scanned.
        let marker = "\u{1}";
        let with_marker = set.render_prompt("p", &args(&[("a", s(marker))]), &no_packet).unwrap();
        prop_assert_eq!(out, with_marker.replace(marker, &value));
    }

    #[test]
    fn argument_checks_never_panic_and_a_valid_call_has_no_problems(
        given in proptest::collection::vec(("[a-c]", value_strategy()), 0..5),
    ) {
        let schema = Value::Object(vec![
            ("type".into(), s("object")),
            ("properties".into(), Value::Object(vec![
                ("a".into(), Value::Object(vec![("type".into(), s("string"))])),
                ("b".into(), Value::Object(vec![("type".into(), s("integer"))])),
            ])),
            ("required".into(), Value::Array(vec![s("a")])),
            ("additionalProperties".into(), Value::Bool(false)),
        ]);
        // Arguments arrive as a JSON object: each name once (dedup_by kept only runs apart).
        let mut given = given;
        let mut seen = std::collections::HashSet::new();
        given.retain(|(k, _)| seen.insert(k.clone()));
        let problems = schema::check(&schema, &given);
        let valid = given.iter().any(|(k, v)| k == "a" && matches!(v, Value::String(_)))
            && given.iter().all(|(k, v)| match k.as_str() {
                "a" => matches!(v, Value::String(_)),
                "b" => matches!(v, Value::Int(_) | Value::Null),
                _ => false,
            });
        prop_assert_eq!(problems.is_empty(), valid, "{:?} -> {:?}", given, problems);
    }

    #[test]
    fn precedence_does_not_depend_on_the_order_candidates_arrive_in(
        defs in proptest::collection::vec((0usize..4, 0usize..3), 1..12),
        priorities in proptest::collection::vec(0i64..3, 4),
        seed in any::<u64>(),
    ) {
        let layers: Vec<LayerInfo> = priorities.iter().enumerate().map(|(i, p)| layer(&format!("l{i}"), *p)).collect();
        let cands: Vec<Candidate> = defs
            .iter()
            .enumerate()
            .map(|(n, (l, id))| cand(*l, &format!("l{l}/{n:03}.yaml"), prompt(&format!("id{id}"), &[], &format!("{l}-{n}"))))
            .collect();
        let a = SkillSet::build(layers.clone(), cands.clone(), Vec::new());
        let mut shuffled = cands.clone();
        let mut x = seed;
        for i in (1..shuffled.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shuffled.swap(i, (x >> 33) as usize % (i + 1));
        }
        // Within a layer the app hands files over in path order; keep that, shuffle the rest.
        shuffled.sort_by(|p, q| (p.layer, &p.file).cmp(&(q.layer, &q.file)));
        let b = SkillSet::build(layers.clone(), shuffled, Vec::new());
        let view = |s: &SkillSet| s.entries().iter().map(|e| (e.skill.prompt.clone(), e.origin.file.clone())).collect::<Vec<_>>();
        prop_assert_eq!(view(&a), view(&b));
        prop_assert_eq!(a.conflicts(), b.conflicts());
        // Every served skill has the top priority for its id, held by no other file.
        for e in a.entries() {
            let same: Vec<&Candidate> = cands.iter().filter(|c| c.skill.id == e.skill.id).collect();
            let top = same.iter().map(|c| priorities[c.layer]).max().unwrap();
            prop_assert_eq!(e.origin.priority, top);
            prop_assert_eq!(same.iter().filter(|c| priorities[c.layer] == top).count(), 1);
        }
    }
}

/// `doctor` warns about `{{name}}` that nothing fills; server values and declared names are filled.
#[test]
fn undeclared_placeholders_are_neither_arguments_nor_server_values() {
    let text = "id: a\ntype: prompt\narguments:\n  - name: bullet\nprompt: \"{{bullet}} {{career_context}} {{career_context.cv}} {{career_context.fax}} {{ role }} {{role}}\"\n";
    let skill = parse_skill(SkillFormat::Yaml, text).unwrap();
    assert_eq!(skill.undeclared_placeholders(), vec!["career_context.fax".to_owned(), "role".to_owned()]);
    assert!(is_server_value("career_context.github") && !is_server_value("career_contextx"));
}

/// A template that repeats a large placeholder is cut at MAX_RENDERED_BYTES with a notice, in
/// prompts/get, tools/call and skills:compose alike, and the packet is asked for once (400
/// `{{career_context}}` against a 16 MiB context asked for 4.3 GB).
#[test]
fn renderings_are_cut_at_the_documented_limit() {
    use crate::skills::set::MAX_RENDERED_BYTES;
    let asked = std::cell::Cell::new(0);
    let packet = |_: crate::career::Surface| {
        asked.set(asked.get() + 1);
        "é".repeat(1024 * 1024)
    };
    let body = "{{career_context}}".repeat(400);
    let set = SkillSet::build(
        vec![layer("l", 1)],
        vec![
            cand(0, "l/p.yaml", prompt("p", &["big"], &body)),
            cand(0, "l/q.yaml", prompt("q", &["big"], "small {{career_context}}")),
        ],
        Vec::new(),
    );
    let text = set.render_prompt("p", &[], &packet).unwrap();
    assert!(text.len() <= MAX_RENDERED_BYTES + 200, "{}", text.len());
    assert!(text.ends_with("Use it once.]\n"), "{}", &text[text.len() - 200..]);
    assert_eq!(asked.get(), 1, "the packet is asked for once");
    let composed = set.compose("big", &packet).unwrap().text;
    assert!(composed.len() <= MAX_RENDERED_BYTES + 200);
    assert!(composed.ends_with("Use it once.]\n"));
    assert!(!composed.contains("## q"), "nothing is added after the cut");
    // Under the limit, nothing is cut.
    let small = set.render_prompt("q", &[], &packet).unwrap();
    assert!(small.starts_with("small é") && !small.contains("cut at"));
}
