// hashFiles: the SHA-256 of many files, using the machine.
//
// In browsers each file is hashed in a pool of module Web Workers (sized
// from navigator.hardwareConcurrency), so the page's main thread only
// dispatches Blob handles and receives 32-byte digests:
//
//   - a file of at most `wholeFileLimit` bytes (default 256 MiB) is read
//     whole and digested by WebCrypto (crypto.subtle.digest: native code,
//     ~4× SHA-256 in wasm, but it cannot stream);
//   - a larger file — or any file where WebCrypto is missing (a page served
//     over plain http from a host other than localhost is not a secure
//     context) — is streamed through SHA-256 in wasm, in flat memory.
//
// Memory stays bounded: the files read whole at any moment total at most
// `wholeFileLimit` bytes (a file waits for room), and streamed files hold
// one chunk each. WebCrypto copies its input once more while it digests, so
// the peak is about twice the bytes held whole.
//
// Where there are no workers (Node), files are hashed in this thread: with
// node:crypto streaming in Node (no whole reads at all), else as above.

import { typeError, rangeError } from "./errors.js";
import { digestStreaming, digestWhole } from "./hash-blob.js";
import { Sha256 } from "./sha256.js";

/** Files up to this size are read whole and hashed by WebCrypto (256 MiB). */
export const DEFAULT_WHOLE_FILE_LIMIT = 256 * 1024 * 1024;

// One worker per logical CPU, within reason: beyond 8 the disk, not the
// CPU, limits how fast files arrive.
const MAX_DEFAULT_CONCURRENCY = 8;
const FALLBACK_CONCURRENCY = 4;

/**
 * @typedef {{ kind: "success", value: Uint8Array }
 *   | { kind: "failure", error: "readFailed" | "workerFailed", message: string }} HashFileResult
 */

/**
 * @typedef {object} HashFilesProgress
 * @property {number} bytes bytes hashed so far, over all files (never decreases)
 * @property {number} total the sum of the files' sizes
 * @property {number} index the file that advanced (its position in `files`)
 * @property {number} fileBytes that file's bytes hashed so far
 */

/**
 * @typedef {object} HashedFile
 * @property {number} index the file's position in `files`
 * @property {HashFileResult} result its digest, or why it has none
 * @property {number} ms milliseconds from the start of its hashing to the result
 */

/**
 * @typedef {object} HashFilesOptions
 * @property {(progress: HashFilesProgress) => void} [onProgress] called as bytes are hashed (throttled per file)
 * @property {(file: HashedFile) => void} [onFile] called once per file, as soon as its result is known
 * @property {AbortSignal} [signal] aborting rejects with its reason and stops every worker at once
 * @property {number} [concurrency] files hashed at once (= workers); default hardwareConcurrency, at most 8
 * @property {number} [wholeFileLimit] bytes: files up to this size are read whole for WebCrypto; default 256 MiB
 * @property {string | URL} [workerUrl] a module worker script speaking hash-worker.js's protocol; default the package's own
 */

/**
 * @typedef {object} Runner
 * @property {boolean} canWhole whether whole-file WebCrypto hashing is available
 * @property {(file: Blob, whole: boolean, onBytes: (bytes: number) => void, signal: AbortSignal | undefined) => Promise<Uint8Array>} run
 * @property {() => void} close
 */

/**
 * SHA-256 of each file, in the order given. One unreadable file fails alone
 * (its result is `{ kind: "failure", error: "readFailed", message }`); the
 * promise rejects only for bad arguments, an abort, or a throwing callback.
 * @param {Iterable<Blob> | ArrayLike<Blob>} files Files or Blobs (a FileList, an array…)
 * @param {HashFilesOptions} [options]
 * @returns {Promise<HashFileResult[]>}
 */
export async function hashFiles(files, options = {}) {
  const list = checkFiles(files);
  const settings = checkOptions(options ?? {});
  settings.signal?.throwIfAborted();
  const runner = typeof Worker === "function"
    ? workerRunner(settings.workerUrl)
    : inlineRunner();
  try {
    return await schedule(list, runner, settings);
  } finally {
    runner.close();
  }
}

/**
 * @param {unknown} files
 * @returns {Blob[]}
 */
function checkFiles(files) {
  const shape = /** @type {{ [Symbol.iterator]?: unknown, length?: unknown } | null | undefined} */ (files);
  const iterable = typeof shape?.[Symbol.iterator] === "function";
  if (!iterable && typeof shape?.length !== "number") throw typeError("files", "an iterable of Blob or File objects", files);
  const list = Array.from(/** @type {Iterable<unknown> | ArrayLike<unknown>} */ (files));
  list.forEach((file, i) => {
    if (typeof Blob === "undefined" || !(file instanceof Blob)) throw typeError(`files[${i}]`, "a Blob or File", file);
  });
  return /** @type {Blob[]} */ (list);
}

/**
 * @param {HashFilesOptions} options
 * @returns {Required<Pick<HashFilesOptions, "concurrency" | "wholeFileLimit">> & HashFilesOptions}
 */
function checkOptions(options) {
  const { onProgress, onFile, signal, concurrency = defaultConcurrency(), wholeFileLimit = DEFAULT_WHOLE_FILE_LIMIT, workerUrl } = options;
  if (onProgress !== undefined && typeof onProgress !== "function") throw typeError("onProgress", "a function", onProgress);
  if (onFile !== undefined && typeof onFile !== "function") throw typeError("onFile", "a function", onFile);
  if (signal !== undefined && typeof signal?.throwIfAborted !== "function") throw typeError("signal", "an AbortSignal", signal);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw rangeError("concurrency", "an integer of at least 1", concurrency);
  if (typeof wholeFileLimit !== "number" || !(wholeFileLimit >= 0)) {
    throw rangeError("wholeFileLimit", "a non-negative number of bytes", wholeFileLimit);
  }
  if (workerUrl !== undefined && typeof workerUrl !== "string" && !(workerUrl instanceof URL)) {
    throw typeError("workerUrl", "a string or URL", workerUrl);
  }
  return { onProgress, onFile, signal, concurrency, wholeFileLimit, workerUrl };
}

/** @returns {number} */
function defaultConcurrency() {
  const cpus = globalThis.navigator?.hardwareConcurrency;
  if (!Number.isSafeInteger(cpus) || cpus < 1) return FALLBACK_CONCURRENCY;
  return Math.min(cpus, MAX_DEFAULT_CONCURRENCY);
}

/**
 * @param {AbortSignal} signal
 * @returns {unknown}
 */
function abortReason(signal) {
  return signal.reason ?? new DOMException("hashFiles was aborted", "AbortError");
}

/**
 * Runs the files through `runner`: at most `concurrency` at once, and files
 * read whole totalling at most `wholeFileLimit` bytes at once; a file that
 * does not fit waits (in order) until enough earlier ones finished.
 * @param {Blob[]} list
 * @param {Runner} runner
 * @param {ReturnType<typeof checkOptions>} settings
 * @returns {Promise<HashFileResult[]>}
 */
function schedule(list, runner, { onProgress, onFile, signal, concurrency, wholeFileLimit }) {
  return new Promise((resolve, reject) => {
    /** @type {HashFileResult[]} */
    const results = new Array(list.length);
    const done = new Float64Array(list.length); // bytes hashed per file
    const total = list.reduce((sum, file) => sum + file.size, 0);
    let hashed = 0;
    let next = 0;
    let running = 0;
    let settled = 0;
    let heldWhole = 0;
    let stopped = false;

    /** @param {unknown} reason */
    const stop = (reason) => {
      if (stopped) return;
      stopped = true;
      signal?.removeEventListener("abort", onAbort);
      runner.close();
      reject(reason);
    };
    const onAbort = () => stop(abortReason(/** @type {AbortSignal} */ (signal)));
    signal?.addEventListener("abort", onAbort, { once: true });

    /** A callback that throws ends the whole call with its error. */
    const call = (/** @type {() => void} */ fn) => {
      try {
        fn();
      } catch (error) {
        stop(error);
      }
    };
    const advance = (/** @type {number} */ index, /** @type {number} */ bytes) => {
      if (stopped || !(bytes > done[index])) return;
      hashed += bytes - done[index];
      done[index] = bytes;
      if (onProgress) call(() => onProgress({ bytes: hashed, total, index, fileBytes: bytes }));
    };

    const pump = () => {
      while (!stopped && running < concurrency && next < list.length) {
        const index = next;
        const file = list[index];
        const whole = runner.canWhole && file.size <= wholeFileLimit;
        if (whole && heldWhole + file.size > wholeFileLimit) return; // room comes back as files finish
        next += 1;
        running += 1;
        if (whole) heldWhole += file.size;
        const started = performance.now();
        runner.run(file, whole, (bytes) => advance(index, bytes), signal)
          .then((digest) => /** @type {HashFileResult} */ ({ kind: "success", value: digest }), failure)
          .then((result) => {
            if (stopped) return;
            running -= 1;
            if (whole) heldWhole -= file.size;
            results[index] = result;
            if (result.kind === "success") advance(index, file.size);
            if (onFile) call(() => onFile({ index, result, ms: performance.now() - started }));
            settled += 1;
            if (settled === list.length) {
              stopped = true;
              signal?.removeEventListener("abort", onAbort);
              resolve(results);
            } else {
              pump();
            }
          });
      }
    };
    if (list.length === 0) resolve(results);
    else pump();
  });
}

/**
 * A failed file's result: the worker's own failure, else the read error.
 * @param {unknown} error
 * @returns {HashFileResult}
 */
function failure(error) {
  const { name = "Error", message = String(error), code } = /** @type {{ name?: string, message?: string, code?: string }} */ (error ?? {});
  if (code === "workerFailed") return { kind: "failure", error: "workerFailed", message };
  return { kind: "failure", error: "readFailed", message: `could not read the file (${name}: ${message})` };
}

/**
 * Hashing in module workers, one file per worker at a time; workers start
 * on demand and all stop when the call ends.
 * @param {string | URL | undefined} workerUrl
 * @returns {Runner}
 */
function workerRunner(workerUrl) {
  /** @typedef {{ id: number, resolve: (d: Uint8Array) => void, reject: (e: unknown) => void, onBytes: (b: number) => void }} Job */
  /** @typedef {{ worker: Worker, job: Job | undefined, started: boolean }} Slot */
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
    const slot = { worker, job: undefined, started: false };
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
      slot.started = true;
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
    canWhole: typeof globalThis.crypto?.subtle?.digest === "function",
    run(file, whole, onBytes) {
      return new Promise((resolve, reject) => {
        if (broken !== undefined) return reject(broken);
        const slot = idle.pop() ?? spawn();
        const id = nextId;
        nextId += 1;
        slot.job = { id, resolve, reject, onBytes };
        slot.worker.postMessage({ type: "hash", id, file, whole });
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
function inlineRunner() {
  // Node ≥ 20.16 (an import of "node:crypto" would break browser bundles).
  const host = /** @type {{ process?: { getBuiltinModule?: (name: string) => NodeCrypto | undefined } }} */ (globalThis);
  const nodeCrypto = host.process?.getBuiltinModule?.("node:crypto");
  const subtle = globalThis.crypto?.subtle;
  return {
    canWhole: nodeCrypto === undefined && typeof subtle?.digest === "function",
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
