// Where hashFiles hashes: the runners behind its scheduler (hash-files.js).
//
//   browserRunner: every file in a pool of module workers (hash-worker.js);
//   inlineRunner:  everything in the calling thread (Node, or a host without
//                  workers): node:crypto streaming in Node, else WebCrypto
//                  whole below the limit and wasm streaming above it.

import { digestStreaming, digestWhole } from "./hash-blob.js";
import { Sha256 } from "./sha256.js";

/**
 * @typedef {object} Runner how files get hashed
 * @property {boolean} canWhole whether whole-file WebCrypto hashing is available
 * @property {number} pipeline files of at most 1 MiB in flight per lane of `concurrency`
 * @property {(file: Blob, whole: boolean, onBytes: (bytes: number) => void, signal: AbortSignal | undefined) => Promise<Uint8Array>} run
 * @property {() => void} close
 */

// Small files per worker at once (see hash-files.js).
const PIPELINE = 4;

/**
 * Browsers: every file in a pool of module workers. The calling thread only
 * reads sizes and posts Blob handles: digesting even 256 KiB files there
 * (as an earlier version did below 1 MiB) left it the bottleneck for many
 * small files — 500 × 256 KiB took 1.2–1.5 s that way, 0.9–1.1 s in two
 * workers with four files in flight each, in one interleaved run.
 * @param {string | URL | undefined} workerUrl
 * @param {number} workers at most this many workers
 * @returns {Runner}
 */
export function browserRunner(workerUrl, workers) {
  const subtle = globalThis.crypto?.subtle;
  const pool = workerPool(workerUrl, workers);
  return {
    canWhole: typeof subtle?.digest === "function",
    pipeline: PIPELINE,
    run: (file, whole, onBytes) => pool.run(file, whole, onBytes),
    close: pool.close,
  };
}

/**
 * Module workers, several files per worker at a time (the scheduler bounds
 * how many): a file goes to the least busy worker, and a new worker starts
 * while all are busy and fewer than `workers` run. All stop when the call
 * ends.
 * @param {string | URL | undefined} workerUrl
 * @param {number} workers
 * @returns {{ run: (file: Blob, whole: boolean, onBytes: (bytes: number) => void) => Promise<Uint8Array>, close: () => void }}
 */
function workerPool(workerUrl, workers) {
  /** @typedef {{ resolve: (d: Uint8Array) => void, reject: (e: unknown) => void, onBytes: (b: number) => void }} Job */
  /** @typedef {{ type: "hash", id: number, file: Blob, whole: boolean }} HashMessage */
  /** @typedef {{ worker: Worker, jobs: Map<number, Job>, started: boolean, queued: HashMessage[] }} Slot */
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
    const slot = { worker, jobs: new Map(), started: false, queued: [] };
    worker.addEventListener("message", (event) => onMessage(slot, event.data));
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      const error = workerError(slot.started
        ? `the hashing worker stopped${event.message ? `: ${event.message}` : ""}`
        : `the hashing worker could not start${event.message ? `: ${event.message}` : ""}`);
      if (!slot.started) broken = error;
      worker.terminate();
      all.delete(slot);
      for (const job of slot.jobs.values()) job.reject(error);
      slot.jobs.clear();
    });
    all.add(slot);
    return slot;
  };

  /** @returns {Slot} the least busy worker, or a new one while all are busy */
  const pick = () => {
    /** @type {Slot | undefined} */
    let best;
    for (const slot of all) if (best === undefined || slot.jobs.size < best.jobs.size) best = slot;
    if (best === undefined || (best.jobs.size > 0 && all.size < workers)) return spawn();
    return best;
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
      for (const queued of slot.queued) slot.worker.postMessage(queued);
      slot.queued = [];
      return;
    }
    const job = slot.jobs.get(message.id);
    if (job === undefined) return;
    if (message.type === "progress") return job.onBytes(message.bytes);
    slot.jobs.delete(message.id);
    if (message.type === "done") job.resolve(message.digest);
    else job.reject(Object.assign(new Error(message.message), { name: message.name }));
  };

  return {
    run(file, whole, onBytes) {
      return new Promise((resolve, reject) => {
        if (broken !== undefined) return reject(broken);
        const slot = pick();
        const id = nextId;
        nextId += 1;
        slot.jobs.set(id, { resolve, reject, onBytes });
        /** @type {HashMessage} */
        const message = { type: "hash", id, file, whole };
        if (slot.started) slot.worker.postMessage(message);
        else slot.queued.push(message);
      });
    },
    close() {
      for (const slot of all) slot.worker.terminate();
      all.clear();
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
