//! The validator and packets on the bundled example and its broken variants, and on edge cases
//! whose lines must match VitaeContext 2.3.0.

use super::*;
use proptest::prelude::*;

const EXAMPLE: &str = include_str!("../../../examples/career-context.md");

macro_rules! broken {
    ($($name:ident),* $(,)?) => {
        const BROKEN: &[(&str, &str)] = &[
            $((stringify!($name), include_str!(concat!("../../../examples/broken/", stringify!($name), ".md")))),*
        ];
    };
}

broken!(
    h1_count,
    h1_descriptor,
    missing_quick_reference,
    quick_reference_position,
    quick_reference_yaml,
    quick_reference_yaml_unclosed,
    missing_quick_field,
    empty_quick_value,
    missing_scope_declaration,
    missing_section,
    missing_evidence_history,
    missing_tldr,
    reversed_date_range,
    missing_verified_facts,
    conflicting_verified_fact,
    placeholder,
    tracked_workspace_path,
);

fn codes(v: &Validation) -> Vec<(usize, &'static str)> {
    v.errors.iter().chain(&v.warnings).map(|d| (d.line, d.code.as_str())).collect()
}

#[test]
fn the_example_is_valid_with_no_findings() {
    let v = validate(EXAMPLE, FileFacts { in_git_worktree: true });
    assert!(v.valid, "{:?}", v.errors);
    assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    assert_eq!(
        v.title.as_deref(),
        Some("Rowan Vale - Platform engineer who turns slow build pipelines into fast, boring ones")
    );
    assert_eq!(v.section_names()[0], "quick reference");
}

#[test]
fn every_code_has_a_broken_example_that_raises_it() {
    for code in Code::ALL {
        let (name, text) = BROKEN
            .iter()
            .find(|(n, _)| *n == code.as_str())
            .unwrap_or_else(|| panic!("no broken example for {}", code.as_str()));
        let v = validate(text, FileFacts { in_git_worktree: true });
        assert!(codes(&v).iter().any(|(_, c)| c == &code.as_str()), "{name}: {:?}", codes(&v));
    }
}

#[test]
fn broken_examples_raise_these_findings() {
    let all: Vec<String> = BROKEN
        .iter()
        .map(|(name, text)| {
            let v = validate(text, FileFacts { in_git_worktree: true });
            let found: Vec<String> = v
                .errors
                .iter()
                .chain(&v.warnings)
                .map(|d| {
                    format!(
                        "{}:{}-{} {} {} ({})",
                        d.line,
                        d.column,
                        d.end_column,
                        d.severity.as_str(),
                        d.code.as_str(),
                        d.message
                    )
                })
                .collect();
            format!("{name} valid={}\n  {}", v.valid, found.join("\n  "))
        })
        .collect();
    insta::assert_snapshot!(all.join("\n"));
}

#[test]
fn reference_fixture_from_vitaecontext_2() {
    let v = validate(
        "# [Your name]\n\n## EDUCATION\n\n## QUICK REFERENCE\n```yaml\nname:\n  nested: value\n```\n\n<!-- VERIFIED FACTS: role=2026 -->\n\n## LANGUAGES\n\nWorked from 2026-2024.\n",
        FileFacts::default(),
    );
    assert_eq!(
        codes(&v),
        vec![
            (1, "h1_descriptor"),
            (1, "missing_evidence_history"),
            (1, "missing_section"),
            (1, "missing_section"),
            (1, "placeholder"),
            // `name:` without items is an empty name (formats.md); 2.3.0 reports only the
            // missing positioning_summary, because an empty JavaScript array is truthy.
            (5, "missing_quick_field"),
            (5, "missing_quick_field"),
            // Only a comment follows the fence before the next H2.
            (5, "missing_scope_declaration"),
            (5, "quick_reference_position"),
            (7, "quick_reference_yaml"),
            (8, "quick_reference_yaml"),
            (15, "reversed_date_range"),
        ]
    );
}

/// Regression: `name: []` passed as a name because 2.3.0 treats an empty array as truthy;
/// formats.md says an empty name is `missing_quick_field`.
#[test]
fn an_empty_list_is_a_missing_quick_field() {
    let start = EXAMPLE.find("name: Rowan Vale\n").unwrap();
    let end = EXAMPLE.find("location:").unwrap();
    let with = |quick: &str| format!("{}{quick}{}", &EXAMPLE[..start], &EXAMPLE[end..]);
    let missing = |text: &str| -> Vec<String> {
        let v = validate(text, FileFacts::default());
        v.errors.iter().filter(|d| d.code == Code::MissingQuickField).map(|d| d.message.clone()).collect()
    };
    assert!(missing(&with("name: Rowan Vale\npositioning_summary: Platform engineer.\n")).is_empty());
    assert!(missing(&with("name: [Rowan Vale]\npositioning_summary: Platform engineer.\n")).is_empty());
    assert_eq!(
        missing(&with("name: []\npositioning_summary: Platform engineer.\n")),
        ["QUICK REFERENCE is missing 'name'"]
    );
    assert_eq!(
        missing(&with("name: Rowan Vale\npositioning_summary: []\n")),
        ["QUICK REFERENCE is missing 'positioning_summary'"]
    );
}

#[test]
fn missing_h1_and_quick_reference_report_line_one() {
    let v = validate("no headings at all", FileFacts::default());
    let c = codes(&v);
    assert!(c.contains(&(1, "h1_count")) && c.contains(&(1, "missing_quick_reference")), "{c:?}");
}

#[test]
fn fenced_code_hides_headings_dates_and_placeholders() {
    let text = EXAMPLE.replace("## LANGUAGES", "```text\n# Fake H1\n1999-1990 TODO\n```\n\n## LANGUAGES");
    let v = validate(&text, FileFacts::default());
    assert!(v.valid, "{:?}", codes(&v));
}

#[test]
fn crlf_reads_as_lf() {
    let crlf = EXAMPLE.replace('\n', "\r\n");
    let a = validate(EXAMPLE, FileFacts::default());
    let b = validate(&crlf, FileFacts::default());
    assert_eq!(a.sections, b.sections);
    assert!(b.valid);
}

#[test]
fn goals_can_be_declined() {
    let text = EXAMPLE.replace("## GOALS AND TARGETING", "## AMBITIONS");
    assert!(codes(&validate(&text, FileFacts::default())).contains(&(1, "missing_section")));
    let declined = format!("{text}\n<!-- goals_declined: true -->\n");
    assert!(validate(&declined, FileFacts::default()).valid);
}

#[test]
fn tldr_may_be_bold() {
    let text = EXAMPLE.replace("TL;DR: Shipped booking", "**TL;DR:** Shipped booking");
    assert!(validate(&text, FileFacts::default()).warnings.is_empty());
}

#[test]
fn org_tag_alone_is_no_evidence() {
    let text = "# A - b\n## QUICK REFERENCE\n```yaml\nname: A\npositioning_summary: B\n```\nScope.\n<!-- VERIFIED FACTS: a=1 -->\n## GOALS AND TARGETING\n## SKILLS INDEX\n### Club [ORG]\n";
    assert_eq!(codes(&validate(text, FileFacts::default())), vec![(1, "missing_evidence_history")]);
    let with_role = text.replace("[ORG]", "[ROLE]\nTL;DR: x");
    assert!(validate(&with_role, FileFacts::default()).valid);
}

#[test]
fn the_fictional_marker_silences_the_git_warning_only() {
    let broken = BROKEN.iter().find(|(n, _)| *n == "tracked_workspace_path").unwrap().1;
    assert!(validate(broken, FileFacts { in_git_worktree: false }).warnings.is_empty());
    assert_eq!(validate(broken, FileFacts { in_git_worktree: true }).warnings[0].code, Code::TrackedWorkspacePath);
}

#[test]
fn packets_per_surface() {
    let v = validate(EXAMPLE, FileFacts::default());
    let mut all = String::new();
    for s in Surface::ALL {
        let p = packet(&v, EXAMPLE, "career-context.md", s).unwrap();
        all.push_str(&format!("===== {s}: {:?}\n", p.selected_sections));
        if s == Surface::General {
            all.push_str(&p.content);
        }
    }
    insta::assert_snapshot!(all);
}

#[test]
fn packet_layout_is_exact() {
    let v = validate(EXAMPLE, FileFacts::default());
    let p = packet(&v, EXAMPLE, "career-context.md", Surface::X).unwrap();
    let head = "# Career Context packet - x\n\n> Generated from career-context.md. This packet preserves supplied facts; it does not independently verify them.\n\n## QUICK REFERENCE\n```yaml\nname: \"Rowan Vale\"\n";
    assert!(p.content.starts_with(head), "{}", p.content);
    assert!(p.content.contains("\nremote: true\nyears_experience: 8\n"));
    assert!(p.content.contains("core_stack: [\"Rust\", \"Go\", \"Bazel\", \"Kubernetes\", \"PostgreSQL\"]\n"));
    assert!(p.content.ends_with("\n") && !p.content.ends_with("\n\n"));
    assert!(!p.content.contains("## LANGUAGES"), "x does not carry languages");
    assert!(!p.content.contains("## EDUCATION"), "x carries no degrees");
}

#[test]
fn an_invalid_file_has_no_packet() {
    let (_, text) = BROKEN.iter().find(|(n, _)| *n == "placeholder").unwrap();
    let v = validate(text, FileFacts::default());
    assert_eq!(packet(&v, text, "x.md", Surface::Cv).unwrap_err().errors, v.errors.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    // Any text at all: no panic, diagnostics sorted, lines inside the file.
    #[test]
    fn validation_never_panics(text in "(?s)[#\\-\\[\\]A-Za-z0-9 :`~*_<>!\u{2013}\u{2028}\u{FEFF}\t\r\n]{0,400}") {
        let v = validate(&text, FileFacts { in_git_worktree: true });
        let lines = text.replace("\r\n", "\n").split('\n').count();
        for d in v.errors.iter().chain(&v.warnings) {
            prop_assert!(d.line >= 1 && d.line <= lines.max(1));
            prop_assert!(d.column <= d.end_column);
        }
        prop_assert!(v.errors.windows(2).all(|w| (w[0].line, w[0].code.as_str()) <= (w[1].line, w[1].code.as_str())));
        prop_assert_eq!(v.valid, v.errors.is_empty());
        for s in Surface::ALL {
            let _ = packet(&v, &text, "f.md", s);
        }
    }

    // Structured files built from real pieces: still no panic, and a valid file always packets.
    #[test]
    fn assembled_files_packet_when_valid(pieces in proptest::collection::vec(prop_oneof![
        Just("# A - b\n"), Just("## QUICK REFERENCE\n```yaml\nname: A\npositioning_summary: B\n```\nScope.\n"),
        Just("## GOALS AND TARGETING\nx\n"), Just("## SKILLS INDEX\n- Rust\n"), Just("### Job [ROLE]\nTL;DR: y\n"),
        Just("<!-- VERIFIED FACTS: a=1 -->\n"), Just("2020-2019\n"), Just("[your name]\n"), Just("```\n"),
    ], 0..12)) {
        let text: String = pieces.concat();
        let v = validate(&text, FileFacts::default());
        for s in Surface::ALL {
            prop_assert_eq!(packet(&v, &text, "f.md", s).is_ok(), v.valid);
        }
    }
}

#[test]
fn the_starter_fails_until_its_placeholders_are_replaced() {
    let v = validate(STARTER, FileFacts::default());
    assert!(!v.valid);
    let kinds: std::collections::BTreeSet<_> = v.errors.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["empty_quick_value", "placeholder"], "{:?}", codes(&v));
    let filled =
        regex::Regex::new(r"\[(?:Your|Replace|Add|Describe)[^\]]*\]").unwrap().replace_all(STARTER, "Sample fact");
    let v = validate(&filled, FileFacts::default());
    assert!(v.valid, "{:?}", codes(&v));
    assert!(v.warnings.is_empty(), "{:?}", codes(&v));
}

/// Sections are spans of the text validated, not copies: a file with CRLF line ends gives the
/// packet of the same file with LF, and one without holds no second copy.
#[test]
fn a_crlf_file_packets_as_its_lf_twin() {
    let crlf = EXAMPLE.replace('\n', "\r\n");
    let (a, b) = (validate(EXAMPLE, FileFacts::default()), validate(&crlf, FileFacts::default()));
    for s in Surface::ALL {
        assert_eq!(packet(&a, EXAMPLE, "f.md", s).unwrap(), packet(&b, &crlf, "f.md", s).unwrap(), "{s}");
    }
    let first = &a.sections[0];
    assert!(a.section_text(EXAMPLE, first).starts_with("## "), "{:?}", first.content);
}

/// Many QUICK REFERENCE keys, some empty: each empty value is marked on its own line (the keys
/// are looked up once, not scanned for each), and a duplicate key is still an error.
#[test]
fn many_quick_reference_keys_are_read_and_marked_in_one_pass() {
    let mut quick = String::from("name: A\npositioning_summary: B\n");
    for i in 0..3000 {
        quick.push_str(&if i % 1000 == 7 { format!("e{i}: TODO\n") } else { format!("k{i}: v{i}\n") });
    }
    quick.push_str("k5: again\n");
    let text = format!(
        "# A Person - Engineer\n\n## QUICK REFERENCE\n```yaml\n{quick}```\n\nScope: x.\n\n## GOALS AND TARGETING\n\nx\n\n## SKILLS INDEX\n\n- x\n"
    );
    let v = validate(&text, FileFacts::default());
    let empty: Vec<usize> = v
        .errors
        .iter()
        .filter(|d| d.code.as_str() == "empty_quick_value")
        .filter_map(|d| d.shown.as_ref())
        .map(|s| text[..s.marks[0].0.start].matches('\n').count() + 1)
        .collect();
    // Line 5 holds `name`; key `e{i}` is on line 7 + i.
    assert_eq!(empty, [14, 1014, 2014], "{:?}", codes(&v));
    assert!(v.errors.iter().any(|d| d.message.contains("Duplicate QUICK REFERENCE field: k5")), "{:?}", codes(&v));
}

/// Every placeholder on a line is marked, in the one finding 2.3.0 counts for the line.
#[test]
fn every_placeholder_on_a_line_is_marked() {
    let text = format!("{STARTER}\nI was [Your role] at [Your company].\n");
    let v = validate(&text, FileFacts::default());
    let line = text.lines().position(|l| l.contains("[Your role] at [Your company]")).unwrap() + 1;
    let on_line: Vec<_> = v.errors.iter().filter(|d| d.code.as_str() == "placeholder" && d.line == line).collect();
    assert_eq!(on_line.len(), 1, "{:?}", codes(&v));
    let marks = &on_line[0].shown.as_ref().expect("marks").marks;
    let marked: Vec<&str> = marks.iter().map(|(r, _)| &text[r.clone()]).collect();
    assert!(marked.len() >= 2 && marked[0] == "[Your role]" && marked[1] == "[Your company]", "{marked:?}");
}
