// SHA-256 of one Blob, the two ways hashFiles uses (shared by its worker
// module and by the in-thread runner used where there are no workers):
//
//   whole:     read the file into one buffer, then one crypto.subtle.digest
//              (native code; several times faster than wasm, but it cannot
//              stream, so it is only used below a size limit);
//   streaming: feed blob.stream() chunk by chunk to an incremental hasher
//              (wasm Sha256, or node:crypto in Node): flat memory, any size.

/** Progress is reported at most this often (and once at the end). */
export const PROGRESS_INTERVAL_MS = 50;

// Up to this size a whole file is read with one arrayBuffer() call (too
// quick for progress to matter); above it with FileReader, which reports it.
const SINGLE_READ_BYTES = 1024 * 1024;

/**
 * @typedef {object} IncrementalHasher
 * @property {(bytes: Uint8Array) => unknown} update
 * @property {() => Uint8Array} digest
 * @property {() => void} [free] releases the hasher's memory (wasm)
 */

/**
 * A throttled reporter: `report(bytes)` calls `onBytes` at most every
 * PROGRESS_INTERVAL_MS; `flush(bytes)` always does.
 * @param {((bytes: number) => void) | undefined} onBytes
 * @returns {{ report: (bytes: number) => void, flush: (bytes: number) => void }}
 */
function throttled(onBytes) {
  let last = performance.now();
  return {
    report(bytes) {
      const now = performance.now();
      if (onBytes !== undefined && now - last >= PROGRESS_INTERVAL_MS) {
        last = now;
        onBytes(bytes);
      }
    },
    flush(bytes) {
      onBytes?.(bytes);
    },
  };
}

/**
 * Reads `blob` through its stream, handing each chunk to `consume`; stops
 * (cancelling the read) as soon as `signal` aborts.
 * @param {Blob} blob
 * @param {(chunk: Uint8Array) => void} consume
 * @param {(bytes: number) => void} report
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<number>} the bytes read
 */
async function readChunks(blob, consume, report, signal) {
  const reader = blob.stream().getReader();
  // An abort cancels a pending read too (a stalled source must not keep it).
  const onAbort = () => reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  let bytes = 0;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) return bytes;
      consume(value);
      bytes += value.byteLength;
      report(bytes);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}

/**
 * The file changed size while it was read: its bytes are not one version.
 * @param {number} expected
 * @param {number} got
 * @returns {Error}
 */
function changedError(expected, got) {
  const error = new Error(`the file changed while it was read: expected ${expected} bytes, read ${got}`);
  error.name = "NotReadableError";
  return error;
}

/**
 * Reads `blob` into one ArrayBuffer with FileReader, whose progress events
 * (Chromium: every 50 ms) report the bytes read. As fast as
 * `blob.arrayBuffer()`, which reports nothing; reading in slices instead
 * costs a copy per slice (measured ~40% slower for 200 MiB).
 * @param {Blob} blob
 * @param {(bytes: number) => void} report
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<ArrayBuffer>}
 */
function readWithProgress(blob, report, signal) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    const onAbort = () => reader.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => signal?.removeEventListener("abort", onAbort);
    reader.onprogress = (event) => report(event.loaded);
    reader.onload = () => {
      settle();
      resolve(/** @type {ArrayBuffer} */ (reader.result));
    };
    reader.onerror = () => {
      settle();
      reject(reader.error);
    };
    reader.onabort = () => {
      settle();
      reject(signal?.reason ?? new DOMException("The read was aborted", "AbortError"));
    };
    reader.readAsArrayBuffer(blob);
  });
}

/**
 * SHA-256 of a Blob read whole, by WebCrypto. Progress counts bytes read;
 * the digest follows the last of them.
 * @param {Blob} blob
 * @param {SubtleCrypto} subtle
 * @param {(bytes: number) => void} [onBytes] bytes read so far (throttled; last call: the size)
 * @param {AbortSignal} [signal]
 * @returns {Promise<Uint8Array>}
 */
export async function digestWhole(blob, subtle, onBytes, signal) {
  const progress = throttled(onBytes);
  const size = blob.size;
  const bytes =
    typeof FileReader === "function" && size > SINGLE_READ_BYTES
      ? await readWithProgress(blob, progress.report, signal)
      : await blob.arrayBuffer();
  if (bytes.byteLength !== size) throw changedError(size, bytes.byteLength);
  signal?.throwIfAborted();
  const digest = new Uint8Array(await subtle.digest("SHA-256", bytes));
  progress.flush(size);
  return digest;
}

/**
 * SHA-256 of a Blob streamed through an incremental hasher.
 * @param {Blob} blob
 * @param {IncrementalHasher} hasher consumed (and freed) here
 * @param {(bytes: number) => void} [onBytes] bytes hashed so far (throttled; last call: the total)
 * @param {AbortSignal} [signal]
 * @returns {Promise<Uint8Array>}
 */
export async function digestStreaming(blob, hasher, onBytes, signal) {
  const progress = throttled(onBytes);
  try {
    const read = await readChunks(blob, (chunk) => hasher.update(chunk), progress.report, signal);
    if (read !== blob.size) throw changedError(blob.size, read);
    const digest = hasher.digest();
    progress.flush(read);
    return digest;
  } finally {
    hasher.free?.();
  }
}

/**
 * SHA-256 of a Blob of at most `limit` bytes, read through its stream and
 * digested by WebCrypto, without asking the Blob its size first (Chromium
 * answers a picked File's first `size` with a synchronous round trip to the
 * browser process; its stream needs none). A Blob found longer than `limit`
 * is not hashed: its read is cancelled and the result is `undefined`.
 * @param {Blob} blob
 * @param {SubtleCrypto} subtle
 * @param {number} limit
 * @param {AbortSignal} [signal]
 * @returns {Promise<{ digest: Uint8Array, size: number } | undefined>}
 */
export async function digestSmall(blob, subtle, limit, signal) {
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  const tooLong = new Error("longer than the limit");
  try {
    await readChunks(
      blob,
      (chunk) => {
        size += chunk.byteLength;
        if (size > limit) throw tooLong; // readChunks cancels the read
        chunks.push(chunk);
      },
      () => {},
      signal,
    );
  } catch (error) {
    if (error === tooLong) return undefined;
    throw error;
  }
  // A stream's chunks are backed by ArrayBuffers of their own (never shared memory).
  const bytes = /** @type {Uint8Array<ArrayBuffer>} */ (chunks.length === 1 ? chunks[0] : new Uint8Array(size));
  if (chunks.length !== 1) {
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  signal?.throwIfAborted();
  return { digest: new Uint8Array(await subtle.digest("SHA-256", bytes)), size };
}
