// A pool of hashing workers for hashFiles (hash-runners.js): one file per
// worker at a time; workers start on demand and all stop when the call ends.
//
// A worker that cannot start is told apart from one that stopped: a job is
// posted to a worker only after its first message ("ready"), so until then
// the worker has seen nothing, and a job on a worker that never got there
// can run elsewhere without being hashed twice. A worker has not started
// when its constructor throws (an invalid URL, a CSP that forbids it), when
// it fires `error` before "ready" (a 404, a syntax error, a MIME type), or
// when "ready" does not come within its bound (`workerStart`: a server that
// never answers): its jobs, and every later one, are rejected with a
// `workerFailed` error whose `started` is false, and no more workers are
// tried. A worker that fails after "ready" fails its file (`started` true).

/**
 * How long a new worker may take to say "ready" (ms). Generous on purpose:
 * a fresh worker is ready after ~30–130 ms in Chromium, a worker that can
 * never start usually fails at once with an `error` event, and this bound
 * only catches a fetch that never ends. `timeoutMs` bounds the package's
 * worker file (or the `workerUrl` given), `sourceTimeoutMs` the Blob-URL
 * workers; properties, so a test can shorten one without the other.
 */
export const workerStart = { timeoutMs: 30_000, sourceTimeoutMs: 30_000 };

/** @typedef {{ type: "hash", id: number, file: Blob, whole: boolean }} HashMessage */
/** @typedef {{ id: number, resolve: (d: Uint8Array) => void, reject: (e: unknown) => void, onBytes: (b: number) => void }} Job */
/**
 * @typedef {{ worker: Worker | undefined, job: Job | undefined, started: boolean, queued: HashMessage | undefined,
 *   timer: ReturnType<typeof setTimeout> | undefined }} Slot
 */

/**
 * @typedef {{
 *   run: (file: Blob, whole: boolean, onBytes: (bytes: number) => void) => Promise<Uint8Array>,
 *   close: () => void,
 * }} WorkerPool
 */

/**
 * @param {string} message
 * @param {boolean} started whether the worker had said "ready"
 * @returns {Error & { code: "workerFailed", started: boolean }}
 */
function workerError(message, started) {
  return Object.assign(new Error(message), { code: /** @type {const} */ ("workerFailed"), started });
}

/**
 * @param {unknown} error
 * @returns {boolean} whether `error` says a worker never started (its job never reached it)
 */
export function neverStarted(error) {
  const { code, started } = /** @type {{ code?: unknown, started?: unknown }} */ (error ?? {});
  return code === "workerFailed" && started === false;
}

/**
 * @param {() => Worker} makeWorker makes one worker (may throw)
 * @param {() => number} startBound how long (ms) a new worker may take to say "ready"
 * @returns {WorkerPool}
 */
export function workerPool(makeWorker, startBound) {
  /** @type {Slot[]} */
  const idle = [];
  /** @type {Set<Slot>} */
  const all = new Set();
  /** @type {Error | undefined} set when a worker failed before it ever started: no more are tried */
  let broken;
  let nextId = 0;

  /** @param {Slot} slot @param {Error & { started: boolean }} error */
  const fail = (slot, error) => {
    clearTimeout(slot.timer);
    slot.queued = undefined;
    if (!slot.started) broken ??= error;
    slot.worker?.terminate();
    all.delete(slot);
    const index = idle.indexOf(slot);
    if (index >= 0) idle.splice(index, 1);
    const job = slot.job;
    slot.job = undefined;
    job?.reject(error);
    // The others are waiting on the same script: their jobs move on now
    // rather than each at its own error or time-out.
    if (!slot.started) for (const other of [...all]) if (!other.started) fail(other, error);
  };

  const spawn = () => {
    /** @type {Slot} */
    const slot = { worker: undefined, job: undefined, started: false, queued: undefined, timer: undefined };
    all.add(slot);
    try {
      slot.worker = makeWorker();
    } catch (error) {
      // Reported once the caller has put its job on the slot.
      const reason = /** @type {{ message?: string } | null | undefined} */ (error)?.message ?? String(error);
      queueMicrotask(() => fail(slot, workerError(`the hashing worker could not start: ${reason}`, false)));
      return slot;
    }
    const worker = slot.worker;
    worker.addEventListener("message", (event) => onMessage(slot, event.data));
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      const detail = event.message ? `: ${event.message}` : "";
      fail(
        slot,
        workerError(
          slot.started ? `the hashing worker stopped${detail}` : `the hashing worker could not start${detail}`,
          slot.started,
        ),
      );
    });
    const bound = startBound();
    slot.timer = setTimeout(() => {
      fail(slot, workerError(`the hashing worker could not start: no "ready" within ${bound} ms`, false));
    }, bound);
    return slot;
  };

  /**
   * @param {Slot} slot
   * @param {{ type: string, id: number, bytes: number, digest: Uint8Array, name: string, message: string }} message
   */
  const onMessage = (slot, message) => {
    if (message?.type === "ready") {
      // Listening now: a job posted earlier could have been dispatched
      // before the script (or a wrapper's import of it) added its listener.
      clearTimeout(slot.timer);
      slot.started = true;
      if (slot.queued !== undefined) slot.worker?.postMessage(slot.queued);
      slot.queued = undefined;
      return;
    }
    const job = slot.job;
    if (job === undefined || message?.id !== job.id) return;
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
        if (slot.started) slot.worker?.postMessage(message);
        else slot.queued = message;
      });
    },
    close() {
      for (const slot of all) {
        clearTimeout(slot.timer);
        slot.worker?.terminate();
      }
      all.clear();
      idle.length = 0;
    },
  };
}
