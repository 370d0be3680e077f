// Runs a Worker (one ES module bundled by esbuild) that mounts
// artifact-bloom/server's request handler over an R2 bucket binding, in
// Miniflare 4 (workerd from npm; Node ≥ 22, so server-frameworks.test.mjs
// starts this with the repo's Node 22). It uploads a published layout
// directory into the bucket (immutable files first, manifest last, as
// docs/hosting.md says), then uses the package as a client against the
// Worker's URL and prints one JSON line of what it saw.
//
//   node22 worker-handler-runner.mjs WORKER_JS LAYOUT_DIR PKG_DIR MEMBER_HEX STRANGER_HEX
//
// workerd listens on 127.0.0.1, port 0; `cf: false` keeps Miniflare off the network.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startLayoutWorker } from "./miniflare-worker.mjs";

const [worker, layout, pkgDir, member, stranger] = process.argv.slice(2);
const mf = startLayoutWorker(worker);
const result = {};
try {
  const bucket = await mf.getR2Bucket("LAYOUT");
  const files = readdirSync(layout, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(layout.length + 1));
  // The manifest last: no client may read a manifest naming a file not uploaded yet.
  files.sort((a, b) => (a === "manifest.json") - (b === "manifest.json"));
  for (const name of files) await bucket.put(`catalog/${name}`, readFileSync(join(layout, name)));
  const url = new URL("/catalog/", await mf.ready).href;
  const pkg = await import(pathToFileURL(join(pkgDir, "node.mjs")).href);
  const loaded = await pkg.fetchSnapshot(`${url}manifest.json`);
  result.load =
    loaded.kind === "success"
      ? { catalogVersion: loaded.value.catalogVersion }
      : { error: loaded.error, message: loaded.message };
  const digest = (hex) => Uint8Array.from(Buffer.from(hex, "hex"));
  const repository = new pkg.HttpArtifactRepository(url);
  result.exists = await repository.existsManyAtVersionAsync([digest(member), digest(stranger)], 1);
  result.head = await repository.existsAtVersionAsync(digest(stranger), 1);
  const manifest = await fetch(`${url}manifest.json`);
  result.manifestCacheControl = manifest.headers.get("cache-control");
  await manifest.arrayBuffer();
} catch (error) {
  result.thrown = String(error?.stack ?? error);
} finally {
  await mf.dispose();
}
console.log(JSON.stringify(result));
