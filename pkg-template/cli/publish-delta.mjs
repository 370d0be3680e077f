// `publish --delta-from OLD --delta-out PATH`: the ABD1 delta from the
// previous snapshot to the one just published (docs/ABD1.md), written beside
// it so a server can offer clients a refresh that costs what changed.
//
// A delta is optional by nature: when none can be made (no old snapshot, a
// different layout, a digest removed) the full snapshot is still published,
// the reason is printed, and the exit code stays 0. The delta is written
// with the same atomic replace as the snapshot and checked on disk by
// applying it to the base: the result must be the published snapshot.
import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError, errorCode, errorMessage } from "./common.mjs";
import { loadSnapshot, readSnapshotHeader } from "artifact-bloom";
import { applySnapshotDelta, encodeSnapshotDelta, readSnapshotDeltaHeader } from "artifact-bloom/delta";
import { replaceFile } from "./replace.mjs";
import { readBoundedFile, snapshotFileLimit } from "./bounded-file.mjs";

/**
 * @typedef {{ snapshot: import("artifact-bloom").ArtifactIndexSnapshot }
 *   | { snapshot?: undefined, code: string, reason: string }} DeltaBase
 * readDeltaBase's result: the base snapshot, or why there is none
 */
/**
 * @typedef {{ written: true, path: string, bytes: number, fullBytes: number, baseCatalogVersion: number,
 *   positionCount: number | undefined } | { written: false, code: string, reason: string }} DeltaSummary
 * writeDelta's result: the summary's `delta` field
 */

/**
 * What --delta-from / --delta-out ask for: nothing, or both paths.
 * @param {Record<string, any>} values the parsed options
 * @param {string | undefined} out the snapshot's absolute path (none: a layout-only publish)
 * @returns {{ from: string, out: string } | undefined}
 */
export function deltaRequest(values, out) {
  const from = values["delta-from"];
  const to = values["delta-out"];
  if (from === undefined && to === undefined) return undefined;
  if (from === undefined || to === undefined) throw new UsageError("--delta-from and --delta-out go together");
  const deltaOut = resolve(to);
  if (deltaOut === out) throw new UsageError("--delta-out must not be --out: the delta is written beside the snapshot");
  return { from: resolve(from), out: deltaOut };
}

/**
 * The base snapshot, read before anything is replaced: `{ snapshot }` or
 * `{ code, reason }` when there is none to make a delta from.
 * @param {{ from: string }} request
 * @returns {Promise<DeltaBase>}
 */
export async function readDeltaBase(request) {
  let bytes;
  try {
    bytes = await readBoundedFile(request.from, snapshotFileLimit(), "snapshot");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return {
      code: errorCode(error) === "ENOENT" ? "noBase" : "unreadableBase",
      reason: `cannot read ${request.from}: ${errorMessage(error)}`,
    };
  }
  const loaded = loadSnapshot(bytes);
  if (loaded.kind === "failure") {
    return {
      code: "invalidBase",
      reason: `${request.from} is not a loadable ABF1 snapshot (${loaded.error}: ${loaded.message})`,
    };
  }
  return { snapshot: loaded.value };
}

/**
 * Writes the delta from `base` to the published `target` (`{ catalogVersion,
 * filter }` and its ABF1 `bytes`), or explains why there is none. Returns the
 * summary's `delta` field: `{ written: true, path, bytes, … }` or
 * `{ written: false, code, reason }`.
 * @param {NonNullable<ReturnType<typeof deltaRequest>>} request
 * @param {DeltaBase} base
 * @param {{ catalogVersion: number, filter: import("artifact-bloom").ArtifactBloomFilter, bytes: Uint8Array }} target
 * @param {{ onStaleRemoved?: (name: string) => void }} [options]
 * @returns {Promise<DeltaSummary>}
 */
export async function writeDelta(request, base, target, { onStaleRemoved } = {}) {
  /** @type {(code: string, reason: string) => Promise<{ written: false, code: string, reason: string }>} */
  const skipped = async (code, reason) => {
    await removeStaleDelta(request.out);
    return { written: false, code, reason };
  };
  if (base.snapshot === undefined) return skipped(base.code, base.reason);
  const snapshot = base.snapshot;
  try {
    const encoded = encodeSnapshotDelta(snapshot, { catalogVersion: target.catalogVersion, filter: target.filter });
    if (encoded.kind === "failure") return skipped(encoded.error, encoded.message);
    const expected = readSnapshotHeader(target.bytes);
    const problem = await replaceFile(
      request.out,
      encoded.value,
      (written) => {
        const applied = applySnapshotDelta(snapshot, written);
        if (applied.kind === "failure") return `the written delta does not apply: ${applied.error}: ${applied.message}`;
        const checksum = applied.value.header.checksum;
        applied.value.filter.free();
        return expected.kind === "success" && checksum === expected.value.checksum
          ? undefined
          : "the written delta does not rebuild the published snapshot";
      },
      { onStaleRemoved },
    );
    if (problem !== undefined) return { written: false, code: "deltaCheckFailed", reason: problem };
    const header = readSnapshotDeltaHeader(encoded.value);
    return {
      written: true,
      path: request.out,
      bytes: encoded.value.byteLength,
      fullBytes: target.bytes.byteLength,
      baseCatalogVersion: snapshot.catalogVersion,
      positionCount: header.kind === "success" ? header.value.positionCount : undefined,
    };
  } finally {
    snapshot.filter.free();
  }
}

/**
 * Removes an ABD1 file an earlier publish left at `path` (anything else is left alone).
 * @param {string} path
 */
async function removeStaleDelta(path) {
  const bytes = await readBoundedFile(path, snapshotFileLimit(), "delta").catch(() => undefined);
  if (bytes !== undefined && readSnapshotDeltaHeader(bytes).kind === "success") {
    await rm(path, { force: true }).catch(() => {});
  }
}

/**
 * The human summary's line about the delta.
 * @param {DeltaSummary} delta
 */
export function deltaLine(delta) {
  if (!delta.written) return `  no delta: ${delta.code}\n`;
  const share = ((delta.bytes / delta.fullBytes) * 100).toFixed(2);
  return (
    `  delta from catalogVersion ${delta.baseCatalogVersion}: ${delta.path}, ${delta.positionCount} new bits, `
    + `${delta.bytes} bytes (${share} % of the full snapshot)\n`
  );
}
