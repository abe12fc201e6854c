// The one table of prebuilt binaries: the launcher reads it to find its platform's package, and
// packaging/npm/build.mjs reads it to name and tag each package and the launcher's
// optionalDependencies. A new target is one row here and one entry in the release matrix.
"use strict";

/** @type {{target: string, os: string, cpu: string, libc?: string, exe: string}[]} */
const PLATFORMS = [
  { target: "x86_64-unknown-linux-gnu", os: "linux", cpu: "x64", libc: "glibc", exe: "vitaecontext" },
  { target: "aarch64-unknown-linux-gnu", os: "linux", cpu: "arm64", libc: "glibc", exe: "vitaecontext" },
  { target: "aarch64-apple-darwin", os: "darwin", cpu: "arm64", exe: "vitaecontext" },
  { target: "x86_64-apple-darwin", os: "darwin", cpu: "x64", exe: "vitaecontext" },
  { target: "x86_64-pc-windows-msvc", os: "win32", cpu: "x64", exe: "vitaecontext.exe" },
];

/** The npm package that carries the binary for one row. */
function packageName(p) {
  return `@vitaecontext/cli-${p.os}-${p.cpu}`;
}

module.exports = { PLATFORMS, packageName };
