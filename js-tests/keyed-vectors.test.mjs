// Keyed snapshots (ABF1 hashProtocolVersion 2, docs/ABF1.md "Keyed
// snapshots") against tests/vectors/abf1-keyed.json, which
// scripts/keyed-vectors.mjs computes from the spec alone (node:crypto's
// HMAC, the layout rule and the probe walk in BigInt): the package writes the
// same bytes, gives the same answers on every query path, and refuses a
// missing, wrong or unexpected key with a typed failure — never "absent". The
// key never shows in a message, JSON or inspect output.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { inspect } from "node:util";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot, loadSnapshotStream, readSnapshotHeader } from "artifact-bloom";
import { fromHex, hex } from "./helpers/digests.mjs";

const vectors = JSON.parse(readFileSync(new URL("../tests/vectors/abf1-keyed.json", import.meta.url), "utf8"));
const key = fromHex(vectors.key);
const wrongKey = fromHex(vectors.wrongKey);

/** The bytes of `file` in `size`-byte chunks, as a stream source. */
async function* chunked(file, size) {
  for (let at = 0; at < file.length; at += size) yield file.slice(at, at + size);
}

test("the vector file is what scripts/keyed-vectors.mjs writes from the spec", () => {
  const script = new URL("../scripts/keyed-vectors.mjs", import.meta.url);
  const out = execFileSync(process.execPath, [script.pathname, "--check"], { encoding: "utf8", timeout: 60_000 });
  assert.match(out, /up to date/);
});

test("the vectors' MACs and key check are node:crypto's HMAC-SHA-256", () => {
  assert.equal(createHmac("sha256", key).update(vectors.keyCheckLabel).digest().readUInt32LE(0), vectors.keyCheck);
  const [first] = vectors.cases[0].digests;
  assert.equal(createHmac("sha256", key).update(fromHex(first)).digest("hex"), vectors.cases[0].macsOfFirstDigests[0]);
});

for (const vector of vectors.cases) {
  const file = fromHex(vector.file);
  const digests = vector.digests.map(fromHex);
  const spec = { expectedItemCount: vector.expectedItemCount, targetFalsePositiveRate: vector.targetFalsePositiveRate };

  test(`${vector.name}: create and createPacked with the key write the vector's bytes`, () => {
    for (const built of [
      ArtifactBloomFilter.create(digests, spec, { key }),
      ArtifactBloomFilter.createPacked(Buffer.concat(digests), spec, { key }),
    ]) {
      assert.equal(built.kind, "success");
      assert.equal(built.value.getHashProtocolVersion(), 2);
      assert.equal(hex(encodeSnapshot(built.value, { catalogVersion: vector.catalogVersion })), vector.file);
      built.value.free();
    }
    // Without the key: protocol 1, other bits.
    const plain = ArtifactBloomFilter.create(digests, spec);
    assert.equal(plain.value.getHashProtocolVersion(), 1);
    assert.notEqual(hex(encodeSnapshot(plain.value, { catalogVersion: vector.catalogVersion })), vector.file);
    plain.value.free();
  });

  test(`${vector.name}: the header says protocol 2 and carries the key check, never the key`, () => {
    const header = readSnapshotHeader(file);
    assert.equal(header.kind, "success");
    assert.equal(header.value.hashProtocolVersion, 2);
    assert.equal(header.value.reserved, vectors.keyCheck);
    assert.equal(Buffer.from(file).indexOf(Buffer.from(key)), -1);
  });

  test(`${vector.name}: loaded with the key, every query path gives the vector's answers`, async () => {
    const loaded = loadSnapshot(file, { key });
    assert.equal(loaded.kind, "success", loaded.message);
    const streamed = await loadSnapshotStream(chunked(file, 7), { key });
    assert.equal(streamed.kind, "success", streamed.message);
    const packed = Buffer.concat(vector.queries.map((q) => fromHex(q.digest)));
    const expected = vector.queries.map((q) => (q.maybe ? 1 : 0));
    assert.ok(expected.includes(0) && expected.includes(1), "the vector has both answers");
    for (const { filter } of [loaded.value, streamed.value]) {
      assert.deepEqual(
        vector.queries.map((q) => filter.mightContain(fromHex(q.digest))),
        vector.queries.map((q) => q.maybe),
      );
      assert.deepEqual([...filter.mightContainMany(packed)], expected);
      assert.equal(
        filter.countMaybe(packed),
        expected.reduce((a, b) => a + b, 0),
      );
      // Every member, as one batch: all "maybe".
      assert.equal(filter.countMaybe(Buffer.concat(digests)), digests.length);
      assert.equal(hex(encodeSnapshot(filter, { catalogVersion: vector.catalogVersion })), vector.file);
      filter.free();
    }
  });

  test(`${vector.name}: without the key, or with another, a typed failure on every load path`, async () => {
    for (const [options, code] of [
      [undefined, "keyRequired"],
      [{ key: wrongKey }, "wrongKey"],
    ]) {
      const whole = loadSnapshot(file, options);
      const streamed = await loadSnapshotStream(chunked(file, 64), options ?? {});
      for (const result of [whole, streamed]) {
        assert.equal(result.kind, "failure");
        assert.equal(result.error, code);
        assert.equal("value" in result, false, "no filter next to a failure");
        assert.ok(!result.message.includes(vectors.key) && !result.message.includes(vectors.wrongKey));
      }
    }
  });
}

test("a key for an unkeyed snapshot is notKeyed; a keyed filter's union needs the same key", () => {
  const digests = vectors.cases[0].digests.map(fromHex);
  const spec = { expectedItemCount: 4, targetFalsePositiveRate: 0.1 };
  const plain = ArtifactBloomFilter.create(digests, spec).value;
  const bytes = encodeSnapshot(plain, { catalogVersion: 1 });
  const refused = loadSnapshot(bytes, { key });
  assert.equal(refused.error, "notKeyed");
  assert.match(refused.message, /not keyed/);
  const keyed = ArtifactBloomFilter.create(digests, spec, { key }).value;
  const other = ArtifactBloomFilter.create(digests, spec, { key: wrongKey }).value;
  assert.equal(ArtifactBloomFilter.union(keyed, other).error, "incompatibleFilters");
  assert.equal(ArtifactBloomFilter.union(keyed, plain).error, "incompatibleFilters");
  const same = ArtifactBloomFilter.union(keyed, keyed);
  assert.equal(same.value.getHashProtocolVersion(), 2);
  for (const filter of [plain, keyed, other, same.value]) filter.free();
});

test("a bad key is a TypeError or RangeError that names its length, never its bytes", async () => {
  const spec = { expectedItemCount: 4, targetFalsePositiveRate: 0.1 };
  const secretText = "correct horse battery staple";
  const short = new TextEncoder().encode("fifteen bytes!!");
  for (const [bad, kind] of [
    [secretText, TypeError],
    [short, RangeError],
    [new Uint8Array(1025), RangeError],
    [Array.from(key), TypeError],
  ]) {
    const check = (error) => {
      assert.ok(error instanceof kind, `${error.name}: ${error.message}`);
      assert.match(error.message, /16 to 1024/);
      assert.ok(!error.message.includes("horse") && !error.message.includes("fifteen"));
      return true;
    };
    assert.throws(() => loadSnapshot(fromHex(vectors.cases[0].file), { key: bad }), check);
    assert.throws(() => ArtifactBloomFilter.create([], spec, { key: bad }), check);
    await assert.rejects(loadSnapshotStream(chunked(new Uint8Array(0), 1), { key: bad }), check);
  }
});

test("a loaded keyed snapshot's JSON and inspect output hold no key material", () => {
  const loaded = loadSnapshot(fromHex(vectors.cases[1].file), { key });
  const shown = [JSON.stringify(loaded.value), inspect(loaded.value, { depth: 10, showHidden: true })].join("\n");
  assert.ok(!shown.includes(vectors.key));
  assert.ok(!shown.includes(Array.from(key).join(", ")), "no byte list of the key");
  loaded.value.filter.free();
});

test("the browser entry (web.js: wasm and WebCrypto hashing, no node:crypto) loads keyed vectors the same way", async () => {
  const web = await import(new URL("../pkg/web.js", import.meta.url).href);
  for (const vector of vectors.cases) {
    const file = fromHex(vector.file);
    const whole = web.loadSnapshot(file, { key });
    const streamed = await web.loadSnapshotStream(chunked(file, 100), { key });
    for (const result of [whole, streamed]) {
      assert.equal(result.kind, "success", result.message);
      assert.deepEqual(
        vector.queries.map((q) => result.value.filter.mightContain(fromHex(q.digest))),
        vector.queries.map((q) => q.maybe),
      );
      result.value.filter.free();
    }
    assert.equal(web.loadSnapshot(file).error, "keyRequired");
    assert.equal((await web.loadSnapshotStream(chunked(file, 100), { key: wrongKey })).error, "wrongKey");
  }
});
