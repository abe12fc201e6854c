#!/usr/bin/env bash
# server.json, the MCP Registry entry: valid against the kept 2025-12-11 schema (as committed,
# and as packaging/mcpb/server-json fills it for a release, with each bundle's fileSha256 checked
# against dist/); its version is Cargo's; each package names what we build (the npm tarball, the
# wheel, the crate, the bundles) and carries the registry's ownership marker; its arguments and
# environment variables are ones the built binary's `mcp` takes.
# Runs after scripts/package; needs tests/clients/setup.sh (jsonschema). Exits non-zero on failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

fail() { echo "FAIL tests/packaging/server_json.sh: $*" >&2; exit 1; }
dist=${VITAECONTEXT_DIST:-dist}  # where scripts/package put the artefacts
python=tests/clients/.venv-mcp2/bin/python
[ -x "$python" ] || fail "no $python (jsonschema): run tests/clients/setup.sh"
[ -d "$dist" ] || fail "no $dist/: run scripts/package first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
packaging/mcpb/server-json "$dist" --only-present >"$tmp/release.json" 2>"$tmp/err" ||
  fail "packaging/mcpb/server-json: $(cat "$tmp/err")"

"$python" - "$dist" "$tmp" <<'EOF' || fail "see above"
import hashlib, io, json, os, re, stat, subprocess, sys, tarfile, tomllib, zipfile
import jsonschema

dist, tmp = sys.argv[1:]
NAME = "io.github.vitaecontext/vitaecontext"
REPO = "https://github.com/vitaecontext/vitaecontext"
PLATFORMS = ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64", "win32-x64", "win32-arm64"]
errors = []

def expect(ok, what):
    if not ok:
        errors.append(what)

version = tomllib.load(open("Cargo.toml", "rb"))["workspace"]["package"]["version"]
schema = json.load(open("tests/packaging/schema/server.schema.json"))
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
doc = json.load(open("server.json"))
release = json.load(open(os.path.join(tmp, "release.json")))

# The schema copy is applied: a name without its namespace is refused.
expect(not validator.is_valid(dict(doc, name="vitaecontext")), "the schema accepted a name without a slash")
for label, d in [("server.json", doc), ("the release server.json", release)]:
    for e in validator.iter_errors(d):
        errors.append(f"{label} at /{'/'.join(map(str, e.absolute_path))}: {e.message}")

expect(doc.get("$schema") == schema["$id"], f"$schema {doc.get('$schema')} is not the kept schema's {schema['$id']}")
expect(doc["name"] == NAME, f"name {doc['name']} is not {NAME}")
expect(doc["version"] == version, f"version {doc['version']} is not Cargo's {version}")
expect(doc.get("repository", {}).get("url") == REPO, f"repository {doc.get('repository')}")
by_type = {}
for p in doc["packages"]:
    by_type.setdefault(p["registryType"], []).append(p)
    expect(p.get("version") == version, f"{p['registryType']} {p['identifier']}: version {p.get('version')} is not {version}")
    expect(p.get("transport") == {"type": "stdio"}, f"{p['identifier']}: transport {p.get('transport')}")
    expect("fileSha256" not in p, f"{p['identifier']}: the committed server.json carries a hash (packaging/mcpb/server-json fills them)")
expect(sorted(by_type) == ["cargo", "mcpb", "npm", "pypi"], f"registry types {sorted(by_type)}")
marker = f"mcp-name: {NAME}"

# npm: the tarball npm would publish, with the name and the registry's `mcpName` marker.
npm = by_type.get("npm", [{}])[0]
found = []
for f in sorted(os.listdir(dist)):
    if f.endswith(".tgz"):
        with tarfile.open(os.path.join(dist, f)) as t:
            try:
                pj = json.load(t.extractfile("package/package.json"))
            except KeyError:
                continue
        if pj.get("name") == npm.get("identifier"):
            found.append((f, pj))
expect(found, f"no npm tarball in {dist}/ whose package.json name is {npm.get('identifier')}")
for f, pj in found:
    expect(pj.get("version") == version, f"{f}: version {pj.get('version')}")
    expect(pj.get("mcpName") == NAME, f"{f}: package.json mcpName {pj.get('mcpName')!r} must be {NAME} (the registry's npm ownership check)")

# PyPI: the wheel, whose description (the README) carries the ownership marker.
pypi = by_type.get("pypi", [{}])[0]
wheels = [f for f in os.listdir(dist) if f.startswith(f"{pypi.get('identifier')}-{version}-") and f.endswith(".whl")]
expect(wheels, f"no {dist}/{pypi.get('identifier')}-{version}-*.whl")
for w in wheels:
    with zipfile.ZipFile(os.path.join(dist, w)) as z:
        meta = z.read(f"{pypi['identifier']}-{version}.dist-info/METADATA").decode()
    expect(re.search(rf"^Name: {re.escape(pypi['identifier'])}$", meta, re.M), f"{w}: METADATA Name")
    expect(marker in meta, f"{w}: the description has no '{marker}' (the registry's PyPI ownership check)")

# crates.io: the package `cargo install` builds; crates.io strips HTML comments from the README,
# so the marker must be visible text.
cargo = by_type.get("cargo", [{}])[0]
expect(cargo.get("registryBaseUrl") == "https://crates.io", f"cargo registryBaseUrl {cargo.get('registryBaseUrl')}")
app = tomllib.load(open("app/Cargo.toml", "rb"))["package"]
expect(app["name"] == cargo.get("identifier"), f"cargo identifier {cargo.get('identifier')} is not app/Cargo.toml's {app['name']}")
readme = open(os.path.join("app", app.get("readme", "README.md"))).read()
visible = re.sub(r"<!--.*?-->", "", readme, flags=re.S)
expect(re.search(rf"(^|\s){re.escape(marker)}(\s|$)", visible), f"README.md has no visible '{marker}' line (crates.io and PyPI ownership checks)")

# mcpb: one release asset per platform packaging/mcpb/build makes; every bundle built is listed,
# and the release server.json's hashes are those of the files in dist/.
built = {f for f in os.listdir(dist) if f.startswith(f"vitaecontext-{version}-") and f.endswith(".mcpb")}
listed = set()
for p in by_type.get("mcpb", []):
    m = re.fullmatch(rf"{re.escape(REPO)}/releases/download/v{re.escape(version)}/(vitaecontext-{re.escape(version)}-([a-z0-9-]+)\.mcpb)", p["identifier"])
    expect(m and m.group(2) in PLATFORMS, f"mcpb {p['identifier']} is not a release asset packaging/mcpb/build makes")
    if m:
        listed.add(m.group(1))
expect(built <= listed, f"bundles built but not in server.json: {sorted(built - listed)}")
hashed = 0
for p in release["packages"]:
    if p["registryType"] == "mcpb":
        f = os.path.join(dist, p["identifier"].rsplit("/", 1)[1])
        expect(p.get("fileSha256") == hashlib.sha256(open(f, "rb").read()).hexdigest(), f"release server.json: fileSha256 of {f}")
        hashed += 1
expect(hashed == len(built) and hashed > 0, f"release server.json hashes {hashed} bundles, {len(built)} built")

# The arguments and environment variables are the built binary's: ask the bundle's binary.
here = [b for b in sorted(built) if b.endswith(("-linux-x64.mcpb", "-linux-arm64.mcpb", "-darwin-arm64.mcpb", "-darwin-x64.mcpb"))]
ran = False
for b in here:
    with zipfile.ZipFile(os.path.join(dist, b)) as z:
        exe = z.extract("server/vitaecontext", os.path.join(tmp, b))
    os.chmod(exe, 0o755)
    try:
        help_text = subprocess.run([exe, "mcp", "--help"], capture_output=True, text=True, check=True).stdout
    except OSError:
        continue  # another CPU's bundle
    ran = True
    for p in doc["packages"]:
        args = p.get("packageArguments", [])
        if p["registryType"] == "mcpb":
            expect(not args, f"{p['identifier']}: a bundle's own manifest passes its arguments")
            continue
        expect(args[:1] == [{"type": "positional", "value": "mcp", "description": args[0].get("description")}], f"{p['registryType']}: the first argument must be the `mcp` command")
        for a in args[1:]:
            expect(a["type"] == "named" and re.search(rf"^\s+{re.escape(a['name'])} <", help_text, re.M), f"{p['registryType']}: `mcp` takes no {a.get('name')}")
        for e in p.get("environmentVariables", []):
            expect(f"${e['name']}" in help_text, f"{p['registryType']}: `mcp --help` names no ${e['name']}")
    break
expect(ran, f"no bundle in {dist}/ runs here, to check the arguments against")

for e in errors:
    print(f"  {e}", file=sys.stderr)
if errors:
    sys.exit(1)
print(f"server.json: valid against the 2025-12-11 schema; {len(doc['packages'])} packages; release hashes for {hashed} bundle(s) match {dist}/", file=sys.stderr)
EOF
