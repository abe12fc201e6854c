//! LinkedIn's "Download your data" archive: a ZIP of CSV files. Only the files about the person
//! themselves are opened ([`READ`], an allowlist); every other entry (connections, messages,
//! invitations, endorsements, other people's data) is listed as skipped and never inflated.
//!
//! The columns relied on, by file (headers as LinkedIn writes them, matched without regard to
//! case; a missing file or column is no error):
//! - `Profile.csv`: First Name, Last Name, Headline, Summary, Geo Location, Websites, Twitter Handles
//! - `Positions.csv`: Company Name, Title, Description, Location, Started On, Finished On
//! - `Education.csv`: School Name, Start Date, End Date, Notes, Degree Name, Activities
//! - `Skills.csv`: Name
//! - `Languages.csv`: Name, Proficiency
//! - `Certifications.csv`: Name, Url, Authority, Started On, Finished On
//! - `Projects.csv`: Title, Description, Url, Started On, Finished On
//! - `Honors.csv`: Title, Description, Issued On
//! - `Publications.csv`: Name, Published On, Description, Publisher, Url
//!
//! An empty end date with a start means the role is current.

use std::io::Read;

use super::date::PartialDate;
use super::model::{Career, Entry, EntryKind, Language, Profile, Skill, Source, filled, normalize_url, one_line};
use super::{ImportError, Imported, Skipped};

/// The files read, and nothing else.
pub const READ: [&str; 9] = [
    "Profile.csv",
    "Positions.csv",
    "Education.csv",
    "Skills.csv",
    "Languages.csv",
    "Certifications.csv",
    "Projects.csv",
    "Honors.csv",
    "Publications.csv",
];

/// Names (lower-cased prefixes) of the archive's files that hold other people's data: said so
/// when they are skipped. Skipping does not depend on this list; only [`READ`] is ever opened.
const OTHERS: [&str; 10] = [
    "connections",
    "messages",
    "invitations",
    "endorsement_given",
    "endorsement_received",
    "recommendations_given",
    "recommendations_received",
    "imported contacts",
    "contacts",
    "guide_messages",
];

/// Bounds on what an archive may make us inflate (a ZIP bomb is refused before and while it is
/// inflated: the entry count, each read file's declared size, then its actual bytes).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Entries in the archive's directory.
    pub max_entries: usize,
    /// Bytes of one file read, declared or inflated.
    pub max_file_bytes: u64,
    /// Bytes of all files read together.
    pub max_total_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_entries: 10_000, max_file_bytes: 32 << 20, max_total_bytes: 64 << 20 }
    }
}

fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The allowlisted files read, as `(name, text)`, and the entries skipped.
pub type Archive = (Vec<(String, String)>, Vec<Skipped>);

/// Reads the archive's allowlisted files into `(name, text)` pairs and lists the rest.
pub fn read_archive(archive_name: &str, bytes: &[u8], limits: Limits) -> Result<Archive, ImportError> {
    let damaged = |reason: String| ImportError::Archive { file: archive_name.to_owned(), reason };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| damaged(format!("it is not a readable ZIP archive ({e})")))?;
    if zip.len() > limits.max_entries {
        return Err(ImportError::TooLarge {
            file: archive_name.to_owned(),
            reason: format!("it lists {} entries; at most {} are accepted", zip.len(), limits.max_entries),
        });
    }
    let mut files: Vec<(String, String)> = Vec::new();
    let mut skipped = Vec::new();
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| damaged(format!("entry {i} cannot be read ({e})")))?;
        if entry.is_dir() {
            continue;
        }
        let path = entry.name().map_err(|e| damaged(format!("entry {i} has no readable name ({e})")))?.into_owned();
        let name = base_name(&path);
        let Some(wanted) = READ.iter().find(|w| w.eq_ignore_ascii_case(name)) else {
            let lower = name.to_ascii_lowercase();
            skipped.push(Skipped { name: path.clone(), others_data: OTHERS.iter().any(|o| lower.starts_with(o)) });
            continue;
        };
        if files.iter().any(|(n, _)| n == wanted) {
            return Err(damaged(format!(
                "it holds {wanted} twice (the second at {path}); which one is yours is unclear"
            )));
        }
        let declared = entry.size();
        let too_large = |what: String| ImportError::TooLarge { file: format!("{archive_name}: {path}"), reason: what };
        if declared > limits.max_file_bytes || total + declared > limits.max_total_bytes {
            return Err(too_large(format!(
                "it declares {declared} bytes unpacked; at most {} per file and {} in all are read",
                limits.max_file_bytes, limits.max_total_bytes
            )));
        }
        let cap = limits.max_file_bytes.min(limits.max_total_bytes - total);
        let mut content = Vec::new();
        (&mut entry)
            .take(cap + 1)
            .read_to_end(&mut content)
            .map_err(|e| damaged(format!("{path} cannot be unpacked ({e})")))?;
        if content.len() as u64 > cap {
            return Err(too_large(format!(
                "it declares {declared} bytes but unpacks to more than {cap}: refused as a ZIP bomb"
            )));
        }
        if content.len() as u64 != declared {
            return Err(damaged(format!("{path} declares {declared} bytes but unpacks to {}", content.len())));
        }
        total += content.len() as u64;
        let text = super::utf8_text(&format!("{archive_name}: {path}"), content)?;
        files.push(((*wanted).to_owned(), text));
    }
    skipped.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((files, skipped))
}

/// A CSV read with its header: each row as `(line, cells by lower-cased header)`.
struct Table {
    header: Vec<String>,
    rows: Vec<(u64, Vec<String>)>,
}

impl Table {
    fn cell<'a>(&self, row: &'a [String], column: &str) -> Option<&'a str> {
        let i = self.header.iter().position(|h| h.eq_ignore_ascii_case(column))?;
        row.get(i).map(String::as_str).filter(|c| !c.trim().is_empty())
    }
}

/// Checks the RFC 4180 quoting the `csv` crate forgives (an unclosed quoted field swallows the
/// rest of the file; text after a closing quote is glued on): both are a broken export. Returns
/// the line each non-empty record starts on (the header's first), which is the row a fact cites.
fn check_quotes(file: &str, text: &str) -> Result<Vec<u64>, ImportError> {
    let bytes = text.as_bytes();
    let (mut i, mut line, mut row) = (0usize, 1u64, 1u64);
    let mut at_field_start = true;
    let mut starts = Vec::new();
    let mut record_empty = true;
    while i < bytes.len() {
        if record_empty && !matches!(bytes[i], b'\n' | b'\r') {
            starts.push(line);
            record_empty = false;
        }
        match bytes[i] {
            b'"' if at_field_start => {
                let (open_line, open_row) = (line, row);
                i += 1;
                loop {
                    match bytes.get(i) {
                        None => {
                            return Err(ImportError::Csv {
                                file: file.to_owned(),
                                row: open_row,
                                line: open_line,
                                reason: "a quoted field opened here is never closed".into(),
                            });
                        }
                        Some(b'"') if bytes.get(i + 1) == Some(&b'"') => i += 2,
                        Some(b'"') => {
                            i += 1;
                            break;
                        }
                        Some(b'\n') => {
                            line += 1;
                            i += 1;
                        }
                        Some(_) => i += 1,
                    }
                }
                if !matches!(bytes.get(i), None | Some(b',' | b'\n' | b'\r')) {
                    return Err(ImportError::Csv {
                        file: file.to_owned(),
                        row: open_row,
                        line,
                        reason: "text follows a closing quote in the same field (a quote inside a quoted field is written \"\")"
                            .into(),
                    });
                }
                at_field_start = false;
            }
            b',' => {
                at_field_start = true;
                i += 1;
            }
            b'\n' => {
                at_field_start = true;
                record_empty = true;
                line += 1;
                row += 1;
                i += 1;
            }
            _ => {
                at_field_start = false;
                i += 1;
            }
        }
    }
    Ok(starts)
}

fn table(file: &str, text: &str) -> Result<Table, ImportError> {
    let starts = check_quotes(file, text)?;
    let mut reader = csv::ReaderBuilder::new().flexible(true).has_headers(true).from_reader(text.as_bytes());
    let csv_error = |e: csv::Error| {
        let (row, line) = e.position().map_or((0, 0), |p| (p.record() + 1, p.line()));
        ImportError::Csv { file: file.to_owned(), row, line, reason: e.to_string() }
    };
    let header: Vec<String> = reader.headers().map_err(csv_error)?.iter().map(|h| h.trim().to_owned()).collect();
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(csv_error)?;
        // The csv crate skips empty lines as the scan above does, so record i is start i + 1.
        let line = starts.get(i + 1).copied().unwrap_or_else(|| record.position().map_or(0, |p| p.line()));
        rows.push((line, record.iter().map(str::to_owned).collect()));
    }
    Ok(Table { header, rows })
}

/// Maps the archive's CSV files to a career. `files` are `(name, text)` as [`read_archive`] gives.
pub fn parse(files: &[(String, String)], warnings: &mut Vec<String>) -> Result<Career, ImportError> {
    let mut career = Career::default();
    for (name, text) in files {
        let t = table(name, text)?;
        let date = |row: &[String], column: &str, line: u64, warnings: &mut Vec<String>| -> Option<PartialDate> {
            let raw = t.cell(row, column)?;
            let d = PartialDate::parse_loose(raw);
            if d.is_none() {
                warnings.push(format!("{name} row {line}: {column} {raw:?} is not a date this import reads; left out"));
            }
            d
        };
        let text = |row: &[String], column: &str| t.cell(row, column).and_then(filled);
        let line_of = |row: &[String], column: &str| t.cell(row, column).map(one_line).filter(|s| !s.is_empty());
        for (line, row) in &t.rows {
            let source = Source::row(name, *line);
            match name.as_str() {
                "Profile.csv" => {
                    let p = &mut career.person;
                    let full = [line_of(row, "First Name"), line_of(row, "Last Name")]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" ");
                    p.name = full;
                    p.headline = line_of(row, "Headline");
                    p.summary = text(row, "Summary");
                    p.location = line_of(row, "Geo Location").or_else(|| line_of(row, "Location"));
                    let mut urls = t.cell(row, "Websites").map(websites).unwrap_or_default().into_iter();
                    p.url = urls.next();
                    p.profiles.extend(urls.map(|url| Profile { network: "Website".into(), url }));
                    for handle in t.cell(row, "Twitter Handles").map(list_cell).unwrap_or_default() {
                        let handle = handle.trim_start_matches('@');
                        p.profiles
                            .push(Profile { network: "Twitter".into(), url: format!("https://twitter.com/{handle}") });
                    }
                    p.source = source;
                }
                "Skills.csv" => {
                    if let Some(n) = line_of(row, "Name") {
                        career.skills.push(Skill { name: n, level: None, keywords: Vec::new(), source });
                    }
                }
                "Languages.csv" => {
                    if let Some(n) = line_of(row, "Name") {
                        career.languages.push(Language { name: n, fluency: line_of(row, "Proficiency"), source });
                    }
                }
                _ => {
                    let (kind, title, org) = match name.as_str() {
                        "Positions.csv" => (EntryKind::Role, "Title", Some("Company Name")),
                        "Education.csv" => (EntryKind::Degree, "Degree Name", Some("School Name")),
                        "Certifications.csv" => (EntryKind::Certification, "Name", Some("Authority")),
                        "Projects.csv" => (EntryKind::Project, "Title", None),
                        "Honors.csv" => (EntryKind::Award, "Title", None),
                        "Publications.csv" => (EntryKind::Publication, "Name", Some("Publisher")),
                        _ => continue,
                    };
                    let organization = org.and_then(|c| line_of(row, c));
                    // A degree with no name is still a school attended.
                    let Some(title) = line_of(row, title)
                        .or_else(|| (kind == EntryKind::Degree).then(|| organization.clone()).flatten())
                    else {
                        warnings.push(format!("{name} row {line}: no {title}; row left out"));
                        continue;
                    };
                    let mut e = Entry::new(kind, &title, source);
                    e.organization = organization;
                    let (start_col, end_col) = match kind {
                        EntryKind::Degree => ("Start Date", Some("End Date")),
                        EntryKind::Award => ("Issued On", None),
                        EntryKind::Publication => ("Published On", None),
                        EntryKind::Certification => ("Started On", None),
                        _ => ("Started On", Some("Finished On")),
                    };
                    e.start = date(row, start_col, *line, warnings);
                    e.end = end_col.and_then(|c| date(row, c, *line, warnings));
                    e.current = matches!(kind, EntryKind::Role | EntryKind::Project)
                        && e.start.is_some()
                        && end_col.is_some_and(|c| t.cell(row, c).is_none());
                    e.location = line_of(row, "Location");
                    e.url = t.cell(row, "Url").and_then(normalize_url);
                    e.summary = match kind {
                        EntryKind::Degree => text(row, "Notes"),
                        _ => text(row, "Description"),
                    };
                    if kind == EntryKind::Degree
                        && let Some(a) = line_of(row, "Activities")
                    {
                        e.highlights.push(a);
                    }
                    career.entries.push(e);
                }
            }
        }
    }
    Ok(career)
}

/// `[a, b]` or `a,b` as LinkedIn writes a list cell.
fn list_cell(cell: &str) -> Vec<String> {
    let inner = cell.trim().trim_start_matches('[').trim_end_matches(']');
    inner.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// `[PERSONAL:https://ada.dev,BLOG:blog.ada.dev]`: the URLs, without their labels.
fn websites(cell: &str) -> Vec<String> {
    list_cell(cell)
        .into_iter()
        .filter_map(|item| {
            let url = match item.split_once(':') {
                Some((label, rest))
                    if !label.is_empty() && label.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') =>
                {
                    rest
                }
                _ => item.as_str(),
            };
            normalize_url(url)
        })
        .collect()
}

/// Reads a LinkedIn archive: the allowlisted files, mapped to a career.
pub fn import(archive_name: &str, bytes: &[u8], limits: Limits) -> Result<Imported, ImportError> {
    let (files, skipped) = read_archive(archive_name, bytes, limits)?;
    let mut warnings = Vec::new();
    let career = parse(&files, &mut warnings)?;
    Ok(Imported { career, read: files.into_iter().map(|(n, _)| n).collect(), skipped, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unclosed_quote_names_its_row_and_line() {
        let e = table("Positions.csv", "Company Name,Title\nAcme,Engineer\n\"Beta,Lead\nGamma,CTO\n").err().unwrap();
        assert!(matches!(&e, ImportError::Csv { file, row: 3, line: 3, .. } if file == "Positions.csv"), "{e:?}");
    }

    #[test]
    fn text_after_a_closing_quote_is_refused() {
        let e = table("Skills.csv", "Name\n\"Rust\"y\n").err().unwrap();
        assert!(matches!(&e, ImportError::Csv { row: 2, .. }), "{e:?}");
    }

    #[test]
    fn quoted_fields_with_commas_newlines_and_escaped_quotes_read_whole() {
        let t = table("Positions.csv", "Title,Description\r\nLead,\"Ran \"\"ops\"\",\r\nthen more\"\r\n\r\nCTO,x\r\n")
            .unwrap();
        assert_eq!(t.rows[0].1[1], "Ran \"ops\",\r\nthen more");
        // Rows cite the line their record starts on, multi-line fields and blank lines counted.
        assert_eq!(t.rows.iter().map(|r| r.0).collect::<Vec<_>>(), [2, 5]);
    }

    #[test]
    fn websites_lose_their_labels_and_gain_a_scheme() {
        assert_eq!(
            websites("[PERSONAL:https://ada.dev,BLOG:blog.ada.dev]"),
            ["https://ada.dev", "https://blog.ada.dev"]
        );
    }
}
