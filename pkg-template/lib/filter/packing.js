// How digests cross into wasm memory for builds and batches: a staged chunk
// at a time.
//
// A build begins in wasm with the whole input's length (`beginPacked`: the
// spec, capacity and length checks, then the bit array), then receives the
// digests in chunks of CHUNK_BYTES (`insertPacked`). Chunks fit the input
// buffer wasm keeps between calls, so after the first one nothing is
// reserved or cleared, and each chunk is still in cache when wasm reads it;
// a 32 MB input is never copied whole. Batches are answered the same way.
// The chunk size is a tuning choice, not a rule: any size gives the same
// bits and answers.

import { isUint8Array } from "../core/errors.js";
import { DIGEST_LENGTH } from "../wasm/format-rules.js";
import { stageInput, stagingCount, toWasm } from "../wasm/main-memory.js";

/** Digests per staged chunk (512 KiB). */
const CHUNK_DIGESTS = 16384;
/** Bytes per staged chunk. */
export const CHUNK_BYTES = CHUNK_DIGESTS * DIGEST_LENGTH;

/**
 * The raw methods a chunked build uses (RawFilter's).
 * @typedef {{ insertPacked(stagedLength: number): void }} RawBuild
 */

/**
 * A genuine 32-byte Uint8Array (Buffer included, any realm; a Proxy is not:
 * `ArrayBuffer.isView` checks the internal slot, so reading or copying one
 * runs no caller code). `length` rather than `byteLength` (the same for
 * bytes): V8 reads it without touching the ArrayBuffer object, one cache
 * miss less per digest (measured).
 * @param {unknown} value
 * @returns {value is Uint8Array}
 */
export function isDigest(value) {
  return ArrayBuffer.isView(value) && (value instanceof Uint8Array || isUint8Array(value)) && value.length === DIGEST_LENGTH;
}

/**
 * Inserts N × 32 packed bytes into a begun build, a chunk at a time.
 * @param {RawBuild} raw
 * @param {Uint8Array} packed whole digests (the build's begin checked the length)
 * @throws {Error} with `code: "outOfMemory"` when there is no room for a chunk
 */
export function insertPacked(raw, packed) {
  for (let start = 0; start < packed.byteLength; start += CHUNK_BYTES) {
    raw.insertPacked(toWasm(packed.subarray(start, start + CHUNK_BYTES)));
  }
}

/**
 * Inserts `count` separate digests into a begun build, checking and copying
 * each element straight into staged wasm memory as it is read (once), so
 * each digest object is brought into cache once.
 *
 * Reading an element can run caller code (an accessor, a Proxy trap) that
 * stages another input or grows wasm memory; the chunk's view is then no
 * longer the next call's input. That is checked before each copy, so nothing
 * is ever written outside the current input, and the rest of the build goes
 * to `insertCarefully`.
 * @param {RawBuild} raw
 * @param {readonly unknown[]} digests
 * @param {number} count digests.length, read once
 * @returns {"invalidDigest" | undefined} undefined once every digest is in
 * @throws {Error} with `code: "outOfMemory"` when there is no room for a chunk
 */
export function insertDigests(raw, digests, count) {
  /** @type {Uint8Array[]} this chunk's digests so far (for insertCarefully) */
  const chunk = new Array(Math.min(count, CHUNK_DIGESTS));
  for (let start = 0; start < count; start += CHUNK_DIGESTS) {
    const end = Math.min(count, start + CHUNK_DIGESTS);
    const staged = stageInput((end - start) * DIGEST_LENGTH);
    const stagedAt = stagingCount();
    for (let index = start; index < end; index += 1) {
      const digest = digests[index];
      if (!isDigest(digest)) return "invalidDigest";
      chunk[index - start] = digest;
      if (stagingCount() !== stagedAt || staged.length === 0) {
        return insertCarefully(raw, digests, count, index + 1, chunk.slice(0, index + 1 - start));
      }
      staged.set(digest, (index - start) * DIGEST_LENGTH);
    }
    raw.insertPacked((end - start) * DIGEST_LENGTH);
  }
  return undefined;
}

/**
 * The rest of a build once caller code disturbed the staging: every
 * remaining element read and checked first, then staged and inserted with
 * no caller code in between.
 * @param {RawBuild} raw
 * @param {readonly unknown[]} digests
 * @param {number} count
 * @param {number} next the first element not read yet
 * @param {Uint8Array[]} pending elements read and checked since the last inserted chunk
 * @returns {"invalidDigest" | undefined}
 * @throws {Error} with `code: "outOfMemory"` when there is no room for a chunk
 */
function insertCarefully(raw, digests, count, next, pending) {
  for (let index = next; index < count; index += 1) {
    const digest = digests[index];
    if (!isDigest(digest)) return "invalidDigest";
    pending.push(digest);
  }
  for (let at = 0; at < pending.length; at += CHUNK_DIGESTS) {
    const piece = Math.min(CHUNK_DIGESTS, pending.length - at);
    const staged = stageInput(piece * DIGEST_LENGTH);
    for (let offset = 0; offset < piece; offset += 1) staged.set(pending[at + offset], offset * DIGEST_LENGTH);
    raw.insertPacked(piece * DIGEST_LENGTH);
  }
  return undefined;
}
