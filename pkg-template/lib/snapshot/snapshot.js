// ABF1 snapshots: load (bytes, streams, URLs) and encode.
//
// A load returns the reference's result shape. On failure, `error` is the
// spec's code (truncated, badMagic, unsupportedFormatVersion,
// unsupportedHashProtocol, invalidHeader, lengthMismatch, checksumMismatch)
// and `message` says what was wrong. No partially usable filter ever escapes.

import {
  decodeSnapshot,
  decodeSnapshotPrehashed,
  encodeSnapshot as rawEncodeSnapshot,
  encodeSnapshotUnsealed,
  parseSnapshotHeader,
} from "../../artifact_bloom.js";
import { load } from "../core/checks.js";
import { failure } from "../core/results.js";
import { isUint8Array, typeError } from "../core/errors.js";
import { ArtifactBloomFilter } from "../filter/filter.js";
import { checkCatalogVersion } from "../wasm/format-rules.js";
import { toWasm } from "../wasm/main-memory.js";
import { ABF1_HEADER_LENGTH, keyedSnapshot, prehash } from "./snapshot-core.js";
import { checkKey } from "./snapshot-key.js";

// The rest of the snapshot API: the header length and streams, exported from
// here too. URLs are snapshot-fetch.js (index.js exports fetchSnapshot from
// there: it applies deltas, and delta.js needs loadSnapshot from here).
export { ABF1_HEADER_LENGTH } from "./snapshot-core.js";
export { loadSnapshotStream } from "./snapshot-stream.js";

/**
 * @import { RawFilter } from "../../artifact_bloom.js"
 * @import { DecodeResult } from "../core/results.js"
 * @import { CatalogVersion, SnapshotHeader, SnapshotHeaderResult } from "../types.js"
 * @import { SnapshotLoadError, SnapshotMeta, SnapshotResult } from "../types.js"
 */

/**
 * Loads a complete ABF1 file from memory. Never returns a partially usable filter.
 *
 * @example
 * ```ts
 * const loaded = loadSnapshot(new Uint8Array(await readFile("catalog.abf1")));
 * if (loaded.kind === "failure") throw new Error(`${loaded.error}: ${loaded.message}`);
 * const { catalogVersion, filter } = loaded.value;
 * ```
 *
 * A keyed snapshot (hashProtocolVersion 2) needs `meta.key`, the key it was
 * published with: without it the load is the failure `keyRequired`, with
 * another `wrongKey`; a key given for an unkeyed snapshot is `notKeyed`.
 *
 * @param {Uint8Array} bytes the whole file
 * @param {SnapshotMeta & { key?: Uint8Array }} [meta] copied onto the snapshot (e.g. the file's mtime as
 *   `lastModified`); `key`: the secret of a keyed snapshot (16 to 1024 bytes), never copied onto it
 * @returns {SnapshotResult}
 * @throws {TypeError | RangeError} for bytes that are not a Uint8Array, or a key that is not 16 to 1024 bytes
 */
export function loadSnapshot(bytes, meta) {
  if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array holding an ABF1 file", bytes);
  const key = meta?.key;
  checkKey(key);
  // Steps 1–5 from the first 96 bytes alone: a bad header — or a buffer far
  // longer than its header declares — is decided without hashing or copying
  // the whole input into wasm memory (which never shrinks again).
  const header = /** @type {DecodeResult<SnapshotHeader, SnapshotLoadError>} */ (
    load(() => parseSnapshotHeader(bytes.subarray(0, ABF1_HEADER_LENGTH)))
  );
  if (header.kind === "failure") return header;
  const total = ABF1_HEADER_LENGTH + header.value.payloadLength;
  if (bytes.byteLength > total) {
    return failure(
      "lengthMismatch",
      `the snapshot must be exactly ${total} bytes (${ABF1_HEADER_LENGTH}-byte header + payloadLength), got ${bytes.byteLength}`,
    );
  }
  const digest = prehash(bytes);
  // toWasm: a file that does not fit in wasm memory is `outOfMemory`, not a trap.
  const result = /** @type {DecodeResult<{ header: SnapshotHeader; filter: RawFilter }, SnapshotLoadError>} */ (
    load(() => (digest === undefined ? decodeSnapshot(toWasm(bytes)) : decodeSnapshotPrehashed(toWasm(bytes), digest)))
  );
  return result.kind === "success" ? keyedSnapshot(result.value, meta, key) : result;
}

/**
 * Reads just the header (load steps 1–5) — for tools that show what a
 * (possibly corrupted) file's header claims. Returns the usual result shape.
 *
 * @param {Uint8Array} bytes the file, or at least its first 96 bytes
 * @returns {SnapshotHeaderResult}
 */
export function readSnapshotHeader(bytes) {
  if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array holding an ABF1 file", bytes);
  return /** @type {SnapshotHeaderResult} */ (
    load(() => Object.freeze(parseSnapshotHeader(bytes.subarray(0, ABF1_HEADER_LENGTH))))
  );
}

/**
 * Encodes a filter and its catalog version as ABF1 bytes.
 *
 * @param {ArtifactBloomFilter} filter
 * @param {{ catalogVersion: CatalogVersion }} options
 * @returns {Uint8Array<ArrayBuffer>}
 * @throws {RangeError} when catalogVersion is not an integer in 0..2^53−1.
 * @throws {Error} with `code: "invalidFilter"` when the filter could not be
 *   loaded back — e.g. a `union` whose summed insertedItemCount exceeds
 *   expectedItemCount (ABF1 requires inserted ≤ expected).
 * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room for the output.
 */
export function encodeSnapshot(filter, options) {
  if (!(filter instanceof ArtifactBloomFilter)) {
    throw typeError("filter", "an ArtifactBloomFilter", filter);
  }
  const version = options?.catalogVersion;
  checkCatalogVersion("catalogVersion", version);
  return /** @type {Uint8Array<ArrayBuffer>} */ (rawEncodeSnapshot(filter._raw(), version));
}

/**
 * Internal, for `artifact-bloom/delta`'s apply: the filter's ABF1 file with
 * the checksum field zero and the payload not hashed (Rust's
 * `abf1::encode_unsealed`). The delta module checks a base by
 * catalogVersion, layout and set-bit count, never by its checksum, so
 * hashing the whole base would be work thrown away; no loader accepts the
 * result.
 * @internal
 * @param {ArtifactBloomFilter} filter
 * @param {number} catalogVersion an integer from 0 to 2^53 − 1 (checked by the caller)
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function _encodeSnapshotUnsealed(filter, catalogVersion) {
  return /** @type {Uint8Array<ArrayBuffer>} */ (encodeSnapshotUnsealed(filter._raw(), catalogVersion));
}
