#!/usr/bin/env bash
# The PyPI wheel in dist/: installed into a fresh virtual environment with no package index, it
# puts a `vitaecontext` command there that is the release binary at Cargo's version, and the
# official Python client, starting that command by name, sees the server's tools, resources and
# prompts over it. Then `uvx --from WHEEL vitaecontext --version` offline, as a person without
# Python packaging habits would run it (skipped, with a note, only where uv cannot be had).
# Runs after scripts/package; needs tests/clients/setup.sh. Exits non-zero on failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

fail() { echo "FAIL tests/packaging/pypi.sh: $*" >&2; exit 1; }
note() { echo "pypi: $*" >&2; }
dist=${VITAECONTEXT_DIST:-dist}  # where scripts/package put the artefacts
# uv for the uvx check: packaging/.venv's when it has one, else PATH's, else this pin from PyPI.
uv_pin=uv==0.13.9

version=$(python3 -c 'import tomllib; print(tomllib.load(open("Cargo.toml", "rb"))["workspace"]["package"]["version"])')
client_python="$root/tests/clients/.venv-mcp2/bin/python"
[ -x "$client_python" ] || fail "the Python client is not installed: run tests/clients/setup.sh"
shopt -s nullglob
wheels=("$dist"/vitaecontext-"$version"-*.whl)
[ ${#wheels[@]} -gt 0 ] || fail "no $dist/vitaecontext-$version-*.whl: run scripts/package first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
home="$tmp/home"
mkdir -p "$home"

# A fresh environment and no index: only the wheels in dist/ can satisfy the install (pip's own
# configuration and PIP_* settings, such as extra find-links, are kept out).
python3 -m venv "$tmp/venv"
env -u PIP_FIND_LINKS -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL PIP_CONFIG_FILE=/dev/null \
  "$tmp/venv/bin/pip" install --quiet --disable-pip-version-check --no-index --only-binary=:all: \
  --find-links "$dist" --report "$tmp/report.json" "vitaecontext==$version" >"$tmp/pip.log" 2>&1 ||
  fail "pip install --no-index from $dist/ failed: $(tail -n 20 "$tmp/pip.log")"

installed="$tmp/venv/bin/vitaecontext"
[ -x "$installed" ] || fail "the wheel installed no executable $installed"
found=$(PATH="$tmp/venv/bin:$PATH" command -v vitaecontext)
[ "$found" = "$installed" ] || fail "with the environment on PATH, vitaecontext is $found, not the installed one"
said=$("$installed" --version) || fail "$installed --version failed"
[ "$(printf '%s\n' "$said" | head -n1)" = "vitaecontext $version" ] || fail "$installed says '$said', not version $version"
"$tmp/venv/bin/python" - "$version" <<'EOF' || fail "the installed distribution is wrong (above)"
import sys
from importlib.metadata import distribution
d = distribution("vitaecontext")
files = [str(f) for f in d.files or []]
problems = []
if d.version != sys.argv[1]:
    problems.append(f"version {d.version}")
if not any(f.endswith("bin/vitaecontext") for f in files):
    problems.append(f"RECORD does not list the command: {files}")
for p in problems:
    print(f"  {p}", file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
# The wheel pip chose for this machine (dist/ may hold wheels for others too).
wheel=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["install"][0]["download_info"]["url"].rsplit("/", 1)[-1])' "$tmp/report.json")
note "installed $wheel offline: $installed ($(printf '%s' "$said" | tr '\n' ' '))"

# The official Python client starts the command by name, from the environment's PATH.
examples="$root/examples"
plan='{"reads": ["career-context://current", "vitaegraph://index", "vitaegraph://record/project:cachewarden", "vitaecontext://wiki/vitaecontext"],
       "calls": [{"name": "get_career_context", "arguments": {"for": "cv"}},
                 {"name": "validate_career_context", "arguments": {}},
                 {"name": "search_vitaegraph", "arguments": {"query": "flaky"}},
                 {"name": "check_claims", "arguments": {"draft": "- Raised the cache hit rate to 95% with Bazel.", "for": "cv"}},
                 {"name": "match_job", "arguments": {"posting": "## Requirements\n- Bazel\n- Erlang\n"}}],
       "prompts": [{"name": "cv_tailoring", "arguments": {"targetRole": "Staff Platform Engineer"}},
                   {"name": "linkedin_audit", "arguments": {}},
                   {"name": "github_showcase", "arguments": {}},
                   {"name": "career_context_intake", "arguments": {}}]}'
(cd tests/clients && HOME="$home" PATH="$tmp/venv/bin:$PATH" "$client_python" py_client.py session "$plan" \
  vitaecontext mcp --context "$examples/career-context.md" --root "$examples/vitaegraph") >"$tmp/out.json" 2>"$tmp/err" ||
  fail "the Python client failed on the installed vitaecontext: $(tail -n 20 "$tmp/err")"
python3 - "$tmp/out.json" "$version" <<'EOF' || fail "the Python client saw the wrong server (above)"
import json, sys
out = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
errors = []
def expect(ok, what):
    if not ok:
        errors.append(what)
expect(out["serverInfo"].get("name") == "vitaecontext" and out["serverInfo"].get("version") == sys.argv[2], f"serverInfo {out['serverInfo']}")
tools = [t["name"] for t in out["tools"]["items"]]
expect(tools == ["get_career_context", "search_vitaegraph", "validate_career_context", "check_claims", "match_job"], f"tools {tools}")
prompts = [p["name"] for p in out["prompts"]["items"]]
expect(prompts == ["cv_tailoring", "linkedin_audit", "github_showcase", "career_context_intake"], f"prompts {prompts}")
uris = [r["uri"] for r in out["resources"]["items"]]
expect("career-context://current" in uris and "vitaegraph://record/project:cachewarden" in uris, f"resources {uris[:8]}...")
templates = [t["uriTemplate"] for t in out["resourceTemplates"]["items"]]
expect("vitaegraph://record/{id}" in templates, f"resource templates {templates}")
def text(r):
    return (r.get("result") or {}).get("contents", [{}])[0].get("text", "")
expect("# Rowan Vale - Platform engineer" in text(out["reads"][0]), f"career-context://current: {out['reads'][0]}")
expect('"source": "vitaegraph"' in text(out["reads"][1]), f"vitaegraph://index: {out['reads'][1]}")
expect(text(out["reads"][2]), f"a VitaeGraph record: {out['reads'][2]}")
expect("## Client configuration" in text(out["reads"][3]), f"the wiki: {out['reads'][3]}")
calls = [(c.get("result") or {}) for c in out["calls"]]
expect(all(c and not c.get("isError") for c in calls), f"a tool call failed: {out['calls']}")
first = lambda c: c.get("content", [{}])[0].get("text", "")
expect(first(calls[0]).startswith("# Career Context packet - cv\n"), f"get_career_context: {calls[0]}")
expect(json.loads(first(calls[1]) or "{}").get("valid") is True, f"validate_career_context: {calls[1]}")
expect('"95%": the files say "88%"' in first(calls[3]), f"check_claims: {calls[3]}")
expect("1 covered, 0 partial, 1 missing" in first(calls[4]), f"match_job: {calls[4]}")
for i, g in enumerate(out["prompts_got"]):
    msg = (g.get("result") or {}).get("messages", [{}])[0].get("content", {}).get("text", "")
    expect("Career Context" in msg, f"prompt {prompts[i] if i < len(prompts) else i}: {g}")
for e in errors:
    print(f"  {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
note "the Python client (mcp $("$client_python" -c 'from importlib.metadata import version; print(version("mcp"))')) listed and used the tools, resources and prompts of the installed command"

# uvx, offline: an empty cache, no index, no Python download; the wheel is all it may use.
uv=
if [ -x packaging/.venv/bin/uv ]; then
  uv=$PWD/packaging/.venv/bin/uv
elif command -v uv >/dev/null; then
  uv=$(command -v uv)
elif python3 -m venv "$tmp/uv" && "$tmp/uv/bin/pip" install --quiet --disable-pip-version-check "$uv_pin" >"$tmp/uv.log" 2>&1; then
  uv="$tmp/uv/bin/uv"
fi
# packaging/setup.sh installs the pinned uv (scripts/package runs it), so uv missing is a failure.
[ -n "$uv" ] || fail "uv is not installed and $uv_pin could not be installed from PyPI: $(tail -n 3 "$tmp/uv.log" 2>/dev/null)"
wheel_path=$(cd "$dist" && pwd)/$wheel
uvx_out=$(cd "$tmp" && env -u PIP_FIND_LINKS HOME="$home" UV_CACHE_DIR="$tmp/uv-cache" UV_TOOL_DIR="$tmp/uv-tools" \
  UV_OFFLINE=1 UV_NO_CONFIG=1 UV_PYTHON_DOWNLOADS=never "$uv" tool run --offline --from "$wheel_path" vitaecontext --version 2>"$tmp/uvx.err") ||
  fail "uvx --offline --from $wheel_path vitaecontext --version failed: $(tail -n 10 "$tmp/uvx.err")"
[ "$(printf '%s\n' "$uvx_out" | head -n1)" = "vitaecontext $version" ] || fail "uvx ran something that says '$uvx_out'"
note "uvx ($("$uv" --version)) --offline --from $(basename "$wheel_path") vitaecontext --version: $(printf '%s' "$uvx_out" | head -n1)"

# register knows how it was installed: from uvx (uv's cache) it writes `uvx vitaecontext@VERSION`,
# from `uv tool install` the command uv put on PATH; never a path inside the cache.
uv_env=(env -u PIP_FIND_LINKS -u VITAECONTEXT_LAUNCHER HOME="$home" UV_CACHE_DIR="$tmp/uv-cache" UV_TOOL_DIR="$tmp/uv-tools"
  UV_TOOL_BIN_DIR="$tmp/uv-bin" UV_OFFLINE=1 UV_NO_CONFIG=1 UV_PYTHON_DOWNLOADS=never)
mkdir -p "$home/.cursor"
entry() { python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["mcpServers"]["vitaecontext"]; print(json.dumps([e["command"], *e["args"]]))' "$home/.cursor/mcp.json"; }
(cd "$tmp" && "${uv_env[@]}" "$uv" tool run --offline --from "$wheel_path" vitaecontext register --client cursor --no-watch \
  >"$tmp/reg.out" 2>"$tmp/reg.err") || fail "uvx vitaecontext register failed: $(tail -n 5 "$tmp/reg.err")"
[ "$(entry)" = "[\"uvx\", \"vitaecontext@$version\", \"mcp\"]" ] || fail "register from uvx wrote $(entry)"
if grep -q warning "$tmp/reg.err"; then fail "register from uvx warned: $(cat "$tmp/reg.err")"; fi
note "register from uvx writes: $(entry)"
# The entry as written, started by the Python client: uv finds the wheel in dist/ (find-links,
# offline), as it would find it on PyPI.
mapfile -t cmd < <(python3 -c 'import json, sys; [print(a) for a in json.loads(sys.argv[1])]' "$(entry)")
# The client passes the server only a default environment: uv's settings go through `env`.
(cd tests/clients && "$client_python" py_client.py session \
  '{"calls": [{"name": "get_career_context", "arguments": {"for": "cv"}}]}' \
  "${uv_env[@]}" UV_FIND_LINKS="$(dirname "$wheel_path")" PATH="$(dirname "$uv"):$PATH" \
  "${cmd[@]}" --context "$examples/career-context.md") >"$tmp/uvx-entry.json" 2>"$tmp/uvx-entry.err" ||
  fail "the Python client could not start the written entry ${cmd[*]}: $(grep -v '^ *[|+]' "$tmp/uvx-entry.err" | tail -n 10)"
grep -q '# Career Context packet - cv' "$tmp/uvx-entry.json" || fail "the written uvx entry did not serve: $(head -c 400 "$tmp/uvx-entry.json")"
note "the Python client started the written entry (${cmd[*]}) and was served"
(cd "$tmp" && "${uv_env[@]}" "$uv" tool install --offline "$wheel_path" >"$tmp/tool.log" 2>&1) ||
  fail "uv tool install --offline $wheel_path failed: $(tail -n 5 "$tmp/tool.log")"
rm -f "$home/.cursor/mcp.json"
(cd "$tmp" && "${uv_env[@]}" PATH="$tmp/uv-bin:$PATH" vitaecontext register --client cursor --no-watch >"$tmp/reg.out" 2>"$tmp/reg.err") ||
  fail "register from uv tool install failed: $(tail -n 5 "$tmp/reg.err")"
[ "$(entry)" = "[\"$tmp/uv-bin/vitaecontext\", \"mcp\"]" ] || fail "register from uv tool install wrote $(entry), not $tmp/uv-bin/vitaecontext"
note "register from uv tool install writes: $(entry)"
