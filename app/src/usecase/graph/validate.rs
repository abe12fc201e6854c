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
    template_errors(v, records.iter().map(|r| (r.page.path.as_str(), r.template)))
}

/// `v` with a `template_text` error for each record whose text still holds the guidance that
/// `graph add` writes (found in review: it was validated, indexed and served as the person's
/// facts): like a Career Context placeholder, it makes the graph invalid until replaced. Each
/// record comes with the guidance line its text holds, found when it was parsed
/// ([`Record::template`]): no text is scanned here.
pub fn template_errors<'a>(
    mut v: GraphValidation,
    records: impl Iterator<Item = (&'a str, Option<u16>)>,
) -> GraphValidation {
    for (path, line) in records {
        let Some(line) = line.and_then(domain::graph::new_record::template_line) else { continue };
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

    /// A record parsed with guidance left in it is reported, in the records' order, with the
    /// guidance line; one filled in is not.
    #[test]
    fn records_left_as_written_are_reported_in_order() {
        let left = "The decisions and the work that were yours.";
        let templated = [3, 1024, 2500, 4999];
        let records: Vec<Record> = (0..5000)
            .map(|i| {
                let text = if templated.contains(&i) {
                    format!("## Results\n\n- {left}\n")
                } else {
                    format!("Shipped {i} things.\n")
                };
                Record::parse(&format!("projects/p-{i:05}.md"), &text)
            })
            .collect();
        let clean = GraphValidation { valid: true, record_count: 5000, errors: vec![], warnings: vec![] };
        let v = template_errors(clean.clone(), records.iter().map(|r| (r.page.path.as_str(), r.template)));
        assert!(!v.valid);
        let found: Vec<&str> = v.errors.iter().map(|e| e.path.as_str()).collect();
        let expected: Vec<String> = templated.iter().map(|i| format!("projects/p-{i:05}.md")).collect();
        assert_eq!(found, expected);
        assert!(v.errors.iter().all(|e| e.code == domain::graph::GraphCode::TemplateText && e.message.contains(left)));
        let filled = records.iter().filter(|r| !r.text.contains(left)).map(|r| (r.page.path.as_str(), r.template));
        assert_eq!(template_errors(clean.clone(), filled), clean);
    }
}
