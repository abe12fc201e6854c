// A minimal npm registry for tests: serves the packuments and tarballs of the .tgz files given,
// on 127.0.0.1 at a free port, which it prints on stdout as its first line; anything else is a
// 404 (so npm skips the optional platform packages this machine did not build, as it does
// for an unavailable optional dependency). Enough for `npx -y vitaecontext@VERSION`, which asks
// the registry for the packument even when the package is in npm's cache.
// usage: node registry.mjs TARBALL...
import { createServer } from "node:http";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { execFileSync } from "node:child_process";

const packages = new Map();
for (const file of process.argv.slice(2)) {
  const bytes = readFileSync(file);
  const manifest = JSON.parse(execFileSync("tar", ["-xzOf", file, "package/package.json"], { encoding: "utf8" }));
  packages.set(manifest.name, { file, bytes, manifest });
}

const server = createServer((req, res) => {
  const url = decodeURIComponent(req.url.split("?")[0]);
  const { port } = server.address();
  const tarball = url.match(/^\/-\/(.+\.tgz)$/);
  if (tarball) {
    const p = [...packages.values()].find((p) => basename(p.file) === tarball[1]);
    if (p) {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return res.end(p.bytes);
    }
  }
  const p = packages.get(url.slice(1));
  if (!p) {
    res.writeHead(404, { "content-type": "application/json" });
    return res.end(JSON.stringify({ error: "not found" }));
  }
  const { manifest, bytes, file } = p;
  const dist = {
    tarball: `http://127.0.0.1:${port}/-/${basename(file)}`,
    shasum: createHash("sha1").update(bytes).digest("hex"),
    integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
  };
  const packument = {
    name: manifest.name,
    "dist-tags": { latest: manifest.version },
    versions: { [manifest.version]: { ...manifest, _id: `${manifest.name}@${manifest.version}`, dist } },
  };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(packument));
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
