#!/usr/bin/env bash
# The Claude Desktop bundles in dist/ (or $VITAECONTEXT_DIST): the official mcpb CLI validates the manifest template and
# reads and unpacks every bundle; each bundle's manifest is the template with its version and
# platform filled in; the bundle for this machine is started exactly as its manifest says, with
# user_config filled in as Claude Desktop fills it (the mcpb library's getMcpConfigForManifest),
# and driven by the official Python and TypeScript clients.
# Runs after scripts/package; needs tests/clients/setup.sh. Exits non-zero on the first failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

fail() { echo "FAIL tests/packaging/mcpb.sh: $*" >&2; exit 1; }
note() { echo "mcpb: $*" >&2; }

dist=${VITAECONTEXT_DIST:-dist}  # where scripts/package put the artefacts
version=$(python3 -c 'import tomllib; print(tomllib.load(open("Cargo.toml", "rb"))["workspace"]["package"]["version"])')
clients=tests/clients
[ -x "$clients/.venv-mcp2/bin/python" ] && [ -d "$clients/node_modules/@modelcontextprotocol/sdk" ] ||
  fail "the real clients are not installed: run tests/clients/setup.sh"

# The pinned CLI (the build script installs it; install it here too when the bundles came from elsewhere).
mcpb_dir=packaging/mcpb
if [ ! -x "$mcpb_dir/node_modules/.bin/mcpb" ]; then
  (cd "$mcpb_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || fail "npm ci in $mcpb_dir failed"
fi
mcpb="$root/$mcpb_dir/node_modules/.bin/mcpb"

"$mcpb" validate "$mcpb_dir/manifest.json" >/dev/null || fail "mcpb validate rejects the template $mcpb_dir/manifest.json"

shopt -s nullglob
bundles=("$dist"/vitaecontext-*.mcpb)
[ ${#bundles[@]} -gt 0 ] || fail "no $dist/vitaecontext-*.mcpb: run scripts/package first"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) host=linux-x64 ;;
  Linux-aarch64) host=linux-arm64 ;;
  Darwin-arm64) host=darwin-arm64 ;;
  Darwin-x86_64) host=darwin-x64 ;;
  *) fail "no bundle platform for $(uname -s)-$(uname -m)" ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
host_dir=

for bundle in "${bundles[@]}"; do
  name=$(basename "$bundle" .mcpb)
  platform=${name#vitaecontext-"$version"-}
  [ "$platform" != "$name" ] || fail "$bundle is not version $version (Cargo's): rebuild $dist/"
  "$mcpb" info "$bundle" >"$tmp/info" 2>&1 || fail "mcpb info $bundle: $(cat "$tmp/info")"
  out="$tmp/$platform"
  "$mcpb" unpack "$bundle" "$out" >/dev/null 2>"$tmp/unpack" || fail "mcpb unpack $bundle: $(cat "$tmp/unpack")"
  "$mcpb" validate "$out/manifest.json" >/dev/null || fail "mcpb validate rejects the manifest inside $bundle"
  # The bundle's manifest is the template, changed only where the build script changes it.
  python3 - "$mcpb_dir/manifest.json" "$out" "$version" "$platform" <<'EOF' || fail "$bundle's manifest or files are wrong (above)"
import json, os, sys
template, out, version, platform = sys.argv[1:]
t = json.load(open(template))
m = json.load(open(os.path.join(out, "manifest.json")))
os_name = platform.split("-")[0]
exe = "vitaecontext.exe" if os_name == "win32" else "vitaecontext"
t["version"] = version
t["compatibility"]["platforms"] = [os_name]
t["server"]["entry_point"] = f"server/{exe}"
t["server"]["mcp_config"]["command"] = "${__dirname}/server/" + exe
errors = []
if m != t:
    errors.append("the manifest is not the template with version/platform filled in: rebuild with packaging/mcpb/build")
entry = os.path.join(out, m["server"]["entry_point"])
if not os.path.isfile(entry):
    errors.append(f"no {m['server']['entry_point']} in the bundle")
elif os_name != "win32" and not os.access(entry, os.X_OK):
    errors.append(f"{m['server']['entry_point']} is not executable after unpacking")
files = sorted(os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs)
if files != sorted(["manifest.json", m["server"]["entry_point"]]):
    errors.append(f"unexpected files: {files}")
for e in errors:
    print(f"  {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
  note "$(basename "$bundle"): $(stat -c %s "$bundle" 2>/dev/null || stat -f %z "$bundle") bytes, valid"
  [ "$platform" = "$host" ] && host_dir=$out
done
[ -n "$host_dir" ] || fail "no $dist/vitaecontext-$version-$host.mcpb for this machine to run"

# How Claude Desktop starts the bundle: the mcpb library's own substitution of ${__dirname},
# ${HOME} and ${user_config.*} into mcp_config. Prints {command, args, env} as JSON, or null
# when a required value is missing (the client then does not start the server).
home="$tmp/home"
mkdir -p "$home"
launch() {
  (cd "$mcpb_dir" && node --input-type=module - "$host_dir" "$home" "$1") <<'EOF'
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";
import { readFileSync } from "node:fs";
const [dir, home, userConfig] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(`${dir}/manifest.json`, "utf8"));
const config = await getMcpConfigForManifest({
  manifest, extensionPath: dir, systemDirs: { HOME: home }, userConfig: JSON.parse(userConfig), pathSeparator: "/",
});
process.stdout.write(JSON.stringify(config ?? null));
EOF
}

# A skill layer, to show the skills folder reaches the server.
skills="$tmp/skills"
mkdir -p "$skills"
printf 'id: bundle-check\ntype: prompt\ndescription: Proves the skills folder was read\nprompt: |\n  Summarise:\n  {{career_context.cv}}\n' >"$skills/bundle-check.yaml"

plan='{"reads": ["career-context://current", "vitaegraph://record/project:cachewarden"],
       "calls": [{"name": "get_career_context", "arguments": {"for": "cv"}},
                 {"name": "search_vitaegraph", "arguments": {"query": "flaky"}}],
       "prompts": [{"name": "cv_tailoring", "arguments": {"targetRole": "Staff Platform Engineer"}}]}'

# drive WHO CONFIG_JSON: runs the client on the launch config through `env`, so the manifest's
# env reaches the server whatever environment the client passes on; prints the client's JSON.
drive() {
  local who=$1 config=$2 cmd=()
  mapfile -t cmd < <(python3 -c '
import json, sys
c = json.loads(sys.argv[1])
print("env")
for k, v in c.get("env", {}).items():
    print(f"{k}={v}")
print(c["command"])
for a in c["args"]:
    print(a)' "$config")
  case "$who" in
    python) (cd "$clients" && HOME="$home" .venv-mcp2/bin/python py_client.py session "$plan" "${cmd[@]}") ;;
    typescript) (cd "$clients" && HOME="$home" node ts_client.mjs sdk1 "$plan" "${cmd[@]}") ;;
  esac
}

# check WHO OUT_FILE WITH_SKILL: what the client saw.
check() {
  python3 - "$mcpb_dir/manifest.json" "$@" <<'EOF'
import json, sys
template, who, path, with_skill = sys.argv[1:]
out = json.loads(open(path).read().strip().splitlines()[-1])
m = json.load(open(template))
errors = []
def expect(ok, what):
    if not ok:
        errors.append(what)
tools = [t["name"] for t in out["tools"]["items"]]
prompts = [p["name"] for p in out["prompts"]["items"]]
expect(out["serverInfo"]["name"] == "vitaecontext", f"serverInfo: {out['serverInfo']}")
# The manifest lists what the server offers on its own: the skills come on top.
expect(tools == [t["name"] for t in m["tools"]], f"tools {tools} are not the manifest's")
builtin = [p["name"] for p in m["prompts"]]
expect(prompts[: len(builtin)] == builtin, f"prompts {prompts} do not start with the manifest's {builtin}")
expect(("bundle-check" in prompts) == (with_skill == "1"), f"skill from the skills folder: {prompts}")
text = out["reads"][0].get("result", {}).get("contents", [{}])[0].get("text", "")
expect("# Rowan Vale - Platform engineer" in text, f"career-context://current: {out['reads'][0]}")
expect("result" in out["reads"][1], f"vitaegraph record read: {out['reads'][1]}")
packet = out["calls"][0].get("result", {}).get("content", [{}])[0].get("text", "")
expect(packet.startswith("# Career Context packet - cv\n"), f"get_career_context: {out['calls'][0]}")
search = out["calls"][1].get("result", {})
expect(search and not search.get("isError"), f"search_vitaegraph: {out['calls'][1]}")
got = out["prompts_got"][0].get("result", {}).get("messages", [{}])[0].get("content", {}).get("text", "")
expect("Staff Platform Engineer" in got, f"cv_tailoring: {out['prompts_got'][0]}")
for e in errors:
    print(f"  {who}: {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
}

examples="$root/examples"
filled=$(printf '{"career_context": "%s/career-context.md", "vitaegraph": "%s/vitaegraph", "skills": "%s"}' "$examples" "$examples" "$skills")
# Left out or emptied, the VitaeGraph is the server's default, ~/.vitaecontext/vitaegraph: one
# is put there, so serving it proves the manifest's default reaches the binary and is expanded.
mkdir -p "$home/.vitaecontext"
cp -R "$examples/vitaegraph" "$home/.vitaecontext/vitaegraph"
cases=(
  "all three filled|$filled|1"
  "optional ones not set|{\"career_context\": \"$examples/career-context.md\"}|0"
  "optional ones emptied|{\"career_context\": \"$examples/career-context.md\", \"vitaegraph\": \"\", \"skills\": \"\"}|0"
)
for case in "${cases[@]}"; do
  IFS='|' read -r what user_config with_skill <<<"$case"
  config=$(launch "$user_config") || fail "$what: getMcpConfigForManifest failed"
  [ "$config" != null ] || fail "$what: the client would not start the server (required value missing?)"
  # shellcheck disable=SC2016 # the $ is the manifest's, not the shell's
  case $config in *'${user_config'*) fail "$what: a placeholder reached the server unfilled: $config" ;; esac
  for who in python typescript; do
    drive "$who" "$config" >"$tmp/out.json" 2>"$tmp/err" ||
      fail "$what: the $who client failed on $config: $(tail -n 20 "$tmp/err")"
    check "$who ($what)" "$tmp/out.json" "$with_skill" || fail "$what: the $who client saw the wrong server (above); launch: $config"
  done
  note "$what: $config"
  note "  served to both clients"
done

# Without the Career Context, which is required, a client does not start the server at all.
[ "$(launch '{}')" = null ] || fail "a launch without the required career_context got a config"
note "all bundles good; $host driven with Python and TypeScript clients"
