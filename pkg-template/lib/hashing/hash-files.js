// hashFiles: the SHA-256 of many files, using the machine.
//
// In browsers files over 1 MiB are hashed in a pool of module Web Workers
// (sized from navigator.hardwareConcurrency), so the page's main thread only
// dispatches Blob handles and receives 32-byte digests; smaller ones are
// read and digested from the calling thread (hash-runners.js says why) —
// read through their stream without asking their size first: Chromium
// answers a picked File's first `size` with a synchronous round trip to the
// browser process, which for 500 small files cost more than their reads.
// Only a file found longer than 1 MiB is asked its size and hashed by it:
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
//
// Where the package's worker file cannot start (a bundler that does not emit
// `new URL("./hash-worker.js", import.meta.url)`: Bun's, Rolldown's), files
// over 1 MiB move to workers made from source the page holds, or to the
// calling thread (hash-runners.js); each progress event and onFile call
// says where its file was hashed (`runner`).

import { typeError, rangeError } from "../core/errors.js";
import { failure, success } from "../core/results.js";
import { browserRunner, inlineRunner, SMALL_FILE_BYTES } from "./hash-runners.js";

/** Files up to this size are read whole and hashed by WebCrypto (256 MiB). */
export const DEFAULT_WHOLE_FILE_LIMIT = 256 * 1024 * 1024;

// One worker per logical CPU, within reason: beyond 8 the disk, not the
// CPU, limits how fast files arrive.
const MAX_DEFAULT_CONCURRENCY = 8;
const FALLBACK_CONCURRENCY = 4;

// A small file's time is mostly waiting for its read (asynchronous I/O in
// the browser process), so where the runner says so (its `pipeline`: 4 in
// browsers) that many files of at most SMALL_FILE_BYTES share each of the
// `concurrency` lanes: 500 × 256 KiB read through their streams and
// digested on the page took a median 965 ms with 8 in flight, 1,197 ms with
// 2 (5 interleaved runs each, loaded machine). SMALL_FILE_BYTES is the
// runners' line between hashing on the calling thread and in workers.

/**
 * One file's outcome in `hashFiles`: its 32-byte SHA-256, or why there is
 * none — `readFailed` (the file vanished or became unreadable; `message` has
 * the browser's error) or `workerFailed` (the `workerUrl` given could not
 * start, or a hashing worker stopped while it hashed the file).
 *
 * @typedef {Readonly<{ kind: "success"; value: Uint8Array }>
 *   | Readonly<{ kind: "failure"; error: "readFailed" | "workerFailed"; message: string }>} HashFileResult
 */

/** @typedef {import("./hash-runners.js").HashFilesRunner} HashFilesRunner */

/**
 * @typedef {Readonly<{
 *   bytes: number;
 *   total: number | undefined;
 *   index: number;
 *   fileBytes: number;
 *   runner: HashFilesRunner;
 * }>} HashFilesProgress `bytes`: processed so far over all files (never
 *   decreases); `total`: the sum of the files' sizes, once all are known;
 *   `index`: the file that advanced; `fileBytes`: that file's bytes so far;
 *   `runner`: where that file is hashed.
 */

/**
 * @typedef {{
 *   onProgress?: (progress: HashFilesProgress) => void;
 *   onFile?: (file: Readonly<{ index: number; result: HashFileResult; ms: number; runner: HashFilesRunner }>) => void;
 *   signal?: AbortSignal;
 *   concurrency?: number;
 *   wholeFileLimit?: number;
 *   workerUrl?: string | URL;
 * }} HashFilesOptions `onProgress`: called as bytes are processed
 *   (throttled per file); `onFile`: once per file, as soon as its result is
 *   known, with where it was hashed (`runner`); `signal`: aborting rejects with its reason and stops every worker;
 *   `concurrency`: files hashed at once, and workers (default
 *   hardwareConcurrency, at most 8; in browsers up to 4 times as many files
 *   of at most 1 MiB, whose reads are mostly waiting); `wholeFileLimit`: files up to this many bytes are read whole for
 *   WebCrypto (default 256 MiB); `workerUrl`: a module worker speaking
 *   hash-worker.js's protocol (default: that file, and where it cannot
 *   start, a Blob-URL worker or the calling thread; a `workerUrl` given that
 *   cannot start is not replaced: its files fail with `workerFailed`).
 */

/** @typedef {import("./hash-runners.js").Runner} Runner */

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
  const runner = typeof Worker === "function" ? browserRunner(settings.workerUrl) : inlineRunner();
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
  // A string is iterable, but a file name is not a file.
  if (typeof files === "string" || (!iterable && typeof shape?.length !== "number")) {
    throw typeError("files", "an iterable of Blob or File objects", files);
  }
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
  const {
    onProgress,
    onFile,
    signal,
    concurrency = defaultConcurrency(),
    wholeFileLimit = DEFAULT_WHOLE_FILE_LIMIT,
    workerUrl,
  } = options;
  if (onProgress !== undefined && typeof onProgress !== "function") throw typeError("onProgress", "a function", onProgress);
  if (onFile !== undefined && typeof onFile !== "function") throw typeError("onFile", "a function", onFile);
  if (signal !== undefined && typeof signal?.throwIfAborted !== "function") throw typeError("signal", "an AbortSignal", signal);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1)
    throw rangeError("concurrency", "an integer of at least 1", concurrency);
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

// Chromium answers the first `size` of a picked File with a synchronous
// round trip to the browser process (~0.5 ms each, more on a busy machine):
// sizes are read in slices of at most this long, yielding in between, so
// 500 files never block the page for a quarter of a second at once.
const SIZE_SLICE_MS = 8;

/**
 * Lets other tasks (input, rendering, timers) run: a message-channel task
 * queues behind them (setTimeout would add 4 ms per slice; scheduler.yield
 * resumes ahead of timers, starving them).
 * @returns {Promise<void>}
 */
function yieldToHost() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(undefined);
  });
}

/**
 * Runs the files through `runner`: at most `concurrency` at once (of files
 * up to SMALL_FILE_BYTES, `runner.pipeline` times as many), and files read whole
 * totalling at most `wholeFileLimit` bytes at once; a file that
 * does not fit waits (in order) until enough earlier ones finished.
 *
 * Where the runner can probe (a browser with WebCrypto), sizes are not read
 * up front: each file is first read as a small one (holding at most
 * SMALL_FILE_BYTES), and only a file found larger is asked its size and
 * hashed by size as below. Elsewhere sizes are read ahead in slices while the
 * first files already hash.
 * @param {Blob[]} list
 * @param {Runner} runner
 * @param {ReturnType<typeof checkOptions>} settings
 * @returns {Promise<HashFileResult[]>}
 */
function schedule(list, runner, { onProgress, onFile, signal, concurrency, wholeFileLimit }) {
  return new Promise((resolve, reject) => {
    /** @type {HashFileResult[]} */
    const results = new Array(list.length);
    const sizes = new Float64Array(list.length).fill(Number.NaN);
    const done = new Float64Array(list.length); // bytes hashed per file
    /** @type {HashFilesRunner[]} where each file is hashed */
    const runners = new Array(list.length).fill("calling-thread");
    const probing = runner.probe !== undefined && wholeFileLimit >= SMALL_FILE_BYTES;
    /** @type {number[]} files whose size is known, waiting to be hashed by size (in order) */
    const waiting = [];
    let known = 0; // sizes known
    let sizeSum = 0;
    /** @type {number | undefined} */
    let total;
    let hashed = 0;
    let next = 0; // files [0, next) are started or waiting
    // Lanes in use, in parts: a lane has `pipeline` parts, a small file takes one, a larger one all.
    const pipeline = runner.pipeline;
    const capacity = concurrency * pipeline;
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
    /** @type {number | undefined} the `bytes` of the last event that had a `total` */
    let reported;
    const report = (/** @type {number} */ index) => {
      if (total !== undefined) reported = hashed;
      if (onProgress) call(() => onProgress({ bytes: hashed, total, index, fileBytes: done[index], runner: runners[index] }));
    };
    const advance = (/** @type {number} */ index, /** @type {number} */ bytes) => {
      if (stopped || !(bytes > done[index])) return;
      hashed += bytes - done[index];
      done[index] = bytes;
      report(index);
    };
    const learn = (/** @type {number} */ index, /** @type {number} */ size) => {
      sizes[index] = size;
      known += 1;
      sizeSum += size;
      if (known === list.length) total = sizeSum;
    };

    /**
     * @param {number} index
     * @param {number} weight
     * @param {number} held bytes counted against wholeFileLimit meanwhile
     * @param {() => Promise<Uint8Array | undefined>} work undefined: a probed file found too large
     */
    const start = (index, weight, held, work) => {
      running += weight;
      heldWhole += held;
      const started = performance.now();
      work()
        .then((digest) => /** @type {HashFileResult | undefined} */ (digest && success(digest)), fileFailure)
        .then((result) => {
          if (stopped) return;
          running -= weight;
          heldWhole -= held;
          if (result === undefined) {
            // Longer than a small file: hashed by its size, ahead of files not yet probed.
            learn(index, list[index].size);
            waiting.push(index);
            waiting.sort((x, y) => x - y);
            return pump();
          }
          results[index] = result;
          // A probe that failed never learnt a size: its bytes count as none in `total`.
          if (Number.isNaN(sizes[index])) learn(index, 0);
          if (result.kind === "success") advance(index, sizes[index]);
          if (onFile) call(() => onFile({ index, result, ms: performance.now() - started, runner: runners[index] }));
          settled += 1;
          if (settled === list.length) {
            // The last event always says all bytes are in (empty files never advance).
            if (reported !== total) report(index);
            stopped = true;
            signal?.removeEventListener("abort", onAbort);
            resolve(results);
          } else {
            pump();
          }
        });
    };

    /** @returns {boolean} whether the file started (false: no room yet) */
    const startSized = (/** @type {number} */ index) => {
      const size = sizes[index];
      const weight = size <= SMALL_FILE_BYTES ? 1 : pipeline;
      if (running + weight > capacity) return false;
      const whole = runner.canWhole && size <= wholeFileLimit;
      if (whole && heldWhole + size > wholeFileLimit) return false; // room comes back as files finish
      start(index, weight, whole ? size : 0, () =>
        runner.run(
          list[index],
          whole,
          (bytes) => advance(index, bytes),
          signal,
          (where) => {
            runners[index] = where;
          },
        ),
      );
      return true;
    };

    const pump = () => {
      while (!stopped && waiting.length > 0) {
        if (!startSized(waiting[0])) return;
        waiting.shift();
      }
      if (!probing) return;
      const probe = /** @type {NonNullable<Runner["probe"]>} */ (runner.probe);
      while (!stopped && next < list.length && running < capacity && heldWhole + SMALL_FILE_BYTES <= wholeFileLimit) {
        const index = next;
        next += 1;
        start(index, 1, SMALL_FILE_BYTES, async () => {
          const small = await probe(list[index], SMALL_FILE_BYTES, signal);
          if (small === undefined) return undefined;
          learn(index, small.size);
          return small.digest;
        });
      }
    };

    const readSizes = async () => {
      while (!stopped && next < list.length) {
        const sliceEnd = performance.now() + SIZE_SLICE_MS;
        do {
          learn(next, list[next].size);
          waiting.push(next);
          next += 1;
        } while (next < list.length && performance.now() < sliceEnd);
        pump();
        if (next < list.length) await yieldToHost();
      }
    };

    if (list.length === 0) return resolve(results);
    if (probing) pump();
    else readSizes().catch(stop);
  });
}

/**
 * A failed file's result: the worker's own failure, else the read error.
 * @param {unknown} error
 * @returns {HashFileResult}
 */
function fileFailure(error) {
  const {
    name = "Error",
    message = String(error),
    code,
  } = /** @type {{ name?: string, message?: string, code?: string }} */ (error ?? {});
  if (code === "workerFailed") return failure("workerFailed", message);
  return failure("readFailed", `${name}: ${message}`);
}
