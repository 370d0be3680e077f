// Progress of large blob uploads, on the CLI's progress printer
// (../progress.mjs): a live line per blob on a terminal, a line per blob
// every `intervalMs` in a CI log — bytes done/total, percent, rate. A blob's
// last line says "uploaded" only once the registry committed it (the caller
// calls committed() after the 201 was checked), or "failed".
import { DEFAULT_INTERVAL_MS, createProgress } from "../progress.mjs";

export { DEFAULT_INTERVAL_MS };

const MIB = 1024 * 1024;

const mib = (/** @type {number} */ bytes) => (bytes / MIB).toFixed(1);
const short = (/** @type {string} */ digest) => `${digest.slice(0, 19)}…`;

/**
 * "12.3 MiB/s" from bytes over ms (no rate before any time passed).
 * @param {number} bytes
 * @param {number} ms
 */
function rate(bytes, ms) {
  return ms > 0 ? `${mib((bytes * 1000) / ms)} MiB/s` : "-- MiB/s";
}

/**
 * @typedef {object} BlobProgress
 * @property {(sent: number) => void} update bytes handed to the registry so far
 * @property {() => void} committed the registry stored the blob under its digest
 * @property {(code: string) => void} failed
 */

/**
 * @param {{ write: (text: string) => unknown, isTTY?: boolean }} stream
 * @param {{ isTTY?: boolean, now?: () => number, intervalMs?: number }} [options]
 */
export function createUploadProgress(stream, options = {}) {
  const { now = Date.now } = options;
  const printer = createProgress(stream, options);

  /**
   * Starts tracking one blob.
   * @param {string} digest
   * @param {number} size
   * @returns {BlobProgress}
   */
  const start = (digest, size) => {
    const startedAt = now();
    let sent = 0;
    const line = printer.start(
      () =>
        `uploading ${short(digest)} ${mib(sent)}/${mib(size)} MiB`
        + ` (${size === 0 ? 100 : Math.floor((sent * 100) / size)}%), ${rate(sent, now() - startedAt)}`,
    );
    return {
      update(bytes) {
        sent = Math.max(sent, bytes);
        // All bytes sent is not news for a log: the registry has not committed yet.
        line.update(sent < size);
      },
      committed() {
        const ms = now() - startedAt;
        line.finish(`uploaded ${short(digest)} ${mib(size)} MiB in ${(ms / 1000).toFixed(1)} s (${rate(size, ms)})`);
      },
      failed(code) {
        line.finish(`failed ${short(digest)} after ${mib(sent)}/${mib(size)} MiB: ${code}`);
      },
    };
  };
  return { start };
}
