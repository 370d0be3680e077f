// `artifact-bloom publish`: build an ABF1 snapshot from a digest list and
// replace the previous one atomically: complete the new filter → validate
// it → replace.
import { resolve } from "node:path";
import { EXIT_OK, UsageError, integerOption, numberOption, parseCommand } from "./common.mjs";
import { EXIT_CODES_HELP } from "./exit-codes.mjs";
import {
  CREDENTIALS_NOTE,
  DELTA_NOTE,
  DELTA_OPTIONS,
  FROM_REGISTRY_OPTIONS,
  LAYOUT_NOTE,
  LAYOUT_OPTIONS,
  SIDECAR_SUFFIX,
  VERSION_RULE_NOTE,
  VERSION_RULE_OPTIONS,
} from "./option-groups.mjs";

/** The default --max-shrink: a new snapshot may hold at most 10 % fewer unique digests. */
const DEFAULT_MAX_SHRINK = 0.1;

/** @type {import("./option-table.mjs").CommandSpec} */
export const COMMAND = {
  name: "publish",
  usage: ["", "… --layout DIR", "… --from-registry URL --repository NAME"],
  about: `Builds an ABF1 snapshot of every digest of one catalog version and replaces
PATH atomically (--out), publishes it into a static layout (--layout), or both.`,
  options: {
    "catalog-version": {
      type: "string",
      arg: "V",
      required: true,
      help: "the catalog version the digests belong to (0 .. 2^53-1)",
    },
    "expected-items": {
      type: "string",
      arg: "N",
      required: true,
      help: "design capacity (1 .. 2^30); more unique digests fail with capacityExceeded",
    },
    fpp: { type: "string", arg: "P", required: true, help: "target false-positive rate, 0 < P < 1" },
    out: { type: "string", arg: "PATH", help: "the snapshot to write or replace (this, --layout DIR, or both)" },
    input: { type: "string", arg: "FILE|-", help: "digest list (default: standard input)" },
    binary: { type: "boolean", default: false, help: "input is packed 32-byte records instead of text" },
    json: { type: "boolean", default: false, help: "print the summary as JSON" },
    "allow-empty": { type: "boolean", default: false, help: "publish even if the input holds no digest at all" },
    "max-shrink": {
      type: "string",
      arg: "F",
      default: String(DEFAULT_MAX_SHRINK),
      help: `the largest drop in unique digests accepted when PATH already holds a snapshot, as a fraction 0 .. 1 (default ${DEFAULT_MAX_SHRINK}: at most 10 % fewer)`,
    },
    "allow-shrink": { type: "boolean", default: false, help: "publish however much smaller the new snapshot is" },
    ...VERSION_RULE_OPTIONS,
    ...DELTA_OPTIONS,
    ...LAYOUT_OPTIONS,
    ...FROM_REGISTRY_OPTIONS,
  },
  notes: [
    `Text input: one SHA-256 digest per line as 64 hex digits. Blank lines and
lines starting with # are skipped; any other bad line, or one longer than
4096 characters, stops the publish with its line number. Duplicate digests
are counted and reported, and inserted only once: the snapshot's
insertedItemCount is the number of UNIQUE digests.`,
    `Guards (nothing is written when one refuses; PATH stays as it was):
  - An empty input is refused (exit 1): an empty snapshot answers "definitely
    absent" for every artifact. --allow-empty publishes it. With
    --from-registry an empty (or unknown) repository is a true answer and is
    published without the flag, unless PATH holds a non-empty snapshot.
  - If PATH holds a snapshot whose header loads, a new one with fewer than
    (1 - F) x its insertedItemCount unique digests is refused (exit 1), with
    both counts: digests of some shards may be missing from the input.
    --allow-shrink publishes it. (An empty input over a non-empty snapshot
    needs both flags.)`,
    VERSION_RULE_NOTE.replaceAll("OUT", "PATH"),
    DELTA_NOTE,
    LAYOUT_NOTE,
    `Sidecar (--from-registry only): PATH${SIDECAR_SUFFIX} is written beside PATH
(atomically, after it): { format, repository "HOST:PORT/NAME", registry,
createdAt, catalogVersion, snapshotChecksum, tagCount, tags, digestCount,
digestPrefixes (the first 16 hex digits of every digest) }. push reads it to
warn about a snapshot of another repository or an outdated tag list, and to
tell stale entries from Bloom false positives.`,
    CREDENTIALS_NOTE,
    `Safety: the snapshot is written to .NAME.tmp-PID-HOST-RANDOM in PATH's
directory, fsynced, reloaded and checked (its checksum must be the one of
the snapshot built from every input digest), and only then renamed over PATH. A crash at any point leaves the
previous snapshot untouched. A temporary file left by a killed publish is
removed by the next publish or merge to the same PATH once its writer (that
pid, on this host) is gone; a running writer's file is never touched.`,
    `${EXIT_CODES_HELP}
For publish: 1 a guard refused or the written snapshot failed its check;
2 bad arguments or input (capacityExceeded, invalidFalsePositiveRate, ...)
or an output error (PATH is a directory, its directory is missing, no
permission, no space): one line naming PATH and the cause; 3 the
--from-registry enumeration failed (nothing was written).`,
  ],
};

/** @param {string[]} argv the arguments after the command's name */
export async function publish(argv) {
  const parsed = parseCommand(argv, COMMAND);
  if (parsed === undefined) return EXIT_OK;
  const { values } = parsed;
  const catalogVersion = integerOption(values, "catalog-version", 0, Number.MAX_SAFE_INTEGER);
  const expectedItemCount = integerOption(values, "expected-items", 1, Number.MAX_SAFE_INTEGER);
  const targetFalsePositiveRate = numberOption(values, "fpp");
  if (values.out === undefined && values.layout === undefined) throw new UsageError("--out PATH or --layout DIR is required");
  const out = values.out === undefined ? undefined : resolve(values.out);
  const maxShrink = numberOption(values, "max-shrink");
  if (maxShrink < 0 || maxShrink > 1) {
    throw new UsageError(`--max-shrink must be a fraction from 0 to 1, got "${values["max-shrink"]}"`);
  }
  // The library loads only now: a usage or a refused argument costs none of it.
  const { runPublish } = await import("./publish-run.mjs");
  return runPublish(values, { catalogVersion, expectedItemCount, targetFalsePositiveRate, out, maxShrink });
}
