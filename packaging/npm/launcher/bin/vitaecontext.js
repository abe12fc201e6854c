#!/usr/bin/env node
// The npm launcher: finds the binary in this platform's optional package
// (@vitaecontext/cli-<os>-<cpu>, installed by npm from optionalDependencies by its os/cpu
// fields, as esbuild and biome do) and runs it. Nothing is downloaded, here or at install, so
// it works with --ignore-scripts, offline caches and proxies.
"use strict";

const path = require("path");
const { PLATFORMS, packageName } = require("../lib/platforms.js");

function fail(message) {
  process.stderr.write(`vitaecontext (npm launcher): ${message}\n`);
  process.exit(1);
}

const fs = require("fs");

// Which C library this Linux has: musl's loader sits in /lib as ld-musl-<arch>.so.1 (a listing
// of one folder, cheap enough for every start).
function libc() {
  try {
    return fs.readdirSync("/lib").some((f) => f.startsWith("ld-musl-")) ? "musl" : "glibc";
  } catch {
    return "glibc";
  }
}

function binaryPath() {
  const here = `${process.platform}-${process.arch}`;
  const row = PLATFORMS.find((p) => p.os === process.platform && p.cpu === process.arch);
  const fromSource = "install it from source instead: cargo install vitaecontext";
  if (!row) {
    const known = PLATFORMS.map((p) => `${p.os}-${p.cpu}${p.libc ? ` (${p.libc})` : ""}`).join(", ");
    fail(`no prebuilt binary for ${here}; there are binaries for ${known}. You can ${fromSource}`);
  }
  const name = packageName(row);
  // npm 10.4+ skips a glibc package on musl (Alpine) through its `libc` field; yarn, pnpm and
  // older npm install it anyway, and it cannot run there: say why, whichever happened.
  const wrongLibc = process.platform === "linux" && row.libc && libc() !== row.libc;
  if (wrongLibc) {
    fail(`no prebuilt binary for ${here} with ${libc()}: the Linux binaries need ${row.libc}. You can ${fromSource}`);
  }
  let binary;
  try {
    binary = path.join(path.dirname(require.resolve(`${name}/package.json`)), "bin", row.exe);
  } catch {
    fail(
      `the package ${name}, which holds the binary for ${here}, is not installed. npm installs it ` +
        `from vitaecontext's optionalDependencies unless they were left out (--omit=optional, ` +
        `--no-optional) or a lockfile made on another platform skipped it. Reinstall with optional ` +
        `dependencies, add ${name} yourself, or ${fromSource}`,
    );
  }
  // Checked here, not left to execve: a failed execve aborts Node 22 with a native stack
  // instead of an error it can catch.
  try {
    fs.accessSync(binary, process.platform === "win32" ? fs.constants.F_OK : fs.constants.X_OK);
  } catch (e) {
    fail(`cannot run ${binary} (${e.code}): reinstall ${name}, or ${fromSource}`);
  }
  return binary;
}

const binary = binaryPath();
const args = process.argv.slice(2);
// The binary's `register` command writes `npx -y vitaecontext@<version> ...` into client configs
// when npx started it from its cache, and the installed binary's path for an installed package
// (a global or project install: npx would ask the registry at every start).
const fromNpx = __dirname.split(path.sep).includes("_npx");
const env = { ...process.env, VITAECONTEXT_LAUNCHER: fromNpx ? "npx" : "npm" };

// Node 22.15+ can replace this process with the binary (Unix only): the client then talks to the
// binary itself, with its pid, its signals and its exit status, and no Node process stays behind.
if (typeof process.execve === "function" && process.platform !== "win32") {
  try {
    process.execve(binary, [binary, ...args], env);
  } catch (e) {
    fail(`cannot run ${binary}: ${e.message}`);
  }
}

// Otherwise a child that shares our stdin, stdout and stderr (no copying), and whose end is ours.
const { spawn } = require("child_process");
const child = spawn(binary, args, { stdio: "inherit", env, windowsHide: true });
child.on("error", (e) => fail(`cannot run ${binary}: ${e.message}`));
// A signal sent to the launcher alone (a client stopping its server by pid) must reach the
// binary; one sent to the whole process group (Ctrl-C) reaches both, which the binary tolerates.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of forwarded) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so our parent sees what it would have seen from the binary.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    // A signal that does not end Node (SIGPIPE is ignored): the shell's code for it instead.
    setTimeout(() => process.exit(128 + (require("os").constants.signals[signal] || 0)), 100);
    return;
  }
  process.exit(code === null ? 1 : code);
});
