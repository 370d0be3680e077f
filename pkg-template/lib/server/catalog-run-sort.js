// One run of publishCatalog's external sort, in JavaScript over the run's
// own buffers (no copy into wasm, whose memory never shrinks). A radix sort
// on the first two bytes in two cache-friendly passes — by the first byte
// into `out` (256 places written at a time), then within each of those by
// the second back into `run` (within ~128 KiB at 1M records a run) — so
// records of a two-byte bucket lie together (SHA-256 digests spread evenly:
// ~16 a bucket at 1M a run). Then each bucket's indices are sorted — by
// insertion on the next four bytes when small, by the typed array's sort
// when large (many equal digests, or input that is no hash output) — and
// its records gathered into `out` in that order, an equal neighbour
// dropped. No scratch beyond the two buffers and a few small arrays. It
// runs in slices with a turn of the event loop (and an abort check) between
// them, so a run never blocks the process for long.

/** Records handled between two turns of the event loop (a few ms). */
const SLICE_RECORDS = 65536;
/** A bucket larger than this is sorted by the typed array's sort, not by insertion. */
const INSERTION_LIMIT = 48;
const BUCKETS = 65536;

/**
 * Sorts the first `count` records of `run` into `out` ascending, each once;
 * returns how many records `out` starts with. `run` is scratch afterwards.
 * Both start at a multiple of 4 bytes (records are copied as words).
 *
 * @param {Uint8Array} run
 * @param {number} count
 * @param {Uint8Array} out at least `count` records of room
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<number>}
 */
export async function sortUniqueRun(run, count, out, signal) {
  const runWords = new Uint32Array(run.buffer, run.byteOffset, count * 8);
  const outWords = new Uint32Array(out.buffer, out.byteOffset, count * 8);
  const starts = new Uint32Array(BUCKETS + 1);
  for (let i = 0; i < count; i += 1) {
    starts[((run[i * 32] << 8) | run[i * 32 + 1]) + 1] += 1;
    if (i % SLICE_RECORDS === SLICE_RECORDS - 1) await pause(signal);
  }
  for (let key = 1; key <= BUCKETS; key += 1) starts[key] += starts[key - 1];
  // By the first byte: run → out.
  const nextByFirst = new Uint32Array(256);
  for (let first = 0; first < 256; first += 1) nextByFirst[first] = starts[first << 8];
  for (let i = 0; i < count; i += 1) {
    const target = nextByFirst[run[i * 32]]++ * 8;
    for (let w = 0, source = i * 8; w < 8; w += 1) outWords[target + w] = runWords[source + w];
    if (i % SLICE_RECORDS === SLICE_RECORDS - 1) await pause(signal);
  }
  // By both bytes: out → run (each record stays within its first byte's range).
  const next = starts.slice(0, BUCKETS);
  for (let i = 0; i < count; i += 1) {
    const target = next[(out[i * 32] << 8) | out[i * 32 + 1]]++ * 8;
    for (let w = 0, source = i * 8; w < 8; w += 1) runWords[target + w] = outWords[source + w];
    if (i % SLICE_RECORDS === SLICE_RECORDS - 1) await pause(signal);
  }
  // Each bucket sorted by its indices, gathered into out, duplicates dropped.
  const order = new Uint32Array(INSERTION_LIMIT);
  const keys = new Uint32Array(INSERTION_LIMIT);
  let unique = 0;
  let sinceTurn = 0;
  for (let bucket = 0; bucket < BUCKETS; bucket += 1) {
    const from = starts[bucket];
    const to = starts[bucket + 1];
    const size = to - from;
    if (size === 0) continue;
    let sorted = order;
    if (size > INSERTION_LIMIT) {
      sorted = new Uint32Array(size);
      for (let i = 0; i < size; i += 1) sorted[i] = from + i;
      sorted.sort((a, b) => compareRecords(run, a * 32, run, b * 32));
    } else {
      insertionSort(run, from, to, order, keys);
    }
    for (let i = 0; i < size; i += 1) {
      const record = sorted[i];
      if (unique > 0 && compareRecords(run, record * 32, out, (unique - 1) * 32) === 0) continue;
      for (let w = 0, source = record * 8, target = unique * 8; w < 8; w += 1) outWords[target + w] = runWords[source + w];
      unique += 1;
    }
    sinceTurn += size;
    if (sinceTurn >= SLICE_RECORDS) {
      sinceTurn = 0;
      await pause(signal);
    }
  }
  return unique;
}

/**
 * The indices of records [from, to) of `run` (which share their first two
 * bytes) in ascending order into order[0, to - from): by bytes 2–5 as a
 * 32-bit key, the whole record on a tie.
 *
 * @param {Uint8Array} run
 * @param {number} from
 * @param {number} to
 * @param {Uint32Array} order
 * @param {Uint32Array} keys order's keys
 */
function insertionSort(run, from, to, order, keys) {
  for (let i = 0; i < to - from; i += 1) {
    const record = from + i;
    const at = record * 32;
    const key = ((run[at + 2] << 24) | (run[at + 3] << 16) | (run[at + 4] << 8) | run[at + 5]) >>> 0;
    let j = i;
    while (j > 0) {
      const before = keys[j - 1];
      if (before < key || (before === key && compareRecords(run, order[j - 1] * 32, run, at) <= 0)) break;
      order[j] = order[j - 1];
      keys[j] = before;
      j -= 1;
    }
    order[j] = record;
    keys[j] = key;
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
