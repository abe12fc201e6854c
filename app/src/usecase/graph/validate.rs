//! `graph validate`: the records' findings, with the guidance `graph add` left unreplaced.

use std::collections::HashSet;
use std::path::Path;

use domain::graph::index::Record;
use domain::graph::{GraphValidation, Page};
use ports::fs::FileSystem;

/// [`validate_pages`] of records read with their texts, with the guidance `graph add` wrote
/// and nobody replaced reported as an error (see [`template_errors`]).
pub fn validate_records(fs: &dyn FileSystem, root: &Path, records: &[Record]) -> GraphValidation {
    let v = validate_pages(fs, root, records);
    template_errors(v, records.iter().map(|r| (r.page.path.as_str(), r.text.as_str())))
}

/// `v` with a `template_text` error for each record whose text still holds the guidance that
/// `graph add` writes (found in review: it was validated, indexed and served as the person's
/// facts): like a Career Context placeholder, it makes the graph invalid until replaced.
pub fn template_errors<'a>(
    mut v: GraphValidation,
    records: impl Iterator<Item = (&'a str, &'a str)>,
) -> GraphValidation {
    // Every text is scanned, on every core: at 100,000 records the scan on one thread was
    // 0.15 s of an index after one edit, on its critical path.
    let records: Vec<(&str, &str)> = records.collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let chunk = records.len().div_ceil(threads).max(1024);
    let found: Vec<(&str, &'static str)> = std::thread::scope(|s| {
        let scan = |part: &[(&'a str, &'a str)]| -> Vec<(&'a str, &'static str)> {
            part.iter()
                .filter_map(|&(path, text)| Some((path, domain::graph::new_record::template_text_in(text)?)))
                .collect()
        };
        let mut parts = records.chunks(chunk);
        let first = parts.next();
        let others: Vec<_> = parts.map(|part| s.spawn(move || scan(part))).collect();
        let mut found = first.map(scan).unwrap_or_default();
        found.extend(others.into_iter().flat_map(|h| h.join().expect("a template scan panicked")));
        found
    });
    for (path, line) in found {
        v.errors.push(domain::graph::GraphDiagnostic {
            code: domain::graph::GraphCode::TemplateText,
            path: path.to_owned(),
            message: format!("Template text from `graph add` not replaced: {line:?}"),
            line: None,
            other: None,
            note: None,
        });
        v.valid = false;
    }
    v
}

pub fn validate_pages<P: std::borrow::Borrow<Page>>(fs: &dyn FileSystem, root: &Path, pages: &[P]) -> GraphValidation {
    // A link to a record just read needs no stat (at 100,000 records, one stat per link was
    // most of the validation); any other target is looked up on disk.
    // The pages come sorted by path from a walk, so a target is found by a binary search: a
    // set of every path cost 2 MB and 10 ms at 100,000 records, most graphs having few links.
    fn path<P: std::borrow::Borrow<Page>>(p: &P) -> &str {
        p.borrow().path.as_str()
    }
    let sorted = pages.is_sorted_by(|a, b| path(a) < path(b));
    let set: HashSet<&str> = if sorted { HashSet::new() } else { pages.iter().map(path::<P>).collect() };
    let read = |rel: &str| {
        if sorted { pages.binary_search_by(|p| path(p).cmp(rel)).is_ok() } else { set.contains(rel) }
    };
    let exists =
        |p: &Path| p.strip_prefix(root).ok().and_then(Path::to_str).is_some_and(read) || fs.metadata(p).is_ok();
    domain::graph::validate(root, pages, &exists)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scanned in parts on several threads, the findings still come one per templated record,
    /// in the records' order, wherever they fall among the parts.
    #[test]
    fn template_findings_keep_the_records_order_across_threads() {
        let left = "Outcomes with numbers and dates (before -> after, users, time saved).";
        let paths: Vec<String> = (0..5000).map(|i| format!("projects/p-{i:05}.md")).collect();
        let templated = [3, 1024, 2500, 4999];
        let texts: Vec<String> = (0..5000)
            .map(|i| if templated.contains(&i) { format!("Results {left}") } else { format!("Shipped {i} things.") })
            .collect();
        let clean = GraphValidation { valid: true, record_count: 5000, errors: vec![], warnings: vec![] };
        let records = || paths.iter().map(String::as_str).zip(texts.iter().map(String::as_str));
        let v = template_errors(clean.clone(), records());
        assert!(!v.valid);
        let found: Vec<&str> = v.errors.iter().map(|e| e.path.as_str()).collect();
        let expected: Vec<&str> = templated.iter().map(|&i| paths[i].as_str()).collect();
        assert_eq!(found, expected);
        assert!(v.errors.iter().all(|e| e.code == domain::graph::GraphCode::TemplateText && e.message.contains(left)));
        let untouched = template_errors(clean.clone(), records().filter(|(_, t)| !t.contains(left)));
        assert_eq!(untouched, clean);
    }
}
