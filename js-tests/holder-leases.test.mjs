// SnapshotHolder's leases (issue 34: "releases replaced filters safely
// without a time-based grace period surprising readers"). With polling's
// `freeReplaced`, a snapshot polling loaded is freed when it is replaced and
// no lease holds it: a reader inside `holder.use(fn)` keeps its snapshot
// usable however long it takes, and an unleased one is freed at the swap.
// A snapshot the caller gave the holder is never freed by it.
//
// The host is a node:http server on 127.0.0.1 serving whichever version is
// current (ETag: its checksum); polls are fired by hand (injected timers).

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, SnapshotHolder, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { manualTimers } from "./helpers/timers.mjs";

const digestOf = (text) => new Uint8Array(createHash("sha256").update(text, "utf8").digest());
const members = (count) => Array.from({ length: count }, (_, index) => digestOf(`lease:${index}`));
const SPEC = { expectedItemCount: 600, targetFalsePositiveRate: 0.01 };

/** The ABF1 file of version v: 100·v members. */
function fileOf(version) {
  const created = ArtifactBloomFilter.create(members(100 * version), SPEC);
  assert.equal(created.kind, "success");
  const bytes = encodeSnapshot(created.value, { catalogVersion: version });
  created.value.free();
  return bytes;
}

describe("SnapshotHolder leases and freeReplaced", () => {
  let server;
  let url;
  let served = fileOf(1);
  before(async () => {
    server = createServer((request, response) => {
      const tag = `"${createHash("sha256").update(served).digest("hex")}"`;
      if (request.headers["if-none-match"] === tag) return response.writeHead(304, { ETag: tag }).end();
      response.writeHead(200, { ETag: tag, "Content-Length": served.byteLength }).end(served);
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${server.address().port}/catalog.abf1`;
  });
  after(() => server?.close());

  /** A holder polling `url` by hand: `poll(version)` serves that version and runs one poll. */
  function polled(initial, options = {}) {
    const holder = new SnapshotHolder(initial);
    const timers = manualTimers();
    let settled;
    holder.startPolling(url, { intervalMs: 60_000, timers, freeReplaced: true, ...options, onRefresh: (r) => settled(r) });
    return {
      holder,
      async poll(version) {
        served = fileOf(version);
        const outcome = new Promise((resolve) => {
          settled = resolve;
        });
        timers.fireAll();
        return outcome;
      },
    };
  }
  const start = () => {
    served = fileOf(1);
    const loaded = loadSnapshot(served);
    assert.equal(loaded.kind, "success");
    return loaded.value;
  };

  test("a leased snapshot outlives its replacement until the lease ends; then it is freed", async () => {
    const initial = start();
    const { holder, poll } = polled(initial);
    assert.equal((await poll(2)).outcome, "replaced");
    const v2 = holder.current();
    const { snapshot, release } = holder.lease();
    assert.equal(snapshot, v2);
    assert.equal((await poll(3)).outcome, "replaced");
    // Replaced but leased: still answers, bit for bit the v2 filter.
    assert.equal(v2.filter.freed, false);
    assert.equal(v2.filter.mightContain(members(200)[199]), true);
    release();
    assert.equal(v2.filter.freed, true, "freed when its last lease ended");
    release(); // a second release does nothing
    // The caller's initial snapshot is the caller's: never freed by the holder.
    assert.equal(initial.filter.freed, false);
    holder.stopPolling();
    initial.filter.free();
  });

  test("an unleased replaced snapshot is freed at the swap; use(fn) releases on success and on a throw", async () => {
    const initial = start();
    const { holder, poll } = polled(initial);
    await poll(2);
    const v2 = holder.current();
    await poll(3);
    assert.equal(v2.filter.freed, true, "nothing held v2: freed at once");
    const v3 = holder.current();
    let inside;
    const slow = holder.use(async (snapshot) => {
      inside = snapshot;
      await poll(4); // replaced while the reader is still inside
      return snapshot.filter.mightContain(members(300)[0]);
    });
    assert.equal(await slow, true);
    assert.equal(inside, v3);
    assert.equal(v3.filter.freed, true, "freed after use() settled");
    const v4 = holder.current();
    await assert.rejects(
      holder.use(async () => {
        await poll(5);
        throw new Error("reader failed");
      }),
      /reader failed/,
    );
    assert.equal(v4.filter.freed, true, "a throwing reader released its lease too");
    assert.equal(holder.current().filter.freed, false, "the snapshot in service is never freed");
    holder.stopPolling();
    initial.filter.free();
  });

  test("options: freeReplaced is a boolean, and one way to free at a time", () => {
    const initial = start();
    const holder = new SnapshotHolder(initial);
    assert.throws(() => holder.startPolling(url, { intervalMs: 1000, freeReplaced: "yes" }), TypeError);
    assert.throws(() => holder.startPolling(url, { intervalMs: 1000, freeReplaced: true, freeReplacedAfterMs: 10 }), TypeError);
    return assert.rejects(holder.use("not a function"), TypeError).finally(() => initial.filter.free());
  });
});
