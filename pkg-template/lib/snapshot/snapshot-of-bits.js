// Internal, for `artifact-bloom/delta`'s apply: a snapshot's bits handed
// between the main wasm module and the delta module as raw bits, not as an
// ABF1 file to write and parse again. The delta module copies a base
// filter's bits straight from this module's memory (`_filterPayload`),
// rebuilds the target's there, and `_loadSnapshotOfBits` copies them back
// into a new filter of this module, with the target's ABF1 header and that
// header's checksum as the final check. Imported only by the delta entry
// (and node-entry.js, for its Node build): the main entry's browser bundle
// does not carry this code.

import {
  filterPayloadAddress,
  filterPayloadLength,
  finishSnapshotBits,
  reserveSnapshotBits,
  wasmMemory,
} from "../../artifact_bloom.js";
import { load } from "../core/checks.js";
import { checksumCoverage, hashCovered } from "./snapshot-checksum.js";
import { keyedSnapshot, nativeSha256 } from "./snapshot-core.js";

/**
 * @import { RawFilter } from "../../artifact_bloom.js"
 * @import { ArtifactBloomFilter } from "../filter/filter.js"
 * @import { DecodeResult } from "../variant-types.js"
 * @import { SnapshotHeader, SnapshotLoadError, SnapshotMeta, SnapshotResult } from "../types.js"
 */

/**
 * A view of `length` bytes of this module's memory at `address`, valid until
 * its memory next grows (only a call into this module can grow it).
 * @param {number} address
 * @param {number} length
 * @returns {Uint8Array}
 */
function memoryView(address, length) {
  return new Uint8Array(/** @type {WebAssembly.Memory} */ (wasmMemory()).buffer, address, length);
}

/**
 * Internal: `filter`'s bit array in its ABF1 payload form, as a view of the
 * main module's memory (no copy). Read it before the next call into the main
 * module, and never write it.
 * @internal
 * @param {ArtifactBloomFilter} filter
 * @returns {Uint8Array}
 */
export function _filterPayload(filter) {
  const raw = filter._raw();
  return memoryView(filterPayloadAddress(raw), filterPayloadLength(raw));
}

/**
 * Internal: what `loadSnapshot` gives for the ABF1 file made of `header` (96
 * bytes) and `payload`, without that file: the header's load steps, then a
 * new filter's bits copied from `payload` (one copy, wherever it is: the
 * delta module's memory), then the checksum over the header and those bits —
 * node:crypto's where the Node entry registered it, as `loadSnapshot`
 * hashes, else `checksum()`'s (the delta module's wasm SHA-256 of the very
 * bits copied). Failures are loadSnapshot's (`checksumMismatch`, …).
 * @internal
 * @param {Uint8Array} header
 * @param {Uint8Array} payload
 * @param {() => Uint8Array} checksum step 8's SHA-256 of `header` and `payload`, where no native hash is registered
 * @param {SnapshotMeta} [meta]
 * @param {ArtifactBloomFilter} [keyFrom] the base, whose key (if keyed) a keyed target must have (load step 9)
 * @returns {SnapshotResult}
 */
export function _loadSnapshotOfBits(header, payload, checksum, meta, keyFrom) {
  const result = /** @type {DecodeResult<{ header: SnapshotHeader; filter: RawFilter }, SnapshotLoadError>} */ (
    load(() => {
      // The view after the reservation, which may have grown memory.
      const bits = memoryView(reserveSnapshotBits(header, payload.byteLength), payload.byteLength);
      bits.set(payload);
      const hasher = nativeSha256();
      if (hasher === undefined) return finishSnapshotBits(checksum());
      // What is hashed is what the filter holds: the bits in this module.
      hashCovered(hasher, header, 0);
      hashCovered(hasher, bits, checksumCoverage().payloadOffset);
      return finishSnapshotBits(hasher.digest());
    })
  );
  // Step 9 with the base's key: a client that loaded the base with its key
  // applies deltas without handing the key again.
  return result.kind === "success"
    ? keyedSnapshot(result.value, meta, keyFrom === undefined ? undefined : { keyOf: keyFrom._raw() })
    : result;
}

/**
 * Internal: the SHA-256 of `bytes` by the native hash the Node entry
 * registered (node:crypto), or undefined where none is (browsers: the
 * caller hashes in wasm). `artifact-bloom/delta` hashes a delta with it.
 * @internal
 * @param {Uint8Array} bytes
 * @returns {Uint8Array | undefined}
 */
export function _nativeDigest(bytes) {
  const hasher = nativeSha256();
  if (hasher === undefined) return undefined;
  hasher.update(bytes);
  return hasher.digest();
}
