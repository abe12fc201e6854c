//! The checker against the fictional example person: copied sentences, changed numbers, and
//! any text at all (never a panic).

use super::*;
use crate::graph::index::{Record, build};

const CONTEXT: &str = include_str!("../../../examples/career-context.md");

macro_rules! records {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("../../../examples/vitaegraph/", $path)))),*]
    };
}

const RECORDS: &[(&str, &str)] = records![
    "awards/ci-rebuild-award.md",
    "awards/community-award.md",
    "certifications/cka.md",
    "certifications/terraform-associate.md",
    "education/porto-bsc/courses/databases.md",
    "education/porto-bsc/education.md",
    "education/porto-msc/courses/compilers.md",
    "education/porto-msc/courses/distributed-systems.md",
    "education/porto-msc/education.md",
    "education/porto-msc/thesis.md",
    "experience/harbourline-backend/experience.md",
    "experience/quayside-devex/experience.md",
    "experience/tideline-platform/experience.md",
    "projects/booking-api/project.md",
    "projects/cachewarden/project.md",
    "projects/ci-rebuild/project.md",
    "projects/devstack-cli/project.md",
    "projects/flaky-quarantine/project.md",
    "projects/pipeline-lens/project.md",
    "publications/cache-poisoning-talk.md",
    "publications/flaky-tests-supply-chain.md",
];

pub(crate) fn example_searcher() -> Searcher {
    let records: Vec<Record> = RECORDS.iter().map(|(p, t)| Record::parse(p, t)).collect();
    Searcher::new(build(&records).1)
}

fn run(draft: &str) -> Vec<Claim> {
    let s = example_searcher();
    check(draft, Sources { context: Some(("career-context.md", CONTEXT)), graph: Some(&s), ..Default::default() })
}

fn statuses(claims: &[Claim]) -> Vec<(&str, ClaimStatus)> {
    claims.iter().map(|c| (c.text.as_str(), c.status)).collect()
}

#[test]
fn sentences_copied_from_the_files_are_fully_supported() {
    let draft = "\
- Replaced a hand-rolled Makefile graph with Bazel remote caching; cache hit rate reached 88%.
- Designed flaky-test quarantine that removed 1,900 reruns a week.
- Mentored four engineers; two were promoted to senior.
- Wrote a Go CLI that provisions a full local stack in under three minutes.
- Cut onboarding time for new engineers from two weeks to three days.

Senior Platform Engineer, Tideline Logistics (2021-2026). Led the rebuild of CI for a 220-engineer monorepo, cutting median pipeline time
from 41 to 12 minutes.

Showed that content-addressed action caching cuts rebuild time by 60% on mixed Java and Go codebases.
Served the first 50,000 users, with p99 latency under 120 ms.
";
    let claims = run(draft);
    for c in &claims {
        assert_eq!(c.status, ClaimStatus::Supported, "{:#?}", c);
    }
    assert_eq!(claims.len(), 9);
}

#[test]
fn one_changed_number_is_exactly_that_number_contradicted() {
    let draft = "\
- Replaced a hand-rolled Makefile graph with Bazel remote caching; cache hit rate reached 95%.
- Designed flaky-test quarantine that removed 1,900 reruns a week.
";
    let claims = run(draft);
    assert_eq!(statuses(&claims)[0].1, ClaimStatus::Contradicted);
    let bad: Vec<(&str, &FactStatus)> = claims
        .iter()
        .flat_map(|c| &c.facts)
        .filter(|f| matches!(f.status, FactStatus::Contradicted { .. }))
        .map(|f| (f.text.as_str(), &f.status))
        .collect();
    assert_eq!(bad.len(), 1, "{bad:#?}");
    assert_eq!(bad[0].0, "95%");
    let FactStatus::Contradicted { found, evidence } = bad[0].1 else { unreachable!() };
    assert_eq!(found, "88%");
    assert_eq!(evidence.line, Some(43), "{evidence:?}");
    assert_eq!(claims[1].status, ClaimStatus::Supported);
}

/// Records changed since the index (a server with `--watch` reads each change at once) are
/// read beside it: a number an edit just put in a record is supported, and the number it
/// replaced, now only in the index, is not. Without them, the index answers as it was.
#[test]
fn pending_records_are_read_beside_the_index() {
    let s = example_searcher();
    let path = "projects/cachewarden/project.md";
    let (_, before) = RECORDS.iter().find(|(p, _)| *p == path).unwrap();
    let edited = before.replace("About 1,300 GitHub stars", "About 2,700 GitHub stars");
    assert_ne!(&edited, before, "the test's premise");
    let (_, index) = build(&[Record::parse(path, &edited)]);
    let doc = index.documents.into_iter().next().unwrap();
    let pending = crate::graph::search::Pending::new([(path.to_owned(), Some(doc))]);
    let check_with = |draft: &str, pending| {
        let sources = Sources { context: None, graph: Some(&s), pending, year_now: Some(2026), cancel: None };
        check(draft, sources).into_iter().map(|c| c.status).collect::<Vec<_>>()
    };
    let new = "cachewarden has about 2,700 GitHub stars.";
    let old = "cachewarden has about 1,300 GitHub stars.";
    assert_eq!(check_with(new, Some(&pending)), [ClaimStatus::Supported]);
    assert_ne!(check_with(old, Some(&pending)), [ClaimStatus::Supported], "the index's version is hidden");
    assert_eq!(check_with(old, None), [ClaimStatus::Supported]);
    assert_ne!(check_with(new, None), [ClaimStatus::Supported]);
}

#[test]
fn invented_names_and_dates_are_not_supported() {
    let claims =
        run("Led the Kafka migration at Stripe in 2012.\nSenior Platform Engineer at Tideline Logistics since 2019.");
    assert_eq!(claims[0].status, ClaimStatus::Unsupported, "{:#?}", claims[0]);
    assert_eq!(claims[1].status, ClaimStatus::Contradicted, "{:#?}", claims[1]);
}

#[test]
fn without_files_nothing_is_supported() {
    let claims = check("Cut CI time by 71% at Tideline Logistics.", Sources::default());
    assert_eq!(claims[0].status, ClaimStatus::Unsupported);
    assert_eq!(check("I like clear writing.", Sources::default())[0].status, ClaimStatus::NoCheckableFacts);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 500, ..Default::default() })]
    /// Splitting, extraction and matching never panic, whatever the text (spans stay on char
    /// boundaries, ranges never run backwards).
    #[test]
    fn never_panics_on_any_text(draft in "(?s)[ -~\n\t–—’éß%#*•-]{0,300}|\\PC{0,200}") {
        let claims = check(&draft, Sources { context: Some(("c.md", &draft)), graph: None, ..Default::default() });
        for c in &claims {
            proptest::prop_assert!(draft.get(c.span.clone()).is_some());
            for f in &c.facts {
                proptest::prop_assert!(draft.get(f.span.clone()).is_some());
            }
        }
    }
}

/// Regression: in `from 41 to 15 minutes` the contradiction names 12, not the 41 both agree on.
#[test]
fn a_contradiction_names_the_value_the_claim_does_not_share() {
    let claims =
        run("Led the rebuild of CI for a 220-engineer monorepo, cutting median pipeline time from 41 to 15 minutes.");
    let found: Vec<&str> = claims[0]
        .facts
        .iter()
        .filter_map(|f| match &f.status {
            FactStatus::Contradicted { found, .. } => Some(found.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(found, ["12 minutes"], "{:#?}", claims[0]);
}

/// Every claim of the example Career Context with at least one fact, as (text, facts).
fn context_claims() -> Vec<(String, Vec<claims::FactText>)> {
    claims::split(CONTEXT)
        .iter()
        .map(|c| (CONTEXT[c.span.clone()].to_owned(), claims::facts(CONTEXT, c)))
        .filter(|(_, f)| !f.is_empty())
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

    /// Any draft made only of sentences and items copied from the person's file is supported.
    #[test]
    fn copied_sentences_are_always_supported(picks in proptest::sample::subsequence((0..context_claims().len()).collect::<Vec<_>>(), 1..12)) {
        let all = context_claims();
        let draft: Vec<&str> = picks.iter().map(|&i| all[i].0.as_str()).collect();
        let draft = draft.join("\n\n");
        for c in run(&draft) {
            proptest::prop_assert!(c.status == ClaimStatus::Supported, "{:#?}", c);
        }
    }

    /// Changing one number (with a unit) of a copied claim reports exactly that number as
    /// contradicted, naming the file's value.
    #[test]
    fn one_changed_number_is_reported_as_that_number(pick in 0usize..1000, bump in 1u32..9) {
        let candidates: Vec<(String, claims::FactText)> = context_claims()
            .into_iter()
            .flat_map(|(text, facts)| facts.into_iter().map(move |f| (text.clone(), f)))
            .filter(|(_, f)| f.kind == FactKind::Number && f.numbers[0].unit.is_some())
            .collect();
        let (text, fact) = &candidates[pick % candidates.len()];
        let start = CONTEXT.find(text.as_str()).unwrap();
        let at = fact.numbers[0].span.start - start..fact.numbers[0].span.end - start;
        // Never a year (1950-2100) and never a value the file has.
        let new_value = fact.numbers[0].value as u64 * 10 + u64::from(bump) * 10_000 + 7;
        let changed = format!("{}{}{}", &text[..at.start], new_value, &text[at.end..]);
        let claims = run(&changed);
        let bad: Vec<&Fact> = claims
            .iter()
            .flat_map(|c| &c.facts)
            .filter(|f| !matches!(f.status, FactStatus::Supported(_)))
            .collect();
        proptest::prop_assert_eq!(bad.len(), 1, "{}: {:#?}", changed, claims);
        proptest::prop_assert!(bad[0].text.starts_with(&new_value.to_string()), "{:#?}", bad);
        let is_contradicted = matches!(&bad[0].status, FactStatus::Contradicted { found, .. } if found.starts_with(&text[at.clone()]));
        proptest::prop_assert!(is_contradicted, "{:#?}", bad);
    }
}

/// Found in review: each of these was "contradicted" by a passage about something else, and
/// the advice was to copy that passage's value in.
#[test]
fn a_contradiction_is_about_the_same_thing() {
    let claims = run("\
I led a team of 12 engineers at Quayside Payments.

pipeline-lens has 5,000 GitHub stars.

Backend Engineer at Harbourline Studio (2015-2018).
");
    // 140 engineers used a CLI there: not the size of a team.
    assert_eq!(claims[0].status, ClaimStatus::PartlySupported, "{:#?}", claims[0]);
    // The 1,300 stars are cachewarden's, another entry than the one the claim names.
    assert_eq!(claims[1].status, ClaimStatus::PartlySupported, "{:#?}", claims[1]);
    // The dates are the named entry's own, from its heading, not the entry above it.
    assert_eq!(claims[2].status, ClaimStatus::Contradicted, "{:#?}", claims[2]);
    let FactStatus::Contradicted { found, evidence } = &claims[2].facts[2].status else { panic!("{:#?}", claims[2]) };
    assert_eq!((found.as_str(), evidence.line), ("2016-2018", Some(54)));
    // The same numbers, said of the same thing, are still contradictions.
    let claims = run("\
- Mentored six engineers, two of whom were promoted to senior.
- My project cachewarden has 3,000 GitHub stars.
");
    assert_eq!(statuses(&claims).iter().map(|s| s.1).collect::<Vec<_>>(), [ClaimStatus::Contradicted; 2]);
}

#[test]
fn a_heading_line_is_read_under_its_own_heading() {
    let passages = evidence::context_passages("cc.md", CONTEXT);
    let heading = passages.iter().find(|p| p.text.contains("Harbourline Studio (2016-2018)")).unwrap();
    assert!(!heading.text.contains("Quayside"), "{:?}", heading.text);
    let h2 = passages.iter().find(|p| p.text == "## EDUCATION").map(|p| &p.origin);
    assert!(matches!(h2, Some(Origin::Context { section, .. }) if section == "EDUCATION"), "{h2:?}");
}

fn contradicted(c: &Claim) -> Vec<&str> {
    c.facts
        .iter()
        .filter_map(|f| match &f.status {
            FactStatus::Contradicted { found, .. } => Some(found.as_str()),
            _ => None,
        })
        .collect()
}

/// Found in a second review, each "contradicted" with advice to copy in a value about
/// something else, or a true claim: none may be.
#[test]
fn no_contradiction_from_what_counts_something_else() {
    let claims = run("\
- Mentored two engineers to promotion to senior at Tideline Logistics.
- Hired three engineers at Tideline Logistics.
- Led a team of 12 engineers at Tideline Logistics.
- Cut the median pipeline by 29 minutes.
- Brought median CI time under 15 minutes for a 220-engineer monorepo.
- Cut CI time by 70%.
- Cut Bazel build time by 50%.
- cachewarden has over 1,000 GitHub stars and three production users.
- Kept the cache hit rate above 85%.
- In 2023 I co-authored a paper on flaky tests at the Workshop on Build Systems, and in 2025 I gave a talk called Poisoned caches: when remote builds lie.
");
    for c in &claims {
        assert!(contradicted(c).is_empty(), "{}: {:#?}", c.text, c.facts);
    }
}

/// A year given to a named paper or talk is that entry's year: the talk's record says 2025,
/// and the paper's year is not the talk's.
#[test]
fn the_year_of_a_named_talk_is_its_own() {
    let claims = run(
        "- In 2023 I co-authored a paper on flaky tests at the Workshop on Build Systems, and in 2024 I gave a talk called Poisoned caches: when remote builds lie.\n",
    );
    assert_eq!(contradicted(&claims[0]), ["2025"], "{:#?}", claims[0]);
}

/// What still is a contradiction, and what no longer passes as supported.
#[test]
fn contradictions_of_the_named_entry_and_its_sub_entries() {
    let claims = run("\
- My MSc thesis at the University of Porto showed that content-addressed action caching cuts rebuild time by 50%.
- Median CI pipeline time at Tideline Logistics dropped to 15 minutes.
- cachewarden has over 2,000 GitHub stars.
- Kept the cache hit rate under 80%.
- At Quayside Payments I cut median pipeline time from 41 to 12 minutes.
- pipeline-lens has 1,300 GitHub stars.
");
    let found: Vec<Vec<&str>> = claims.iter().map(contradicted).collect();
    assert_eq!(found[..4], [vec!["60%"], vec!["12 minutes"], vec!["1,300 GitHub stars"], vec!["88%"]], "{claims:#?}");
    // Tideline's figures and cachewarden's stars do not support claims about other entries.
    for c in &claims[4..] {
        assert_ne!(c.status, ClaimStatus::Supported, "{c:#?}");
    }
}

/// Two roles with one title, at two employers: each claim is about the entry it names most
/// fully, so swapped dates are contradicted by that entry's own.
#[test]
fn swapped_dates_of_two_roles_with_one_title_are_contradicted() {
    let context = "\
# Mira Okafor - Backend engineer

## PROFESSIONAL EXPERIENCE

### Senior Software Engineer [ROLE] - Brightwave Analytics (2020-2024)

TL;DR: Led the query service.

### Senior Software Engineer [ROLE] - Brightwave Health (2018-2020)

TL;DR: Built the HL7 pipeline.
";
    let claims = check(
        "- Senior Software Engineer, Brightwave Analytics (2018-2020).\n- Senior Software Engineer, Brightwave Health (2018-2020).\n",
        Sources { context: Some(("cc.md", context)), graph: None, ..Default::default() },
    );
    assert_eq!(contradicted(&claims[0]), ["2020-2024"], "{:#?}", claims[0]);
    assert_eq!(claims[1].status, ClaimStatus::Supported, "{:#?}", claims[1]);
}

/// A person whose files write units glued and short, and who wants roles they never held.
const UNITS_AND_GOALS: &str = "\
# Marisol Test - Data platform engineer

## QUICK REFERENCE
```yaml
name: Marisol Test
target_roles:
  - Head of Data Platform
```

## GOALS AND TARGETING

- Next: Principal Data Engineer or Head of Data Platform, ideally in fintech.

## PROFESSIONAL EXPERIENCE

### Staff Data Engineer [ROLE] - Brightwater Freight (2022-2025)

- Cut p99 end-to-end latency to 80ms with Flink.
- Throughput 3x on the same hardware.
- Snowflake spend cut $2.4M a year via clustering.
- Incident MTTR 3 h -> 45 min after runbooks.
- Joined the tracking team in March 2022.
- Cut the nightly load from 90 min to 30 min.

### Data Engineer [ROLE] - Quillfeather Health (2018-2022)

- Moved the warehouse to Snowflake.

### tidepool [PROJECT] (2021)

- A Rust CDC connector with 1.3k GitHub stars.

## SKILLS INDEX

- Kafka (9 yrs), Rust (4 yrs), Terraform (5 yrs)
";

fn run_units_and_goals(draft: &str) -> Vec<Claim> {
    check(draft, Sources { context: Some(("cc.md", UNITS_AND_GOALS)), graph: None, ..Default::default() })
}

/// Found in review: `60ms` and `5x` were not read as numbers, so a changed value passed as
/// supported; `80 ms`, `three times` and `$2.4 million` did not meet the file's `80ms`, `3x`
/// and `$2.4M`.
#[test]
fn units_written_another_way_are_the_same_value() {
    let claims = run_units_and_goals(
        "Cut p99 end-to-end latency to 80 ms with Flink.\n\
         Tripled throughput: three times on the same hardware.\n\
         Cut Snowflake spend by $2.4 million a year.\n\
         Brought incident MTTR from 3 hours to 45 minutes.\n",
    );
    for c in &claims {
        assert_eq!(c.status, ClaimStatus::Supported, "{c:#?}");
    }
    let claims = run_units_and_goals(
        "Cut p99 end-to-end latency to 60ms with Flink.\nThroughput 5x on the same hardware.\nCut Snowflake spend by £2.4M a year.\n",
    );
    assert_eq!(contradicted(&claims[0]), ["80ms"], "{:#?}", claims[0]);
    assert_eq!(contradicted(&claims[1]), ["3x"], "{:#?}", claims[1]);
    assert_ne!(claims[2].status, ClaimStatus::Supported, "pounds are not dollars: {:#?}", claims[2]);
}

/// Found in review: the target roles supported `I'm currently Head of Data Platform`. What the
/// person wants supports only a claim about what they want (or a draft's headline).
#[test]
fn goals_support_only_claims_about_goals() {
    let claims = run_units_and_goals(
        "I'm currently Head of Data Platform at Brightwater Freight.\n\
         Seeking a Head of Data Platform role.\n\
         # Marisol Test - Head of Data Platform\n",
    );
    assert_ne!(claims[0].status, ClaimStatus::Supported, "{:#?}", claims[0]);
    assert_eq!(claims[1].status, ClaimStatus::Supported, "{:#?}", claims[1]);
    assert_eq!(claims[2].status, ClaimStatus::Supported, "{:#?}", claims[2]);
    let posting = "## Requirements\n- Fintech experience\n- Flink in production\n";
    let m = job::match_job(
        posting,
        Sources { context: Some(("cc.md", UNITS_AND_GOALS)), graph: None, ..Default::default() },
        "",
    );
    let coverage: Vec<(&str, job::Coverage)> = m.requirements.iter().map(|r| (r.text.as_str(), r.coverage)).collect();
    assert_eq!(
        coverage,
        [("- Fintech experience", job::Coverage::Missing), ("- Flink in production", job::Coverage::Covered)]
    );
}

/// Found in review: in a list of numbers of one unit, `Rust (5 years)` was supported by
/// Terraform's five. The number must be of something the claim names.
#[test]
fn a_number_in_a_list_is_of_its_own_item() {
    let claims = run_units_and_goals("Rust (4 years).\nRust (5 years).\nKafka (9 years), Terraform (5 years).\n");
    assert_eq!(claims[0].status, ClaimStatus::Supported, "{:#?}", claims[0]);
    assert_ne!(claims[1].status, ClaimStatus::Supported, "{:#?}", claims[1]);
    assert_eq!(claims[2].status, ClaimStatus::Supported, "{:#?}", claims[2]);
}

/// A span of years is the entry's dates (`four years at Quillfeather Health`, 2018-2022), and a
/// name between a number and its unit (`3.1k GitHub stars`) says what is counted.
#[test]
fn years_at_an_entry_and_named_units() {
    let claims = run_units_and_goals(
        "Spent four years at Quillfeather Health.\n\nSpent six years at Quillfeather Health.\n\ntidepool has 3.1k GitHub stars.\n\ntidepool has 1,300 stars.\n",
    );
    assert_eq!(claims[0].status, ClaimStatus::Supported, "{:#?}", claims[0]);
    assert_ne!(claims[1].status, ClaimStatus::Supported, "{:#?}", claims[1]);
    assert_eq!(contradicted(&claims[2]), ["1.3k GitHub stars"], "{:#?}", claims[2]);
    assert_eq!(claims[3].status, ClaimStatus::Supported, "{:#?}", claims[3]);
}

/// Found in review: `Joined Lanternfish Bank in June 2021` was supported by `March 2021`.
#[test]
fn a_month_given_with_a_year_must_be_the_files_month() {
    let claims = run_units_and_goals(
        "Joined the tracking team at Brightwater Freight in March 2022.\n\n\
         Joined the tracking team at Brightwater Freight in June 2022.\n\n\
         Joined the tracking team at Brightwater Freight in 2022.\n",
    );
    assert_eq!(claims[0].status, ClaimStatus::Supported, "{:#?}", claims[0]);
    assert_eq!(contradicted(&claims[1]), ["March 2022"], "{:#?}", claims[1]);
    assert_eq!(claims[2].status, ClaimStatus::Supported, "{:#?}", claims[2]);
}

/// Found in the audit of the rules above: a change's size without `by` is not contradicted by
/// its ends, a decade is no number of seconds, and two neighbouring years are not a span.
#[test]
fn change_sizes_decades_and_year_spans() {
    let claims = run_units_and_goals(
        "The nightly load dropped 60 min at Brightwater Freight.\n\n\
         Learned to code in the 1990s.\n\n\
         Spent four years at Brightwater Freight.\n",
    );
    assert_ne!(claims[0].status, ClaimStatus::Contradicted, "{:#?}", claims[0]);
    assert_eq!(claims[1].status, ClaimStatus::NoCheckableFacts, "{:#?}", claims[1]);
    assert_ne!(claims[2].status, ClaimStatus::Supported, "2022-2025 is three years: {:#?}", claims[2]);
}

/// A generated person: roles of distinct titles at distinct employers in consecutive years,
/// each with a team size, as a Career Context and as a draft that repeats every fact.
#[derive(Debug)]
struct Person {
    /// (rank, field, head, employer, start, end, team)
    roles: Vec<(&'static str, &'static str, &'static str, &'static str, i32, i32, u32)>,
}

const RANKS: [&str; 3] = ["Junior", "", "Senior"];
const FIELDS: [&str; 4] = ["Platform", "Ward", "Litigation", "Chemistry"];
const HEADS: [&str; 3] = ["Engineer", "Nurse", "Teacher"];
const EMPLOYERS: [&str; 5] = ["Kestrel Foods", "Orla Hospital", "Brightmoor Academy", "Vantor Systems", "Pellow Legal"];

impl Person {
    fn title(&self, k: usize) -> String {
        let (rank, field, head, ..) = self.roles[k];
        [rank, field, head].iter().filter(|w| !w.is_empty()).copied().collect::<Vec<_>>().join(" ")
    }

    fn context(&self) -> String {
        let mut s = String::from(
            "# Gen Person - Generated\n\n## QUICK REFERENCE\n```yaml\nname: Gen Person\npositioning_summary: Generated.\n```\n\n\
             Scope: generated.\n\n## PROFESSIONAL EXPERIENCE\n\n",
        );
        for (k, r) in self.roles.iter().enumerate() {
            s.push_str(&format!(
                "### {} [ROLE] - {} ({}-{})\n\n- Led a team of {} analysts.\n\n",
                self.title(k),
                r.3,
                r.4,
                r.5,
                r.6
            ));
        }
        s
    }

    /// Two claims of a role: its title, employer and dates; its team size, in the file's words.
    fn claims(title: &str, employer: &str, start: i32, end: i32, team: u32) -> String {
        format!("- {title} at {employer} ({start}-{end})\n- Led a team of {team} analysts at {employer}.\n")
    }
}

fn person() -> impl proptest::strategy::Strategy<Value = Person> {
    use proptest::prelude::*;
    (2usize..5, 0usize..3, proptest::collection::vec((0usize..3, 2u32..40), 5)).prop_map(|(n, shift, picks)| {
        let mut year = 2000;
        let roles = (0..n)
            .map(|k| {
                let (rank, team) = picks[k];
                let len = 2 + ((k + shift) % 3) as i32;
                let r = (
                    RANKS[rank],
                    FIELDS[k % 4],
                    HEADS[(k + shift) % 3],
                    EMPLOYERS[k],
                    year,
                    year + len,
                    team + k as u32 * 50,
                );
                year += len;
                r
            })
            .collect();
        Person { roles }
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 96, ..Default::default() })]

    /// A draft that repeats each role (title, employer, dates, team size) is supported, and
    /// changing one attribute of one role (a more senior title, another role's title, a start or
    /// end year, the team size, the employer) turns exactly that claim contradicted.
    #[test]
    fn one_changed_attribute_contradicts_exactly_that_claim(p in person(), pick in 0usize..8, what in 0usize..6) {
        let context = p.context();
        let k = pick % p.roles.len();
        let mut draft = String::new();
        let mut changed = String::new();
        for (i, r) in p.roles.iter().enumerate() {
            let (mut title, mut start, mut end, mut team, mut employer) = (p.title(i), r.4, r.5, r.6, r.3);
            if i == k {
                match what {
                    // A rank above the held one.
                    0 => title = format!("Principal {} {}", r.1, r.2),
                    // Another role's title, at this employer.
                    1 => title = p.title((i + 1) % p.roles.len()),
                    2 => start -= 1,
                    3 => end += 3,
                    4 => team += 7,
                    // The title and dates claimed at the next role's employer.
                    _ => employer = p.roles[(i + 1) % p.roles.len()].3,
                }
                changed = format!("{title} {employer} {start} {end} {team}");
            }
            let mut two = Person::claims(&title, employer, start, end, team);
            if employer != r.3 {
                // Only the first claim moves: the team claim stays at the role's own employer.
                two = two.replacen(&format!("analysts at {employer}"), &format!("analysts at {}", r.3), 1);
            }
            draft.push_str(&two);
        }
        let claims = check(&draft, Sources { context: Some(("cc.md", &context)), graph: None, year_now: Some(2026), ..Default::default() });
        proptest::prop_assert_eq!(claims.len(), 2 * p.roles.len(), "{}", draft);
        // The team size is the role's second claim.
        let target = 2 * k + usize::from(what == 4);
        for (i, c) in claims.iter().enumerate() {
            let want = if i == target { ClaimStatus::Contradicted } else { ClaimStatus::Supported };
            proptest::prop_assert_eq!(c.status, want, "claim {} ({}) of\n{}\nagainst\n{}\n{:#?}", i, changed, draft, context, c);
        }
    }

    /// The same draft unchanged is fully supported.
    #[test]
    fn a_draft_repeating_every_role_is_supported(p in person()) {
        let context = p.context();
        let draft: String = p.roles.iter().enumerate().map(|(i, r)| Person::claims(&p.title(i), r.3, r.4, r.5, r.6)).collect();
        for c in check(&draft, Sources { context: Some(("cc.md", &context)), graph: None, year_now: Some(2026), ..Default::default() }) {
            proptest::prop_assert_eq!(c.status, ClaimStatus::Supported, "{:#?}", c);
        }
    }
}

/// Classes found by a held-out review (a civil engineer and a chef): each year to the credential
/// it bears out, each language its own level, `graduated in`, the city after an employer,
/// another organisation is not the entry above, a possessive names its owner.
#[test]
fn classes_from_a_held_out_review() {
    const CC: &str = "\
# Tom Held - Site manager
## QUICK REFERENCE
```yaml
name: Tom Held
positioning_summary: Site manager.
location: Manchester, UK
languages: [Polish (C1), German (A2)]
```
Scope: work.
## EXPERIENCE
### Site Manager [ROLE] - Halden Build, Leeds (2016-present)
TL;DR: Schools.
### Commis Chef [ROLE] - Harcourt Grill, Dublin (2010-2012)
### Sous Chef [ROLE] - Ostra, Barcelona (2012-2015)
## EDUCATION
### BEng Civil Engineering [DEGREE] - University of Salford (2011-2014)
## CERTIFICATIONS
### NEBOSH National General Certificate [CERT] (2017)
### Temporary Works Coordinator [CERT] - CITB (2016)
";
    let run = |d: &str| {
        check(d, Sources { context: Some(("cc.md", CC)), graph: None, year_now: Some(2026), ..Default::default() })
    };
    let status = |d: &str| run(d)[0].status;
    assert_eq!(
        status(
            "I completed the NEBOSH National General Certificate in 2017 and the CITB Temporary Works Coordinator course in 2016."
        ),
        ClaimStatus::Supported
    );
    assert_eq!(status("I speak Polish at C1 level and basic German."), ClaimStatus::Supported);
    assert_eq!(status("I speak Polish at C1 level and fluent German."), ClaimStatus::Contradicted);
    assert_eq!(status("I graduated in 2014."), ClaimStatus::Supported);
    assert_eq!(status("I graduated in 2008."), ClaimStatus::Contradicted);
    assert_eq!(status("- Sous Chef, Ostra, Madrid (2012-2015)"), ClaimStatus::Contradicted);
    assert_eq!(status("- Sous Chef, Ostra, Barcelona (2012-2015)"), ClaimStatus::Supported);
    assert_eq!(status("- Junior Sous Chef, Harcourt Grill (2010-2012)"), ClaimStatus::Contradicted);
    // Under a role heading, a season at an employer the files lack is not that role's.
    let claims = run("### Site Manager - Halden Build (2016-present)\n\n- I also worked a season at Noma in 2018.\n");
    assert_ne!(claims[1].status, ClaimStatus::Supported, "{:#?}", claims[1]);
    // A possessive names its owner: the employer as the files write it.
    assert_eq!(status("I was Head of Site Operations at Halden Build's Leeds office."), ClaimStatus::Contradicted);
}

/// A `never_claim` item is found with a qualifier between its words ("Independent Nurse
/// Prescriber" for `independent prescriber`), in another form of them, and not when negated.
#[test]
fn never_claim_items_are_found_with_a_qualifier_between_their_words() {
    let context = "# Jo Reyes - Nurse\n\n## QUICK REFERENCE\n```yaml\nname: Jo Reyes\n\
        never_claim: [independent prescriber]\n```\n\n## EXPERIENCE\n\n### Staff Nurse [ROLE] - Northgate (2019-present)\n";
    let run = |d: &str| {
        check(d, Sources { context: Some(("cc.md", context)), graph: None, year_now: Some(2026), ..Default::default() })
    };
    for claim in ["- Independent Nurse Prescriber, qualified 2020", "Independent prescribing qualification (2021)."] {
        let c = &run(claim)[0];
        assert_eq!(c.status, ClaimStatus::Contradicted, "{claim}: {c:#?}");
    }
    assert_ne!(run("I am not an independent nurse prescriber.")[0].status, ClaimStatus::Contradicted);
}

/// An effect credited to a true activity in an attached clause must itself be in the files:
/// each invented outcome makes its claim partly supported and is listed as not found, while an
/// outcome the files state with the activity, or a clause with no outcome verb, changes nothing.
#[test]
fn an_invented_outcome_on_a_true_activity_is_not_supported() {
    let invented = [
        "- Designed flaky-test quarantine that removed 1,900 reruns a week, halving customer complaints.",
        "- Replaced a hand-rolled Makefile graph with Bazel remote caching, resulting in fewer production outages.",
        "- Designed flaky-test quarantine that removed 1,900 reruns a week, saving EUR 2m in licences.",
    ];
    for draft in invented {
        let claims = run(draft);
        assert_eq!(claims[0].status, ClaimStatus::PartlySupported, "{draft}: {:?}", claims[0].facts);
        let outcome = claims[0].facts.iter().find(|f| f.kind == FactKind::Outcome).expect("the outcome listed");
        assert_eq!(outcome.status, FactStatus::Unsupported);
        assert!(draft.contains(&outcome.text) && !outcome.text.starts_with(','), "{}", outcome.text);
    }
    let kept = [
        "- Replaced a hand-rolled Makefile graph with Bazel remote caching, raising the cache hit rate to 88%.",
        "- Designed flaky-test quarantine that removed 1,900 reruns a week, with Bazel.",
    ];
    for draft in kept {
        let claims = run(draft);
        assert_eq!(claims[0].status, ClaimStatus::Supported, "{draft}: {:?}", claims[0].facts);
    }
}

/// Working at an organisation the files know only as where the person studied (or was
/// certified) is an invented job, whatever the verb; working where they hold a role is not.
#[test]
fn a_job_at_a_place_the_files_know_otherwise_is_unsupported() {
    for draft in [
        "I also teach a compilers module at University of Porto.",
        "- Worked at University of Porto on the build farm.",
        "Since 2020 I have lectured at University of Porto.",
    ] {
        let claims = run(draft);
        assert_eq!(claims[0].status, ClaimStatus::Unsupported, "{draft}: {:?}", claims[0]);
        let job = claims[0].assertions.iter().find(|a| a.kind == typed::AssertionKind::Employment).expect("read");
        assert!(job.explain.contains("degree"), "{}", job.explain);
    }
    let claims = run("I work at Tideline Logistics on the platform team.");
    assert_ne!(claims[0].status, ClaimStatus::Unsupported, "{:?}", claims[0]);
}

/// A size written with a hyphen (`220-engineer monorepo`) is contradicted by another size of
/// the same thing, borne out by the same count written plainly, and never the count of a team.
#[test]
fn a_hyphenated_size_is_compared_with_sizes() {
    let claims = run("- Brought median CI time under 15 minutes for a 300-engineer monorepo.\n");
    assert_eq!(claims[0].status, ClaimStatus::Contradicted, "{:#?}", claims[0].facts);
    assert_eq!(contradicted(&claims[0]), ["220"], "the value the files give");
    let claims = run("- Led a team of 12 engineers at Tideline Logistics.\n");
    assert!(contradicted(&claims[0]).is_empty(), "{:#?}", claims[0].facts);
}

/// A count's noun may carry a modifier in one text and not the other, and a generic `units`
/// stands for what the file counts; two different modifiers stay two counts.
#[test]
fn a_count_is_borne_out_by_the_same_noun_with_or_without_a_modifier() {
    let context = "# Elin Test - Hardware engineer\n\n## PROFESSIONAL EXPERIENCE\n\n\
                   ### Senior Hardware Engineer [ROLE] - Voltrane Systems (2019-present)\n\n\
                   Leading a team of four hardware engineers on the 11 kW charger.\n\n\
                   - More than 60,000 chargers shipped by the end of 2025.\n";
    let sources =
        Sources { context: Some(("cc.md", context)), graph: None, year_now: Some(2026), ..Default::default() };
    let verdict = |draft: &str| check(draft, sources).remove(0).status;
    assert_eq!(verdict("Led four engineers at Voltrane Systems."), ClaimStatus::Supported);
    assert_eq!(verdict("Shipped more than 60,000 units at Voltrane Systems."), ClaimStatus::Supported);
    assert_ne!(verdict("Hired four junior engineers at Voltrane Systems."), ClaimStatus::Supported);
    assert_eq!(verdict("Led a team of five hardware engineers at Voltrane Systems."), ClaimStatus::Contradicted);
}

/// A numeric QUICK REFERENCE key counts what its name says: `patents_granted: 1` bears out
/// `1 granted patent` in a long headline and goes against `3 granted patents`.
#[test]
fn a_numeric_quick_reference_key_supports_or_contradicts_the_count_it_names() {
    let context = "# Elin Test - Hardware engineer\n\n## QUICK REFERENCE\n```yaml\nname: Elin Test\n\
                   patents_granted: 1\n```\n\n## PROFESSIONAL EXPERIENCE\n\n\
                   ### Senior Hardware Engineer [ROLE] - Voltrane Systems (2019-present)\n\n\
                   Power electronics for the 11 kW on-board charger.\n";
    let sources =
        Sources { context: Some(("cc.md", context)), graph: None, year_now: Some(2026), ..Default::default() };
    let verdict = |draft: &str| check(draft, sources).remove(0).status;
    assert_eq!(
        verdict("Senior Hardware Engineer at Voltrane Systems | Power electronics | 1 granted patent"),
        ClaimStatus::Supported
    );
    assert_eq!(verdict("Holder of 3 granted patents in power electronics."), ClaimStatus::Contradicted);
    assert_ne!(verdict("Holder of 3 pending patents in power electronics."), ClaimStatus::Contradicted);
}
