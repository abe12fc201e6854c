#!/usr/bin/env bash
# Installs the pinned packaging tools (requirements.txt) into packaging/.venv. Idempotent: it
# does nothing when the installed set already matches requirements.txt. $PYTHON picks the
# interpreter that makes the venv (default python3; the Windows release job sets `python`).
set -euo pipefail
cd "$(dirname "$0")"

# macOS has shasum but not always sha256sum.
if command -v sha256sum > /dev/null; then sha=(sha256sum); else sha=(shasum -a 256); fi
want=$("${sha[@]}" requirements.txt | cut -c1-16)
if [ ! -f .venv/.vitaecontext-stamp ] || [ "$(cat .venv/.vitaecontext-stamp)" != "$want" ]; then
  echo "packaging setup: installing build tools into packaging/.venv" >&2
  rm -rf .venv
  "${PYTHON:-python3}" -m venv .venv
  # A venv on Windows keeps its programs in Scripts/.
  if [ -d .venv/Scripts ]; then py=.venv/Scripts/python; else py=.venv/bin/python; fi
  "$py" -m pip install --quiet --disable-pip-version-check -r requirements.txt >&2
  echo "$want" > .venv/.vitaecontext-stamp
fi
echo "packaging setup: tools ready in packaging/.venv" >&2
