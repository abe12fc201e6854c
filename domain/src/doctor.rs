//! Every finding of `vitaecontext doctor` that is its own (not a Career Context, VitaeGraph or
//! skill-file diagnostic, which keep their codes), with its severity and help text, in one table.

macro_rules! doctor_codes {
    ($($variant:ident => $name:literal, $severity:ident, $help:literal;)*) => {
        /// A setup problem `doctor` reports.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum DoctorCode { $($variant),* }

        impl DoctorCode {
            pub const ALL: &'static [DoctorCode] = &[$(DoctorCode::$variant),*];

            /// The namespaced code (`vitaecontext::client::stale_path`).
            pub fn as_str(self) -> &'static str {
                match self { $(DoctorCode::$variant => concat!("vitaecontext::", $name)),* }
            }

            /// Whether the setup is broken (an error) or only worth a look (a warning).
            pub fn severity(self) -> crate::career::Severity {
                match self { $(DoctorCode::$variant => crate::career::Severity::$severity),* }
            }

            /// What to do, in one sentence.
            pub fn help(self) -> &'static str {
                match self { $(DoctorCode::$variant => $help),* }
            }
        }
    };
}

doctor_codes! {
    ContextNotFound => "context::not_found", Error, "Create one with `vitaecontext init`, or pass --context FILE, or set VITAECONTEXT_CAREER_CONTEXT.";
    ContextAmbiguous => "context::ambiguous", Error, "Pass the one you mean with --context FILE, set VITAECONTEXT_CAREER_CONTEXT, or rename it to ~/.vitaecontext/career-context.md.";
    ContextUnreadable => "context::unreadable", Error, "Point --context or VITAECONTEXT_CAREER_CONTEXT at a readable Markdown file, or create it with `vitaecontext context init --output FILE`.";
    ContextFillIn => "context::fill_in", Warning, "An import left these for you: replace each `<!-- FILL IN (...) -->` comment with your own words (`vitaecontext context validate` then passes).";
    ContextReadableByOthers => "context::readable_by_others", Warning, "It holds personal data: make it private with `chmod 600 FILE`.";
    GraphNoRoot => "graph::no_root", Error, "Create it with `vitaecontext graph init --root DIR`, or pass --root DIR, or set VITAEGRAPH_ROOT.";
    GraphNotSetUp => "graph::not_set_up", Warning, "Create one with `vitaecontext graph init` (or `vitaecontext init`) to serve records; until then the server serves the Career Context only.";
    GraphUnreadable => "graph::unreadable", Error, "`graph index` stops at what it cannot read, so the server keeps serving the last index: give your user access to it again (read for a file; read and search, `chmod u+rx`, for a folder), or move it out of the VitaeGraph.";
    GraphIndexMissing => "graph::index_missing", Warning, "Run `vitaecontext graph index` so the server can list and search the records.";
    GraphIndexStale => "graph::index_stale", Warning, "Run `vitaecontext graph index`: the server serves the generated files, not the records as they are now. If the index is still stale after that, run `vitaecontext graph index --full`, which trusts none of the caches in .generated/.";
    GraphIndexUnreadable => "graph::index_unreadable", Error, "Run `vitaecontext graph index` to write the generated files again.";
    GraphSymlinkSkipped => "graph::symlink_skipped", Warning, "This file is not indexed: put the record itself there, or a symlink to a Markdown file inside the root (symlinked folders are not followed).";
    GraphPathOutsideRoot => "graph::path_outside_root", Error, "The server refuses this record: move it inside the root (no symlink leading out) and run `vitaecontext graph index`.";
    SkillsConfigInvalid => "skills::config_invalid", Error, "Fix the skills config (`layers: [{name, path, priority}]`) or point --skills-config at another file.";
    SkillsInvalidSkill => "skills::invalid_skill", Error, "The file is skipped: a skill needs `id` and `type` (prompt | tool), and a prompt skill a non-blank `prompt`. See `vitaecontext skills --help`.";
    SkillsUnreadable => "skills::unreadable", Error, "No skill in it is served: give your user access to it again (read for a file; read and search, `chmod u+rx`, for a folder), or remove it from the layer.";
    SkillsYamlSyntax => "skills::yaml_syntax", Error, "The file is skipped: fix the YAML (or JSON) syntax; `vitaecontext skills validate FILE` checks one file.";
    SkillsLayerMissing => "skills::layer_missing", Warning, "Create the folder (`vitaecontext skills init DIR`) or remove the layer from the config or the --skills flags.";
    SkillsConflict => "skills::conflict", Error, "Neither definition is served: remove or rename one, or give one layer a higher priority.";
    SkillsBuiltinId => "skills::builtin_id", Error, "The server's own prompt or tool keeps this name: give the skill another id.";
    SkillsLockInvalid => "skills::lock_invalid", Error, "`skills sync`, `update` and `uninstall` refuse it: restore it from version control (`git checkout -- skills-lock.json`), or uninstall the skills and install them again.";
    SkillsInstalledChanged => "skills::installed_changed", Warning, "The installed files are not what the lock says: `vitaecontext skills update ID --force` restores them from the source (your edits are kept as backups); `vitaecontext skills uninstall ID` removes the skill.";
    SkillsUnknownPlaceholder => "skills::unknown_placeholder", Warning, "Declare it under `arguments` (or `inputSchema.properties`), or use a server value such as {{career_context.cv}}; otherwise it is sent as written.";
    ClientConfigUnreadable => "client::config_unreadable", Error, "Fix the client's config file, or run `vitaecontext register --client NAME` to write the entry again.";
    ClientStalePath => "client::stale_path", Error, "The client cannot start the server: run `vitaecontext register --client NAME` again to point it at this binary.";
    ClientOtherBinary => "client::other_binary", Warning, "The client starts another vitaecontext than this one: run `vitaecontext register --client NAME` with the binary you mean to use.";
    ClientPathMissing => "client::path_missing", Error, "That client's server finds nothing there: fix the path in its entry, or run `vitaecontext register --client NAME` with --context FILE and --root DIR to write it again.";
    ClientLiveFailed => "client::live_failed", Error, "Run the configured command by hand to see why; `vitaecontext register --client NAME` writes a working entry.";
}

impl std::fmt::Display for DoctorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_namespaced_snake_case_with_help() {
        let mut names: Vec<&str> = DoctorCode::ALL.iter().map(|c| c.as_str()).collect();
        for n in &names {
            let rest = n.strip_prefix("vitaecontext::").expect("namespaced");
            let (area, code) = rest.split_once("::").expect("area::code");
            assert!(["context", "graph", "skills", "client"].contains(&area), "{n}");
            assert!(code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{n}");
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DoctorCode::ALL.len());
        assert!(DoctorCode::ALL.iter().all(|c| c.help().ends_with('.')));
    }
}
