#!/usr/bin/env bash
# Lints the GitHub workflows with actionlint, and the shell in their `run:` steps with shellcheck
# (actionlint calls it when it is on PATH). Both come pinned from packaging/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash packaging/setup.sh
export PATH="$PWD/packaging/.venv/bin:$PATH"
shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
[ ${#workflows[@]} -gt 0 ] || { echo "FAIL actionlint: no workflow in .github/workflows" >&2; exit 1; }
echo "actionlint $(actionlint --version | head -n1), shellcheck $(shellcheck --version | sed -n 's/^version: //p')"
if ! actionlint -shellcheck shellcheck "${workflows[@]}"; then
  echo "FAIL actionlint: the findings above" >&2
  exit 1
fi
echo "actionlint: ${#workflows[@]} passed, 0 failed"
