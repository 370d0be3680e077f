// `artifact-bloom check`: precheck files or digests against a snapshot.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { loadLibrary, loadSnapshot } from "./library.mjs";
import {
  EXIT_OK,
  EXIT_PROBLEMS,
  UsageError,
  bytesToHex,
  hexToBytes,
  isHexDigest,
  parseCommand,
  readHexDigests,
  readingInput,
} from "./common.mjs";
import { readSnapshotFile } from "./bounded-file.mjs";
import { EXIT_CODES_HELP } from "./exit-codes.mjs";
import { fetchSnapshotUrl, isSnapshotUrl } from "./snapshot-url.mjs";
import { TLS_HELP, TLS_OPTIONS } from "./registry/registry-tls.mjs";

export const HELP = `Usage: artifact-bloom check PATH|URL [FILE|HEX|- ...] [--json]
                            [--ca-file PEM | --tls-verify=false]

Loads the snapshot at PATH — or fetches it from an http(s) URL: a layout's
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
one file is always one line (--json gives names as JSON strings).

${EXIT_CODES_HELP}
For check: 0 every item was checked, 1 the snapshot does not load,
2 bad arguments, a line of standard input that is not a digest, an
unreadable file, or a URL that cannot be fetched.

${TLS_HELP}`;

/**
 * `name` as one line, the way sha256sum writes file names: a backslash
 * doubled, a newline as backslash-n, a carriage return as backslash-r;
 * `escaped` says the line must start with a backslash (so a reader knows
 * to unescape, and a forged name can never start a line of its own).
 * @param {string} name
 */
function escapeName(name) {
  if (!/[\\\n\r]/.test(name)) return { escaped: false, text: name };
  const text = name.replace(/[\\\n\r]/g, (character) => ({ "\\": "\\\\", "\n": "\\n", "\r": "\\r" })[character] ?? character);
  return { escaped: true, text };
}

async function digestOfFile(path) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return new Uint8Array(hash.digest());
}

export async function check(argv) {
  const parsed = parseCommand(argv, {
    help: HELP,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, ...TLS_OPTIONS },
  });
  if (parsed === undefined) return EXIT_OK;
  const [path, ...items] = parsed.positionals;
  if (path === undefined) throw new UsageError(`check needs a snapshot PATH\n\n${HELP}`);
  // Nothing to check printed nothing and exited 0, which reads as "all fine".
  if (items.length === 0) throw new UsageError(`check needs a FILE, a HEX digest or - (standard input) after ${path}\n\n${HELP}`);
  await loadLibrary();
  const loaded = isSnapshotUrl(path)
    ? await fetchSnapshotUrl(path, { label: "PATH", values: parsed.values })
    : loadSnapshot(await readSnapshotFile(path));
  if (loaded.kind === "failure") {
    process.stderr.write(`check: ${path} does not load: ${loaded.error}: ${loaded.message}\n`);
    return EXIT_PROBLEMS;
  }
  const { filter, catalogVersion } = loaded.value;
  if (items.filter((item) => item === "-").length > 1) {
    throw new UsageError(`check reads standard input once: "-" appears twice\n\n${HELP}`);
  }
  const results = [];
  for (const item of items) {
    if (item === "-") {
      const { packed } = await readHexDigests(process.stdin);
      for (let offset = 0; offset < packed.byteLength; offset += 32) {
        const digest = packed.subarray(offset, offset + 32);
        const verdict = filter.mightContain(digest) ? "maybe" : "absent";
        results.push({ item: "-", kind: "stdin", digest: bytesToHex(digest), verdict });
      }
      continue;
    }
    let digest;
    let kind;
    if (isHexDigest(item)) {
      digest = hexToBytes(item);
      kind = "digest";
    } else {
      digest = await readingInput(item, digestOfFile);
      kind = "file";
    }
    const verdict = filter.mightContain(digest) ? "maybe" : "absent";
    results.push({ item, kind, digest: bytesToHex(digest), verdict });
  }
  filter.free();
  if (parsed.values.json) {
    process.stdout.write(`${JSON.stringify({ snapshot: path, catalogVersion, results }, null, 2)}\n`);
  } else {
    for (const r of results) {
      const name = escapeName(r.kind === "file" ? r.item : "");
      process.stdout.write(`${name.escaped ? "\\" : ""}${r.verdict.padEnd(6)} ${r.digest}  ${name.text}\n`);
    }
  }
  return EXIT_OK;
}
