// What every consumer of fixtures/app.js loads and must answer: one place
// for the snapshot it fetches and the answers app.js reports, shared by the
// bundler matrix (consumers.test.mjs), Bun and Jest with jsdom.
import { createHash } from "node:crypto";
import { ArtifactBloomFilter, encodeSnapshot } from "artifact-bloom";

export const CATALOG_VERSION = 42;

/** app.js's answers against publishedSnapshot(). */
export const EXPECTED = {
  sha256OfAbc: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  fetchedCatalogVersion: CATALOG_VERSION,
  loadedCatalogVersion: CATALOG_VERSION,
  snapshotMembers: 100,
  snapshotOutsider: "absent",
  loadedOutsider: "absent",
  builtMembers: 100,
  builtOutsider: "absent",
  tlbfCat: "maybe",
  optimalParams: { m: 9586, k: 7 },
};

/** The snapshot every consumer loads: SHA-256 of `member:0` … `member:99`, p = 0.001 (the spec app.js builds with). */
export function publishedSnapshot() {
  const members = Array.from({ length: 100 }, (_, i) => new Uint8Array(createHash("sha256").update(`member:${i}`).digest()));
  const built = ArtifactBloomFilter.create(members, { expectedItemCount: 100, targetFalsePositiveRate: 0.001 });
  if (built.kind === "failure") throw new Error(built.error);
  const bytes = encodeSnapshot(built.value, { catalogVersion: CATALOG_VERSION });
  built.value.free();
  return bytes;
}
