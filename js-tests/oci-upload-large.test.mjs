// A large layer (256 MiB) pushed by the real CLI to the real registry
// (issue 23 §3): streamed from disk in ONE upload request per blob (POST,
// then one PUT; no PATCH — counted in the registry's access log), with a
// peak RSS that does not grow with the blob, and the blob read back from the
// registry with the right digest.
//
// The bound: the CLI's peak RSS (ru_maxrss via /usr/bin/time, exact) pushing
// the 256 MiB layer is at most the peak of the same command pushing a 1 MiB
// layer plus 64 MiB. The 1 MiB push is the baseline because it loads exactly
// the same code (wasm, snapshot, fetch) and differs only in the blob's size;
// 64 MiB is issue 23's budget (skopeo's whole process is ~22–32 MiB). A push
// that read the blob whole (as before: readFile for a blob within the chunk
// size, or an 8 MiB chunk buffer plus fetch's copy of the body) is over it.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { tempDir } from "./helpers/cli.mjs";
import { writeLargeLayout } from "./helpers/large-layout.mjs";
import { publishFromRegistry } from "./helpers/oci-steps.mjs";
import { runCliWithPeak } from "./helpers/peak-rss.mjs";
import { requestTable, startRegistry } from "./helpers/registry.mjs";

const MIB = 1024 * 1024;
const LARGE = 256 * MIB + 12_345; // not a multiple of any piece or chunk size
const BUDGET_MIB = 64;

let registry;
let dir;
let large;
let small;
let empty;

before(async () => {
  registry = await startRegistry("oci-upload-large");
  dir = await tempDir("oci-upload-large");
  large = await writeLargeLayout(join(dir.path, "large"), { size: LARGE, label: "test-large" });
  small = await writeLargeLayout(join(dir.path, "small"), { size: MIB, label: "test-small" });
  empty = join(dir.path, "empty.abf1");
  assert.equal((await publishFromRegistry(registry.url, "nothing", empty)).run.code, 0);
});
after(async () => {
  await registry?.stop();
  await dir?.remove();
});

/** The registry's blob, hashed as it streams in (never held whole here). */
async function digestOfStoredBlob(repository, digest) {
  const response = await fetch(`${registry.url}/v2/${repository}/blobs/${digest}`);
  assert.equal(response.status, 200);
  const hash = createHash("sha256");
  let length = 0;
  for await (const piece of response.body) {
    hash.update(piece);
    length += piece.byteLength;
  }
  return { digest: `sha256:${hash.digest("hex")}`, length };
}

async function push(layout, repository, extra = []) {
  await registry.settle();
  const mark = registry.mark();
  const run = await runCliWithPeak([
    "push",
    layout.dir,
    `${registry.host}/${repository}:big`,
    "--snapshot",
    empty,
    "--plain-http",
    "--json",
    ...extra,
  ]);
  assert.equal(run.code, 0, run.stderr);
  await registry.settle();
  return { run, summary: JSON.parse(run.stdout), log: registry.since(mark) };
}

test("a 256 MiB layer: one upload request per blob, peak RSS within the 1 MiB push's + 64 MiB, read back intact", {
  timeout: 600_000,
}, async (t) => {
  const baseline = await push(small, "small");
  const pushed = await push(large, "large");
  t.diagnostic(
    `peak RSS: 1 MiB layer ${baseline.run.peakMiB.toFixed(1)} MiB, 256 MiB layer ${pushed.run.peakMiB.toFixed(1)} MiB`,
  );
  assert.ok(
    pushed.run.peakMiB <= baseline.run.peakMiB + BUDGET_MIB,
    `peak ${pushed.run.peakMiB.toFixed(1)} MiB > baseline ${baseline.run.peakMiB.toFixed(1)} + ${BUDGET_MIB} MiB`,
  );

  assert.equal(pushed.summary.uploaded, 2, "config and layer");
  assert.equal(pushed.summary.uploadedBytes, LARGE + large.config.size);
  const table = requestTable(pushed.log);
  assert.equal(table["POST upload"], 2, JSON.stringify(table));
  assert.equal(table["PUT upload"], 2, "one PUT carries each whole blob");
  assert.equal(table["PATCH upload"], undefined, "no chunks by default");
  assert.match(pushed.run.stderr, new RegExp(`uploaded ${large.layer.digest.slice(0, 19)}… 256\\.0 MiB`));

  const stored = await digestOfStoredBlob("large", large.layer.digest);
  assert.deepEqual(stored, { digest: large.layer.digest, length: LARGE });
});

test("--chunk-size 64 MiB: 5 streamed PATCH chunks for the layer, the same memory bound", { timeout: 600_000 }, async (t) => {
  const baseline = await push(small, "small-chunked", ["--chunk-size", String(64 * MIB)]);
  const pushed = await push(large, "large-chunked", ["--chunk-size", String(64 * MIB)]);
  t.diagnostic(
    `peak RSS: 1 MiB layer ${baseline.run.peakMiB.toFixed(1)} MiB, 256 MiB layer in 64 MiB chunks ${pushed.run.peakMiB.toFixed(1)} MiB`,
  );
  assert.ok(
    pushed.run.peakMiB <= baseline.run.peakMiB + BUDGET_MIB,
    `peak ${pushed.run.peakMiB.toFixed(1)} MiB > baseline ${baseline.run.peakMiB.toFixed(1)} + ${BUDGET_MIB} MiB`,
  );
  const table = requestTable(pushed.log);
  assert.equal(table["PATCH upload"], Math.ceil(LARGE / (64 * MIB)), JSON.stringify(table));
  assert.deepEqual(await digestOfStoredBlob("large-chunked", large.layer.digest), { digest: large.layer.digest, length: LARGE });
});
