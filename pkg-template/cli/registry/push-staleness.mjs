// How `push` stays right and cheap with a snapshot older than the repository.
//
// Right: a stale snapshot can only cost requests and bytes, never a missing
// blob — a "maybe" is HEADed, and a "definitely absent" blob is uploaded.
// Cheap: a "definitely absent" blob larger than --verify-absent-above is
// HEADed anyway (a HEAD costs less than uploading that many bytes again), and
// the snapshot's sidecar (snapshot-sidecar.mjs) says which repository it is
// of, which tags it saw, and which digests it was built from — so the push
// warns about another repository's or an outdated snapshot, and counts a
// 404 for a digest the snapshot really held as stale, not as a Bloom false
// positive.
import { repositoryOverClient } from "artifact-bloom/oci";
import { UsageError, errorCode, errorMessage } from "../common.mjs";
import { listTags } from "./registry-catalog.mjs";
import { PREFIX_HEX } from "../snapshot-sidecar.mjs";
import { DEFAULT_VERIFY_ABSENT_ABOVE } from "../option-groups.mjs";

/**
 * The default --verify-absent-above, in bytes. bench/stale-threshold.mjs
 * measures one HEAD and the upload rate on the real registry: a HEAD costs
 * what uploading 0.1-0.2 MB costs (3-7 ms against 15-47 MB/s on the busy
 * 2-core test machine; on a network both scale with the round trip), so at
 * 16 MiB a HEAD that finds nothing costs about 1 % (0.6-1.2 % measured) of
 * the upload it could save, and at 1 MiB 4-5 % for little to save.
 */

/**
 * --verify-absent-above → bytes, or Infinity for "none".
 * @param {Record<string, any>} values the parsed options
 */
export function verifyAbsentThreshold(values) {
  const text = values["verify-absent-above"];
  if (text === undefined) return DEFAULT_VERIFY_ABSENT_ABOVE;
  if (text === "none") return Infinity;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new UsageError(`--verify-absent-above must be a size in bytes (0 .. 2^53-1) or "none", got "${text}"`);
  }
  return value;
}

/**
 * What the sidecar tells about this push: warnings and notes, and the key
 * set (digest prefixes) when the sidecar belongs to this very snapshot and
 * repository. Bounded: at most one tags/list walk (the same Link-paged walk
 * publish does).
 * @param {import("../snapshot-sidecar.mjs").SidecarRead} read
 * @param {{ header: { checksum: string } }} snapshot
 * @param {string} target HOST[:PORT]/NAME of the push
 * @param {import("../../lib/repositories/oci-client.js").RegistryClient} client
 */
export async function checkSnapshotSidecar(read, snapshot, target, client) {
  /** @type {string[]} */
  const warnings = [];
  /** @type {string[]} */
  const notes = [];
  /**
   * @type {{ sidecar: string, snapshotRepository: string | null, snapshotCreatedAt: string | null,
   *   keySetKnown: boolean, tagsAdded: number | null, tagsRemoved: number | null }}
   */
  const facts = {
    sidecar: read.source,
    snapshotRepository: null,
    snapshotCreatedAt: null,
    keySetKnown: false,
    tagsAdded: null,
    tagsRemoved: null,
  };
  if (read.kind === "missing") {
    notes.push(
      `${read.note}: the snapshot's repository and age are not checked, and a 404 after "maybe" counts as a false positive`,
    );
    return { warnings, notes, facts, keys: undefined };
  }
  if (read.kind === "unusable") {
    warnings.push(`${read.warning}; the snapshot's repository and age are not checked`);
    return { warnings, notes, facts, keys: undefined };
  }
  const { sidecar } = read;
  facts.snapshotRepository = sidecar.repository;
  facts.snapshotCreatedAt = sidecar.createdAt;
  if (sidecar.snapshotChecksum !== snapshot.header.checksum) {
    warnings.push(
      `${read.source} describes the snapshot with checksum ${sidecar.snapshotChecksum},`
        + ` not the one loaded (${snapshot.header.checksum}); it is ignored`,
    );
    return { warnings, notes, facts, keys: undefined };
  }
  if (sidecar.repository !== target) {
    warnings.push(
      `the snapshot is of ${sidecar.repository}, not ${target}: what it calls "definitely absent"`
        + ` may be in ${target} (uploaded again) and its "maybe"s are HEADed;`
        + " publish one with --from-registry for this repository",
    );
    return { warnings, notes, facts, keys: undefined };
  }
  facts.keySetKnown = true;
  const keys = new Set(sidecar.digestPrefixes);
  try {
    const now = new Set(await listTags(client));
    const recorded = new Set(sidecar.tags);
    const added = [...now].filter((tag) => !recorded.has(tag)).sort();
    const removed = [...recorded].filter((tag) => !now.has(tag)).sort();
    facts.tagsAdded = added.length;
    facts.tagsRemoved = removed.length;
    if (added.length + removed.length > 0) {
      const some = (/** @type {string[]} */ list) => `${list.slice(0, 5).join(", ")}${list.length > 5 ? ", …" : ""}`;
      const listed = (/** @type {string[]} */ list) => (list.length ? ` (${some(list)})` : "");
      warnings.push(
        `the snapshot (made ${sidecar.createdAt}) is older than ${target}: ${added.length} tags added since`
          + `${listed(added)}, ${removed.length} removed${listed(removed)}; `
          + "blobs pushed since are uploaded again unless larger than --verify-absent-above; publish a new snapshot",
      );
    }
  } catch (error) {
    warnings.push(
      `could not list the tags of ${target} to check the snapshot's age: ${errorCode(error) ?? "error"}: ${errorMessage(error)}`,
    );
  }
  return { warnings, notes, facts, keys };
}

/**
 * The precheck: which blobs to upload, and why each was or was not.
 * @param {{ blobs: { digest: string, size: number }[], digests: Uint8Array[],
 *   snapshot: { catalogVersion: number, filter: { mightContain(d: Uint8Array): boolean } },
 *   existence: { findMissingAsync(d: Uint8Array[]): Promise<Uint8Array[]> },
 *   client: import("../../lib/repositories/oci-client.js").RegistryClient, concurrency: number,
 *   threshold: number, keys: Set<string> | undefined }} input
 */
export async function precheckBlobs({ blobs, digests, snapshot, existence, client, concurrency, threshold, keys }) {
  const maybe = digests.map((digest) => snapshot.filter.mightContain(digest));
  const missing = new Set(await existence.findMissingAsync(digests));
  const counts = {
    definitelyAbsent: 0,
    verifiedAbsent: 0,
    absentButPresent: 0,
    absentButPresentBytes: 0,
    falsePositives: 0,
    staleDeleted: 0,
  };
  /** @type {number[]} the blobs "definitely absent" but large enough to HEAD anyway */
  const verify = [];
  blobs.forEach((blob, index) => {
    if (!maybe[index]) {
      counts.definitelyAbsent += 1;
      if (blob.size > threshold) verify.push(index);
    } else if (missing.has(digests[index])) {
      const listed = keys?.has(blob.digest.slice("sha256:".length, "sha256:".length + PREFIX_HEX)) ?? false;
      if (listed) counts.staleDeleted += 1;
      else counts.falsePositives += 1;
    }
  });
  if (verify.length > 0) {
    const repository = repositoryOverClient(client, { concurrency });
    const present = await repository.existsManyAtVersionAsync(
      verify.map((index) => digests[index]),
      snapshot.catalogVersion,
    );
    verify.forEach((index, position) => {
      if (!present[position]) return;
      missing.delete(digests[index]);
      counts.absentButPresent += 1;
      counts.absentButPresentBytes += blobs[index].size;
    });
  }
  counts.verifiedAbsent = verify.length;
  return { toUpload: blobs.filter((_, index) => missing.has(digests[index])), counts };
}
