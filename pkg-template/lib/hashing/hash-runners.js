// Where hashFiles hashes: the runners behind its scheduler (hash-files.js).
//
//   browserRunner: small whole files from the calling thread (probed: read
//                  without asking their size), the rest in a pool of module
//                  workers (hash-worker.js) — or, where that worker cannot
//                  start, in workers made from source (hash-blob-worker.js),
//                  or on the calling thread;
//   inlineRunner:  everything in the calling thread (Node, or a host without
//                  workers): node:crypto streaming in Node, else WebCrypto
//                  whole below the limit and wasm streaming above it.
//
// Every path digests the same bytes with a SHA-256 (WebCrypto, wasm or
// node:crypto), so a file's digest does not depend on where it was hashed.

import { digestSmall, digestStreaming, digestWhole } from "./hash-blob.js";
import { hashBlobWorkerSource } from "./hash-blob-worker.js";
import { neverStarted, workerPool, workerStart } from "./hash-pool.js";
import { Sha256 } from "./sha256.js";

/**
 * Where a file was hashed: `workers` (the package's module workers, or the
 * `workerUrl` given), `blob-workers` (workers made from source the page
 * already holds, where hash-worker.js could not start), `calling-thread`.
 * @typedef {"workers" | "blob-workers" | "calling-thread"} HashFilesRunner
 */

/**
 * @typedef {object} Runner how files get hashed
 * @property {boolean} canWhole whether whole-file WebCrypto hashing is available
 * @property {number} pipeline files of at most 1 MiB in flight per lane of `concurrency`
 * @property {(file: Blob, limit: number, signal: AbortSignal | undefined)
 *   => Promise<{ digest: Uint8Array, size: number } | undefined>} [probe]
 *   hashes a file of at most `limit` bytes without asking its size (undefined: it is longer)
 * @property {(file: Blob, whole: boolean, onBytes: (bytes: number) => void, signal: AbortSignal | undefined,
 *   onRunner: (runner: HashFilesRunner) => void) => Promise<Uint8Array>} run
 *   `onRunner` is told where the file goes (again if it moves before any byte is hashed)
 * @property {() => void} close
 */

// Whole files up to this size are hashed from the calling thread even where
// there are workers: the read is asynchronous, and Chromium's digest, which
// runs synchronously on its caller, takes ~1–2 ms for 256 KiB here (a task
// far below a frame); a worker's message round trip would cost more than it
// saves. Larger files are never read here (unless no worker can start):
// reading 32 MiB files and digesting them on a page cost main-thread tasks
// of ~250 ms. hash-files.js schedules by the same line (a file up to it is
// "small": probed and pipelined on the calling thread).
export const SMALL_FILE_BYTES = 1024 * 1024;

// Small files in flight per lane of `concurrency` (see hash-files.js).
const PIPELINE = 4;

/**
 * Browsers: small whole files from this thread, the rest in workers.
 *
 * With no `workerUrl`, a file whose worker could not start (hash-pool.js:
 * its job never reached it) moves on, once: to a Blob-URL worker if it is
 * read whole with WebCrypto, else — or if that worker cannot start either
 * (a CSP without `blob:` in worker-src) — to the calling thread. A
 * `workerUrl` the caller gave is not replaced: its failure is the caller's
 * misconfiguration, reported as each file's `workerFailed`.
 * @param {string | URL | undefined} workerUrl
 * @returns {Runner}
 */
export function browserRunner(workerUrl) {
  const subtle = globalThis.crypto?.subtle;
  const packaged = workerPool(
    () =>
      workerUrl === undefined
        ? // Spelled out so bundlers see `new Worker(new URL(…, import.meta.url))` and emit the worker file.
          new Worker(new URL("./hash-worker.js", import.meta.url), { type: "module" })
        : new Worker(workerUrl, { type: "module" }),
    () => workerStart.timeoutMs,
  );
  /** @type {string | undefined} */
  let sourceUrl;
  const fromSource = workerPool(
    () => {
      sourceUrl ??= URL.createObjectURL(new Blob([hashBlobWorkerSource()], { type: "text/javascript" }));
      return new Worker(sourceUrl);
    },
    () => workerStart.sourceTimeoutMs,
  );
  const inThread = inlineRunner();

  /**
   * @template T
   * @param {Promise<T>} attempt
   * @param {() => Promise<T>} otherwise
   * @returns {Promise<T>}
   */
  const orElse = (attempt, otherwise) =>
    attempt.catch((error) => {
      if (!neverStarted(error)) throw error;
      return otherwise();
    });

  return {
    canWhole: typeof subtle?.digest === "function",
    pipeline: PIPELINE,
    // Small files, read here without a size round trip each (hash-blob.js).
    probe: subtle === undefined ? undefined : (file, limit, signal) => digestSmall(file, subtle, limit, signal),
    run(file, whole, onBytes, signal, onRunner) {
      if (whole && subtle !== undefined && file.size <= SMALL_FILE_BYTES) {
        onRunner("calling-thread");
        return digestWhole(file, subtle, onBytes, signal);
      }
      onRunner("workers");
      const inWorker = packaged.run(file, whole, onBytes);
      if (workerUrl !== undefined) return inWorker;
      const onCallingThread = () => {
        onRunner("calling-thread");
        return inThread.run(file, whole, onBytes, signal, () => {});
      };
      return orElse(inWorker, () => {
        // The Blob-URL worker only reads whole files (it has no wasm to stream with).
        if (!whole || subtle === undefined) return onCallingThread();
        onRunner("blob-workers");
        return orElse(fromSource.run(file, whole, onBytes), onCallingThread);
      });
    },
    close() {
      packaged.close();
      fromSource.close();
      if (sourceUrl !== undefined) URL.revokeObjectURL(sourceUrl);
      sourceUrl = undefined;
    },
  };
}

/**
 * Hashing in this thread (Node, or a host without workers): node:crypto
 * streaming where it exists, else WebCrypto for whole files and wasm
 * streaming above the limit.
 * @returns {Runner}
 */
export function inlineRunner() {
  // Node ≥ 20.16 (an import of "node:crypto" would break browser bundles).
  const host = /** @type {{ process?: { getBuiltinModule?: (name: string) => NodeCrypto | undefined } }} */ (globalThis);
  const nodeCrypto = host.process?.getBuiltinModule?.("node:crypto");
  const subtle = globalThis.crypto?.subtle;
  return {
    canWhole: nodeCrypto === undefined && typeof subtle?.digest === "function",
    pipeline: 1,
    run(file, whole, onBytes, signal, onRunner) {
      onRunner("calling-thread");
      if (whole && subtle !== undefined) return digestWhole(file, subtle, onBytes, signal);
      return digestStreaming(file, nodeCrypto === undefined ? new Sha256() : nodeHasher(nodeCrypto), onBytes, signal);
    },
    close() {},
  };
}

/**
 * @typedef {{ createHash: (algorithm: string) => { update: (b: Uint8Array) => unknown, digest: () => Uint8Array } }} NodeCrypto
 */

/**
 * @param {NodeCrypto} nodeCrypto
 * @returns {import("./hash-blob.js").IncrementalHasher}
 */
function nodeHasher(nodeCrypto) {
  const hash = nodeCrypto.createHash("sha256");
  return { update: (bytes) => hash.update(bytes), digest: () => new Uint8Array(hash.digest()) };
}
