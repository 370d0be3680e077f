// `artifact-bloom check`: precheck files or digests against a snapshot.
import { EXIT_OK, UsageError, parseCommand } from "./common.mjs";
import { EXIT_CODES_HELP } from "./exit-codes.mjs";
import { TLS_OPTIONS } from "./option-groups.mjs";
import { helpText } from "./option-table.mjs";

/** @type {import("./option-table.mjs").CommandSpec} */
export const COMMAND = {
  name: "check",
  usage: ["PATH|URL FILE|HEX|- ..."],
  allowPositionals: true,
  about: `Loads the snapshot at PATH — or fetches it from an http(s) URL: a layout's
manifest.json (publish --layout) is followed to the snapshot it names, any
other URL is the snapshot itself — then for each argument prints "absent"
(definitely not in the catalog: skip the remote lookup) or "maybe" (ask the
repository at the snapshot's catalogVersion). An argument of 64 hex digits is
a SHA-256 digest; "-" reads digests from standard input, one per line in hex
(blank lines and # comments skipped); anything else is a file, hashed with
SHA-256 as a stream (node:crypto, the fastest hash in Node).

Each item is one line: "VERDICT DIGEST  FILE". A file name holding a
backslash, a newline or a carriage return is escaped as sha256sum does: the
line starts with "\\" and the name has "\\\\", "\\n" and "\\r" for them, so
one file is always one line (--json gives names as JSON strings).`,
  options: {
    json: { type: "boolean", default: false, help: "print the snapshot's catalogVersion and the results as JSON" },
    ...TLS_OPTIONS,
  },
  notes: [
    `${EXIT_CODES_HELP}
For check: 0 every item was checked, 1 the snapshot does not load,
2 bad arguments, a line of standard input that is not a digest, an
unreadable file, or a URL that cannot be fetched.`,
  ],
};

const HELP = helpText(COMMAND);

/** @param {string[]} argv the arguments after the command's name */
export async function check(argv) {
  const parsed = parseCommand(argv, COMMAND);
  if (parsed === undefined) return EXIT_OK;
  const [path, ...items] = parsed.positionals;
  if (path === undefined) throw new UsageError(`check needs a snapshot PATH\n\n${HELP}`);
  // Nothing to check printed nothing and exited 0, which reads as "all fine".
  if (items.length === 0) throw new UsageError(`check needs a FILE, a HEX digest or - (standard input) after ${path}\n\n${HELP}`);
  if (items.filter((item) => item === "-").length > 1) {
    throw new UsageError(`check reads standard input once: "-" appears twice\n\n${HELP}`);
  }
  // The library loads only now: a usage or a refused argument costs none of it.
  const { runCheck } = await import("./check-run.mjs");
  return runCheck(path, items, parsed.values);
}
