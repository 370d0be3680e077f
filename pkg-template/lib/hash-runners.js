// Where hashFiles hashes: the runners behind its scheduler (hash-files.js).
//
//   browserRunner: small whole files from the calling thread (probed: read
//                  without asking their size), the rest in a pool of module
//                  workers (hash-worker.js);
//   inlineRunner:  everything in the calling thread (Node, or a host without
//                  workers): node:crypto streaming in Node, else WebCrypto
//                  whole below the limit and wasm streaming above it.

import { digestSmall, digestStreaming, digestWhole } from "./hash-blob.js";
import { Sha256 } from "./sha256.js";

/**
 * @typedef {object} Runner how files get hashed
 * @property {boolean} canWhole whether whole-file WebCrypto hashing is available
 * @property {number} pipeline files of at most 1 MiB in flight per lane of `concurrency`
 * @property {(file: Blob, limit: number, signal: AbortSignal | undefined) => Promise<{ digest: Uint8Array, size: number } | undefined>} [probe]
 *   hashes a file of at most `limit` bytes without asking its size (undefined: it is longer)
 * @property {(file: Blob, whole: boolean, onBytes: (bytes: number) => void, signal: AbortSignal | undefined) => Promise<Uint8Array>} run
 * @property {() => void} close
 */

// Whole files up to this size are hashed from the calling thread even where
// there are workers: the read is asynchronous, and Chromium's digest, which
// runs synchronously on its caller, takes ~1–2 ms for 256 KiB here (a task
// far below a frame); a worker's message round trip would cost more than it
// saves. Larger files are never read here: reading 32 MiB files and
// digesting them on a page cost main-thread tasks of ~250 ms. hash-files.js
// schedules by the same line (a file up to it is "small": probed and
// pipelined on the calling thread).
export const SMALL_FILE_BYTES = 1024 * 1024;

// Small files in flight per lane of `concurrency` (see hash-files.js).
const PIPELINE = 4;

/**
 * Browsers: small whole files from this thread, the rest in workers.
 * @param {string | URL | undefined} workerUrl
 * @returns {Runner}
 */
export function browserRunner(workerUrl) {
  const subtle = globalThis.crypto?.subtle;
  const pool = workerPool(workerUrl);
  return {
    canWhole: typeof subtle?.digest === "function",
    pipeline: PIPELINE,
    // Small files, read here without a size round trip each (hash-blob.js).
    probe: subtle === undefined ? undefined : (file, limit, signal) => digestSmall(file, subtle, limit, signal),
    run(file, whole, onBytes, signal) {
      if (whole && subtle !== undefined && file.size <= SMALL_FILE_BYTES) return digestWhole(file, subtle, onBytes, signal);
      return pool.run(file, whole, onBytes);
    },
    close: pool.close,
  };
}

/**
 * Module workers, one file per worker at a time; workers start on demand
 * and all stop when the call ends.
 * @param {string | URL | undefined} workerUrl
 * @returns {{ run: (file: Blob, whole: boolean, onBytes: (bytes: number) => void) => Promise<Uint8Array>, close: () => void }}
 */
function workerPool(workerUrl) {
  /** @typedef {{ id: number, resolve: (d: Uint8Array) => void, reject: (e: unknown) => void, onBytes: (b: number) => void }} Job */
  /** @typedef {{ type: "hash", id: number, file: Blob, whole: boolean }} HashMessage */
  /** @typedef {{ worker: Worker, job: Job | undefined, started: boolean, queued: HashMessage | undefined }} Slot */
  /** @type {Slot[]} */
  const idle = [];
  /** @type {Set<Slot>} */
  const all = new Set();
  /** @type {Error | undefined} set when a worker failed before it ever started: no more are tried */
  let broken;
  let nextId = 0;

  /** @param {string} message */
  const workerError = (message) => Object.assign(new Error(message), { code: "workerFailed" });

  const spawn = () => {
    // Spelled out so bundlers see `new Worker(new URL(…, import.meta.url))` and emit the worker file.
    const worker = workerUrl === undefined
      ? new Worker(new URL("./hash-worker.js", import.meta.url), { type: "module" })
      : new Worker(workerUrl, { type: "module" });
    /** @type {Slot} */
    const slot = { worker, job: undefined, started: false, queued: undefined };
    worker.addEventListener("message", (event) => onMessage(slot, event.data));
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      const error = workerError(slot.started
        ? `the hashing worker stopped${event.message ? `: ${event.message}` : ""}`
        : `the hashing worker could not start${event.message ? `: ${event.message}` : ""}`);
      if (!slot.started) broken = error;
      worker.terminate();
      all.delete(slot);
      slot.job?.reject(error);
    });
    all.add(slot);
    return slot;
  };

  /**
   * @param {Slot} slot
   * @param {{ type: string, id: number, bytes: number, digest: Uint8Array, name: string, message: string }} message
   */
  const onMessage = (slot, message) => {
    if (message.type === "ready") {
      // Listening now: a job posted earlier could have been dispatched
      // before the script (or a wrapper's import of it) added its listener.
      slot.started = true;
      if (slot.queued !== undefined) slot.worker.postMessage(slot.queued);
      slot.queued = undefined;
      return;
    }
    const job = slot.job;
    if (job === undefined || message.id !== job.id) return;
    if (message.type === "progress") return job.onBytes(message.bytes);
    slot.job = undefined;
    idle.push(slot);
    if (message.type === "done") job.resolve(message.digest);
    else job.reject(Object.assign(new Error(message.message), { name: message.name }));
  };

  return {
    run(file, whole, onBytes) {
      return new Promise((resolve, reject) => {
        if (broken !== undefined) return reject(broken);
        const slot = idle.pop() ?? spawn();
        const id = nextId;
        nextId += 1;
        slot.job = { id, resolve, reject, onBytes };
        /** @type {HashMessage} */
        const message = { type: "hash", id, file, whole };
        if (slot.started) slot.worker.postMessage(message);
        else slot.queued = message;
      });
    },
    close() {
      for (const slot of all) slot.worker.terminate();
      all.clear();
      idle.length = 0;
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
    run(file, whole, onBytes, signal) {
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
