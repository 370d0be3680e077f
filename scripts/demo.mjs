#!/usr/bin/env node
// The main job's demo (run by scripts/main.sh after the build):
//
//   1. generates a deterministic sample catalog (sha256("artifact:" + i));
//   2. publishes catalog-1.abf1 with the CLI (atomic replace);
//   3. starts `artifact-bloom serve` on 127.0.0.1 (the library's request handler,
//      artifact-bloom/server's createRequestHandler, mounted on node:http);
//   4. prechecks a mixed digest list through ArtifactExistenceService against
//      that server — definite negatives skip the API, maybes are confirmed —
//      and prints a table and the service metrics;
//   5. keeps serving the browser precheck page until Ctrl-C (--no-serve exits).
//
// Usage: node scripts/demo.mjs [--items N] [--port N] [--dir DIR] [--no-serve] [--json]
//   --dir: where the sample catalog and snapshot go (default: demo-data/ in
//   the checkout; the tests pass a temp dir, never the checkout)
import { spawn, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ArtifactExistenceService, HttpArtifactRepository, SnapshotHolder, fetchSnapshot } from "../pkg/node.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    items: { type: "string", default: "200000" },
    port: { type: "string", default: "8080" },
    "no-serve": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    dir: { type: "string" },
  },
});
const itemCount = Number(values.items);
const work = values.dir === undefined ? join(root, "demo-data") : resolve(values.dir);
const cli = join(root, "pkg", "bin", "artifact-bloom.mjs");
const sha256 = (text) => createHash("sha256").update(text).digest();

// 1. The sample catalog: the exact digest list of catalogVersion 1.
mkdirSync(work, { recursive: true });
const catalogPath = join(work, "catalog-1.txt");
const lines = [];
for (let i = 0; i < itemCount; i += 1) lines.push(sha256(`artifact:${i}`).toString("hex"));
writeFileSync(catalogPath, `# demo catalog, version 1: sha256("artifact:" + i) for i < ${itemCount}\n${lines.join("\n")}\n`);

// 2. Publish with the CLI, as a catalog service would. Each run is a new demo
// catalog at whatever --items says, so the last run's snapshot goes first:
// publish rightly refuses catalogVersion 1 again with other content.
const snapshotPath = join(work, "catalog-1.abf1");
rmSync(snapshotPath, { force: true });
rmSync(`${snapshotPath}.meta.json`, { force: true });
process.stdout.write(
  execFileSync(
    process.execPath,
    [
      cli,
      "publish",
      "--catalog-version",
      "1",
      "--expected-items",
      String(itemCount),
      "--fpp",
      "0.01",
      "--input",
      catalogPath,
      "--out",
      snapshotPath,
    ],
    { encoding: "utf8" },
  ),
);

// 3. Serve it on loopback; fall back to a free port if the asked one is taken.
async function startServer(port) {
  const child = spawn(
    process.execPath,
    [cli, "serve", "--snapshot", snapshotPath, "--catalog", catalogPath, "--port", String(port)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise((resolve) => {
    let seen = "";
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      const match = /listening on (\S+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    child.once("exit", () => resolve(undefined));
  });
  return { child, url };
}
let server = await startServer(Number(values.port));
if (server.url === undefined && values.port !== "0") server = await startServer(0);
if (server.url === undefined) throw new Error("the demo server did not start");
const stopServer = () => server.child.kill("SIGTERM");
process.once("exit", stopServer);

// 4. A client: load the snapshot over HTTP, then precheck a mixed list —
//    2% artifacts the catalog has, 98% new ones (a typical upload batch).
const loaded = await fetchSnapshot(new URL("snapshot", server.url));
if (loaded.kind === "failure") throw new Error(`snapshot did not load: ${loaded.error}: ${loaded.message}`);
const holder = new SnapshotHolder(loaded.value);
const repository = new HttpArtifactRepository(server.url);
const service = new ArtifactExistenceService(holder, repository);

const presentCount = 200;
const newCount = 9_800;
const mixed = [];
for (let i = 0; i < presentCount; i += 1) mixed.push(sha256(`artifact:${(i * 997) % itemCount}`));
for (let i = 0; i < newCount; i += 1) mixed.push(sha256(`new-artifact:${i}`));

// One by one (existsAsync), as a build tool checking before each upload…
let confirmedPresent = 0;
for (const digest of mixed.slice(0, 5_000)) if (await service.existsAsync(digest)) confirmedPresent += 1;
// …and the rest as one batch (findMissingAsync), like REAPI FindMissingBlobs.
const missing = await service.findMissingAsync(mixed.slice(5_000));

const metrics = service.metrics();
const stats = await (await fetch(new URL("stats", server.url))).json();
const checked = mixed.length;
const negatives = metrics["artifact_bloom.negative.count"];
const table = {
  "digests checked": checked,
  "present (confirmed)": confirmedPresent + (checked - 5_000 - missing.length),
  "missing (to upload)": checked - confirmedPresent - (checked - 5_000 - missing.length),
  "skipped calls (definitely absent)": negatives,
  "API digest lookups": stats.digestsAsked,
  "API requests": stats.existenceRequests + stats.findMissingRequests,
  "false positives": metrics["artifact_bloom.false_positive.count"],
  "bypass ratio": metrics.negativeBypassRatio,
};
if (values.json) {
  process.stdout.write(`${JSON.stringify({ table, metrics, stats: { ...stats, recentByDigest: undefined } }, null, 2)}\n`);
} else {
  process.stdout.write(
    `\nprecheck of ${checked} digests against ${server.url} (catalogVersion ${loaded.value.catalogVersion})\n\n`,
  );
  process.stdout.write("| measure | value |\n|---|---:|\n");
  for (const [name, value] of Object.entries(table)) {
    process.stdout.write(`| ${name} | ${typeof value === "number" && !Number.isInteger(value) ? value.toFixed(4) : value} |\n`);
  }
  process.stdout.write("\nmetrics:\n");
  for (const [name, value] of Object.entries(metrics)) process.stdout.write(`  ${name.padEnd(44)} ${value}\n`);
}

// 5. Keep serving the browser page (Ctrl-C to stop), unless --no-serve.
if (values["no-serve"]) {
  stopServer();
} else {
  process.stdout.write(`\nbrowser precheck page: ${server.url}  (Ctrl-C to stop)\n`);
  process.once("SIGINT", () => process.exit(0));
  await new Promise(() => {});
}
