// The CLI's one progress printer, for standard error, readable in both places
// it ends up:
//
//   a terminal   one live line per task in flight (a block redrawn in place,
//                at most every 100 ms), so concurrent tasks do not overwrite
//                each other; a finished task's last line scrolls up
//   a CI log     (not a TTY) one line per task every `intervalMs` while it
//                moves, so a long task is never silent; `intervalMs:
//                Infinity` keeps a log free of progress
//
// A task's line is whatever its `render()` returns when a line is due. The
// clock is injected (`now`) so tests drive it by hand; lines are due when a
// task reports movement, so no timer runs.

const TTY_REDRAW_MS = 100;
export const DEFAULT_INTERVAL_MS = 5000;

/**
 * @typedef {object} ProgressLine
 * @property {(logWorthy?: boolean) => void} update the task moved; off a
 *   terminal a line is written only when the interval passed and `logWorthy`
 *   (default true)
 * @property {(line?: string) => void} finish ends the task once: `line` stays
 *   above the live block (a terminal) or is written (a log); none: the live
 *   line is just removed
 */

/**
 * @param {{ write: (text: string) => unknown, isTTY?: boolean }} stream
 * @param {{ isTTY?: boolean, now?: () => number, intervalMs?: number }} [options]
 */
export function createProgress(stream, { isTTY = stream.isTTY === true, now = Date.now, intervalMs = DEFAULT_INTERVAL_MS } = {}) {
  /** @type {Map<object, () => string>} the tasks in flight, in start order */
  const active = new Map();
  let drawn = 0; // live lines currently on the terminal, below which the cursor sits
  let lastDraw = -Infinity;

  /** Terminal: rewrites the block of live lines, with `finals` printed above it for good. */
  const redraw = (/** @type {string[]} */ finals) => {
    let out = drawn > 0 ? `\x1b[${drawn}A\r` : "\r";
    for (const line of finals) out += `${line}\x1b[K\n`;
    for (const render of active.values()) out += `${render()}\x1b[K\n`;
    out += "\x1b[J";
    drawn = active.size;
    lastDraw = now();
    stream.write(out);
  };

  /**
   * Starts showing one task.
   * @param {() => string} render the task's line as it is now
   * @returns {ProgressLine}
   */
  const start = (render) => {
    const key = {};
    let lastLine = now();
    active.set(key, render);
    if (isTTY) redraw([]);
    return {
      update(logWorthy = true) {
        const at = now();
        if (isTTY) {
          if (at - lastDraw >= TTY_REDRAW_MS) redraw([]);
        } else if (logWorthy && at - lastLine >= intervalMs) {
          lastLine = at;
          stream.write(`${render()}\n`);
        }
      },
      finish(line) {
        if (!active.delete(key)) return;
        if (isTTY) redraw(line === undefined ? [] : [line]);
        else if (line !== undefined) stream.write(`${line}\n`);
      },
    };
  };
  return { start };
}
