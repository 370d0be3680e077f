// Regression tests for defects a code review found (each test names the
// behaviour that was wrong): oversized snapshot buffers, a malformed batch
// reply, options checked only after a request, polled snapshots never freed,
// a demo server stuck on its first catalog, and the create() check order.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import test from "node:test";
import {
  ArtifactBloomFilter,
  HttpArtifactRepository,
  SnapshotHolder,
  encodeSnapshot,
  fetchSnapshot,
  loadSnapshot,
  wasmMemoryBytes,
} from "artifact-bloom";
import { hex, packedDigests, readVector, sha256 } from "./helpers/abf1.mjs";
import { publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";

const SERVE = fileURLToPath(new URL("node_modules/artifact-bloom/cli/serve/serve.mjs", import.meta.url));

test("a valid header followed by 64 MiB of junk is lengthMismatch, decided without copying it into wasm", () => {
  const valid = readVector("small-v42.abf1");
  const padded = new Uint8Array(valid.byteLength + 64 * 1024 * 1024);
  padded.set(valid);
  const before = wasmMemoryBytes();
  const result = loadSnapshot(padded);
  assert.equal(result.kind, "failure");
  assert.equal(result.error, "lengthMismatch");
  assert.match(result.message, /exactly 104 bytes/);
  // Bound: the load may not reserve anything near the 64 MiB it was handed.
  assert.ok(wasmMemoryBytes() - before < 1024 * 1024, `wasm memory grew by ${wasmMemoryBytes() - before} bytes`);
});

test("a findMissing reply without a proper missing list rejects instead of answering 'exists'", async () => {
  const digest = sha256("blob");
  for (const body of [
    {},
    { catalogVersion: 7, missing: null },
    { catalogVersion: 7, missing: "x" },
    { catalogVersion: 8, missing: [] },
  ]) {
    // Marked as the existence API's answer (for 7), so only the body is at fault.
    const fetch = async () =>
      new Response(JSON.stringify(body), { status: 200, headers: { "artifact-bloom-catalog-version": "7" } });
    const repository = new HttpArtifactRepository("http://127.0.0.1:1/", { fetch });
    await assert.rejects(repository.existsManyAtVersionAsync([digest], 7), /malformed/, JSON.stringify(body));
  }
});

test("fetchSnapshot refuses bad options before sending any request", async () => {
  let requests = 0;
  const fetch = async () => {
    requests += 1;
    return new Response(readVector("small-v42.abf1"));
  };
  await assert.rejects(fetchSnapshot("http://127.0.0.1:1/snapshot", { fetch, maxBytes: -1 }), RangeError);
  await assert.rejects(fetchSnapshot("http://127.0.0.1:1/snapshot", { fetch, onProgress: 5 }), TypeError);
  assert.equal(requests, 0);
});

test("polling with freeReplacedAfterMs frees the snapshot it replaced", async () => {
  const build = (version) => {
    const filter = ArtifactBloomFilter.createPacked(packedDigests(`v${version}`, 10), {
      expectedItemCount: 10,
      targetFalsePositiveRate: 0.01,
    }).value;
    const bytes = encodeSnapshot(filter, { catalogVersion: version });
    filter.free();
    return bytes;
  };
  let version = 1;
  const fetch = async () => new Response(build(version));
  const holder = new SnapshotHolder(loadSnapshot(build(0)).value);
  const refreshed = [];
  holder.startPolling("http://127.0.0.1:1/snapshot", {
    intervalMs: 5,
    immediate: true,
    fetch,
    freeReplacedAfterMs: 0,
    onRefresh: (r) => refreshed.push(r.outcome),
  });
  const keepAlive = setInterval(() => {}, 5); // the holder's timers are unref'ed
  try {
    while (refreshed.length < 1) await new Promise((r) => setTimeout(r, 5));
    const first = holder.current();
    assert.equal(first.catalogVersion, 1);
    version = 2;
    while (holder.current().catalogVersion !== 2) await new Promise((r) => setTimeout(r, 5));
    // The free is scheduled (freeReplacedAfterMs: 0): wait for it, bounded
    // generously so a busy machine cannot fail the test, only a missing free.
    for (let waited = 0; !first.filter.freed && waited < 30_000; waited += 5) await new Promise((r) => setTimeout(r, 5));
    assert.equal(first.filter.freed, true, "the polled snapshot it replaced is freed");
    assert.equal(holder.current().filter.freed, false);
  } finally {
    holder.stopPolling();
    clearInterval(keepAlive);
  }
});

test("create checks the spec before the digests argument, as the reference does", () => {
  assert.deepEqual(ArtifactBloomFilter.create("x", { expectedItemCount: 0, targetFalsePositiveRate: 0.01 }), {
    kind: "failure",
    error: "invalidExpectedItemCount",
  });
  assert.deepEqual(ArtifactBloomFilter.createPacked("x", { expectedItemCount: 2 ** 30, targetFalsePositiveRate: 1e-20 }), {
    kind: "failure",
    error: "filterTooLarge",
  });
});

test("serve answers for a republished snapshot's version and catalog without a restart", async () => {
  const dir = await tempDir("serve-reload");
  const { startServer } = await import(SERVE);
  const catalog = join(dir.path, "catalog.txt");
  const snapshot = join(dir.path, "catalog.abf1");
  const publish = (version) => runCli(["publish", ...publishSizing(version, 10, 0.01), "--input", catalog, "--out", snapshot]);
  await writeHexList(catalog, [sha256("a")]);
  assert.equal((await publish(1)).code, 0);
  const server = await startServer({ snapshot, catalog, port: 0 });
  try {
    const head = (digest, version) =>
      fetch(new URL(`blobs/sha256/${hex(digest)}?catalogVersion=${version}`, server.url), { method: "HEAD" });
    assert.equal((await head(sha256("a"), 1)).status, 200);
    assert.equal((await head(sha256("b"), 1)).status, 404);
    // The catalog list first, then the snapshot (the documented order).
    await new Promise((r) => setTimeout(r, 20)); // a distinct mtime
    await writeHexList(catalog, [sha256("a"), sha256("b")]);
    assert.equal((await publish(2)).code, 0);
    assert.equal((await head(sha256("b"), 2)).status, 200);
    assert.equal((await head(sha256("b"), 1)).status, 409);
  } finally {
    await server.close();
    await dir.remove();
  }
});
