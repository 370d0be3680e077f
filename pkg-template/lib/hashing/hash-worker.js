// The module Web Worker behind hashFiles: hashes one file at a time and
// keeps the page's main thread free. A File arrives as a Blob handle (never a copy of its bytes);
// only progress counts and the 32-byte digest go back.
//
// Protocol (hash-runners.js is the other end):
//   in:  { type: "hash", id, file: Blob, whole: boolean }
//   out: { type: "ready" }                                   once, at start
//        { type: "progress", id, bytes }                    throttled
//        { type: "done", id, digest: Uint8Array(32), bytes } digest transferred
//        { type: "error", id, name, message }               this file only
//
// `whole`: read the file into memory and digest it with WebCrypto; else, or
// where WebCrypto is missing (an insecure context), stream it through SHA-256
// in wasm.
// (Chromium runs crypto.subtle.digest synchronously on its caller, so a
// large digest belongs here rather than on a page's main thread.)

// The main module's instantiation handed to its glue, which calls it on
// first use (see ../../web.js): only when a file streams through wasm, so a
// worker that digests whole files with WebCrypto never unpacks, compiles or
// holds it. (What made the worker start sooner is the build bundling it into
// one module; see scripts/build.mjs.)
// A static import: Vite's default iife worker format cannot split a dynamic one.
import "../../artifact_bloom_instance.js";
import { digestStreaming, digestWhole } from "./hash-blob.js";
import { Sha256 } from "./sha256.js";

// A worker's global scope (the DOM lib types `self` as a Window, whose
// postMessage takes a target origin).
const workerScope = /** @type {{ postMessage(message: unknown, transfer?: Transferable[]): void }} */ (
  /** @type {unknown} */ (self)
);

/**
 * @param {Blob} file
 * @param {boolean} whole
 * @param {(bytes: number) => void} onBytes
 * @returns {Promise<Uint8Array>}
 */
async function hashFile(file, whole, onBytes) {
  const subtle = globalThis.crypto?.subtle;
  if (whole && typeof subtle?.digest === "function") return digestWhole(file, subtle, onBytes);
  return digestStreaming(file, new Sha256(), onBytes);
}

/**
 * @param {{ type?: string, id?: number, file?: Blob, whole?: boolean }} message
 * @returns {Promise<void>}
 */
async function run({ type, id, file, whole }) {
  if (type !== "hash" || !(file instanceof Blob)) throw new TypeError(`hash-worker: unknown message ${JSON.stringify(type)}`);
  const digest = await hashFile(file, whole === true, (bytes) => workerScope.postMessage({ type: "progress", id, bytes }));
  // Exactly 32 bytes of its own, so transferring it moves nothing else.
  const own = new Uint8Array(digest);
  workerScope.postMessage({ type: "done", id, digest: own, bytes: file.size }, [own.buffer]);
}

self.addEventListener("message", (event) => {
  const message = event.data ?? {};
  run(message).catch((error) => {
    // A file that vanished or became unreadable (NotReadableError) fails
    // alone; the worker keeps serving.
    workerScope.postMessage({
      type: "error",
      id: message.id,
      name: error?.name ?? "Error",
      message: error?.message ?? String(error),
    });
  });
});

workerScope.postMessage({ type: "ready" });
