// `artifact-bloom merge`: OR-merge partial snapshots (built over digest
// shards with the same layout) into one snapshot, replaced atomically.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "../node.mjs";
import { EXIT_OK, EXIT_PROBLEMS, UsageError, integerOption, parseCommand } from "./common.mjs";
import { replaceSnapshotFile } from "./replace.mjs";

export const HELP = `Usage: artifact-bloom merge A.abf1 B.abf1 [...] --catalog-version V --out OUT

OR-merges partial snapshots into one. Every input must have the same bitCount,
hashCount and hash protocol (build the shards with the same --expected-items
and --fpp), else the merge fails with incompatibleFilters. insertedItemCount
is the sum of the inputs' (exact when the shards are disjoint), and must stay
within expectedItemCount. OUT is written to a temporary file, fsynced,
reloaded and renamed into place atomically.

Exit codes: 0 merged, 1 an input does not load or the inputs are incompatible,
2 bad arguments or unreadable files.`;

export async function merge(argv) {
  const parsed = parseCommand(argv, {
    help: HELP,
    allowPositionals: true,
    options: { "catalog-version": { type: "string" }, out: { type: "string" } },
  });
  if (parsed === undefined) return EXIT_OK;
  const inputs = parsed.positionals;
  if (inputs.length < 2) throw new UsageError(`merge needs at least two snapshots\n\n${HELP}`);
  const catalogVersion = integerOption(parsed.values, "catalog-version", 0, Number.MAX_SAFE_INTEGER);
  if (!parsed.values.out) throw new UsageError("--out is required");
  const out = resolve(parsed.values.out);

  let merged;
  for (const path of inputs) {
    const bytes = await readFile(path).catch((error) => {
      merged?.free();
      throw new UsageError(`cannot read ${path}: ${error.message}`);
    });
    const loaded = loadSnapshot(new Uint8Array(bytes));
    if (loaded.kind === "failure") {
      merged?.free();
      process.stderr.write(`merge: ${path} does not load: ${loaded.error}: ${loaded.message}\n`);
      return EXIT_PROBLEMS;
    }
    if (merged === undefined) {
      merged = loaded.value.filter;
      continue;
    }
    const union = ArtifactBloomFilter.union(merged, loaded.value.filter);
    merged.free();
    loaded.value.filter.free();
    if (union.kind === "failure") {
      process.stderr.write(`merge: ${path}: ${union.error}: every input needs the same bitCount and hashCount\n`);
      return EXIT_PROBLEMS;
    }
    merged = union.value;
  }
  let bytes;
  try {
    bytes = encodeSnapshot(merged, { catalogVersion });
  } catch (error) {
    process.stderr.write(`merge: ${error.code ?? "error"}: ${error.message}\n`);
    return EXIT_PROBLEMS;
  } finally {
    merged.free();
  }
  const problem = await replaceSnapshotFile(out, bytes, (reloaded) =>
    reloaded.catalogVersion === catalogVersion
      ? undefined
      : `the merged snapshot has catalogVersion ${reloaded.catalogVersion}, not ${catalogVersion}`);
  if (problem !== undefined) {
    process.stderr.write(`merge: ${problem}\n`);
    return EXIT_PROBLEMS;
  }
  process.stdout.write(`merged ${inputs.length} snapshots into ${out} (catalogVersion ${catalogVersion}, ${bytes.byteLength} bytes)\n`);
  return EXIT_OK;
}
