// The grounding corpus of tests/grounding/: four fictional people of four professions, each
// with a Career Context (two with VitaeGraph records), three drafts and two job postings, every
// claim and requirement labelled by hand before the checker ran on them. This test runs
// `vitaecontext check --json` and `vitaecontext match --json` on each, prints precision and
// recall per class and the four figures, and fails when any falls below the floor it
// asserts (the figures measured when the floor was set; see tests/grounding/README.md).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::grounding::class;
use crate::util::{Cmd, copy_dir, repo_root};

/// One person of the corpus, with an indexed copy of their records when they have some.
struct Person {
    dir: PathBuf,
    _tmp: tempfile::TempDir,
    root: Option<PathBuf>,
}

impl Person {
    fn new(dir: &Path) -> Person {
        let tmp = tempfile::tempdir().unwrap();
        let root = dir.join("vitaegraph").is_dir().then(|| {
            let root = tmp.path().join("vitaegraph");
            copy_dir(&dir.join("vitaegraph"), &root);
            let (status, _, err) = Cmd::new(["graph", "index", "--root", root.to_str().unwrap()]).output();
            assert!(status.success(), "{}: {err}", dir.display());
            root
        });
        Person { dir: dir.to_owned(), _tmp: tmp, root }
    }

    fn json(&self, cmd: &str, file: &str) -> Value {
        let mut args: Vec<String> = vec![
            cmd.into(),
            self.dir.join(file).display().to_string(),
            "--json".into(),
            "--context".into(),
            self.dir.join("career-context.md").display().to_string(),
        ];
        if let Some(root) = &self.root {
            args.extend(["--root".into(), root.display().to_string()]);
        }
        // `Cmd` clears the environment and sets a fresh HOME: no other file is read.
        let (status, out, err) = Cmd::new(args).output();
        let code = status.code().unwrap_or(-1);
        assert!(code == 0 || code == 1, "{cmd} {file}: exit {code}: {err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{cmd} {file}: {e}: {out}"))
    }
}

/// The rows of a labels file: (file, line, first words, label columns...).
fn rows(path: &Path) -> Vec<Vec<String>> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

fn people() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(repo_root().join("tests/grounding"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("labels.tsv").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The floors: (figure, minimum). Measured on this corpus when set (see the README's table);
/// a change that makes any figure worse fails here.
const FLOORS: &[(&str, f64)] = &[
    ("true claims not flagged", 0.95),
    ("invented claims caught", 0.95),
    ("wrong values contradicted", 0.8),
    ("requirements agreeing", 0.85),
];

#[test]
fn the_checker_is_measured_on_four_people() {
    let mut confusion: BTreeMap<(String, &str), usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    let (mut req_agree, mut req_total) = (0usize, 0usize);
    let mut req_wrong = Vec::new();
    for dir in people() {
        let who = dir.file_name().unwrap().to_string_lossy().into_owned();
        let person = Person::new(&dir);
        // Claims.
        let mut by_draft: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        for r in rows(&dir.join("labels.tsv")) {
            assert!(r.len() >= 4, "{who}: bad label row {r:?}");
            by_draft.entry(r[0].clone()).or_default().push(r);
        }
        for (draft, labels) in &by_draft {
            let v = person.json("check", draft);
            let mut used = vec![false; labels.len()];
            for c in v["claims"].as_array().unwrap() {
                let text = c["text"].as_str().unwrap();
                let line = c["line"].as_u64().unwrap().to_string();
                let i = labels
                    .iter()
                    .enumerate()
                    .position(|(k, l)| !used[k] && l[1] == line && text.starts_with(l[2].as_str()))
                    .unwrap_or_else(|| panic!("{who}/{draft}:{line}: claim {text:?} has no label"));
                used[i] = true;
                let (label, predicted) = (labels[i][3].clone(), class(c["status"].as_str().unwrap()));
                if label != predicted {
                    let why: Vec<String> = c["assertions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .chain(c["facts"].as_array().unwrap())
                        .filter(|a| a["status"] != "supported")
                        .map(|a| format!("{} {}", a["text"], a["status"]))
                        .collect();
                    wrong.push(format!("{who}/{draft}:{line} {label} -> {predicted}: {text} [{}]", why.join("; ")));
                }
                *confusion.entry((label, predicted)).or_default() += 1;
            }
            for (i, u) in used.iter().enumerate() {
                assert!(u, "{who}/{draft}: label {:?} matches no claim", labels[i]);
            }
        }
        // Requirements.
        let reqs = dir.join("requirements.tsv");
        if !reqs.is_file() {
            continue;
        }
        let mut by_posting: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        for r in rows(&reqs) {
            assert!(r.len() >= 5, "{who}: bad requirement row {r:?}");
            by_posting.entry(r[0].clone()).or_default().push(r);
        }
        for (posting, labels) in &by_posting {
            let v = person.json("match", posting);
            let mut used = vec![false; labels.len()];
            for r in v["requirements"].as_array().unwrap() {
                let text = r["text"].as_str().unwrap().trim_start_matches(['-', '*', '+', '•', ' ']);
                let line = r["line"].as_u64().unwrap().to_string();
                let level = if r["level"] == "must_have" { "must" } else { "nice" };
                let coverage = r["coverage"].as_str().unwrap();
                req_total += 1;
                let found = labels.iter().enumerate().position(|(k, l)| {
                    !used[k] && l[1] == line && text.starts_with(l[2].trim_start_matches(['-', '*', '+', '•', ' ']))
                });
                match found {
                    Some(i) => {
                        used[i] = true;
                        if labels[i][3] == level && labels[i][4] == coverage {
                            req_agree += 1;
                        } else {
                            req_wrong.push(format!(
                                "{who}/{posting}:{line} {}/{} -> {level}/{coverage}: {text}",
                                labels[i][3], labels[i][4]
                            ));
                        }
                    }
                    None => req_wrong
                        .push(format!("{who}/{posting}:{line} not a requirement -> {level}/{coverage}: {text}")),
                }
            }
            for (i, u) in used.iter().enumerate() {
                if !u {
                    req_total += 1;
                    req_wrong.push(format!("{who}/{posting}:{} missed: {}", labels[i][1], labels[i][2]));
                }
            }
        }
    }
    let count = |label: &str, pred: &[&str]| -> (usize, usize) {
        let n: usize = confusion.iter().filter(|((l, _), _)| l == label).map(|(_, n)| n).sum();
        let k: usize = confusion.iter().filter(|((l, p), _)| l == label && pred.contains(p)).map(|(_, n)| n).sum();
        (k, n)
    };
    let total: usize = confusion.values().sum();
    let mut table = format!("claims: {total}\n{:<14}{:>10}{:>8}{:>6}\n", "class", "precision", "recall", "n");
    for class in ["supported", "contradicted", "invented", "none"] {
        let tp = confusion.get(&(class.to_owned(), class)).copied().unwrap_or(0);
        let predicted: usize = confusion.iter().filter(|((_, p), _)| *p == class).map(|(_, n)| n).sum();
        let actual: usize = confusion.iter().filter(|((l, _), _)| l == class).map(|(_, n)| n).sum();
        let p = if predicted == 0 { 0.0 } else { tp as f64 / predicted as f64 };
        let r = if actual == 0 { 0.0 } else { tp as f64 / actual as f64 };
        table.push_str(&format!("{class:<14}{p:>10.2}{r:>8.2}{actual:>6}\n"));
    }
    let (not_flagged, n_true) = count("supported", &["supported", "none"]);
    let (caught, n_invented) = count("invented", &["invented", "contradicted"]);
    let (contradicted, n_wrong) = count("contradicted", &["contradicted"]);
    let ratio = |k: usize, n: usize| if n == 0 { 1.0 } else { k as f64 / n as f64 };
    let figures = [
        ("true claims not flagged", not_flagged, n_true),
        ("invented claims caught", caught, n_invented),
        ("wrong values contradicted", contradicted, n_wrong),
        ("requirements agreeing", req_agree, req_total),
    ];
    table.push('\n');
    for (name, k, n) in figures {
        table.push_str(&format!("{name:<28}{k:>4}/{n:<4}{:>6.2}\n", ratio(k, n)));
    }
    eprintln!("{table}\nmisclassified claims:\n{}\n\nrequirements:\n{}", wrong.join("\n"), req_wrong.join("\n"));
    let worse: Vec<String> = figures
        .iter()
        .zip(FLOORS)
        .filter(|((_, k, n), (_, min))| ratio(*k, *n) < *min)
        .map(|((name, k, n), (_, min))| format!("{name}: {k}/{n} is below {min}"))
        .collect();
    assert!(worse.is_empty(), "{}", worse.join("\n"));
}
