#!/usr/bin/env bash
# npm: the tarballs in dist/ install into a temporary prefix with the registry unreachable and
# install scripts off; `npx vitaecontext mcp` then serves the example data to the official
# TypeScript client (tools, resources, prompts). The launcher passes stdin, stdout, stderr, the
# exit code and signals through, hands the binary VITAECONTEXT_LAUNCHER (npm installed, npx
# from npx's cache: register writes the binary's path or the npx entry), and says which
# package is missing when it cannot find the binary. The launcher runs the binary in one of two
# ways: exec (Node 22.15+, the Node that tests/clients installs) or as a child process (older
# Node); both are covered where the Node on PATH is older than 22.15 (Node 20 here and in the
# release workflow). Run after scripts/package.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
passed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { echo "FAIL npm: $*" >&2; exit 1; }

dist=$(cd "${VITAECONTEXT_DIST:-dist}" && pwd)  # where scripts/package put the artefacts
shopt -s nullglob
launchers=("$dist"/vitaecontext-[0-9]*.tgz)
[ ${#launchers[@]} -eq 1 ] || fail "expected one launcher tarball $dist/vitaecontext-<version>.tgz (run scripts/package first), found ${#launchers[@]}"
launcher_tgz=${launchers[0]}
version=$(basename "$launcher_tgz" .tgz)
version=${version#vitaecontext-}
platform_tgz=$dist/vitaecontext-cli-linux-x64-$version.tgz
[ -f "$platform_tgz" ] || fail "no $platform_tgz"

bash tests/clients/setup.sh
node22=$root/tests/clients/node_modules/.bin/node
node20=$(command -v node)
client=$root/tests/clients/ts_client.mjs
example=(--context "$root/examples/career-context.md" --root "$root/examples/vitaegraph")

tmp=$(mktemp -d)
started=()
cleanup() {
  for pid in "${started[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/home" "$tmp/work"
cd "$tmp/work"

# The registry is a closed port and npm may not even try it: everything comes from the tarballs.
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy npm_config_proxy npm_config_https_proxy
export HOME=$tmp/home npm_config_cache=$tmp/cache npm_config_prefix=$tmp/prefix \
  npm_config_registry=http://127.0.0.1:9 npm_config_offline=true npm_config_ignore_scripts=true \
  npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false npm_config_loglevel=error

echo "== npm install -g (offline, --ignore-scripts) $(basename "$launcher_tgz") $(basename "$platform_tgz")"
t0=$(date +%s%N)
npm install -g "$launcher_tgz" "$platform_tgz" || fail "offline install from the tarballs failed"
install_ms=$((($(date +%s%N) - t0) / 1000000))
modules=$tmp/prefix/lib/node_modules
[ -x "$tmp/prefix/bin/vitaecontext" ] || fail "no bin/vitaecontext in the prefix"
installed=$(cd "$modules/@vitaecontext" && echo *)
[ "$installed" = cli-linux-x64 ] || fail "expected only @vitaecontext/cli-linux-x64 installed, found: $installed"
binary=$modules/@vitaecontext/cli-linux-x64/bin/vitaecontext
[ -x "$binary" ] || fail "the platform package's binary is not executable"
launcher_js=$modules/vitaecontext/bin/vitaecontext.js
node - "$modules/vitaecontext/package.json" "$version" <<'EOF' || fail "the launcher's optionalDependencies are not the five platforms at $version"
const [file, version] = process.argv.slice(2);
const deps = require(file).optionalDependencies;
const want = ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64", "win32-x64"].map((p) => `@vitaecontext/cli-${p}`);
if (JSON.stringify(Object.keys(deps).sort()) !== JSON.stringify(want.sort())) process.exit(1);
if (!Object.values(deps).every((v) => v === version)) process.exit(1);
EOF
ok "installed offline in ${install_ms} ms with the registry unreachable; only the linux-x64 binary came along"

echo "== npx vitaecontext mcp, driven by the official TypeScript client"
plan='{
  "reads": ["career-context://current", "vitaegraph://record/project:cachewarden"],
  "calls": [{"name": "get_career_context", "arguments": {"for": "cv"}},
            {"name": "search_vitaegraph", "arguments": {"query": "flaky"}}],
  "prompts": [{"name": "cv_tailoring", "arguments": {"targetRole": "Staff Platform Engineer", "jobDescription": "Rust and CI."}}]
}'
for mode in sdk1 auto; do
  node "$client" "$mode" "$plan" npx vitaecontext mcp "${example[@]}" > "$tmp/client-$mode.json" 2> "$tmp/client-$mode.err" ||
    fail "the TypeScript client ($mode) failed through npx: $(cat "$tmp/client-$mode.err")"
  node - "$tmp/client-$mode.json" "$version" <<'EOF' || fail "the TypeScript client ($mode) saw the wrong answers: $(cat "$tmp/client-$mode.json")"
const fs = require("fs");
const [file, version] = process.argv.slice(2);
const lines = fs.readFileSync(file, "utf8").trim().split("\n");
const out = JSON.parse(lines[lines.length - 1]);
const check = (cond, what) => { if (!cond) { console.error(`not so: ${what}`); process.exit(1); } };
check(out.serverInfo.name === "vitaecontext" && out.serverInfo.version === version, "serverInfo is vitaecontext " + version);
const tools = out.tools.items.map((t) => t.name);
check(tools.includes("get_career_context") && tools.includes("search_vitaegraph"), "tools listed");
check(out.resources.items.length > 0, "resources listed");
check(out.reads[0].result.contents[0].text.includes("# Rowan Vale - Platform engineer"), "Career Context read");
check(out.reads[1].result.contents[0].text.length > 0, "a VitaeGraph record read");
check(out.calls[0].result.content[0].text.startsWith("# Career Context packet - cv\n"), "get_career_context called");
check(!out.calls[1].result.isError, "search_vitaegraph called");
check(out.prompts.items.map((p) => p.name).includes("cv_tailoring"), "prompts listed");
check(out.prompts_got[0].result.messages[0].content.text.includes("# Career Context packet - cv"), "cv_tailoring got");
EOF
  ok "npx vitaecontext mcp: tools, resources and prompts through the TypeScript client ($mode)"
done

echo "== stdin and stdout pass through npx"
init='{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"npm.sh","version":"1"}}}'
answer=$(printf '%s\n' "$init" | npx vitaecontext mcp "${example[@]}" 2>/dev/null) || fail "npx vitaecontext mcp failed on a piped initialize"
[[ $answer == *'"id":7'* && $answer == *"\"version\":\"$version\""* ]] || fail "no initialize answer on stdout: $answer"
ok "a piped initialize is answered on stdout, and the server ends when stdin closes"

echo "== exit codes and stderr pass through"
bare_code=0
"$binary" --no-such-flag 2> "$tmp/bare.err" || bare_code=$?
[ "$bare_code" -ne 0 ] || fail "the binary accepted --no-such-flag"
for how in "npx" "node20" "node22"; do
  code=0
  case $how in
    npx) npx vitaecontext --no-such-flag 2> "$tmp/err" || code=$? ;;
    node20) "$node20" "$launcher_js" --no-such-flag 2> "$tmp/err" || code=$? ;;
    node22) "$node22" "$launcher_js" --no-such-flag 2> "$tmp/err" || code=$? ;;
  esac
  [ "$code" -eq "$bare_code" ] || fail "$how: exit code $code, the binary's is $bare_code"
  cmp -s "$tmp/err" "$tmp/bare.err" || fail "$how: stderr differs from the binary's: $(cat "$tmp/err")"
done
[ "$(npx vitaecontext --version | head -n1)" = "vitaecontext $version" ] || fail "npx vitaecontext --version"
ok "exit code $bare_code and stderr of a bad flag are the binary's (npx, Node 20 and Node 22 launcher)"

echo "== register from the installed package writes its binary"
mkdir -p "$HOME/.cursor"
npx vitaecontext register --client cursor --no-watch > "$tmp/register.out" 2> "$tmp/register.err" ||
  fail "vitaecontext register (installed) failed: $(cat "$tmp/register.err")"
written=$(node -e 'const e = require(process.argv[1]).mcpServers.vitaecontext; console.log([e.command, ...e.args].join(" "))' "$HOME/.cursor/mcp.json")
[ "$written" = "$binary mcp" ] || fail "register from the installed package wrote '$written', not '$binary mcp'"
ok "register from an installed package writes its binary (no npx: that would ask the registry at each start)"

# Starts `mcp` on the example with stdin held open, waits until it serves (its one INFO line),
# and sets $server (the launcher's or the binary's pid) and $served (the binary's pid).
start() {
  rm -f "$tmp/in" "$tmp/err"
  mkfifo "$tmp/in"
  "$@" mcp "${example[@]}" --log-level info < "$tmp/in" > /dev/null 2> "$tmp/err" &
  server=$!
  started+=("$server")
  exec 9> "$tmp/in"
  for _ in $(seq 100); do grep -q serving "$tmp/err" && break; sleep 0.1; done
  grep -q serving "$tmp/err" || fail "$* mcp did not start: $(cat "$tmp/err")"
  if [ "$(readlink "/proc/$server/exe")" = "$(readlink -f "$binary")" ]; then served=$server; else served=$(pgrep -P "$server"); fi
  [ -n "$served" ] || fail "no binary under pid $server"
}
# Waits for $server and sets $status to its exit status.
finish() {
  status=0
  wait "$server" || status=$?
  exec 9>&-
}

echo "== signals"
start "$binary"
kill -TERM "$server"
finish
bare_term=$status
for node in "$node20" "$node22"; do
  label="Node $("$node" --version)"
  start "$node" "$launcher_js"
  if "$node" -e 'process.exit(typeof process.execve === "function" ? 0 : 1)'; then
    way="exec"; [ "$served" = "$server" ] || fail "$label: has process.execve, yet the binary is not the launcher's process"
  else
    way="child"; [ "$served" != "$server" ] || fail "$label: expected the binary as a child"
  fi
  tr '\0' '\n' < "/proc/$served/environ" | grep -qx VITAECONTEXT_LAUNCHER=npm || fail "$label: the binary has no VITAECONTEXT_LAUNCHER=npm"
  kill -TERM "$server"
  finish
  [ "$status" -eq "$bare_term" ] || fail "$label: SIGTERM to the launcher: status $status, the bare binary's is $bare_term"
  ! kill -0 "$served" 2>/dev/null || fail "$label: the binary outlived the launcher after SIGTERM"
  # A binary that dies of a signal: the launcher dies of it too (128 + 9).
  start "$node" "$launcher_js"
  kill -KILL "$served"
  finish
  [ "$status" -eq 137 ] || fail "$label: the binary died of SIGKILL, the launcher's status is $status, not 137"
  ok "$label ($way): the binary gets VITAECONTEXT_LAUNCHER=npm; SIGTERM to the launcher ends it with the bare binary's status ($bare_term); its death by SIGKILL comes back as 137"
done

echo "== a missing platform package is named"
npm install -g --prefix "$tmp/bare-prefix" --omit=optional "$launcher_tgz" || fail "offline install with --omit=optional failed"
code=0
"$tmp/bare-prefix/bin/vitaecontext" --version 2> "$tmp/err" || code=$?
{ [ "$code" -eq 1 ] && grep -q "the package @vitaecontext/cli-linux-x64, which holds the binary for linux-x64, is not installed" "$tmp/err"; } ||
  fail "installed without optional dependencies: status $code, message: $(cat "$tmp/err")"
echo "  $(cat "$tmp/err")"
echo 'Object.defineProperty(process, "arch", { value: "riscv64" });' > "$tmp/riscv.cjs"
code=0
node -r "$tmp/riscv.cjs" "$launcher_js" --version 2> "$tmp/err" || code=$?
{ [ "$code" -eq 1 ] && grep -q "no prebuilt binary for linux-riscv64;" "$tmp/err"; } ||
  fail "on an unsupported platform: status $code, message: $(cat "$tmp/err")"
echo "  $(cat "$tmp/err")"
ok "without its platform package, and on an unsupported platform, the launcher says what is missing (status 1)"

echo "== npx -y vitaecontext@$version: register writes the npx entry, and a client starts it"
# A registry on loopback serving the two tarballs; npx fetches from it into a fresh cache, as a
# person's first `npx -y vitaecontext@VERSION init` does.
node "$root/tests/packaging/registry.mjs" "$launcher_tgz" "$platform_tgz" > "$tmp/registry.port" 2> "$tmp/registry.err" &
started+=($!)
disown $!  # ended by cleanup, without bash reporting it as killed
for _ in $(seq 50); do [ -s "$tmp/registry.port" ] && break; sleep 0.1; done
port=$(head -n1 "$tmp/registry.port")
[ -n "$port" ] || fail "the test registry did not start: $(cat "$tmp/registry.err")"
npx_home=$tmp/npx-home
mkdir -p "$npx_home/.cursor"
npx_env=(env HOME="$npx_home" npm_config_registry="http://127.0.0.1:$port/" npm_config_offline=false
  npm_config_cache="$tmp/npx-cache" npm_config_prefix="$tmp/npx-prefix" npm_config_update_notifier=false)
"${npx_env[@]}" npx -y "vitaecontext@$version" register --client cursor --no-watch > "$tmp/register.out" 2> "$tmp/register.err" ||
  fail "npx -y vitaecontext@$version register failed: $(cat "$tmp/register.err")"
entry=$(node -e 'const e = require(process.argv[1]).mcpServers.vitaecontext; console.log(JSON.stringify([e.command, ...e.args]))' "$npx_home/.cursor/mcp.json")
[ "$entry" = "[\"npx\",\"-y\",\"vitaecontext@$version\",\"mcp\"]" ] || fail "register through npx wrote $entry"
if grep -q "warning" "$tmp/register.err"; then fail "register through npx warned: $(cat "$tmp/register.err")"; fi
# The entry as written, with the example's files, started by the TypeScript client.
mapfile -t cmd < <(node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$entry")
"${npx_env[@]}" node "$client" sdk1 "$plan" "${cmd[@]}" "${example[@]}" > "$tmp/entry.json" 2> "$tmp/entry.err" ||
  fail "the TypeScript client could not start the written entry ${cmd[*]}: $(tail -n 5 "$tmp/entry.err")"
grep -q '"# Career Context packet - cv' "$tmp/entry.json" || fail "the written entry did not serve the example: $(head -c 400 "$tmp/entry.json")"
ok "register through npx writes $entry, and the TypeScript client starts exactly that and is served"

echo "npm: $passed passed, 0 failed (install from tarballs: ${install_ms} ms)"
