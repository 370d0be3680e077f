// `artifact-bloom merge`: OR-merge partial snapshots (built over digest
// shards with the same layout) into one snapshot, replaced atomically.
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { EXIT_OK, EXIT_PROBLEMS, UsageError, integerOption, parseCommand } from "./common.mjs";
import { ArtifactBloomFilter, encodeSnapshot, loadLibrary, loadSnapshot } from "./library.mjs";
import { replaceSnapshotFile } from "./replace.mjs";
import { ALLOW_VERSION_REUSE, VERSION_RULE_HELP, versionRuleProblem } from "./version-guard.mjs";
import { EXIT_CODES_HELP } from "./exit-codes.mjs";
import { readSnapshotFile } from "./bounded-file.mjs";

export const HELP = `Usage: artifact-bloom merge A.abf1 B.abf1 [...] --catalog-version V --out OUT
                            [--allow-version-reuse]

OR-merges partial snapshots into one. Every input must have the same bitCount,
hashCount and hash protocol (build the shards with the same --expected-items
and --fpp), else the merge fails with incompatibleFilters. OUT is written to a
temporary file, fsynced, reloaded and renamed into place atomically (a
temporary file left by a killed merge or publish is removed by the next one
once its writer is gone).

insertedItemCount of the result — the rule:
  - An input whose bytes are identical to an earlier input's is merged once
    (noted on stderr): merging a file with itself changes nothing.
  - Otherwise the result's insertedItemCount is the SUM of the inputs' counts:
    exact for disjoint shards, an upper bound when shards share digests (a
    shared digest is counted once per shard that holds it). The bits are the
    exact union either way, so answers are the same as a publish of the union.
    The summary also shows the distinct count the fill ratio suggests.
  - If that sum exceeds the layout's expectedItemCount, the merge is refused
    (exit 1) and says so with both numbers: no loader accepts a snapshot
    claiming more digests than it was sized for. Build the shards with a
    larger --expected-items, or publish the union of their digest lists.

${VERSION_RULE_HELP}

${EXIT_CODES_HELP}
For merge: 0 merged, 1 an input does not load, the inputs are incompatible,
their counts exceed expectedItemCount, or the version rule refused, 2 bad
arguments, unreadable inputs or an output error (one line naming OUT and the
cause).`;

/** The distinct-item count a fill ratio implies: -(m/k) ln(1 - fill) (an estimate, for the summary only). */
function distinctEstimate(filter) {
  const fill = filter.getFillRatio();
  if (fill >= 1) return Infinity;
  return Math.round(-(filter.getBitCount() / filter.getHashCount()) * Math.log1p(-fill));
}

export async function merge(argv) {
  const parsed = parseCommand(argv, {
    help: HELP,
    allowPositionals: true,
    options: {
      "catalog-version": { type: "string" },
      out: { type: "string" },
      [ALLOW_VERSION_REUSE]: { type: "boolean", default: false },
    },
  });
  if (parsed === undefined) return EXIT_OK;
  const inputs = parsed.positionals;
  if (inputs.length < 2) throw new UsageError(`merge needs at least two snapshots\n\n${HELP}`);
  const catalogVersion = integerOption(parsed.values, "catalog-version", 0, Number.MAX_SAFE_INTEGER);
  if (!parsed.values.out) throw new UsageError("--out is required");
  const out = resolve(parsed.values.out);
  await loadLibrary();

  let merged;
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
    const claimed = merged.getInsertedItemCount();
    const estimate = distinctEstimate(merged);
    let bytes;
    try {
      bytes = encodeSnapshot(merged, { catalogVersion });
    } catch (error) {
      process.stderr.write(`merge: ${error.code ?? "error"}: ${error.message}\n`);
      return EXIT_PROBLEMS;
    }
    const reuse = await versionRuleProblem(out, bytes, { command: "merge", allowReuse: parsed.values[ALLOW_VERSION_REUSE] });
    if (reuse !== undefined) {
      process.stderr.write(`merge: ${reuse}\n`);
      return EXIT_PROBLEMS;
    }
    const onStaleRemoved = (name) => process.stderr.write(`merge: removed ${name}, left by a writer that was killed\n`);
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
