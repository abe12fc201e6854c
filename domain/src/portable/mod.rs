//! A career in and out: LinkedIn's archive and JSON Resume read into a [`Career`], a career
//! rendered as a Career Context and VitaeGraph records ([`render`]), files read back into one
//! ([`gather`]) and written as JSON Resume ([`json_resume::from_career`]), and what `--redact`
//! leaves out of what is shared ([`redact`]). Bytes and text in, values out: the app reads and
//! writes the files.

pub mod date;
pub mod gather;
pub mod json_resume;
pub mod linkedin;
pub mod merge;
pub mod model;
pub mod redact;
pub mod render;

#[cfg(test)]
mod tests;

pub use date::PartialDate;
pub use model::{Career, Entry, EntryKind, Language, Person, Profile, Skill, Source};

/// Why an input was refused. Nothing is written when an import fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("{file}: {reason}")]
    Archive { file: String, reason: String },
    #[error("{file}: too large: {reason}")]
    TooLarge { file: String, reason: String },
    #[error("{file} row {row} (line {line}): {reason}")]
    Csv { file: String, row: u64, line: u64, reason: String },
    #[error(
        "{file} line {line}: the text is not UTF-8 (byte {byte} of that line); export it again, or save it as UTF-8"
    )]
    NotUtf8 { file: String, line: usize, byte: usize },
    #[error("{file} line {line}: not valid JSON: {reason}")]
    Json { file: String, line: usize, reason: String },
    #[error("{file} at {}: fails the JSON Resume schema: {reason}", if .pointer.is_empty() { "the top level" } else { .pointer.as_str() })]
    Schema { file: String, pointer: String, reason: String },
}

impl ImportError {
    /// What to do about it, for the error's help line.
    pub fn help(&self) -> &'static str {
        match self {
            ImportError::Archive { .. } => {
                "download the archive again from LinkedIn (Settings > Data privacy > Get a copy of your data) and pass the .zip as it came"
            }
            ImportError::TooLarge { .. } => {
                "this is not a LinkedIn export as LinkedIn writes one; pass the archive LinkedIn sent, unchanged"
            }
            ImportError::Csv { .. } => {
                "fix the quoting on that row (a quote inside a quoted field is written \"\"), or export again"
            }
            ImportError::NotUtf8 { .. } => "save the file as UTF-8 and run the import again",
            ImportError::Json { .. } | ImportError::Schema { .. } => {
                "fix that value so the file follows https://jsonresume.org/schema, then run the import again"
            }
        }
    }
}

/// A file or section that was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub name: String,
    /// It holds other people's data (connections, messages, references...).
    pub others_data: bool,
}

/// What an import read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    pub career: Career,
    /// The files (or the one file) read.
    pub read: Vec<String>,
    pub skipped: Vec<Skipped>,
    /// Values left out, each with its file and row.
    pub warnings: Vec<String>,
}

/// Bytes as UTF-8 text (a byte-order mark dropped), or the line and byte of the first bad one.
pub fn utf8_text(file: &str, bytes: Vec<u8>) -> Result<String, ImportError> {
    match String::from_utf8(bytes) {
        Ok(mut s) => {
            if s.starts_with('\u{feff}') {
                s.drain(..3);
            }
            Ok(s)
        }
        Err(e) => {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
            let line_start = bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            Err(ImportError::NotUtf8 { file: file.to_owned(), line, byte: at - line_start + 1 })
        }
    }
}
