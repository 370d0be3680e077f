// `artifact-bloom inspect`: what a snapshot holds and whether it is sound.
import { EXIT_OK, UsageError, parseCommand } from "./common.mjs";
import { EXIT_CODES_HELP } from "./exit-codes.mjs";
import { TLS_OPTIONS } from "./option-groups.mjs";
import { helpText } from "./option-table.mjs";

/** @type {import("./option-table.mjs").CommandSpec} */
export const COMMAND = {
  name: "inspect",
  usage: ["PATH|URL"],
  allowPositionals: true,
  about: `Prints an ABF1 snapshot's header (fetched from an http(s) URL: a layout's
manifest.json is followed to the snapshot it names), its fill ratio, the
estimated false-positive rate against the target, the fill ratio at which the
rate would reach twice the target ((2p)^(1/k), the alert threshold), and the
checksum verdict.

For an ABD1 delta (publish --delta-out): the base it applies to (catalogVersion,
set bits, payload SHA-256), the target's ABF1 header, the number of bits it
sets, its size against the full target, and its verdict (length, checksum and
positions; no base needed).`,
  options: {
    json: { type: "boolean", default: false, help: "print the report as JSON" },
    base: {
      type: "string",
      arg: "OLD",
      help: "for a delta: also apply it to the snapshot OLD; the verdict is then the apply's (wrongBase, resultChecksumMismatch, ...)",
    },
    ...TLS_OPTIONS,
  },
  notes: [
    `${EXIT_CODES_HELP}
For inspect: 0 the snapshot loads, 1 it does not (the error code is printed;
for a checksum or length problem the header it claims is still shown),
2 bad arguments, an unreadable file or a URL that cannot be fetched.`,
  ],
};

const HELP = helpText(COMMAND);

/** @param {string[]} argv the arguments after the command's name */
export async function inspect(argv) {
  const parsed = parseCommand(argv, COMMAND);
  if (parsed === undefined) return EXIT_OK;
  const [path, ...extra] = parsed.positionals;
  if (path === undefined || extra.length > 0) throw new UsageError(`inspect takes exactly one PATH\n\n${HELP}`);
  // The library loads only now: a usage or a refused argument costs none of it.
  const { runInspect } = await import("./inspect-run.mjs");
  return runInspect(path, parsed.values);
}
