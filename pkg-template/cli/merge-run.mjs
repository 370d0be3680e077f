// `artifact-bloom merge`, once its arguments are parsed (./merge.mjs): OR the
// inputs together, check the version rule, replace OUT atomically.
import { createHash } from "node:crypto";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { readSnapshotFile } from "./bounded-file.mjs";
import { EXIT_OK, EXIT_PROBLEMS, errorCode, errorMessage } from "./common.mjs";
import { replaceSnapshotFile } from "./replace.mjs";
import { versionRuleProblem } from "./version-guard.mjs";
import { ALLOW_VERSION_REUSE } from "./option-groups.mjs";

/**
 * The distinct-item count a fill ratio implies: -(m/k) ln(1 - fill) (an estimate, for the summary only).
 * @param {import("artifact-bloom").ArtifactBloomFilter} filter
 */
function distinctEstimate(filter) {
  const fill = filter.getFillRatio();
  if (fill >= 1) return Infinity;
  return Math.round(-(filter.getBitCount() / filter.getHashCount()) * Math.log1p(-fill));
}

/**
 * @param {string[]} inputs the snapshots to merge (at least two)
 * @param {number} catalogVersion the merged snapshot's
 * @param {string} out the absolute path to write
 * @param {Record<string, any>} values the parsed options
 * @returns {Promise<number>} the exit code
 */
export async function runMerge(inputs, catalogVersion, out, values) {
  /** @type {ArtifactBloomFilter | undefined} */
  let merged;
  /** @type {Map<string, string>} */
  const seen = new Map(); // SHA-256 of an input's bytes → its path
  let used = 0;
  try {
    for (const [index, path] of inputs.entries()) {
      const bytes = await readSnapshotFile(path);
      const hash = createHash("sha256").update(bytes).digest("hex");
      if (seen.has(hash)) {
        process.stderr.write(`merge: note: ${path} is identical to ${seen.get(hash)}; merged once\n`);
        continue;
      }
      seen.set(hash, path);
      const loaded = loadSnapshot(new Uint8Array(bytes));
      if (loaded.kind === "failure") {
        process.stderr.write(`merge: ${path} does not load: ${loaded.error}: ${loaded.message}\n`);
        return EXIT_PROBLEMS;
      }
      used += 1;
      if (merged === undefined) {
        merged = loaded.value.filter;
        continue;
      }
      const union = ArtifactBloomFilter.union(merged, loaded.value.filter);
      const adding = loaded.value.filter.getInsertedItemCount();
      loaded.value.filter.free();
      if (union.kind === "failure" && union.error === "capacityExceeded") {
        // union refuses a count over expectedItemCount (a snapshot claiming
        // it would not load); the inputs not read yet would only add more.
        const claimed = merged.getInsertedItemCount() + adding;
        const more = index < inputs.length - 1 ? " or more" : "";
        process.stderr.write(
          `merge: the inputs' insertedItemCounts add up to ${claimed}${more}, more than their expectedItemCount `
            + `${merged.getExpectedItemCount()}; a snapshot claiming that would not load. Shards that share digests `
            + `count them once each (the fill ratio of the inputs before ${path} suggests about `
            + `${distinctEstimate(merged)} distinct digests): build the shards with --expected-items of at least `
            + `${claimed}${more}, or publish the union of their digest lists\n`,
        );
        return EXIT_PROBLEMS;
      }
      if (union.kind === "failure") {
        process.stderr.write(`merge: ${path}: ${union.error}: every input needs the same bitCount and hashCount\n`);
        return EXIT_PROBLEMS;
      }
      merged.free();
      merged = union.value;
    }
    // The first input is never a repeat, so one at least was loaded.
    if (merged === undefined) throw new TypeError("runMerge needs at least one input");
    const claimed = merged.getInsertedItemCount();
    const estimate = distinctEstimate(merged);
    let bytes;
    try {
      bytes = encodeSnapshot(merged, { catalogVersion });
    } catch (error) {
      process.stderr.write(`merge: ${errorCode(error) ?? "error"}: ${errorMessage(error)}\n`);
      return EXIT_PROBLEMS;
    }
    const reuse = await versionRuleProblem(out, bytes, { command: "merge", allowReuse: values[ALLOW_VERSION_REUSE] });
    if (reuse !== undefined) {
      process.stderr.write(`merge: ${reuse}\n`);
      return EXIT_PROBLEMS;
    }
    const onStaleRemoved = (/** @type {string} */ name) =>
      process.stderr.write(`merge: removed ${name}, left by a writer that was killed\n`);
    const problem = await replaceSnapshotFile(
      out,
      bytes,
      (reloaded) =>
        reloaded.catalogVersion === catalogVersion
          ? undefined
          : `the merged snapshot has catalogVersion ${reloaded.catalogVersion}, not ${catalogVersion}`,
      { onStaleRemoved },
    );
    if (problem !== undefined) {
      process.stderr.write(`merge: ${problem}\n`);
      return EXIT_PROBLEMS;
    }
    process.stdout.write(
      `merged ${used} snapshot${used === 1 ? "" : "s"} into ${out}`
        + ` (catalogVersion ${catalogVersion}, ${bytes.byteLength} bytes)\n`
        + `  insertedItemCount ${claimed} (the sum of the inputs': exact if they are disjoint, an upper bound if not;`
        + ` the fill ratio suggests about ${estimate} distinct digests)\n`,
    );
    return EXIT_OK;
  } finally {
    merged?.free();
  }
}
