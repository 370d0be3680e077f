// Step 8 of an ABF1 load (the SHA-256 checksum) computed outside the wasm
// decoder. In browsers, WebCrypto's one-shot digest is several times faster
// than SHA-256 in wasm but cannot stream, so the covered bytes are gathered
// as they arrive and digested once the whole payload is in hand; the Rust
// decoder still compares the result with the stored checksum.
//
// Which bytes are covered is the decoder's rule, asked from wasm
// (`snapshotChecksumCoverage`), never restated here.

import { snapshotChecksumCoverage } from "../../artifact_bloom.js";
import { Sha256 } from "../hashing/sha256.js";

/**
 * Below this many covered bytes the WebCrypto digest runs on the calling
 * thread (8 MiB: ~25–50 ms in Chromium, whose digest blocks its caller);
 * from it on, in a worker, when the page can start one.
 */
const DEFAULT_CHECKSUM_WORKER_MIN_BYTES = 8 * 2 ** 20;

/**
 * @typedef {object} ChecksumCoverage
 * @property {number} headerBytes header bytes `[0, headerBytes)` are hashed first
 * @property {number} payloadOffset then every byte from `payloadOffset` to the end
 */

/**
 * @typedef {object} ChecksumHasher
 * @property {(bytes: Uint8Array) => void} update feeds the next covered bytes, in file order
 * @property {() => Uint8Array | undefined | Promise<Uint8Array | undefined>} digest the 32-byte
 *   SHA-256 of everything fed; undefined when the file ended before its covered bytes were all in
 *   (nothing worth hashing: the decoder reports the truncation)
 * @property {() => void} [close] releases what the hasher holds (a worker) when the load ends early
 */

/** @type {ChecksumCoverage | undefined} */
let coverage;

/**
 * The checksum's coverage, asked from wasm once (the module is initialized
 * by then: every loader runs the decoder first).
 * @returns {ChecksumCoverage}
 */
export function checksumCoverage() {
  coverage ??= Object.freeze(/** @type {ChecksumCoverage} */ (snapshotChecksumCoverage()));
  return coverage;
}

/**
 * Feeds the checksummed parts of `chunk`, which starts at file offset
 * `offset`, to `hasher`.
 * @param {ChecksumHasher} hasher
 * @param {Uint8Array} chunk
 * @param {number} offset
 * @returns {void}
 */
export function hashCovered(hasher, chunk, offset) {
  const { headerBytes, payloadOffset } = checksumCoverage();
  const end = offset + chunk.byteLength;
  if (offset < headerBytes) hasher.update(chunk.subarray(0, Math.min(chunk.byteLength, headerBytes - offset)));
  if (end > payloadOffset) hasher.update(chunk.subarray(Math.max(0, payloadOffset - offset)));
}

/**
 * A checksum hasher backed by `crypto.subtle.digest`, or undefined where
 * WebCrypto is missing (pages served over plain http from a host other than
 * localhost are not secure contexts and have no `crypto.subtle`): the caller
 * then lets the decoder hash in wasm as bytes arrive.
 *
 * Fed bytes are copied into one buffer of exactly the covered length (known
 * from the header, via `totalLength`), so a source that reuses its chunk
 * buffers cannot change what is hashed. If that buffer cannot be allocated,
 * hashing continues in wasm instead of failing the load.
 *
 * Chromium's digest runs synchronously on the calling thread (128 MiB:
 * ~0.5 s of a frozen page), so where workers exist the buffer is
 * transferred (not copied) to one, started as soon as the header is known
 * so that it is ready when the last byte arrives. (Hashing in wasm in that
 * worker while bytes arrive, finishing with whichever is sooner, was tried:
 * on this 2-CPU machine it was no faster, the two threads competing.)
 * @param {() => number | undefined} totalLength the file's length once its header has validated
 * @param {number} [workerMinBytes] covered bytes from which the digest moves to a worker (smaller
 *   digests stay on this thread: a worker costs a request for checksum-worker.js, which a bundler
 *   that does not emit `new URL(…, import.meta.url)` workers — esbuild, Rollup — answers 404)
 * @returns {ChecksumHasher | undefined}
 */
export function webCryptoHasher(totalLength, workerMinBytes = DEFAULT_CHECKSUM_WORKER_MIN_BYTES) {
  const subtle = globalThis.crypto?.subtle;
  if (typeof subtle?.digest !== "function") return undefined;
  /** @type {Uint8Array[]} covered bytes that came before the header was complete (at most the header) */
  const early = [];
  /** @type {Uint8Array<ArrayBuffer> | undefined} */
  let buffer;
  /** @type {Sha256 | undefined} */
  let fallback;
  /** @type {DigestWorker | undefined} */
  let worker;
  let filled = 0;

  /** @param {Uint8Array} bytes */
  const append = (bytes) => {
    if (fallback !== undefined) {
      fallback.update(bytes);
    } else if (buffer !== undefined) {
      buffer.set(bytes, filled);
      filled += bytes.byteLength;
    } else {
      early.push(bytes.slice());
    }
  };

  /** Sizes the buffer once the header is known; wasm hashing if it cannot be had. */
  const reserve = () => {
    const total = totalLength();
    if (total === undefined) return;
    const { headerBytes, payloadOffset } = checksumCoverage();
    try {
      buffer = new Uint8Array(headerBytes + total - payloadOffset);
    } catch {
      // A tab short of memory: keep going at wasm speed.
      fallback = new Sha256();
    }
    for (const bytes of early.splice(0)) append(bytes);
    if (buffer !== undefined && buffer.byteLength >= workerMinBytes) worker = digestWorker();
  };

  return {
    update(bytes) {
      if (buffer === undefined && fallback === undefined) reserve();
      append(bytes);
    },
    async digest() {
      if (fallback !== undefined) {
        try {
          return fallback.digest();
        } finally {
          fallback.free();
        }
      }
      const complete = buffer !== undefined && filled === buffer.byteLength ? buffer : undefined;
      buffer = undefined; // the only reference: collectable once hashed
      try {
        if (complete === undefined) return undefined;
        return (await worker?.digest(complete)) ?? new Uint8Array(await subtle.digest("SHA-256", complete));
      } finally {
        worker?.close();
      }
    },
    close() {
      worker?.close();
      fallback?.free();
    },
  };
}

/**
 * @typedef {object} DigestWorker
 * @property {(bytes: Uint8Array) => Promise<Uint8Array | undefined>} digest the SHA-256 of `bytes`,
 *   whose buffer is transferred (detached here); undefined, with `bytes` untouched, if the worker
 *   never started
 * @property {() => void} close
 */

/**
 * A checksum-worker.js instance for one digest, or undefined where there are no
 * workers (or a policy forbids them: the digest then runs on this thread).
 * @returns {DigestWorker | undefined}
 */
function digestWorker() {
  if (typeof Worker !== "function") return undefined;
  /** @type {Worker} */
  let worker;
  try {
    // Spelled out so bundlers see `new Worker(new URL(…, import.meta.url))` and emit the file.
    worker = new Worker(new URL("./checksum-worker.js", import.meta.url), { type: "module" });
  } catch {
    return undefined; // e.g. a Content-Security-Policy without worker-src for this origin
  }
  /** @type {((message: { type: string, digest?: Uint8Array, message?: string }) => void) | undefined} */
  let onReply;
  /** @type {Promise<boolean>} true once the worker runs, false if it failed first */
  const started = new Promise((resolve) => {
    worker.addEventListener("message", ({ data }) => {
      if (data?.type === "ready") resolve(true);
      else onReply?.(data);
    });
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      resolve(false);
      onReply?.({ type: "error", message: `the checksum worker stopped${event.message ? `: ${event.message}` : ""}` });
    });
  });
  return {
    async digest(bytes) {
      if (!(await started)) return undefined;
      return new Promise((resolve, reject) => {
        onReply = (message) => {
          if (message.type === "done") resolve(message.digest);
          else if (message.type === "error") reject(new Error(message.message));
        };
        // The buffer is exactly the covered bytes (sized for them), so it moves whole.
        worker.postMessage({ type: "digest", bytes: bytes.buffer }, [bytes.buffer]);
      });
    },
    close() {
      worker.terminate();
    },
  };
}
