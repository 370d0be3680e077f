// Issue 21, D2 (clients): a catalogVersion republished with other digests.
// fetchSnapshot with a base and SnapshotHolder must report it as the failure
// "versionConflict" — never a silent notModified/stale — and the holder must
// not go on answering "definitely absent" from the snapshot the server
// contradicts: it adopts the server's one (lib/snapshot/version-conflict.js says why).
// The end-to-end test runs the real `serve` and a polling holder.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, SnapshotHolder, encodeSnapshot, fetchSnapshot, loadSnapshot } from "artifact-bloom";
import { sha256 } from "./helpers/abf1.mjs";
import { publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";
import { startServe as startServeProcess, stopServe } from "./helpers/serve-process.mjs";

const WAIT_MS = 60_000; // the bound on any wait below: generous, never a timing assertion
const digests = (prefix, count) => Array.from({ length: count }, (_, i) => sha256(`${prefix}:${i}`));
const catalogA = digests("a", 100);
const catalogB = digests("b", 100);

/** The ABF1 file of `members` at `catalogVersion`. */
function snapshotBytes(members, catalogVersion) {
  const filter = ArtifactBloomFilter.create(members, { expectedItemCount: 200, targetFalsePositiveRate: 0.01 }).value;
  try {
    return encodeSnapshot(filter, { catalogVersion });
  } finally {
    filter.free();
  }
}

function loaded(bytes) {
  const result = loadSnapshot(bytes);
  assert.equal(result.kind, "success", result.message);
  return result.value;
}

/** How many of `members` the snapshot answers "definitely absent" for: each one a wrong answer. */
const wrongAbsent = (snapshot, members) => members.filter((digest) => !snapshot.filter.mightContain(digest)).length;

/** `promise`, or a rejection naming `what` after WAIT_MS. */
async function within(promise, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${WAIT_MS} ms`)), WAIT_MS);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

describe("fetchSnapshot with a base", () => {
  let server;
  let served; // the bytes GET /snapshot answers with, always 200 (no conditional support)
  let url;
  before(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": served.byteLength });
      response.end(served);
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${server.address().port}/snapshot`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  test("the same catalogVersion with another checksum → versionConflict carrying the server's snapshot", async () => {
    const base = loaded(snapshotBytes(catalogA, 5));
    served = snapshotBytes(catalogB, 5);
    const result = await fetchSnapshot(url, { base });
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "versionConflict");
    assert.match(
      result.message,
      new RegExp(`catalogVersion 5 names two different snapshots.*${base.header.checksum}.*${result.snapshot.header.checksum}`),
    );
    assert.equal(result.snapshot.catalogVersion, 5);
    assert.equal(wrongAbsent(result.snapshot, catalogB), 0);
    assert.equal(result.transfer.bytes, served.byteLength);
    result.snapshot.filter.free();
    base.filter.free();
  });

  test("the same snapshot again (a server that ignores If-None-Match) and a newer one are successes", async () => {
    const base = loaded(snapshotBytes(catalogA, 5));
    for (const [members, version] of [
      [catalogA, 5],
      [catalogB, 6],
    ]) {
      served = snapshotBytes(members, version);
      const result = await fetchSnapshot(url, { base });
      assert.equal(result.kind, "success", result.message);
      assert.equal(result.value.catalogVersion, version);
      result.value.filter.free();
    }
    base.filter.free();
  });
});

describe("SnapshotHolder.refreshFrom", () => {
  test("a loader's same-version snapshot with another checksum: versionConflict, counted, adopted", async () => {
    const held = loaded(snapshotBytes(catalogA, 5));
    const holder = new SnapshotHolder(held);
    const swaps = [];
    holder.onReplace((next, previous) => swaps.push([next, previous]));
    const server = loaded(snapshotBytes(catalogB, 5));
    const result = await holder.refreshFrom(async () => ({ kind: "success", value: server }));
    assert.deepEqual(
      { ...result, message: undefined },
      { replaced: true, outcome: "failure", error: "versionConflict", message: undefined },
    );
    assert.match(result.message, /catalogVersion 5 names two different snapshots/);
    assert.equal(holder.current(), server);
    assert.deepEqual(swaps, [[server, held]]);
    assert.equal(holder.versionConflictCount, 1);
    assert.equal(holder.loadFailureCount, 1);
    assert.equal(holder.staleCount, 0);
    assert.equal(holder.lastFailure.error, "versionConflict");
    assert.equal(wrongAbsent(holder.current(), catalogB), 0);
    // The same snapshot again is no change (notModified), not a second conflict.
    const again = loaded(snapshotBytes(catalogB, 5));
    assert.deepEqual(await holder.refreshFrom(async () => ({ kind: "success", value: again })), {
      replaced: false,
      outcome: "notModified",
    });
    assert.equal(holder.versionConflictCount, 1);
    for (const snapshot of [held, server, again]) snapshot.filter.free();
  });

  test("snapshots without a header checksum cannot be compared: stale, as before", async () => {
    const filterOf = (members) =>
      ArtifactBloomFilter.create(members, { expectedItemCount: 200, targetFalsePositiveRate: 0.01 }).value;
    const holder = new SnapshotHolder({ catalogVersion: 5, filter: filterOf(catalogA) });
    const other = { catalogVersion: 5, filter: filterOf(catalogB) };
    assert.deepEqual(await holder.refreshFrom(async () => ({ kind: "success", value: other })), {
      replaced: false,
      outcome: "stale",
    });
    assert.equal(holder.versionConflictCount, 0);
    holder.current().filter.free();
    other.filter.free();
  });
});

/** `artifact-bloom serve` on 127.0.0.1, port 0 (the shared child-process helper) → `{ base, stop() }`. */
async function startServe(snapshot, catalog) {
  const server = await startServeProcess(snapshot, catalog);
  return { base: server.base, stop: () => stopServe(server) };
}

describe("end to end: serve, a polling holder, and a republished catalogVersion", () => {
  let dir;
  const servers = [];
  const at = (name) => join(dir.path, name);
  before(async () => {
    dir = await tempDir("version-conflict");
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await dir?.remove();
  });

  /** Polls `url` once (immediate; the interval never comes) → the refresh result. */
  const pollOnce = (holder, url) =>
    within(
      new Promise((resolve) => {
        holder.startPolling(url, { intervalMs: 3_600_000, immediate: true, onRefresh: resolve });
      }),
      `a poll of ${url}`,
    ).finally(() => holder.stopPolling());

  test('the holder reports versionConflict and answers no "absent" for a member of the server\'s catalog', async (t) => {
    await writeHexList(at("a.txt"), catalogA);
    await writeHexList(at("b.txt"), catalogB);
    const publish = (input, ...extra) =>
      runCli(["publish", ...publishSizing(5, 200, 0.01), "--input", at(input), "--out", at("live.abf1"), ...extra]);
    assert.equal((await publish("a.txt")).code, 0);
    const first = await startServe(at("live.abf1"), at("a.txt"));
    servers.push(first);
    const initial = await fetchSnapshot(`${first.base}/snapshot`);
    assert.equal(initial.kind, "success", initial.message);
    const holder = new SnapshotHolder(initial.value);
    assert.deepEqual(await pollOnce(holder, `${first.base}/snapshot`), { replaced: false, outcome: "notModified" });

    // The operator reuses catalogVersion 5 for other digests (the rule refuses
    // it without the flag) and a fresh server serves that v5.
    assert.equal((await publish("b.txt")).code, 1);
    const republished = await publish("b.txt", "--allow-version-reuse");
    assert.equal(republished.code, 0, republished.stderr);
    await first.stop();
    const second = await startServe(at("live.abf1"), at("b.txt"));
    servers.push(second);

    const held = holder.current();
    const before = wrongAbsent(held, catalogB);
    const result = await pollOnce(holder, `${second.base}/snapshot`);
    assert.equal(result.outcome, "failure", `not a silent ${result.outcome}`);
    assert.equal(result.error, "versionConflict");
    assert.equal(result.replaced, true);
    assert.equal(holder.versionConflictCount, 1);
    assert.equal(holder.lastFailure.error, "versionConflict");
    assert.equal(holder.current().catalogVersion, 5);
    const wrong = wrongAbsent(holder.current(), catalogB);
    t.diagnostic(
      `"definitely absent" for members of the server's v5: ${before}/${catalogB.length} from the held snapshot, ${wrong}/${catalogB.length} after the poll`,
    );
    assert.equal(wrong, 0);
    // And the server confirms each "maybe" at that version.
    const head = await fetch(`${second.base}/blobs/sha256/${Buffer.from(catalogB[0]).toString("hex")}?catalogVersion=5`, {
      method: "HEAD",
    });
    assert.equal(head.status, 200);
    // The next poll is a plain 304: the conflict is reported once, not on every poll.
    assert.deepEqual(await pollOnce(holder, `${second.base}/snapshot`), { replaced: false, outcome: "notModified" });
    held.filter.free();
  });
});
