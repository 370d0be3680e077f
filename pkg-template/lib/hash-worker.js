// The module Web Worker behind hashFiles: hashes one file at a time and
// keeps the page's main thread free. A File arrives as a Blob handle (never
// a copy of its bytes); only progress counts and the 32-byte digest go back.
//
// Protocol (hash-files.js is the other end):
//   in:  { type: "hash", id, file: Blob, whole: boolean }
//   out: { type: "ready" }                                   once, at start
//        { type: "progress", id, bytes }                    throttled
//        { type: "done", id, digest: Uint8Array(32), bytes } digest transferred
//        { type: "error", id, name, message }               this file only
//
// `whole`: read the file into memory and digest it with WebCrypto; else, or
// where WebCrypto is missing (an insecure context), stream it through SHA-256
// in wasm. The wasm module is only fetched and instantiated for that case.

import initWasm from "../artifact_bloom.js";
import { digestStreaming, digestWhole } from "./hash-blob.js";
import { Sha256 } from "./sha256.js";

/** @type {Promise<unknown> | undefined} */
let wasmReady;

/**
 * @param {number} id
 * @param {Blob} file
 * @param {boolean} whole
 * @returns {Promise<void>}
 */
async function hash(id, file, whole) {
  const onBytes = (/** @type {number} */ bytes) => self.postMessage({ type: "progress", id, bytes });
  const subtle = globalThis.crypto?.subtle;
  let digest;
  if (whole && typeof subtle?.digest === "function") {
    digest = await digestWhole(file, subtle, onBytes);
  } else {
    // artifact_bloom_bg.wasm beside the glue; a failed load is retried by the next file.
    wasmReady ??= initWasm().catch((error) => {
      wasmReady = undefined;
      throw error;
    });
    await wasmReady;
    digest = await digestStreaming(file, new Sha256(), onBytes);
  }
  // Exactly 32 bytes of its own, so transferring it moves nothing else.
  const own = new Uint8Array(digest);
  self.postMessage({ type: "done", id, digest: own, bytes: file.size }, [own.buffer]);
}

self.addEventListener("message", (event) => {
  const { type, id, file, whole } = event.data ?? {};
  if (type !== "hash") return;
  hash(id, file, whole === true).catch((error) => {
    // A file that vanished or became unreadable (NotReadableError) fails
    // alone; the worker keeps serving.
    self.postMessage({ type: "error", id, name: error?.name ?? "Error", message: error?.message ?? String(error) });
  });
});

self.postMessage({ type: "ready" });
