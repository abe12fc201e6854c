//! Which Career Context file the person means: flag, environment, the canonical file, or the one
//! matching file in `~/.vitaecontext/`. Never the bundled example data.

use std::path::{Component, Path, PathBuf};

/// The rule that chose a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Flag,
    Env,
    Canonical,
    OnlyCandidate,
}

impl Rule {
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Flag => "chosen by --context",
            Rule::Env => "chosen by VITAECONTEXT_CAREER_CONTEXT",
            Rule::Canonical => "the canonical ~/.vitaecontext/career-context.md",
            Rule::OnlyCandidate => "the only *-career-context.md or *.context.md file in ~/.vitaecontext/",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    Selected {
        path: PathBuf,
        rule: Rule,
    },
    /// Two or more candidates in `~/.vitaecontext/`: nothing is chosen.
    Ambiguous {
        candidates: Vec<PathBuf>,
    },
    /// Nothing found; `looked_in` says where.
    Missing {
        looked_in: Vec<PathBuf>,
    },
}

/// What the caller found on the machine; the rules themselves do no IO.
#[derive(Debug, Clone, Default)]
pub struct SelectionInput {
    pub flag: Option<String>,
    pub env: Option<String>,
    pub home: Option<PathBuf>,
    pub cwd: PathBuf,
    /// Whether `~/.vitaecontext/career-context.md` exists as a file.
    pub canonical_exists: bool,
    /// Names of the regular files in `~/.vitaecontext/`.
    pub default_dir_files: Vec<String>,
}

pub const DEFAULT_DIR: &str = ".vitaecontext";
pub const CANONICAL_NAME: &str = "career-context.md";

/// `~` and `~/...` expand to the home folder; a relative path is taken from `cwd`; `.` and `..`
/// are folded lexically.
pub fn expand_path(raw: &str, home: Option<&Path>, cwd: &Path) -> PathBuf {
    let expanded = match (raw, home) {
        ("~", Some(h)) => h.to_path_buf(),
        (r, Some(h)) if r.starts_with("~/") => h.join(&r[2..]),
        (r, _) => PathBuf::from(r),
    };
    let absolute = if expanded.is_absolute() { expanded } else { cwd.join(expanded) };
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

pub fn is_candidate_name(name: &str) -> bool {
    (name.ends_with("-career-context.md") && name.len() > "-career-context.md".len())
        || (name.ends_with(".context.md") && name.len() > ".context.md".len())
}

pub fn select(input: &SelectionInput) -> Selection {
    let home = input.home.as_deref();
    if let Some(flag) = input.flag.as_deref().filter(|f| !f.is_empty()) {
        return Selection::Selected { path: expand_path(flag, home, &input.cwd), rule: Rule::Flag };
    }
    if let Some(env) = input.env.as_deref().filter(|e| !e.is_empty()) {
        return Selection::Selected { path: expand_path(env, home, &input.cwd), rule: Rule::Env };
    }
    let Some(home) = home else { return Selection::Missing { looked_in: Vec::new() } };
    let dir = home.join(DEFAULT_DIR);
    let canonical = dir.join(CANONICAL_NAME);
    if input.canonical_exists {
        return Selection::Selected { path: canonical, rule: Rule::Canonical };
    }
    let mut candidates: Vec<PathBuf> = input
        .default_dir_files
        .iter()
        .filter(|n| is_candidate_name(n) && n.as_str() != CANONICAL_NAME)
        .map(|n| dir.join(n))
        .collect();
    candidates.sort();
    match candidates.len() {
        0 => {
            Selection::Missing { looked_in: vec![canonical, dir.join("*-career-context.md"), dir.join("*.context.md")] }
        }
        1 => Selection::Selected { path: candidates.remove(0), rule: Rule::OnlyCandidate },
        _ => Selection::Ambiguous { candidates },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn input() -> SelectionInput {
        SelectionInput { home: Some(PathBuf::from("/home/p")), cwd: PathBuf::from("/work"), ..Default::default() }
    }

    #[test]
    fn flag_beats_env_beats_canonical() {
        let mut i = input();
        i.flag = Some("~/cv.md".into());
        i.env = Some("/env.md".into());
        i.canonical_exists = true;
        assert_eq!(select(&i), Selection::Selected { path: "/home/p/cv.md".into(), rule: Rule::Flag });
        i.flag = None;
        assert_eq!(select(&i), Selection::Selected { path: "/env.md".into(), rule: Rule::Env });
        i.env = None;
        assert_eq!(
            select(&i),
            Selection::Selected { path: "/home/p/.vitaecontext/career-context.md".into(), rule: Rule::Canonical }
        );
    }

    #[test]
    fn relative_paths_resolve_from_cwd() {
        let mut i = input();
        i.flag = Some("../x/./ctx.md".into());
        assert_eq!(select(&i), Selection::Selected { path: "/x/ctx.md".into(), rule: Rule::Flag });
    }

    #[test]
    fn one_candidate_is_chosen_two_are_ambiguous() {
        let mut i = input();
        i.default_dir_files = vec!["ada-career-context.md".into(), "notes.md".into()];
        assert!(matches!(select(&i), Selection::Selected { rule: Rule::OnlyCandidate, .. }));
        i.default_dir_files.push("work.context.md".into());
        match select(&i) {
            Selection::Ambiguous { candidates } => assert_eq!(candidates.len(), 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn nothing_found_says_where_it_looked() {
        match select(&input()) {
            Selection::Missing { looked_in } => {
                assert_eq!(looked_in[0], PathBuf::from("/home/p/.vitaecontext/career-context.md"))
            }
            other => panic!("{other:?}"),
        }
    }

    proptest! {
        // A flag always wins; otherwise the env; without either, the result depends only on the
        // default folder, and two or more candidates never select anything.
        #[test]
        fn precedence_holds(
            flag in proptest::option::of("[a-z/~.]{1,12}"),
            env in proptest::option::of("[a-z/~.]{1,12}"),
            canonical in any::<bool>(),
            // A folder's names are distinct.
            files in proptest::collection::btree_set("[a-z]{1,4}(-career-context|\\.context|)\\.md", 0..5),
        ) {
            let i = SelectionInput {
                flag: flag.clone(), env: env.clone(), home: Some("/h".into()), cwd: "/c".into(),
                canonical_exists: canonical, default_dir_files: files.iter().cloned().collect(),
            };
            let s = select(&i);
            let n = files.iter().filter(|f| is_candidate_name(f)).collect::<std::collections::BTreeSet<_>>().len();
            match (&flag, &env) {
                (Some(_), _) => prop_assert!(matches!(s, Selection::Selected { rule: Rule::Flag, .. }), "{:?}", s),
                (None, Some(_)) => prop_assert!(matches!(s, Selection::Selected { rule: Rule::Env, .. }), "{:?}", s),
                (None, None) if canonical => prop_assert!(matches!(s, Selection::Selected { rule: Rule::Canonical, .. }), "{:?}", s),
                (None, None) => match n {
                    0 => prop_assert!(matches!(s, Selection::Missing { .. }), "{:?}", s),
                    1 => prop_assert!(matches!(s, Selection::Selected { rule: Rule::OnlyCandidate, .. }), "{:?}", s),
                    _ => prop_assert!(matches!(s, Selection::Ambiguous { .. }), "{:?}", s),
                },
            }
            if let Selection::Selected { path, .. } = &s {
                prop_assert!(path.is_absolute());
            }
        }
    }
}
