// `artifact-bloom check`, once its arguments are parsed (./check.mjs): load the
// snapshot (a file or a URL), then a verdict per item.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { loadSnapshot } from "artifact-bloom";
import { readSnapshotFile } from "./bounded-file.mjs";
import { EXIT_OK, EXIT_PROBLEMS, bytesToHex, hexToBytes, isHexDigest, readHexDigests, readingInput } from "./common.mjs";
import { fetchSnapshotUrl, isSnapshotUrl } from "./snapshot-url.mjs";

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

/** @param {string} path */
async function digestOfFile(path) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return new Uint8Array(hash.digest());
}

/**
 * @param {string} path the snapshot's path or URL
 * @param {string[]} items files, hex digests or "-"
 * @param {Record<string, unknown>} values the parsed options
 * @returns {Promise<number>} the exit code
 */
export async function runCheck(path, items, values) {
  const loaded = isSnapshotUrl(path)
    ? await fetchSnapshotUrl(path, { label: "PATH", values })
    : loadSnapshot(await readSnapshotFile(path));
  if (loaded.kind === "failure") {
    process.stderr.write(`check: ${path} does not load: ${loaded.error}: ${loaded.message}\n`);
    return EXIT_PROBLEMS;
  }
  const { filter, catalogVersion } = loaded.value;
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
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ snapshot: path, catalogVersion, results }, null, 2)}\n`);
  } else {
    for (const r of results) {
      const name = escapeName(r.kind === "file" ? r.item : "");
      process.stdout.write(`${name.escaped ? "\\" : ""}${r.verdict.padEnd(6)} ${r.digest}  ${name.text}\n`);
    }
  }
  return EXIT_OK;
}
