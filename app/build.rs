//! Build facts `vitaecontext --version` reports beside the version: the commit it was built
//! from (when built in a git checkout; `unknown` from a source package) and the target triple.

use std::process::Command;

fn main() {
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo:rustc-env=VITAECONTEXT_TARGET={target}");
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_owned());
    // Uncommitted changes to tracked files make the build not that commit's.
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some();
    let commit = if dirty && commit != "unknown" { format!("{commit}-modified") } else { commit };
    println!("cargo:rustc-env=VITAECONTEXT_COMMIT={commit}");
    // Rebuilt when HEAD moves (a commit, a checkout); a path that is missing outside a
    // checkout only makes cargo run this again.
    if let Some(head) = git(&["rev-parse", "--git-path", "HEAD"]) {
        println!("cargo:rerun-if-changed={head}");
    }
    if let Some(refs) =
        git(&["rev-parse", "--symbolic-full-name", "HEAD"]).and_then(|r| git(&["rev-parse", "--git-path", &r]))
    {
        println!("cargo:rerun-if-changed={refs}");
    }
    if let Some(index) = git(&["rev-parse", "--git-path", "index"]) {
        println!("cargo:rerun-if-changed={index}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
