#!/usr/bin/env node
// Builds the npm tarballs (`npm pack`) into DIST:
//   node packaging/npm/build.mjs platform DIST TARGET BINARY
//     -> the package for one Rust target (@vitaecontext/cli-<os>-<cpu>) holding BINARY
//   node packaging/npm/build.mjs launcher DIST
//     -> the launcher `vitaecontext`, whose optionalDependencies pin every platform package
// Version, description, licence, keywords and repository come from Cargo (`cargo metadata`), so
// every package says what the crate says. Each package is laid out in a fresh temporary folder,
// so nothing from a previous build or from this checkout leaks in. Prints each tarball's path.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const { PLATFORMS, packageName } = createRequire(import.meta.url)("./launcher/lib/platforms.js");

const crate = JSON.parse(
  execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1", "--manifest-path", join(root, "app", "Cargo.toml")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }),
).packages.find((p) => p.name === "vitaecontext");
const version = crate.version;
// npm --provenance refuses a package whose repository is not the repository that built it.
const common = {
  license: crate.license,
  keywords: crate.keywords,
  ...(crate.repository ? { repository: { type: "git", url: `git+${crate.repository}.git` } } : {}),
  ...(crate.homepage ? { homepage: crate.homepage } : {}),
};

function usage() {
  process.stderr.write(
    "usage: build.mjs platform DIST TARGET BINARY | build.mjs launcher DIST\n",
  );
  process.exit(2);
}

function pack(dir, dist) {
  mkdirSync(dist, { recursive: true });
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", resolve(dist)], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    // npm is npm.cmd on Windows, which Node runs only through a shell.
    shell: process.platform === "win32",
  });
  const [{ filename }] = JSON.parse(out);
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${join(resolve(dist), filename)}\n`);
}

function writeJson(file, value) {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function platform(dist, target, binary) {
  const row = PLATFORMS.find((p) => p.target === target);
  if (!row) {
    process.stderr.write(`build.mjs: no npm platform for target ${target} (packaging/npm/launcher/lib/platforms.js)\n`);
    process.exit(2);
  }
  const name = packageName(row);
  const dir = mkdtempSync(join(tmpdir(), "vitaecontext-npm-"));
  mkdirSync(join(dir, "bin"));
  copyFileSync(binary, join(dir, "bin", row.exe));
  // npm pack keeps the executable bit, and nothing runs chmod at install (no scripts).
  chmodSync(join(dir, "bin", row.exe), 0o755);
  writeJson(join(dir, "package.json"), {
    name,
    version,
    description: `The vitaecontext binary for ${row.os}-${row.cpu}${row.libc ? ` (${row.libc})` : ""}. Install \`vitaecontext\`, which picks this package for you.`,
    ...common,
    os: [row.os],
    cpu: [row.cpu],
    ...(row.libc ? { libc: [row.libc] } : {}),
    files: [`bin/${row.exe}`],
    // Yarn PnP: a binary must live on disk, not inside a zip.
    preferUnplugged: true,
  });
  writeFileSync(
    join(dir, "README.md"),
    `# ${name}\n\nThe prebuilt \`vitaecontext\` binary for ${row.os}-${row.cpu}. Install [vitaecontext](https://www.npmjs.com/package/vitaecontext) instead: it depends on this package on this platform only.\n`,
  );
  pack(dir, dist);
}

// The MCP registry accepts an npm package for a server only when its package.json names the
// server (`mcpName`), so it is taken from the server.json we publish.
function mcpName() {
  const file = join(root, "server.json");
  return existsSync(file) ? { mcpName: JSON.parse(readFileSync(file, "utf8")).name } : {};
}

function launcher(dist) {
  const dir = mkdtempSync(join(tmpdir(), "vitaecontext-npm-"));
  cpSync(join(here, "launcher"), dir, { recursive: true });
  chmodSync(join(dir, "bin", "vitaecontext.js"), 0o755);
  copyFileSync(join(root, "README.md"), join(dir, "README.md"));
  writeJson(join(dir, "package.json"), {
    name: "vitaecontext",
    version,
    description: crate.description,
    ...common,
    bin: { vitaecontext: "bin/vitaecontext.js" },
    files: ["bin/vitaecontext.js", "lib/platforms.js"],
    // Exact versions: the launcher and the binary come from one release.
    optionalDependencies: Object.fromEntries(PLATFORMS.map((p) => [packageName(p), version])),
    engines: { node: ">=16" },
    ...mcpName(),
  });
  pack(dir, dist);
}

const [kind, ...args] = process.argv.slice(2);
if (kind === "platform" && args.length === 3) platform(...args);
else if (kind === "launcher" && args.length === 1) launcher(...args);
else usage();
