// One run of publishCatalog's external sort, in JavaScript over the run's
// own buffers (no copy into wasm, whose memory never shrinks): a counting
// sort on the first two bytes (SHA-256 digests spread evenly over the
// 65,536 buckets: ~16 records a bucket at 1M a run), then each bucket in
// place — a small one by insertion, a large one (many equal digests, or
// input that is no hash output) through an index array, 4 bytes a record,
// never an object per record — then equal neighbours dropped. It runs in
// slices with a turn of the event loop (and an abort check) between them,
// so a run never blocks the process for long.

/** Records handled between two turns of the event loop (a few ms). */
const SLICE_RECORDS = 32768;
/** The same for the passes that only count or compare. */
const CHEAP_SLICE_RECORDS = 4 * SLICE_RECORDS;
/** A bucket larger than this is sorted through an index array, not by insertion. */
const INSERTION_LIMIT = 48;
const BUCKETS = 65536;

/**
 * Sorts the first `count` records of `run` into `out` ascending, each once;
 * returns how many records `out` starts with. `run` is scratch afterwards.
 * Both buffers start at a multiple of 4 bytes (they are read as words).
 *
 * @param {Uint8Array} run
 * @param {number} count
 * @param {Uint8Array} out at least `count` records of room
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<number>}
 */
export async function sortUniqueRun(run, count, out, signal) {
  const starts = new Uint32Array(BUCKETS + 1);
  for (let i = 0; i < count; i += 1) {
    starts[((run[i * 32] << 8) | run[i * 32 + 1]) + 1] += 1;
    if (i % CHEAP_SLICE_RECORDS === CHEAP_SLICE_RECORDS - 1) await pause(signal);
  }
  for (let key = 1; key <= BUCKETS; key += 1) starts[key] += starts[key - 1];
  const runWords = new Uint32Array(run.buffer, run.byteOffset, count * 8);
  const outWords = new Uint32Array(out.buffer, out.byteOffset, count * 8);
  const next = starts.slice(0, BUCKETS);
  for (let i = 0; i < count; i += 1) {
    const target = next[(run[i * 32] << 8) | run[i * 32 + 1]]++ * 8;
    const source = i * 8;
    for (let w = 0; w < 8; w += 1) outWords[target + w] = runWords[source + w];
    if (i % SLICE_RECORDS === SLICE_RECORDS - 1) await pause(signal);
  }
  let sinceTurn = 0;
  for (let key = 0; key < BUCKETS; key += 1) {
    const from = starts[key];
    const to = starts[key + 1];
    if (to - from > 1) sortBucket(out, outWords, from, to, runWords);
    sinceTurn += to - from;
    if (sinceTurn >= SLICE_RECORDS) {
      sinceTurn = 0;
      await pause(signal);
    }
  }
  let unique = 0;
  for (let i = 0; i < count; i += 1) {
    if (unique > 0 && compareRecords(out, i * 32, out, (unique - 1) * 32) === 0) continue;
    if (unique !== i) outWords.copyWithin(unique * 8, i * 8, i * 8 + 8);
    unique += 1;
    if (i % CHEAP_SLICE_RECORDS === CHEAP_SLICE_RECORDS - 1) await pause(signal);
  }
  return unique;
}

/**
 * Sorts records [from, to) of `bytes` in place (they share their first two
 * bytes). A small bucket by insertion; a large one through an index array
 * sorted by comparison and `scratch` (the run buffer, free by now).
 *
 * @param {Uint8Array} bytes
 * @param {Uint32Array} words the same memory as 32-bit words
 * @param {number} from
 * @param {number} to
 * @param {Uint32Array} scratch at least `to` records of room
 */
function sortBucket(bytes, words, from, to, scratch) {
  if (to - from > INSERTION_LIMIT) {
    const order = new Uint32Array(to - from);
    for (let i = 0; i < order.length; i += 1) order[i] = from + i;
    order.sort((a, b) => compareRecords(bytes, a * 32, bytes, b * 32));
    for (let i = 0; i < order.length; i += 1) scratch.set(words.subarray(order[i] * 8, order[i] * 8 + 8), (from + i) * 8);
    words.set(scratch.subarray(from * 8, to * 8), from * 8);
    return;
  }
  const held = new Uint32Array(8);
  const heldBytes = new Uint8Array(held.buffer);
  for (let i = from + 1; i < to; i += 1) {
    if (compareRecords(bytes, (i - 1) * 32, bytes, i * 32) <= 0) continue;
    held.set(words.subarray(i * 8, i * 8 + 8));
    let j = i;
    while (j > from && compareRecords(bytes, (j - 1) * 32, heldBytes, 0) > 0) {
      words.copyWithin(j * 8, (j - 1) * 8, j * 8);
      j -= 1;
    }
    words.set(held, j * 8);
  }
}

/**
 * Byte order of two 32-byte records: negative, 0 or positive.
 *
 * @param {Uint8Array} a
 * @param {number} aOffset
 * @param {Uint8Array} b
 * @param {number} bOffset
 * @returns {number}
 */
export function compareRecords(a, aOffset, b, bOffset) {
  for (let i = 0; i < 32; i += 1) {
    const difference = a[aOffset + i] - b[bOffset + i];
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * A turn of the event loop, with the abort checked on both sides of it.
 *
 * @param {AbortSignal | undefined} signal
 */
async function pause(signal) {
  signal?.throwIfAborted();
  await nextTurn();
  signal?.throwIfAborted();
}

/**
 * Yields to the event loop (a macrotask: timers and I/O run; setImmediate
 * where there is one, without setTimeout's 1 ms clamp, which would add up
 * over a long sort).
 *
 * @returns {Promise<void>}
 */
export function nextTurn() {
  const immediate = /** @type {((callback: () => void) => unknown) | undefined} */ (/** @type {any} */ (globalThis).setImmediate);
  return new Promise((resolve) => (immediate ?? setTimeout)(() => resolve(undefined)));
}
