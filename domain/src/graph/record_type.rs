//! The record types of a VitaeGraph (`formats.md` section 3), each with everything the code
//! knows about it: its name in front matter and ids, its PascalCase name in the generated
//! files, its folder, and the canonical path of its file. One table, no parallel lists.

/// Where a record's file sits inside its folder, as `formats.md` lays it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `<folder>/<slug>/<file>`.
    Nested(&'static str),
    /// `education/<slug>/courses/<slug>.md`.
    Course,
    /// `<folder>/<slug>.md`.
    Flat,
}

macro_rules! record_types {
    ($($variant:ident => $name:literal, $pascal:literal, $dir:literal, $layout:expr;)*) => {
        /// Every record type a VitaeGraph knows.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum RecordType { $($variant),* }

        impl RecordType {
            /// In the order `formats.md` lists them.
            pub const ALL: &'static [RecordType] = &[$(RecordType::$variant),*];

            /// The `type:` value and the id prefix (`project`).
            pub fn as_str(self) -> &'static str {
                match self { $(RecordType::$variant => $name),* }
            }

            /// The node and document `type` in the generated files (`Project`).
            pub fn pascal_name(self) -> &'static str {
                match self { $(RecordType::$variant => $pascal),* }
            }

            /// The top-level folder its records live in (`projects`).
            pub fn directory(self) -> &'static str {
                match self { $(RecordType::$variant => $dir),* }
            }

            pub fn layout(self) -> Layout {
                match self { $(RecordType::$variant => $layout),* }
            }
        }
    };
}

record_types! {
    Project => "project", "Project", "projects", Layout::Nested("project.md");
    Experience => "experience", "Experience", "experience", Layout::Nested("experience.md");
    Education => "education", "Education", "education", Layout::Nested("education.md");
    Course => "course", "Course", "education", Layout::Course;
    Thesis => "thesis", "Thesis", "education", Layout::Nested("thesis.md");
    Certification => "certification", "Certification", "certifications", Layout::Flat;
    Award => "award", "Award", "awards", Layout::Flat;
    Publication => "publication", "Publication", "publications", Layout::Flat;
}

impl RecordType {
    /// The type with this exact name (`project`).
    pub fn parse(name: &str) -> Option<RecordType> {
        Self::ALL.iter().copied().find(|t| t.as_str() == name)
    }

    /// The record folders, each once, in table order.
    pub fn directories() -> impl Iterator<Item = &'static str> {
        Self::ALL.iter().enumerate().filter_map(|(i, t)| {
            (!Self::ALL[..i].iter().any(|e| e.directory() == t.directory())).then_some(t.directory())
        })
    }

    /// Whether pages in this top-level folder must be records.
    pub fn is_record_directory(dir: &str) -> bool {
        Self::ALL.iter().any(|t| t.directory() == dir)
    }

    /// The type a record at `path` (relative, `/`-separated) must have, from its folder (and,
    /// under `education/`, its file name), as 2.x decides it.
    pub fn expected_at(path: &str) -> Option<RecordType> {
        let parts: Vec<&str> = path.split('/').collect();
        let first = Self::ALL.iter().copied().find(|t| t.directory() == parts[0])?;
        if first.directory() != RecordType::Education.directory() {
            return Some(first);
        }
        let by_file = |t: RecordType| matches!(t.layout(), Layout::Nested(f) if parts.last() == Some(&f));
        Some(match Self::ALL.iter().copied().filter(|t| t.directory() == first.directory()).find(|t| by_file(*t)) {
            Some(t) => t,
            None if parts.contains(&"courses") => RecordType::Course,
            None => RecordType::Education,
        })
    }

    /// Whether `path` is this type's canonical place. As in 2.x, a nested layout checks the depth
    /// and file name, not the folder, and a flat layout only the depth.
    pub fn is_canonical_path(self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').collect();
        // Every canonical path starts in the type's own folder (an award at `projects/x.md` is
        // not canonical, though it has the flat layout's depth).
        if parts[0] != self.directory() {
            return false;
        }
        match self.layout() {
            Layout::Nested(file) => parts.len() == 3 && parts[2] == file,
            Layout::Course => parts.len() == 4 && parts[0] == RecordType::Course.directory() && parts[2] == "courses",
            Layout::Flat => parts.len() == 2,
        }
    }

    /// The names joined for people: `project, experience, ..., publication`.
    /// The type a record of this type must have as parent: course and thesis records live
    /// inside their degree's folder.
    pub fn parent_type(self) -> Option<RecordType> {
        match self {
            RecordType::Course | RecordType::Thesis => Some(RecordType::Education),
            _ => None,
        }
    }

    /// Where a new record with this slug goes (relative, with `/`): `parent_slug` is the slug of
    /// the parent record, needed exactly when [`RecordType::parent_type`] is some.
    pub fn canonical_path(self, slug: &str, parent_slug: Option<&str>) -> Option<String> {
        let dir = self.directory();
        match (self.layout(), self.parent_type(), parent_slug) {
            (Layout::Nested(file), None, _) => Some(format!("{dir}/{slug}/{file}")),
            (Layout::Nested(file), Some(_), Some(p)) => Some(format!("{dir}/{p}/{file}")),
            (Layout::Course, Some(_), Some(p)) => Some(format!("{dir}/{p}/courses/{slug}.md")),
            (Layout::Flat, _, _) => Some(format!("{dir}/{slug}.md")),
            _ => None,
        }
    }

    pub fn names() -> String {
        Self::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
    }
}

impl std::fmt::Display for RecordType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ids_and_pascal_case_agree() {
        for t in RecordType::ALL {
            assert_eq!(RecordType::parse(t.as_str()), Some(*t));
            let mut chars = t.as_str().chars();
            let first = chars.next().unwrap().to_ascii_uppercase();
            assert_eq!(t.pascal_name(), format!("{first}{}", chars.as_str()));
        }
        assert_eq!(RecordType::parse("Project"), None);
        assert_eq!(
            RecordType::directories().collect::<Vec<_>>(),
            ["projects", "experience", "education", "certifications", "awards", "publications"]
        );
    }

    #[test]
    fn the_folder_decides_the_expected_type() {
        let cases = [
            ("projects/a/project.md", Some(RecordType::Project)),
            ("projects/a.md", Some(RecordType::Project)),
            ("experience/a/experience.md", Some(RecordType::Experience)),
            ("education/a/education.md", Some(RecordType::Education)),
            ("education/a/thesis.md", Some(RecordType::Thesis)),
            ("education/a/courses/b.md", Some(RecordType::Course)),
            ("education/a/notes.md", Some(RecordType::Education)),
            ("education/courses.md", Some(RecordType::Education)),
            ("education/a/courses/education.md", Some(RecordType::Education)),
            ("certifications/a.md", Some(RecordType::Certification)),
            ("awards/a.md", Some(RecordType::Award)),
            ("publications/a.md", Some(RecordType::Publication)),
            ("notes/a.md", None),
            ("index.md", None),
        ];
        for (path, expected) in cases {
            assert_eq!(RecordType::expected_at(path), expected, "{path}");
        }
    }

    #[test]
    fn new_records_go_where_validation_expects_them() {
        for t in RecordType::ALL {
            let parent = t.parent_type().map(|_| "msc");
            let path = t.canonical_path("my-slug", parent).unwrap();
            assert!(t.is_canonical_path(&path), "{t}: {path}");
            assert_eq!(RecordType::expected_at(&path), Some(*t), "{path}");
            if t.parent_type().is_some() {
                assert_eq!(t.canonical_path("my-slug", None), None, "{t} needs its parent");
            }
        }
    }

    #[test]
    fn canonical_paths() {
        assert!(RecordType::Project.is_canonical_path("projects/a/project.md"));
        assert!(!RecordType::Project.is_canonical_path("projects/a.md"));
        assert!(RecordType::Thesis.is_canonical_path("education/a/thesis.md"));
        assert!(RecordType::Course.is_canonical_path("education/a/courses/b.md"));
        assert!(!RecordType::Course.is_canonical_path("projects/a/courses/b.md"));
        assert!(RecordType::Award.is_canonical_path("awards/a.md"));
        assert!(!RecordType::Award.is_canonical_path("awards/a/award.md"));
        // Regression: a flat record outside its folder was taken for canonical (depth only).
        assert!(!RecordType::Award.is_canonical_path("projects/a.md"));
        assert!(!RecordType::Certification.is_canonical_path("notes/a.md"));
        assert!(!RecordType::Publication.is_canonical_path("awards/a.md"));
        assert!(!RecordType::Project.is_canonical_path("experience/a/project.md"));
    }
}
