//! Installing over the in-memory filesystem: a failing write leaves nothing, a lock cannot point
//! outside its layer, a token never shows.

use std::path::{Path, PathBuf};

use fs_memory::{MemoryFs, SetStep};
use ports::fs::FileSystem;

use super::*;

const SKILL_MD: &str = "---\nname: review\ndescription: Reviews\n---\nReview it.\n";

fn world() -> (MemoryFs, Scope) {
    let fs = MemoryFs::new();
    for d in ["/home/.vitaecontext/skills/p", "/src/review/scripts"] {
        fs.create_dir_all(Path::new(d)).unwrap();
    }
    fs.write_atomic(Path::new("/src/review/SKILL.md"), SKILL_MD.as_bytes()).unwrap();
    fs.write_atomic(Path::new("/src/review/scripts/a.sh"), b"echo a\n").unwrap();
    fs.write_atomic(Path::new("/src/tool.yaml"), b"id: tool\ntype: tool\n").unwrap();
    let layer = Layer { name: "p".into(), root: "/home/.vitaecontext/skills/p".into(), priority: 50 };
    (fs, Scope::new(ScopeKind::User, Path::new("/home/.vitaecontext"), vec![layer]))
}

fn planned(fs: &MemoryFs, scope: &Scope, lock: &Lock) -> Vec<SkillPlan> {
    let source = Source::parse("/src").unwrap();
    let fetchers = Fetchers { fs, token: None, base: PathBuf::from("/"), home: None };
    let fetched = fetchers.fetch(&source, Pin::Resolve).unwrap();
    let found = found_in(&source, &fetched).unwrap();
    plan(fs, scope, lock, &source, &fetched, found, None).unwrap()
}

struct Clock;

impl ports::Clock for Clock {
    fn now(&self) -> std::time::SystemTime {
        std::time::UNIX_EPOCH
    }

    fn monotonic(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }
}

/// Every file (with its bytes) and folder below `root`.
fn tree_of(fs: &MemoryFs, root: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let w = fs.walk(Path::new(root), &[]).unwrap();
    let mut all: Vec<(PathBuf, Vec<u8>)> =
        w.files.into_iter().map(|f| (f.clone(), fs.read(&f, 1 << 20).unwrap())).collect();
    // Folders too: a failed install must not leave an empty one behind.
    let mut dirs = vec![PathBuf::from(root)];
    while let Some(d) = dirs.pop() {
        for e in fs.read_dir(&d).unwrap() {
            if e.kind == ports::fs::FileKind::Dir {
                all.push((d.join(&e.name), Vec::new()));
                dirs.push(d.join(&e.name));
            }
        }
    }
    all.sort();
    all
}

#[test]
fn an_install_writes_both_skills_and_the_lock_in_one_set() {
    let (fs, scope) = world();
    let mut lock = Lock::default();
    let plans = planned(&fs, &scope, &lock);
    let applied = apply(&fs, &Clock, &scope, &mut lock, &plans, false).unwrap();
    assert_eq!(applied.written, 3);
    let text = String::from_utf8(fs.read(&scope.lock_path, 1 << 20).unwrap()).unwrap();
    assert_eq!(Lock::parse(&text).unwrap(), lock);
    assert_eq!(lock.skills["review"].path, "skills/p/review");
    assert_eq!(lock.skills["tool"].path, "skills/p/tool.yaml");
    assert_eq!(fs.read(Path::new("/home/.vitaecontext/skills/p/review/scripts/a.sh"), 99).unwrap(), b"echo a\n");
    // Installed as locked: nothing left to change.
    assert!(planned(&fs, &scope, &lock).iter().all(|p| !p.changes_anything()));
}

/// Regression guard for "a failure leaves nothing": every step of the set failing for every
/// file it writes (the lock included) leaves the layer as it was, with no folder made for the
/// skill, and no lock.
#[test]
fn a_failure_at_any_step_of_any_file_leaves_nothing() {
    let (fs0, scope) = world();
    let before = tree_of(&fs0, "/home");
    let targets = [
        "/home/.vitaecontext/skills/p/review/SKILL.md",
        "/home/.vitaecontext/skills/p/review/scripts/a.sh",
        "/home/.vitaecontext/skills/p/tool.yaml",
        "/home/.vitaecontext/skills-lock.json",
    ];
    for step in SetStep::ALL {
        for target in targets {
            let (fs, _) = world();
            let mut lock = Lock::default();
            let plans = planned(&fs, &scope, &lock);
            fs.fail_set_step(step, target);
            let failed = apply(&fs, &Clock, &scope, &mut lock, &plans, false);
            if step == SetStep::Keep {
                // Nothing is there to keep a second name of: the step does not happen.
                assert!(failed.is_ok());
                continue;
            }
            assert!(failed.is_err(), "{step:?} {target}");
            assert!(failed.unwrap_err().message.starts_with("nothing was written"));
            assert_eq!(tree_of(&fs, "/home"), before, "{step:?} {target}");
        }
    }
}

/// The same for an update: the changed file and the lock exist, so every step, keeping their
/// second names included, can fail; the old bytes stay.
#[test]
fn a_failed_update_leaves_the_old_files_and_lock() {
    for step in SetStep::ALL {
        for target in ["/home/.vitaecontext/skills/p/review/SKILL.md", "/home/.vitaecontext/skills-lock.json"] {
            let (fs, scope) = world();
            let mut lock = Lock::default();
            let first = planned(&fs, &scope, &lock);
            apply(&fs, &Clock, &scope, &mut lock, &first, false).unwrap();
            fs.write_atomic(Path::new("/src/review/SKILL.md"), SKILL_MD.replace("it", "all").as_bytes()).unwrap();
            fs.write_atomic(Path::new("/src/review/scripts/b.sh"), b"echo b\n").unwrap();
            let before = tree_of(&fs, "/home");
            let plans = planned(&fs, &scope, &lock);
            fs.fail_set_step(step, target);
            assert!(apply(&fs, &Clock, &scope, &mut lock.clone(), &plans, false).is_err(), "{step:?} {target}");
            assert_eq!(tree_of(&fs, "/home"), before, "{step:?} {target}");
        }
    }
}

#[test]
fn a_lock_entry_outside_its_layer_or_not_named_after_its_id_is_refused() {
    let (fs, scope) = world();
    let mut lock = Lock::default();
    let plans = planned(&fs, &scope, &lock);
    apply(&fs, &Clock, &scope, &mut lock, &plans, false).unwrap();
    let mut entry = lock.skills["review"].clone();
    assert!(place_of(&scope, "review", &entry).is_ok());
    for path in ["skills/other", "skills/p/x/review", "/etc/review", "skills"] {
        entry.path = path.into();
        let refused = place_of(&scope, "review", &entry).unwrap_err();
        assert!(
            refused.message.contains("which is not review (or review.yaml) in the folder of layer p"),
            "{path}: {refused:?}"
        );
    }
    entry.layer = "gone".into();
    assert!(place_of(&scope, "review", &entry).unwrap_err().message.contains("no layer named \"gone\""));
}

#[test]
fn uninstall_removes_only_what_was_installed_and_a_file_added_beside_it_stays() {
    let (fs, scope) = world();
    let mut lock = Lock::default();
    let plans = planned(&fs, &scope, &lock);
    apply(&fs, &Clock, &scope, &mut lock, &plans, false).unwrap();
    let mine = Path::new("/home/.vitaecontext/skills/p/review/my-notes.md");
    fs.write_atomic(mine, b"mine").unwrap();
    let done = uninstall(&fs, &scope, &mut lock, "review", false, false).unwrap();
    assert_eq!(done.files, 2);
    assert_eq!(fs.read(mine, 9).unwrap(), b"mine");
    assert!(fs.metadata(Path::new("/home/.vitaecontext/skills/p/review/scripts")).is_err(), "emptied folder removed");
    assert!(!lock.skills.contains_key("review"));
}

#[test]
fn a_token_is_never_shown_and_becomes_a_basic_header() {
    let t = Token::new("github.com".into(), "ghp_abc".into());
    assert!(!format!("{t:?}").contains("ghp_abc"));
    // base64("x-access-token:ghp_abc")
    assert_eq!(t.header(), "Authorization: Basic eC1hY2Nlc3MtdG9rZW46Z2hwX2FiYw==");
}

/// Found in review: a killed install left `.vitaecontext-*.tmp` files in the skill's folder that
/// nothing removed; install and uninstall remove them, and nothing else.
#[test]
fn install_and_uninstall_remove_an_interrupted_installs_leftovers_only() {
    let (fs, scope) = world();
    let dir = Path::new("/home/.vitaecontext/skills/p/review");
    let mut lock = Lock::default();
    let plans = planned(&fs, &scope, &lock);
    apply(&fs, &Clock, &scope, &mut lock, &plans, false).unwrap();
    let plant = |names: &[&str]| {
        for n in names {
            fs.write_atomic(&dir.join(n), b"left").unwrap();
        }
    };
    plant(&[".vitaecontext-a1B2.tmp", "scripts/.vitaecontext-zz9.old", ".vitaecontext-notes.md", "x.tmp"]);
    // An install again (as after the one that was killed) finds them.
    let plans = planned(&fs, &scope, &lock);
    apply(&fs, &Clock, &scope, &mut lock, &plans, false).unwrap();
    assert!(fs.metadata(&dir.join(".vitaecontext-a1B2.tmp")).is_err());
    assert!(fs.metadata(&dir.join("scripts/.vitaecontext-zz9.old")).is_err());
    assert_eq!(fs.read(&dir.join(".vitaecontext-notes.md"), 9).unwrap(), b"left", "not a leftover's name");
    assert_eq!(fs.read(&dir.join("x.tmp"), 9).unwrap(), b"left");
    fs.remove_file(&dir.join(".vitaecontext-notes.md")).unwrap();
    fs.remove_file(&dir.join("x.tmp")).unwrap();
    plant(&[".vitaecontext-k3.tmp", "scripts/.vitaecontext-k4.tmp"]);
    uninstall(&fs, &scope, &mut lock, "review", false, false).unwrap();
    assert!(fs.metadata(dir).is_err(), "the folder goes with its files and leftovers");
}
