// `artifact-bloom merge`: OR-merge partial snapshots (built over digest
// shards with the same layout) into one snapshot, replaced atomically.
import { resolve } from "node:path";
import { EXIT_OK, UsageError, integerOption, parseCommand } from "./common.mjs";
import { EXIT_CODES_HELP } from "./exit-codes.mjs";
import { VERSION_RULE_NOTE, VERSION_RULE_OPTIONS } from "./option-groups.mjs";
import { helpText } from "./option-table.mjs";

/** @type {import("./option-table.mjs").CommandSpec} */
export const COMMAND = {
  name: "merge",
  usage: ["A.abf1 B.abf1 [...]"],
  allowPositionals: true,
  about: `OR-merges partial snapshots into one. Every input must have the same bitCount,
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
    larger --expected-items, or publish the union of their digest lists.`,
  options: {
    "catalog-version": { type: "string", arg: "V", required: true, help: "the merged snapshot's catalogVersion (0 .. 2^53-1)" },
    out: { type: "string", arg: "OUT", required: true, help: "the snapshot to write or replace" },
    ...VERSION_RULE_OPTIONS,
  },
  notes: [
    VERSION_RULE_NOTE,
    `${EXIT_CODES_HELP}
For merge: 0 merged, 1 an input does not load, the inputs are incompatible,
their counts exceed expectedItemCount, or the version rule refused, 2 bad
arguments, unreadable inputs or an output error (one line naming OUT and the
cause).`,
  ],
};

const HELP = helpText(COMMAND);

/** @param {string[]} argv the arguments after the command's name */
export async function merge(argv) {
  const parsed = parseCommand(argv, COMMAND);
  if (parsed === undefined) return EXIT_OK;
  const inputs = parsed.positionals;
  if (inputs.length < 2) throw new UsageError(`merge needs at least two snapshots\n\n${HELP}`);
  const catalogVersion = integerOption(parsed.values, "catalog-version", 0, Number.MAX_SAFE_INTEGER);
  if (!parsed.values.out) throw new UsageError("--out is required");
  const out = resolve(parsed.values.out);
  // The library loads only now: a usage or a refused argument costs none of it.
  const { runMerge } = await import("./merge-run.mjs");
  return runMerge(inputs, catalogVersion, out, parsed.values);
}
