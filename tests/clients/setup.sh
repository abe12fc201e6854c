#!/usr/bin/env bash
# Installs the real MCP clients the test suite drives, at the versions pinned in this folder:
# npm packages from package-lock.json (TypeScript SDK, Inspector CLI, conformance suite,
# supergateway, Node 22 for the conformance suite) and two Python virtual environments, one per
# major version of the official `mcp` package. Idempotent: it does nothing when the installed
# set already matches the lock files.
set -euo pipefail
cd "$(dirname "$0")"

stamp_of() { sha256sum "$@" | sha256sum | cut -c1-16; }

want=$(stamp_of package.json package-lock.json)
if [ ! -f node_modules/.vitaecontext-stamp ] || [ "$(cat node_modules/.vitaecontext-stamp)" != "$want" ]; then
  echo "setup: installing npm clients (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$want" > node_modules/.vitaecontext-stamp
fi

for major in 1 2; do
  venv=".venv-mcp$major"
  req="requirements-mcp$major.txt"
  want=$(stamp_of "$req")
  if [ ! -f "$venv/.vitaecontext-stamp" ] || [ "$(cat "$venv/.vitaecontext-stamp")" != "$want" ]; then
    echo "setup: installing Python mcp $major.x into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
    echo "$want" > "$venv/.vitaecontext-stamp"
  fi
done
echo "setup: real clients ready" >&2
