// Delta snapshots over HTTP (docs/ABD1.md "HTTP"): `serve` answers
// `A-IM: abd1` + If-None-Match naming a version it served with
// `226 IM Used` and one ABD1 delta; `artifact-bloom/delta`'s
// `fetchSnapshot(url, { base })` applies
// it and ends exactly where a full download ends, falls back to the full
// file for anything else, and says what the transfer cost; a SnapshotHolder
// polling a real server through five versions uses deltas and ends
// bit-identical to a full load of the last one. The main entry's
// fetchSnapshot with `base` stays conditional (304) but asks for no delta.
//
// Servers listen on 127.0.0.1, port 0. Polls are fired by hand through
// injected timers: nothing here waits on the clock.
import assert from "node:assert/strict";
import { rename, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, SnapshotHolder, encodeSnapshot, fetchSnapshot as fetchFull, loadSnapshot } from "artifact-bloom";
import { fetchSnapshot } from "artifact-bloom/delta";
import { packedDigests } from "./helpers/abf1.mjs";
import { tempDir, writeHexList } from "./helpers/cli.mjs";
import { manualTimers } from "./helpers/timers.mjs";

const SERVE = fileURLToPath(new URL("node_modules/artifact-bloom/cli/serve/serve.mjs", import.meta.url));
// One layout for every version (deltas need it): capacity for 6000 digests at 1 %.
const SPEC = { expectedItemCount: 6000, targetFalsePositiveRate: 0.01 };
// Version v holds 4000 + 40·(v−1) digests: each version adds 1 %.
const countAt = (version) => 4000 + 40 * (version - 1);

/** The ABF1 file of version `version`. */
function fileAt(version) {
  const filter = ArtifactBloomFilter.createPacked(packedDigests("catalog", countAt(version)), SPEC);
  assert.equal(filter.kind, "success");
  try {
    return encodeSnapshot(filter.value, { catalogVersion: version });
  } finally {
    filter.value.free();
  }
}

function mustLoad(bytes) {
  const loaded = loadSnapshot(bytes);
  assert.equal(loaded.kind, "success", loaded.message);
  return loaded.value;
}

/** Bits, header and the re-encoded file of `snapshot` equal those of the full `file`. */
function assertSameAsFull(snapshot, file) {
  const full = mustLoad(file);
  assert.deepEqual(snapshot.header, full.header);
  assert.equal(snapshot.catalogVersion, full.catalogVersion);
  assert.deepEqual(encodeSnapshot(snapshot.filter, { catalogVersion: snapshot.catalogVersion }), file);
  full.filter.free();
}

let dir;
let serve;
before(async () => {
  dir = await tempDir("http-delta");
  serve = (await import(SERVE)).startServer;
});
after(async () => {
  await dir.remove();
});

/** A real `serve` of a snapshot path that `publish(version)` replaces atomically. */
async function servedCatalog(name, options = {}) {
  const snapshot = join(dir.path, `${name}.abf1`);
  const catalog = join(dir.path, `${name}.txt`);
  // As an operator publishes: version v's complete catalog list first, then
  // its snapshot (serve answers a version only from its complete list).
  const publish = async (version) => {
    const packed = packedDigests("catalog", countAt(version));
    const digests = Array.from({ length: packed.byteLength / 32 }, (_, i) => packed.subarray(32 * i, 32 * i + 32));
    await writeHexList(`${catalog}.tmp`, digests);
    await rename(`${catalog}.tmp`, catalog);
    const temporary = `${snapshot}.tmp`;
    await writeFile(temporary, fileAt(version));
    await rename(temporary, snapshot); // a new inode: serve re-reads it on the next request
  };
  await publish(1);
  const server = await serve({ snapshot, catalog, port: 0, ...options });
  return { url: `${server.url}snapshot`, publish, server };
}

describe("serve + fetchSnapshot({ base })", () => {
  let served;
  before(async () => {
    served = await servedCatalog("basic");
  });
  after(async () => {
    await served.server.close();
  });

  test("v1 → v2: a 226 delta, applied; the result is the full v2, and far fewer bytes came", async () => {
    const v1 = await fetchSnapshot(served.url);
    assert.equal(v1.kind, "success", v1.message);
    assert.deepEqual(v1.transfer, { bytes: fileAt(1).byteLength, delta: false, fullBytes: fileAt(1).byteLength });
    await served.publish(2);
    const v2 = await fetchSnapshot(served.url, { base: v1.value });
    assert.equal(v2.kind, "success", v2.message);
    assert.equal(v2.transfer.delta, true);
    assertSameAsFull(v2.value, fileAt(2));
    assert.equal(v2.transfer.fullBytes, fileAt(2).byteLength);
    // 40 new digests of ~4000 at 7 hashes: under 300 new bits, a few hundred bytes of ~5.8 KB.
    assert.ok(v2.transfer.bytes * 5 < v2.transfer.fullBytes, `${v2.transfer.bytes} of ${v2.transfer.fullBytes}`);
    assert.equal(v2.value.etag, `"${v2.value.header.checksum}"`);
    assert.equal(v1.value.filter.freed, false, "the base is untouched");
    assert.equal(served.server.stats.deltas.deltaResponses, 1);
  });

  test("base is the current version → notModified; the ETag is the ABF1 checksum", async () => {
    const current = await fetchSnapshot(served.url);
    const again = await fetchSnapshot(served.url, { base: current.value });
    assert.equal(again.kind, "failure");
    assert.equal(again.error, "notModified");
  });

  test("three versions behind: one composed delta, equal to the full file", async () => {
    const old = await fetchSnapshot(served.url);
    const from = old.value.catalogVersion;
    for (let version = from + 1; version <= from + 3; version += 1) {
      await served.publish(version);
      await fetchSnapshot(served.url); // serve keeps the versions it has served
    }
    const caughtUp = await fetchSnapshot(served.url, { base: old.value });
    assert.equal(caughtUp.kind, "success", caughtUp.message);
    assert.equal(caughtUp.transfer.delta, true);
    assertSameAsFull(caughtUp.value, fileAt(from + 3));
  });

  test("a base the server never served (or a snapshot without a checksum) → the full file", async () => {
    const stranger = mustLoad(fileAt(40)); // another catalog version than any served
    const full = await fetchSnapshot(served.url, { base: stranger });
    assert.equal(full.kind, "success", full.message);
    assert.equal(full.transfer.delta, false);
    const bare = { catalogVersion: 1, filter: stranger.filter };
    const plain = await fetchSnapshot(served.url, { base: bare });
    assert.equal(plain.transfer.delta, false);
  });

  test("a bad base argument throws before any request", async () => {
    await assert.rejects(fetchSnapshot(served.url, { base: { catalogVersion: 1 } }), TypeError);
    await assert.rejects(fetchFull(served.url, { base: { catalogVersion: 1 } }), TypeError);
  });

  test("the main entry's fetchSnapshot with base: no delta (the full file), but still notModified when current", async () => {
    const old = await fetchSnapshot(served.url);
    await served.publish(old.value.catalogVersion + 1);
    const full = await fetchFull(served.url, { base: old.value });
    assert.equal(full.kind, "success", full.message);
    assert.equal(full.transfer.delta, false);
    assert.equal(full.transfer.deltaFailure, undefined);
    assertSameAsFull(full.value, fileAt(old.value.catalogVersion + 1));
    const again = await fetchFull(served.url, { base: full.value });
    assert.equal(again.kind, "failure");
    assert.equal(again.error, "notModified");
  });
});

describe("fetchSnapshot({ base }) against other servers", () => {
  let server;
  let base;
  let answer;
  before(async () => {
    server = createServer((request, response) => answer(request, response));
    await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
    base = mustLoad(fileAt(1));
  });
  after(
    () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(done);
      }),
  );
  const url = () => `http://127.0.0.1:${server.address().port}/snapshot`;
  const full = fileAt(2);

  test("a server that ignores A-IM (200) → the full file; the request asked for abd1 from the base", async () => {
    let asked;
    answer = (request, response) => {
      asked = { im: request.headers["a-im"], tags: request.headers["if-none-match"] };
      response.writeHead(200, { "content-length": full.byteLength }).end(full);
    };
    const result = await fetchSnapshot(url(), { base });
    assert.equal(result.kind, "success", result.message);
    assert.equal(result.transfer.delta, false);
    assert.deepEqual(asked, { im: "abd1", tags: `"${base.header.checksum}"` });
    assertSameAsFull(result.value, full);
  });

  test("the main entry's fetchSnapshot names the base in If-None-Match but sends no A-IM", async () => {
    let asked;
    answer = (request, response) => {
      asked = { im: request.headers["a-im"], tags: request.headers["if-none-match"] };
      response.writeHead(200, { "content-length": full.byteLength }).end(full);
    };
    const result = await fetchFull(url(), { base, etag: '"v0"' });
    assert.equal(result.kind, "success", result.message);
    assert.equal(result.transfer.delta, false);
    assert.deepEqual(asked, { im: undefined, tags: `"v0", "${base.header.checksum}"` });
  });

  for (const [name, headers, body] of [
    ["a 226 with another IM", { im: "vcdiff" }, new Uint8Array(300)],
    ["a 226 whose delta is garbage", { im: "abd1" }, new Uint8Array(300).fill(7)],
  ]) {
    test(`${name} → falls back to the full file, once; transfer counts both`, async () => {
      const requests = [];
      answer = (request, response) => {
        requests.push(request.headers["a-im"]);
        if (request.headers["a-im"]) response.writeHead(226, { ...headers, "content-length": body.byteLength }).end(body);
        else response.writeHead(200, { "content-length": full.byteLength }).end(full);
      };
      const result = await fetchSnapshot(url(), { base });
      assert.equal(result.kind, "success", result.message);
      assert.deepEqual(requests, ["abd1", undefined]);
      assert.equal(result.transfer.delta, false);
      assert.equal(typeof result.transfer.deltaFailure, "string");
      assertSameAsFull(result.value, full);
    });
  }

  test("an HTTP error stays an httpError with its status", async () => {
    answer = (_request, response) => response.writeHead(503).end();
    const result = await fetchSnapshot(url(), { base });
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "httpError");
    assert.equal(result.status, 503);
  });
});

describe("SnapshotHolder.startPolling with deltas", () => {
  test("five published versions, polled by hand: bit-identical to a full load of the last, deltas counted", async () => {
    const served = await servedCatalog("polling");
    const initial = await fetchSnapshot(served.url);
    const holder = new SnapshotHolder(initial.value);
    const timers = manualTimers();
    const outcomes = [];
    /** @type {() => void} */
    let polled = () => {};
    holder.startPolling(served.url, {
      intervalMs: 60_000,
      timers,
      onRefresh: (outcome) => {
        outcomes.push(outcome);
        polled();
      },
    });
    const pollOnce = () =>
      new Promise((resolve) => {
        polled = resolve;
        assert.equal(timers.live.size, 1, "one poll is scheduled");
        timers.fireAll();
      });
    try {
      for (let version = 2; version <= 6; version += 1) {
        await served.publish(version);
        await pollOnce();
      }
      await pollOnce(); // nothing new: a 304
    } finally {
      holder.stopPolling();
      await served.server.close();
    }
    assert.deepEqual(
      outcomes.map((o) => o.outcome),
      ["replaced", "replaced", "replaced", "replaced", "replaced", "notModified"],
    );
    assertSameAsFull(holder.current(), fileAt(6));
    // Every refresh had its predecessor as base on the server: all five are deltas.
    assert.equal(holder.deltaRefreshCount, 5);
    assert.equal(holder.fullRefreshCount, 0);
    // Five deltas of 40 digests (at most 40 · 7 new bits each, a few hundred bytes) cost less than one full file.
    assert.ok(holder.bytesTransferred < fileAt(6).byteLength, `${holder.bytesTransferred} bytes`);
    assert.ok(holder.bytesSaved > 0);
  });

  test("delta: false → every refresh downloads the full file", async () => {
    const served = await servedCatalog("polling-full");
    const holder = new SnapshotHolder((await fetchSnapshot(served.url)).value);
    const timers = manualTimers();
    let polled = () => {};
    holder.startPolling(served.url, { intervalMs: 1000, timers, delta: false, onRefresh: () => polled() });
    try {
      await served.publish(2);
      await new Promise((resolve) => {
        polled = resolve;
        timers.fireAll();
      });
    } finally {
      holder.stopPolling();
      await served.server.close();
    }
    assert.equal(holder.deltaRefreshCount, 0);
    assert.equal(holder.fullRefreshCount, 1);
    assert.equal(holder.bytesTransferred, fileAt(2).byteLength);
    assertSameAsFull(holder.current(), fileAt(2));
  });
});
