// Shared pieces of the ABF1 snapshot suites: the vector files, digests of
// known member sets, and a guard that turns a hang into a test failure.
//
// The vectors live beside the checkout (CI has shared/ next to the repo
// root). From js-tests/*.test.mjs that is ../../shared; this file sits one
// level deeper, hence three `..`.
import { createHash, hash as oneShotHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { sha256 } from "./digests.mjs";

// Re-exported: the suites import them from here too.
export { hex, sha256 } from "./digests.mjs";
export { randomDigest, seededRandom } from "./random.mjs";

export const VECTORS_DIR = new URL("../../../shared/vectors/abf1/", import.meta.url);

/** The manifest: what every vector file must load as. */
export const manifest = withKeyedProtocol(JSON.parse(readFileSync(new URL("manifest.json", VECTORS_DIR), "utf8")));

/**
 * The seed's manifest, with the one answer this package gives differently:
 * the reference knows only hash protocol 1, so its protocol-2 vector
 * expects `unsupportedHashProtocol`; this package defines protocol 2
 * (keyed snapshots, docs/ABF1.md), and a keyed file loaded without a key is
 * `keyRequired` (load step 9) — still a typed failure, never a filter.
 * @param {{ files: { file: string, expect: string, why: string }[] }} seed
 */
function withKeyedProtocol(seed) {
  const files = seed.files.map((entry) =>
    entry.file === "hash-proto-2.abf1"
      ? { ...entry, expect: "keyRequired", why: `${entry.why}, a keyed snapshot loaded without its key` }
      : entry,
  );
  return { ...seed, files };
}

/** The bytes of one vector file as a plain Uint8Array (not a Buffer). */
export function readVector(name) {
  const buffer = readFileSync(new URL(name, VECTORS_DIR));
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength).slice();
}

/**
 * N × 32 packed bytes of sha256(`${prefix}${i}`) for i < count. Uses the
 * one-shot crypto.hash where Node has it (≈ 30 % faster than createHash for
 * a million short strings).
 */
export function packedDigests(prefix, count, start = 0) {
  const packed = new Uint8Array(count * 32);
  const digest =
    typeof oneShotHash === "function"
      ? (text) => oneShotHash("sha256", text, "buffer")
      : (text) => createHash("sha256").update(text).digest();
  for (let index = 0; index < count; index += 1) {
    packed.set(digest(`${prefix}${start + index}`), index * 32);
  }
  return packed;
}

/** The i-th 32-byte digest of a packed buffer (a view, not a copy). */
export function digestAt(packed, index) {
  return packed.subarray(index * 32, index * 32 + 32);
}

/**
 * The digests a valid manifest entry was built from, or undefined when the
 * manifest does not say (e.g. max-safe-catalog). small-v42 lists its words;
 * members10k is sha256("member:" + i) for i < 10000 (its "why" says so).
 */
export function memberDigestsOf(entry) {
  if (Array.isArray(entry.members)) return entry.members.map((word) => sha256(word));
  if (entry.file.startsWith("members10k")) {
    return Array.from({ length: 10000 }, (_, i) => sha256(`member:${i}`));
  }
  return undefined;
}

/** Header fields the manifest may pin for an "ok" file. */
export const PINNED_HEADER_FIELDS = [
  "catalogVersion",
  "bitCount",
  "hashCount",
  "expectedItemCount",
  "insertedItemCount",
  "targetFpp",
];

/** Every field of the ABF1 header table, in file order (magic excepted). */
export const HEADER_FIELDS = [
  "formatVersion",
  "hashProtocolVersion",
  "catalogVersion",
  "bitCount",
  "hashCount",
  "reserved",
  "expectedItemCount",
  "insertedItemCount",
  "targetFpp",
  "payloadLength",
  "checksum",
];

/**
 * Resolves or rejects like `promise`, but rejects with a named error after
 * `ms`, so a loader that waits for input that never comes fails the test
 * instead of hanging the whole run.
 */
export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A promise that never settles: a peer that stops sending but stays open. */
export function forever() {
  return new Promise(() => {});
}

/** An async generator yielding `bytes` in `size`-byte copies. */
export async function* chunked(bytes, size) {
  for (let offset = 0; offset < bytes.byteLength; offset += size) {
    yield bytes.slice(offset, offset + size);
  }
}

/** A ReadableStream of `bytes` in `size`-byte chunks, pulled on demand. */
export function readableOf(bytes, size) {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

/** Packed 32-byte digests → one Uint8Array each (e.g. for writeHexList). */
export function splitDigests(packed) {
  const digests = [];
  for (let offset = 0; offset < packed.length; offset += 32) digests.push(packed.subarray(offset, offset + 32));
  return digests;
}
