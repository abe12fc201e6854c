#!/usr/bin/env bash
# The cargo path: every published crate packages and builds from its own tarball, in publishing
# order (cargo resolves the workspace's path dependencies to the packages it just made), so
# `cargo install vitaecontext` will build once they are on crates.io. Needs the crates.io index.
set -euo pipefail
cd "$(dirname "$0")/../.."

# cargo verifies each crate against the ones packaged before it, through a temporary local
# registry. A registry crate is never rebuilt for a version already built, and it unpacks a
# version only once under $CARGO_HOME/registry/src/-HASH/: a change made since an earlier run
# was verified against the old build (seen here: a new module "missing"). So the check builds
# in a target folder of its own, made afresh (a few minutes: every dependency once more), and
# the unpacked copies of our packages go first.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/vitaecontext-*
export CARGO_TARGET_DIR=$PWD/target/publish-check
rm -rf "$CARGO_TARGET_DIR"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! cargo publish --workspace --dry-run --allow-dirty --locked \
  --exclude vitaecontext-fs-memory >"$log" 2>&1; then
  cat "$log" >&2
  echo "cargo.sh: FAIL: cargo publish --dry-run" >&2
  exit 1
fi
order=$(sed -n 's/^ *Uploading \([^ ]*\) .*/\1/p' "$log" | paste -sd' ')
want="vitaecontext-domain vitaecontext-ports vitaecontext-fs-std vitaecontext-stdio vitaecontext-watch-notify vitaecontext"
if [ "$order" != "$want" ]; then
  echo "cargo.sh: FAIL: publishing order was '$order', expected '$want'" >&2
  exit 1
fi
# The wiki pages reach the domain crate through a symlink; a package without them would not build,
# but say it plainly if the symlink is ever replaced by something cargo does not follow.
if ! cargo package --list --allow-dirty -p vitaecontext-domain 2>/dev/null | grep -qx 'wiki/build.md'; then
  echo "cargo.sh: FAIL: vitaecontext-domain does not carry wiki/build.md" >&2
  exit 1
fi
echo "cargo.sh: ok: $order" >&2
