// ArtifactBloomFilter.union keeps merge's count rule and the spec's capacity
// (issue 32 §1.4). Before, 8 + 8 digests merged into expectedItemCount 10
// succeeded with insertedItemCount 16 — a filter encodeSnapshot then refused
// — and union(a, a) doubled the count.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "artifact-bloom";

const digest = (text) => new Uint8Array(createHash("sha256").update(text).digest());
const digests = Array.from({ length: 16 }, (_, i) => digest(`union:${i}`));
const SPEC = { expectedItemCount: 10, targetFalsePositiveRate: 0.01 };
const build = (list) => {
  const built = ArtifactBloomFilter.create(list, SPEC);
  assert.equal(built.kind, "success");
  return built.value;
};

test("8 + 8 digests into expectedItemCount 10: capacityExceeded up front", () => {
  const a = build(digests.slice(0, 8));
  const b = build(digests.slice(8));
  const merged = ArtifactBloomFilter.union(a, b);
  assert.equal(merged.kind, "failure");
  assert.equal(merged.error, "capacityExceeded");
  assert.match(merged.message, /16 digests, more than expectedItemCount 10/);
  a.free();
  b.free();
});

test("union(a, a) counts once, and its snapshot loads", () => {
  const a = build(digests.slice(0, 8));
  const merged = ArtifactBloomFilter.union(a, a);
  assert.equal(merged.kind, "success");
  const filter = merged.value;
  assert.equal(filter.getInsertedItemCount(), 8);
  const loaded = loadSnapshot(encodeSnapshot(filter, { catalogVersion: 1 }));
  assert.equal(loaded.kind, "success");
  for (const member of digests.slice(0, 8)) assert.equal(loaded.value.filter.mightContain(member), true);
  for (const free of [loaded.value.filter, filter, a]) free.free();
});

test("disjoint shards within capacity add up, and their snapshot loads", () => {
  const a = build(digests.slice(0, 4));
  const b = build(digests.slice(4, 9));
  const merged = ArtifactBloomFilter.union(a, b);
  assert.equal(merged.kind, "success");
  const filter = merged.value;
  assert.equal(filter.getInsertedItemCount(), 9);
  const loaded = loadSnapshot(encodeSnapshot(filter, { catalogVersion: 2 }));
  assert.equal(loaded.kind, "success");
  for (const free of [loaded.value.filter, filter, a, b]) free.free();
});
