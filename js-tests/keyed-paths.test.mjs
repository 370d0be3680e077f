// Keyed snapshots through every load and query path beyond a plain load:
// fetchSnapshot from an in-process 127.0.0.1 host (whole file, and a layout
// with deltas), SnapshotHolder (its key, polling with it), the
// ArtifactExistenceService (single and batch queries), and ABD1 deltas
// between two keyed versions (the checksum rule holds: the applied target is
// the full target, byte for byte). No key ever travels in a request.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { inspect } from "node:util";
import {
  ArtifactBloomFilter,
  ArtifactExistenceService,
  encodeSnapshot,
  fetchSnapshot,
  loadSnapshot,
  SnapshotHolder,
} from "artifact-bloom";
import { applySnapshotDelta, encodeSnapshotDelta, fetchSnapshot as fetchWithDeltas } from "artifact-bloom/delta";
import { publishToLayout } from "artifact-bloom/server";
import { hex, sha256 } from "./helpers/digests.mjs";
import { startStaticFileHost } from "./helpers/static-file-host.mjs";

const key = new Uint8Array(32).map((_, i) => 200 - i);
const otherKey = new Uint8Array(32).fill(9);
const keyHex = hex(key);
const spec = { expectedItemCount: 3000, targetFalsePositiveRate: 0.01 };
const members = Array.from({ length: 2000 }, (_, i) => sha256(`keyed-paths:${i}`));
const outsiders = Array.from({ length: 2000 }, (_, i) => sha256(`keyed-paths:outsider:${i}`));

/** The ABF1 file of the first `count` members at `catalogVersion`, keyed with `withKey`. */
function keyedFile(count, catalogVersion, withKey = key) {
  const built = ArtifactBloomFilter.create(members.slice(0, count), spec, { key: withKey });
  try {
    return encodeSnapshot(built.value, { catalogVersion });
  } finally {
    built.value.free();
  }
}

const v1 = keyedFile(1000, 1);
const v2 = keyedFile(2000, 2);

/** Whether no recorded request carried the key (path, query or header). */
function keyNeverSent(requests) {
  return requests.every((request) => !JSON.stringify(request).includes(keyHex));
}

describe("deltas between keyed versions", () => {
  test("encode and apply work unchanged; the result is the full target, checksum included", () => {
    const base = loadSnapshot(v1, { key }).value;
    const target = loadSnapshot(v2, { key }).value;
    const delta = encodeSnapshotDelta(base, target);
    assert.equal(delta.kind, "success", delta.message);
    const applied = applySnapshotDelta(base, delta.value);
    assert.equal(applied.kind, "success", applied.message);
    assert.equal(applied.value.header.hashProtocolVersion, 2);
    assert.equal(applied.value.header.checksum, target.header.checksum);
    assert.deepEqual(encodeSnapshot(applied.value.filter, { catalogVersion: 2 }), v2);
    // The target inherits the base's key: it answers, members all "maybe".
    assert.equal(applied.value.filter.countMaybe(Buffer.concat(members)), members.length);
    for (const snapshot of [base, target, applied.value]) snapshot.filter.free();
  });

  test("a delta never joins two keys: another key's version is no superset", () => {
    const base = loadSnapshot(v1, { key }).value;
    const other = loadSnapshot(keyedFile(2000, 2, otherKey), { key: otherKey }).value;
    const delta = encodeSnapshotDelta(base, other);
    assert.equal(delta.kind, "failure");
    assert.equal(delta.error, "notSuperset");
    base.filter.free();
    other.filter.free();
  });
});

describe("over HTTP (127.0.0.1)", () => {
  let root;
  let host;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), "keyed-paths-"));
    for (const [bytes, version] of [
      [v1, 1],
      [v2, 2],
    ]) {
      const published = await publishToLayout(root, bytes, { key, now: () => version * 1000 });
      assert.equal(published.kind, "success", published.message);
    }
    host = await startStaticFileHost(root);
  });
  after(async () => {
    await host?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test("fetchSnapshot loads the layout's keyed snapshot with the key; without it, or with another, a typed failure", async () => {
    const url = `${host.url}/manifest.json`;
    const loaded = await fetchSnapshot(url, { key });
    assert.equal(loaded.kind, "success", loaded.message);
    assert.equal(loaded.value.catalogVersion, 2);
    assert.equal(loaded.value.filter.countMaybe(Buffer.concat(members)), members.length);
    loaded.value.filter.free();
    assert.equal((await fetchSnapshot(url)).error, "keyRequired");
    assert.equal((await fetchSnapshot(url, { key: otherKey })).error, "wrongKey");
    assert.ok(keyNeverSent(host.requests));
  });

  test("the delta entry's fetchSnapshot applies the layout's delta to a keyed base", async () => {
    const base = loadSnapshot(v1, { key }).value;
    const fetched = await fetchWithDeltas(`${host.url}/manifest.json`, { base, key });
    assert.equal(fetched.kind, "success", fetched.message);
    assert.equal(fetched.transfer.delta, true);
    assert.deepEqual(encodeSnapshot(fetched.value.filter, { catalogVersion: 2 }), v2);
    base.filter.free();
    fetched.value.filter.free();
    assert.ok(keyNeverSent(host.requests));
  });

  test("a holder with the key polls the keyed layout (delta from its v1) and keeps the key private", async () => {
    const holder = new SnapshotHolder(loadSnapshot(v1, { key }).value, { key });
    const shown = `${inspect(holder, { showHidden: true, depth: 6 })}${JSON.stringify(holder)}`;
    assert.ok(!shown.includes(keyHex) && !shown.includes(Array.from(key).join(", ")));
    const outcome = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no poll within 30 s")), 30_000);
      holder.startPolling(`${host.url}/manifest.json`, {
        intervalMs: 60_000,
        immediate: true,
        onRefresh: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
      });
    });
    holder.stopPolling();
    assert.equal(outcome.outcome, "replaced", outcome.message);
    assert.equal(holder.current().catalogVersion, 2);
    assert.equal(holder.deltaRefreshCount, 1);
    assert.equal(holder.current().filter.countMaybe(Buffer.concat(members)), members.length);
    assert.ok(keyNeverSent(host.requests));
  });

  test("polling without the key fails with keyRequired and keeps the snapshot in service", async () => {
    // A holder on an unkeyed-option path: the full file is refused, counted, v1 kept.
    const holder = new SnapshotHolder(loadSnapshot(v1, { key }).value);
    const outcome = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no poll within 30 s")), 30_000);
      holder.startPolling(`${host.url}/manifest.json`, {
        intervalMs: 60_000,
        immediate: true,
        delta: false,
        onRefresh: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
      });
    });
    holder.stopPolling();
    assert.equal(outcome.outcome, "failure");
    assert.equal(outcome.error, "keyRequired");
    assert.equal(holder.current().catalogVersion, 1);
  });

  test("the layout's files hold the key nowhere", () => {
    const manifest = readFileSync(join(root, "manifest.json"), "utf8");
    assert.ok(!manifest.includes(keyHex));
    for (const file of [v1, v2]) assert.equal(Buffer.from(file).indexOf(Buffer.from(key)), -1);
  });
});

describe("SnapshotHolder and ArtifactExistenceService", () => {
  test("a holder or service given a key refuses a snapshot not keyed with it (typed, no key in the message)", () => {
    const snapshot = loadSnapshot(v1, { key }).value;
    for (const [option, code] of [
      [otherKey, "wrongKey"],
      [key, undefined],
    ]) {
      const make = [
        () => new SnapshotHolder(snapshot, { key: option }),
        () => new ArtifactExistenceService(snapshot, { existsAtVersionAsync: async () => true }, { key: option }),
      ];
      for (const construct of make) {
        if (code === undefined) construct();
        else {
          assert.throws(construct, (error) => error.code === code && !error.message.includes(hex(option)));
        }
      }
    }
    const plain = ArtifactBloomFilter.create(members.slice(0, 10), spec).value;
    const unkeyed = loadSnapshot(encodeSnapshot(plain, { catalogVersion: 1 })).value;
    assert.throws(() => new SnapshotHolder(unkeyed, { key }), { code: "notKeyed" });
    assert.throws(() => new SnapshotHolder(unkeyed, { key: "a string key of some length" }), TypeError);
    for (const filter of [snapshot.filter, plain, unkeyed.filter]) filter.free();
  });

  test("the service answers keyed single and batch queries: members exist, outsiders mostly absent without I/O", async () => {
    const snapshot = loadSnapshot(v2, { key }).value;
    const present = new Set(members.map(hex));
    let lookups = 0;
    const repository = {
      existsAtVersionAsync: async (digest) => {
        lookups += 1;
        return present.has(hex(digest));
      },
      existsManyAtVersionAsync: async (digests) => {
        lookups += digests.length;
        return digests.map((digest) => present.has(hex(digest)));
      },
    };
    const service = new ArtifactExistenceService(new SnapshotHolder(snapshot, { key }), repository, { key });
    assert.equal(await service.existsAsync(members[7]), true);
    assert.equal(await service.existsAsync(outsiders[0]), false);
    const missing = await service.findMissingAsync([...members.slice(0, 500), ...outsiders]);
    assert.equal(missing.length, outsiders.length);
    // Outsiders answered from the filter without a lookup, except its false
    // positives: p = 0.01 of 2001 outsiders, 61 allows > 9σ of the binomial.
    assert.ok(lookups - 501 <= 61, `${lookups - 501} outsider lookups`);
    assert.equal(service.metrics()["artifact_bloom.negative.count"] >= 2001 - 61, true);
    snapshot.filter.free();
  });
});
