// Progress of large blob uploads on standard error, readable in both places
// it ends up:
//
//   a terminal   one live line per blob in flight (a block redrawn in place,
//                at most every 100 ms), so concurrent uploads do not
//                overwrite each other; a finished blob's line scrolls up
//   a CI log     (not a TTY) one line per blob every `intervalMs` while it
//                uploads — bytes done/total, percent, rate — so a long
//                upload is never silent
//
// Either way a blob's last line says "uploaded" only once the registry
// committed it (the caller calls committed() after the 201 was checked), or
// "failed". The clock is injected (`now`) so tests drive it by hand; lines
// are due when bytes move, so no timer runs.

const MIB = 1024 * 1024;
const TTY_REDRAW_MS = 100;
export const DEFAULT_INTERVAL_MS = 5000;

const mib = (bytes) => (bytes / MIB).toFixed(1);
const short = (digest) => `${digest.slice(0, 19)}…`;

/** "12.3 MiB/s" from bytes over ms (no rate before any time passed). */
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
export function createUploadProgress(stream, { isTTY = stream.isTTY === true, now = Date.now, intervalMs = DEFAULT_INTERVAL_MS } = {}) {
  /** @type {Map<object, { digest: string, size: number, sent: number, startedAt: number }>} blobs in flight, in start order */
  const active = new Map();
  let drawn = 0; // live lines currently on the terminal, below which the cursor sits
  let lastDraw = -Infinity;

  const liveLine = ({ digest, size, sent, startedAt }) => `uploading ${short(digest)} ${mib(sent)}/${mib(size)} MiB`
    + ` (${size === 0 ? 100 : Math.floor((sent * 100) / size)}%), ${rate(sent, now() - startedAt)}`;

  /** Terminal: rewrites the block of live lines, with `finals` printed above it for good. */
  const redraw = (finals = []) => {
    let out = drawn > 0 ? `\x1b[${drawn}A\r` : "\r";
    for (const line of finals) out += `${line}\x1b[K\n`;
    for (const blob of active.values()) out += `${liveLine(blob)}\x1b[K\n`;
    out += "\x1b[J";
    drawn = active.size;
    lastDraw = now();
    stream.write(out);
  };

  /**
   * Starts tracking one blob.
   * @param {string} digest
   * @param {number} size
   * @returns {BlobProgress}
   */
  const start = (digest, size) => {
    const key = {};
    const blob = { digest, size, sent: 0, startedAt: now() };
    let lastLine = blob.startedAt;
    active.set(key, blob);
    if (isTTY) redraw();
    const finish = (line) => {
      if (!active.delete(key)) return;
      if (isTTY) redraw([line]);
      else stream.write(`${line}\n`);
    };
    return {
      update(sent) {
        blob.sent = Math.max(blob.sent, sent);
        const at = now();
        if (isTTY) {
          if (at - lastDraw >= TTY_REDRAW_MS) redraw();
        } else if (at - lastLine >= intervalMs && blob.sent < size) {
          lastLine = at;
          stream.write(`${liveLine(blob)}\n`);
        }
      },
      committed() {
        finish(`uploaded ${short(digest)} ${mib(size)} MiB in ${((now() - blob.startedAt) / 1000).toFixed(1)} s (${rate(size, now() - blob.startedAt)})`);
      },
      failed(code) {
        finish(`failed ${short(digest)} after ${mib(blob.sent)}/${mib(size)} MiB: ${code}`);
      },
    };
  };
  return { start };
}
