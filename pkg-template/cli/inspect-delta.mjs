// `artifact-bloom inspect` on an ABD1 delta (docs/ABD1.md): the base it
// applies to, the target's header, how many bits it sets, its size against
// the full target, and its verdict. The format is recognised by the package's
// decoders (an ABF1 load that says badMagic, then an ABD1 header that
// parses), never by restating magic numbers here.
import { readSnapshotFile } from "./bounded-file.mjs";
import { ABF1_HEADER_LENGTH, loadSnapshot } from "artifact-bloom";
import { applySnapshotDelta, readSnapshotDeltaHeader } from "artifact-bloom/delta";

/**
 * True when `loaded` (loadSnapshot's failure) and the bytes say "an ABD1 file, maybe damaged".
 * @param {Uint8Array} bytes
 * @param {import("artifact-bloom").SnapshotResult} loaded
 */
export function looksLikeDelta(bytes, loaded) {
  if (loaded.kind !== "failure" || loaded.error !== "badMagic") return false;
  const claimed = readSnapshotDeltaHeader(bytes);
  // Below 200 bytes the decoder says truncated before it looks at the magic:
  // such a file is reported as the ABF1 file it is not.
  return claimed.kind === "success" || (claimed.error !== "badMagic" && claimed.error !== "truncated");
}

/**
 * The report for a delta file; with `basePath`, the delta is also applied
 * to that snapshot (the verdict is the apply's).
 * @param {string} path
 * @param {Uint8Array} bytes
 * @param {string | undefined} basePath
 * @returns {Promise<Record<string, any>>}
 */
export async function inspectDelta(path, bytes, basePath) {
  /** @type {Record<string, any>} */
  const report = { path, kind: "delta", bytes: bytes.byteLength };
  const verified = readSnapshotDeltaHeader(bytes, { verify: true });
  const claimed = verified.kind === "success" ? verified : readSnapshotDeltaHeader(bytes);
  if (claimed.kind === "success") {
    const header = claimed.value;
    // What a full download of the target costs, for the size comparison.
    Object.assign(report, { header, targetBytes: ABF1_HEADER_LENGTH + header.target.payloadLength });
  }
  if (verified.kind === "failure") {
    return Object.assign(report, { verdict: verified.error, message: verified.message });
  }
  report.verdict = "ok";
  if (basePath === undefined) return report;
  const base = loadSnapshot(await readSnapshotFile(basePath));
  if (base.kind === "failure") {
    return Object.assign(report, {
      verdict: "invalidBase",
      message: `${basePath} does not load: ${base.error}: ${base.message}`,
    });
  }
  const applied = applySnapshotDelta(base.value, bytes);
  base.value.filter.free();
  if (applied.kind === "failure") return Object.assign(report, { verdict: applied.error, message: applied.message });
  applied.value.filter.free();
  return Object.assign(report, { applied: { base: basePath, catalogVersion: applied.value.catalogVersion } });
}
