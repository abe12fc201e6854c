//! Every VitaeGraph diagnostic code (`formats.md` section 3) with its help text, in one table.

macro_rules! graph_codes {
    ($($variant:ident => $name:literal, $help:literal;)*) => {
        /// Every diagnostic code a VitaeGraph can raise.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum GraphCode { $($variant),* }

        impl GraphCode {
            pub const ALL: &'static [GraphCode] = &[$(GraphCode::$variant),*];

            /// The code as written to JSON (`missing_id`).
            pub fn as_str(self) -> &'static str {
                match self { $(GraphCode::$variant => $name),* }
            }

            /// How to fix it, in one sentence.
            pub fn help(self) -> &'static str {
                match self { $(GraphCode::$variant => $help),* }
            }
        }
    };
}

graph_codes! {
    MissingRequiredFile => "missing_required_file", "Create it: `vitaecontext graph init` writes the missing starter files and never replaces existing ones.";
    MissingFrontmatter => "missing_frontmatter", "Start the file with a `---` block holding at least type, id and title.";
    MissingId => "missing_id", "Add `id: type:slug` to the front matter, e.g. `id: project:my-project`.";
    InvalidId => "invalid_id", "Use `type:slug` in lower case letters, digits and dashes, e.g. `project:my-project`.";
    DuplicateId => "duplicate_id", "Give each record its own id; rename one of the two.";
    MissingField => "missing_field", "Add the missing key (type and title are required) with a non-empty value.";
    InvalidRecordType => "invalid_record_type", "Use one of: project, experience, education, course, thesis, certification, award, publication.";
    RecordIdTypeMismatch => "record_id_type_mismatch", "Make the id's prefix equal the record's type.";
    RecordTypeDirectoryMismatch => "record_type_directory_mismatch", "Move the file to its type's folder, or correct the type.";
    InvalidVisibility => "invalid_visibility", "Use `visibility: private` or `visibility: public`.";
    InvalidListField => "invalid_list_field", "Write it as a list: `[a, b]` or one `- item` per line.";
    SelfRecordReference => "self_record_reference", "Remove the record's own id from related_records.";
    MissingRecordReference => "missing_record_reference", "Point related_records at an existing id, or create that record.";
    InvalidParentReference => "invalid_parent_reference", "Set parent to a valid id (`type:slug`).";
    MissingParentReference => "missing_parent_reference", "Point parent at an existing record, or create it.";
    SelfParentReference => "self_parent_reference", "A record cannot contain itself; set parent to another record.";
    InvalidParentType => "invalid_parent_type", "Courses and theses belong to an education record: set parent to its id.";
    MissingParent => "missing_parent", "Add `parent:` with the id of the education record this belongs to.";
    ParentCycle => "parent_cycle", "Break the loop: one record in the chain must not have a parent inside it.";
    InvalidInternalLink => "invalid_internal_link", "Fix the link's percent-encoding.";
    BrokenInternalLink => "broken_internal_link", "Point the link at an existing file (relative to this file), or remove it.";
    LegacyRecordLayout => "legacy_record_layout", "Move the record to its canonical path, e.g. projects/<slug>/project.md.";
    TemplateText => "template_text", "Replace the guidance `vitaecontext graph add` wrote (\"What it is and the result...\") with your own facts, or delete it.";
    RecordTooLarge => "record_too_large", "Split the file into smaller records (records are prose; the limit is 4 MiB) or move large attachments out of the VitaeGraph.";
}

impl std::fmt::Display for GraphCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for GraphCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for GraphCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        GraphCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown graph diagnostic code {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::record_type::RecordType;

    #[test]
    fn codes_are_distinct_snake_case_with_help() {
        let mut names: Vec<&str> = GraphCode::ALL.iter().map(|c| c.as_str()).collect();
        assert!(names.iter().all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), GraphCode::ALL.len());
        assert!(GraphCode::ALL.iter().all(|c| c.help().ends_with('.')));
    }

    /// The help text is a literal; this keeps its list of types equal to the table's.
    #[test]
    fn invalid_record_type_help_names_every_type() {
        assert_eq!(GraphCode::InvalidRecordType.help(), format!("Use one of: {}.", RecordType::names()));
    }

    /// The help text names the size cap; this keeps it equal to the constant.
    #[test]
    fn record_too_large_help_names_the_cap() {
        let mib = crate::graph::MAX_RECORD_BYTES / (1024 * 1024);
        assert!(GraphCode::RecordTooLarge.help().contains(&format!("the limit is {mib} MiB")));
    }
}
