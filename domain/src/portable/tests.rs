//! The round trip: a career rendered as files (as an import writes them), exported as JSON
//! Resume, and imported again gives back the same facts.

use proptest::prelude::*;

use super::date::PartialDate;
use super::model::{Career, Entry, EntryKind, Language, Person, Profile, Skill, Source};
use super::{gather, json_resume, render};

fn word() -> impl Strategy<Value = String> {
    "[A-Z][a-z]{1,8}"
}

fn phrase() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![word(), "[a-z]{1,8}", "[0-9]{1,4}%?", Just("C++".to_owned()), Just("Zürich".to_owned())],
        1..5,
    )
    .prop_map(|w| w.join(" "))
}

fn sentence() -> impl Strategy<Value = String> {
    prop::collection::vec(phrase(), 1..4).prop_map(|p| format!("{}.", p.join(", ")))
}

fn date() -> impl Strategy<Value = PartialDate> {
    (1990u16..2030, prop::option::of((1u8..=12, prop::option::of(1u8..=28))))
        .prop_map(|(y, md)| PartialDate::new(y, md.map(|(m, _)| m), md.and_then(|(_, d)| d)).unwrap())
}

fn entry() -> impl Strategy<Value = Entry> {
    (
        prop::sample::select(EntryKind::ALL.to_vec()),
        phrase(),
        prop::option::of(phrase()),
        prop::option::of(phrase()),
        prop::option::of(date()),
        prop::option::of(date()),
        prop::option::of("[a-z]{3,8}".prop_map(|d| format!("https://{d}.example.org/x"))),
        prop::option::of(sentence()),
        prop::collection::vec(sentence(), 0..3),
        prop::option::of("[A-F]|[1-4]\\.[0-9]"),
        prop::option::of(phrase()),
    )
        .prop_map(|(kind, title, org, area, start, end, url, summary, highlights, score, location)| {
            let mut e = Entry::new(kind, &title, Source::default());
            // What each kind carries in JSON Resume.
            e.organization = org.filter(|o| *o != title);
            e.start = start;
            match kind {
                EntryKind::Role => {
                    e.end = end.filter(|_| start.is_some());
                    e.location = location;
                }
                EntryKind::Project => e.end = end.filter(|_| start.is_some()),
                EntryKind::Degree => {
                    e.end = end;
                    e.area = area;
                    e.score = score;
                }
                _ => {}
            }
            e.current = matches!(kind, EntryKind::Role | EntryKind::Project) && e.start.is_some() && e.end.is_none();
            if kind != EntryKind::Award {
                e.url = url;
            }
            if kind != EntryKind::Certification && kind != EntryKind::Degree {
                e.summary = summary;
            }
            if matches!(kind, EntryKind::Role | EntryKind::Project | EntryKind::Degree) {
                e.highlights = highlights;
            }
            e
        })
}

fn career() -> impl Strategy<Value = Career> {
    (
        (phrase(), prop::option::of(sentence()), prop::option::of(sentence()), prop::option::of(phrase())),
        prop::option::of("[a-z]{2,8}@[a-z]{2,8}\\.org"),
        prop::option::of("\\+[0-9]{6,12}"),
        prop::collection::vec((word(), "[a-z]{2,8}"), 0..3),
        prop::collection::vec(entry(), 0..8),
        prop::collection::vec((word(), prop::option::of(phrase())), 0..3),
        prop::collection::vec((phrase(), prop::option::of(word()), prop::collection::vec(word(), 0..3)), 0..6),
    )
        .prop_map(|((name, headline, summary, location), email, phone, profiles, entries, languages, skills)| {
            Career {
                person: Person {
                    name,
                    headline,
                    summary,
                    location,
                    email,
                    phone,
                    url: Some("https://ada.example.org".into()),
                    profiles: profiles
                        .into_iter()
                        .map(|(network, user)| Profile { network, url: format!("https://example.com/{user}") })
                        .collect(),
                    source: Source::default(),
                },
                entries,
                languages: languages
                    .into_iter()
                    .map(|(name, fluency)| Language { name, fluency, source: Source::default() })
                    .collect(),
                skills: skills
                    .into_iter()
                    .map(|(name, level, keywords)| Skill { name, level, keywords, source: Source::default() })
                    .collect(),
            }
        })
}

/// The facts of a career, without where they came from, in one order.
fn facts(c: &Career) -> Career {
    let mut c = c.clone();
    c.person.source = Source::default();
    for e in &mut c.entries {
        e.source = Source::default();
    }
    for l in &mut c.languages {
        l.source = Source::default();
    }
    for s in &mut c.skills {
        s.source = Source::default();
    }
    c.entries.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    c
}

/// The files an import of `career` writes, read back and exported, then imported.
fn round_trip(career: &Career) -> (Career, String) {
    let rendered = render::render(career, "a test");
    let records: Vec<(String, String)> = rendered.records.iter().map(|r| (r.path.clone(), r.text.clone())).collect();
    let gathered = gather::gather(Some((&rendered.context, "career-context.md")), &records);
    let json = json_resume::to_json(&json_resume::from_career(&gathered));
    let back = json_resume::import("resume.json", &json).expect("an export is a valid JSON Resume");
    (back.career, json)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn an_import_of_an_export_gives_back_the_same_facts(c in career()) {
        let (back, json) = round_trip(&c);
        prop_assert_eq!(facts(&back), facts(&c), "{}", json);
    }

    #[test]
    fn every_record_an_import_writes_is_valid(c in career()) {
        let rendered = render::render(&c, "a test");
        let pages: Vec<crate::graph::page::Page> =
            rendered.records.iter().map(|r| crate::graph::page::Page::parse(&r.path, &r.text)).collect();
        let mut files: Vec<String> = rendered.records.iter().map(|r| r.path.clone()).collect();
        files.push("VITAEGRAPH.md".into());
        files.push("index.md".into());
        for p in &pages {
            let id = p.id().and_then(|v| v.as_str()).unwrap_or_default().to_owned();
            prop_assert!(crate::graph::validate::is_valid_id(&id), "{id}");
            prop_assert_eq!(p.attr("title").and_then(|v| v.as_str()).map(str::is_empty), Some(false));
        }
        let ids: std::collections::BTreeSet<_> = rendered.records.iter().map(|r| r.id.clone()).collect();
        prop_assert_eq!(ids.len(), rendered.records.len());
    }
}

#[test]
fn a_fresh_import_validates_but_for_what_only_the_person_can_add() {
    let mut c = Career::default();
    c.person.name = "Ada Lovelace".into();
    c.person.headline = Some("Analytical engine programmer".into());
    let mut role = Entry::new(EntryKind::Role, "Engineer", Source::row("Positions.csv", 2));
    role.organization = Some("Acme".into());
    role.start = PartialDate::new(2019, Some(1), None);
    role.current = true;
    c.entries.push(role);
    let r = render::render(&c, "LinkedIn archive x.zip");
    let v = crate::career::validate(&r.context, crate::career::FileFacts::default());
    let mut codes: Vec<&str> = v.errors.iter().chain(&v.warnings).map(|d| d.code.as_str()).collect();
    codes.sort();
    assert_eq!(codes, ["missing_scope_declaration", "missing_tldr", "missing_verified_facts"], "{}", r.context);
    assert_eq!(render::to_fill(&r.context), ["scope", "goals", "TL;DR", "VERIFIED FACTS"]);
    assert!(r.context.contains("<!-- source: Positions.csv row 2 · record: experience:acme-engineer -->"));
    assert_eq!(r.records[0].path, "experience/acme-engineer/experience.md");
}
