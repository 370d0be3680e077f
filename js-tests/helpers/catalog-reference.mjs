// What a catalog publish must write, computed the plain way: create() of
// the unique digests, encoded as ABF1. The streaming publisher's output is
// compared with it byte for byte.
import assert from "node:assert/strict";
import { ArtifactBloomFilter, encodeSnapshot } from "artifact-bloom";

const hexOf = (digest) => Buffer.from(digest).toString("hex");

/**
 * The reference ABF1 file of `digests` (duplicates dropped) at `version`.
 * @param {Uint8Array[]} digests
 * @param {number} version
 * @param {{ expectedItemCount: number, targetFalsePositiveRate: number }} spec
 */
export function referenceFile(digests, version, spec) {
  const unique = [...new Map(digests.map((digest) => [hexOf(digest), digest])).values()];
  const created = ArtifactBloomFilter.create(unique, spec);
  assert.equal(created.kind, "success");
  const bytes = encodeSnapshot(created.value, { catalogVersion: version });
  created.value.free();
  return { bytes, unique: unique.length };
}
