//! Where the wiki pages that `domain::wiki` serves are read from at build time: the top-level
//! `wiki/` of a checkout, else the package's own `wiki/`. In the repository `domain/wiki` is a
//! symlink to `../wiki`, which `cargo package` turns into real files for crates.io; but git for
//! Windows checks a symlink out as a small text file unless told otherwise, so a checkout reads
//! the top-level folder directly (found in review: `cargo install --path app` failed there).

use std::path::PathBuf;

#[allow(clippy::disallowed_methods, reason = "a build script is IO at build time, not the domain's rules")]
fn main() {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let top = here.join("..").join("wiki");
    let dir = if top.join("build.md").is_file() { top } else { here.join("wiki") };
    println!("cargo:rustc-env=VITAECONTEXT_WIKI_DIR={}", dir.display());
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed=build.rs");
}
