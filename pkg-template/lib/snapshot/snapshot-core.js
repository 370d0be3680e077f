// The pieces every ABF1 load path shares (snapshot.js, snapshot-stream.js):
// the header length (a format rule: ../wasm/format-rules.js), the snapshot
// shape, and the native SHA-256 the Node entry registers.

import { ArtifactBloomFilter } from "../filter/filter.js";
import { ABF1_HEADER_LENGTH } from "../wasm/format-rules.js";
import { hashCovered } from "./snapshot-checksum.js";
import { unlockRaw } from "./snapshot-key.js";

/**
 * @import { RawFilter } from "../../artifact_bloom.js"
 * @import { CatalogVersion, SnapshotHeader, SnapshotMeta, SnapshotResult } from "../types.js"
 */

/**
 * A streaming SHA-256 (node:crypto's, in Node).
 *
 * @typedef {{ update(bytes: Uint8Array): unknown; digest(): Uint8Array; close?: () => void }} NativeHasher
 */

export { ABF1_HEADER_LENGTH };

/**
 * Load step 9 (the key: docs/ABF1.md "Keyed snapshots"), then the snapshot:
 * what every loader returns for a file that passed steps 1–8.
 *
 * @param {{ header: SnapshotHeader; filter: RawFilter }} raw what the raw decoders return
 * @param {SnapshotMeta | undefined} meta
 * @param {Uint8Array | { keyOf: RawFilter } | undefined} key the caller's key, or a base filter's
 * @returns {SnapshotResult}
 * @internal
 */
export function keyedSnapshot(raw, meta, key) {
  const refused = unlockRaw(raw.filter, key);
  return refused ?? { kind: "success", value: toSnapshot(raw, meta) };
}

/**
 * `{ catalogVersion, filter, header }` from the raw `{ header, filter }`.
 *
 * @param {{ header: SnapshotHeader; filter: RawFilter }} raw what the raw decoders return (the filter still unwrapped)
 * @param {SnapshotMeta | undefined} meta
 * @returns {Extract<SnapshotResult, { kind: "success" }>["value"]}
 * @internal
 */
export function toSnapshot(raw, meta) {
  /**
   * @type {{ catalogVersion: CatalogVersion; filter: ArtifactBloomFilter; header: SnapshotHeader;
   *   lastModified?: Date; etag?: string; source?: string }}
   */
  const snapshot = {
    catalogVersion: raw.header.catalogVersion,
    filter: ArtifactBloomFilter._wrap(raw.filter),
    header: Object.freeze(raw.header),
  };
  // Only the documented facts are copied: nothing in `meta` can override
  // what the checksummed file says (catalogVersion, filter, header).
  if (meta?.lastModified instanceof Date && !Number.isNaN(meta.lastModified.getTime())) {
    snapshot.lastModified = meta.lastModified;
  }
  if (typeof meta?.etag === "string") snapshot.etag = meta.etag;
  if (typeof meta?.source === "string") snapshot.source = meta.source;
  return Object.freeze(snapshot);
}

// A native SHA-256 (node:crypto), registered by the Node entry point as a
// factory of `{ update(bytes), digest() }`. The browser build leaves it unset
// and hashes in wasm.
/** @type {(() => NativeHasher) | undefined} */
let nativeHasher;

/**
 * Internal: registers the native SHA-256 factory (the Node entry point does).
 *
 * @internal
 * @param {() => NativeHasher} factory
 * @returns {void}
 */
export function _useNativeSha256(factory) {
  nativeHasher = factory;
}

/**
 * @param {Uint8Array} bytes
 * @returns {boolean}
 * @internal
 */
export function isShared(bytes) {
  return typeof SharedArrayBuffer !== "undefined" && bytes.buffer instanceof SharedArrayBuffer;
}

/**
 * Step 8's SHA-256 computed natively, or undefined to hash in wasm.
 *
 * @param {Uint8Array} bytes
 * @returns {Uint8Array | undefined}
 * @internal
 */
export function prehash(bytes) {
  // A shared buffer could change between hashing here and the copy into
  // wasm; only private memory takes the native path.
  if (nativeHasher === undefined || bytes.byteLength < ABF1_HEADER_LENGTH || isShared(bytes)) return undefined;
  const hasher = nativeHasher();
  hashCovered(hasher, bytes, 0);
  return hasher.digest();
}

/**
 * Internal: a new native SHA-256 hasher, or undefined when none is registered
 * (the browser build hashes in wasm or WebCrypto).
 *
 * @internal
 * @returns {NativeHasher | undefined}
 */
export function nativeSha256() {
  return nativeHasher?.();
}
