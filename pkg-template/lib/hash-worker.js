// The module Web Worker behind hashFiles (and the snapshot loader's
// WebCrypto checksum): hashes one job at a time and keeps the page's main
// thread free. A File arrives as a Blob handle (never a copy of its bytes);
// only progress counts and the 32-byte digest go back.
//
// Protocol (hash-runners.js and snapshot-checksum.js are the other end):
//   in:  { type: "hash", id, file: Blob, whole: boolean }
//        { type: "digest", id, bytes: ArrayBuffer }          bytes transferred, digested as they are
//   out: { type: "ready" }                                   once, at start
//        { type: "progress", id, bytes }                    throttled
//        { type: "done", id, digest: Uint8Array(32), bytes } digest transferred
//        { type: "error", id, name, message }               this job only
//
// `whole`: read the file into memory and digest it with WebCrypto; else, or
// where WebCrypto is missing (an insecure context), stream it through SHA-256
// in wasm. The wasm module is only fetched and instantiated for that case.
//
// Chromium runs crypto.subtle.digest synchronously on the calling thread
// (128 MiB: ~0.5 s), so even bytes already in memory are digested here
// rather than on a page's main thread.

import initWasm from "../artifact_bloom.js";
import { digestStreaming, digestWhole } from "./hash-blob.js";
import { Sha256 } from "./sha256.js";

/** @type {Promise<unknown> | undefined} */
let wasmReady;

/**
 * @param {Blob} file
 * @param {boolean} whole
 * @param {(bytes: number) => void} onBytes
 * @returns {Promise<Uint8Array>}
 */
async function hashFile(file, whole, onBytes) {
  const subtle = globalThis.crypto?.subtle;
  if (whole && typeof subtle?.digest === "function") return digestWhole(file, subtle, onBytes);
  // artifact_bloom_bg.wasm beside the glue; a failed load is retried by the next file.
  wasmReady ??= initWasm().catch((error) => {
    wasmReady = undefined;
    throw error;
  });
  await wasmReady;
  return digestStreaming(file, new Sha256(), onBytes);
}

/**
 * @param {{ type?: string, id?: number, file?: Blob, whole?: boolean, bytes?: ArrayBuffer }} message
 * @returns {Promise<void>}
 */
async function run({ type, id, file, whole, bytes }) {
  /** @type {ArrayBuffer | Uint8Array} */
  let digest;
  let length;
  if (type === "digest" && bytes instanceof ArrayBuffer) {
    length = bytes.byteLength;
    digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  } else if (type === "hash" && file instanceof Blob) {
    length = file.size;
    digest = await hashFile(file, whole === true, (done) => self.postMessage({ type: "progress", id, bytes: done }));
  } else {
    throw new TypeError(`hash-worker: unknown message ${JSON.stringify(type)}`);
  }
  // Exactly 32 bytes of its own, so transferring it moves nothing else.
  const own = new Uint8Array(digest);
  self.postMessage({ type: "done", id, digest: own, bytes: length }, [own.buffer]);
}

self.addEventListener("message", (event) => {
  const message = event.data ?? {};
  run(message).catch((error) => {
    // A file that vanished or became unreadable (NotReadableError) fails
    // alone; the worker keeps serving.
    self.postMessage({ type: "error", id: message.id, name: error?.name ?? "Error", message: error?.message ?? String(error) });
  });
});

self.postMessage({ type: "ready" });
