// Digest streams for publishCatalog: whatever a catalog source yields —
// 64-hex-digit strings, 32-byte Uint8Arrays, or packed N × 32-byte chunks —
// as packed chunks of at most CHUNK_BYTES; and the external sort of an
// unsorted stream (fixed-size runs sorted and deduplicated in JavaScript,
// catalog-run-sort.js, written to temp files, then a k-way merge), so memory
// is two run buffers and MERGE_READ_BYTES of read buffers, never the catalog.

import { failure } from "../core/results.js";
import { sortUniqueRun } from "./catalog-run-sort.js";

/** Bytes of one packed chunk handed on (32,768 digests). */
export const CHUNK_BYTES = 1024 * 1024;
/** Bytes of one sorted run (1M digests) by default. */
export const DEFAULT_RUN_BYTES = 32 * 1024 * 1024;
const DIGEST_LENGTH = 32;

/** A digest stream's refusal, thrown inside the pipeline and returned by publishCatalog. */
export class StreamFailure extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }

  get failure() {
    return failure(this.code, this.message);
  }
}

/** Hex digit values by character code; 255 for anything else. */
const HEX_VALUES = (() => {
  const table = new Uint8Array(128).fill(255);
  for (let i = 0; i < 10; i += 1) table[48 + i] = i;
  for (let i = 0; i < 6; i += 1) {
    table[65 + i] = 10 + i;
    table[97 + i] = 10 + i;
  }
  return table;
})();

/**
 * The source's digests as packed chunks: views of one reused buffer, each
 * valid until the generator is resumed (the build and the external sort
 * copy a chunk before asking for the next).
 *
 * @param {Iterable<unknown> | AsyncIterable<unknown>} digests
 * @param {AbortSignal | undefined} signal
 * @returns {AsyncGenerator<Uint8Array>}
 */
export async function* packedChunks(digests, signal) {
  const chunk = new Uint8Array(CHUNK_BYTES);
  let used = 0;
  let index = 0;
  for await (const item of /** @type {AsyncIterable<unknown>} */ (digests)) {
    signal?.throwIfAborted();
    if (typeof item === "string") {
      // Parsed straight into the chunk: no bytes object per digest.
      if (!writeHexDigest(item, chunk, used)) {
        throw new StreamFailure("invalidDigest", `digest ${index}: expected 64 hex digits, got "${item.slice(0, 80)}"`);
      }
      used += DIGEST_LENGTH;
      index += 1;
      if (used === CHUNK_BYTES) {
        yield chunk;
        used = 0;
      }
      continue;
    }
    const bytes = digestBytes(item, index);
    for (let offset = 0; offset < bytes.length; ) {
      const take = Math.min(bytes.length - offset, CHUNK_BYTES - used);
      chunk.set(bytes.subarray(offset, offset + take), used);
      used += take;
      offset += take;
      if (used === CHUNK_BYTES) {
        yield chunk;
        used = 0;
      }
    }
    index += bytes.length / DIGEST_LENGTH;
  }
  if (used > 0) yield chunk.subarray(0, used);
}

/**
 * Writes the 32 bytes of a string of exactly 64 hex digits at `offset`;
 * false (nothing to trust in `out`) when `text` is not one.
 *
 * @param {string} text
 * @param {Uint8Array} out
 * @param {number} offset
 * @returns {boolean}
 */
function writeHexDigest(text, out, offset) {
  if (text.length !== 2 * DIGEST_LENGTH) return false;
  for (let i = 0; i < DIGEST_LENGTH; i += 1) {
    const high = text.charCodeAt(2 * i);
    const low = text.charCodeAt(2 * i + 1);
    if (high > 127 || low > 127) return false;
    const highValue = HEX_VALUES[high];
    const lowValue = HEX_VALUES[low];
    // Each digit on its own: a combined check would let "0g" through as 0xff.
    if ((highValue | lowValue) > 15) return false;
    out[offset + i] = (highValue << 4) | lowValue;
  }
  return true;
}

/**
 * A Uint8Array item's bytes (one digest or packed records), else invalidDigest.
 *
 * @param {unknown} item
 * @param {number} index the stream index of its first digest
 * @returns {Uint8Array}
 */
function digestBytes(item, index) {
  if (item instanceof Uint8Array && item.length > 0 && item.length % DIGEST_LENGTH === 0) return item;
  const what = item instanceof Uint8Array ? `${item.length} bytes` : typeof item;
  throw new StreamFailure(
    "invalidDigest",
    `digest ${index}: expected a 64-hex-digit string, a 32-byte Uint8Array or packed 32-byte records, got ${what}`,
  );
}

/**
 * What the external sort uses of node:fs/promises (reached by a dynamic
 * import: lib/ is typed against the web platform only, and a Worker never
 * sorts unsorted input).
 *
 * @typedef {{ read(bytes: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
 *   close(): Promise<void> }} SortHandle
 * @typedef {{
 *   mkdtemp(prefix: string): Promise<string>;
 *   writeFile(path: string, bytes: Uint8Array): Promise<void>;
 *   open(path: string, flags: string): Promise<SortHandle>;
 *   rm(path: string, options: { recursive: boolean; force: boolean }): Promise<void>;
 * }} SortFs
 */

/**
 * The chunks of `chunks`, sorted ascending (duplicates may remain across
 * runs: the sorted build counts each digest once). Yields views of reused
 * buffers, each valid until the generator is resumed. Temp files go in a
 * new directory under `tempDir` and are removed when the generator ends,
 * whichever way. Memory: the run buffer and the sorted one (runBytes
 * each), then the merge's read buffers (MERGE_READ_BYTES in all).
 *
 * @param {AsyncIterable<Uint8Array>} chunks
 * @param {{ tempDir: string; runBytes: number; signal: AbortSignal | undefined }} options
 * @returns {AsyncGenerator<Uint8Array>}
 */
export async function* externalSort(chunks, { tempDir, runBytes, signal }) {
  const fsSpecifier = "node:fs/promises";
  /** @type {SortFs | undefined} */
  let fs;
  /** @type {string | undefined} */
  let dir;
  /** @type {string[]} */
  const runs = [];
  let run = new Uint8Array(runBytes);
  let sorted = new Uint8Array(runBytes);
  let used = 0;
  /** Sorts the run buffer into `sorted` → the unique records' bytes. */
  const sortRun = async () => {
    const unique = await sortUniqueRun(run, used / DIGEST_LENGTH, sorted, signal);
    used = 0;
    return sorted.subarray(0, unique * DIGEST_LENGTH);
  };
  const spill = async () => {
    fs ??= /** @type {SortFs} */ (await import(fsSpecifier));
    dir ??= await fs.mkdtemp(`${tempDir.replace(/\/+$/, "")}/artifact-bloom-sort-`);
    const bytes = await sortRun();
    const path = `${dir}/run-${runs.length}`;
    await fs.writeFile(path, bytes);
    runs.push(path);
    signal?.throwIfAborted();
  };
  try {
    for await (const chunk of chunks) {
      for (let offset = 0; offset < chunk.length; ) {
        const take = Math.min(chunk.length - offset, runBytes - used);
        run.set(chunk.subarray(offset, offset + take), used);
        used += take;
        offset += take;
        if (used === runBytes) await spill();
      }
    }
    if (runs.length === 0) {
      // One run: sorted in memory, no file.
      const bytes = await sortRun();
      for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) yield bytes.subarray(offset, offset + CHUNK_BYTES);
      return;
    }
    if (used > 0) await spill();
    // The run buffers are not needed by the merge.
    run = new Uint8Array(0);
    sorted = run;
    if (fs === undefined) return;
    yield* mergeRuns(fs, runs, signal);
  } finally {
    if (fs !== undefined && dir !== undefined) await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Bytes of read buffer the merge's runs share (each gets at least MIN_READ_BYTES). */
const MERGE_READ_BYTES = 16 * 1024 * 1024;
const MIN_READ_BYTES = 4096;

/**
 * The k-way merge of sorted run files into ascending chunks (views of one
 * reused buffer).
 *
 * @param {SortFs} fs
 * @param {string[]} paths
 * @param {AbortSignal | undefined} signal
 * @returns {AsyncGenerator<Uint8Array>}
 */
async function* mergeRuns(fs, paths, signal) {
  const readBytes = Math.max(MIN_READ_BYTES, Math.floor(MERGE_READ_BYTES / paths.length / DIGEST_LENGTH) * DIGEST_LENGTH);
  /** @type {RunReader[]} */
  const readers = [];
  try {
    for (const path of paths) readers.push(new RunReader(await fs.open(path, "r"), readBytes));
    // A binary min-heap of the runs by their current record: log k compares a record.
    /** @type {RunReader[]} */
    const heap = [];
    for (const reader of readers) if (await reader.fill()) heap.push(reader);
    for (let index = (heap.length >> 1) - 1; index >= 0; index -= 1) siftDown(heap, index);
    const out = new Uint8Array(CHUNK_BYTES);
    const outWords = new Uint32Array(out.buffer);
    let used = 0;
    while (heap.length > 0) {
      const reader = heap[0];
      const { words, offset } = reader;
      for (let w = 0, from = offset >> 2, to = used >> 2; w < 8; w += 1) outWords[to + w] = words[from + w];
      used += DIGEST_LENGTH;
      if (used === CHUNK_BYTES) {
        yield out;
        signal?.throwIfAborted();
        used = 0;
      }
      // An await only when a block runs out: a microtask per record would add up.
      reader.offset += DIGEST_LENGTH;
      if (reader.offset < reader.length) reader.readKey();
      else if (!(await reader.fill())) {
        const last = /** @type {RunReader} */ (heap.pop());
        if (heap.length === 0) break;
        heap[0] = last;
      }
      siftDown(heap, 0);
    }
    if (used > 0) yield out.subarray(0, used);
  } finally {
    for (const reader of readers) await reader.close();
  }
}

/**
 * Restores the heap order below `index`.
 * @param {RunReader[]} heap
 * @param {number} index
 */
function siftDown(heap, index) {
  for (;;) {
    const left = 2 * index + 1;
    if (left >= heap.length) return;
    const right = left + 1;
    const smaller = right < heap.length && less(heap[right], heap[left]) ? right : left;
    if (!less(heap[smaller], heap[index])) return;
    [heap[smaller], heap[index]] = [heap[index], heap[smaller]];
    index = smaller;
  }
}

/**
 * Whether `a`'s current record is below `b`'s: their first four bytes as
 * one number (which nearly always decides), then the rest.
 *
 * @param {RunReader} a
 * @param {RunReader} b
 */
function less(a, b) {
  if (a.key !== b.key) return a.key < b.key;
  const x = a.block;
  const y = b.block;
  for (let i = 4; i < DIGEST_LENGTH; i += 1) {
    const difference = x[a.offset + i] - y[b.offset + i];
    if (difference !== 0) return difference < 0;
  }
  return false;
}

/** A sorted run file read a block at a time. */
class RunReader {
  /**
   * @param {SortHandle} handle
   * @param {number} readBytes a multiple of 32
   */
  constructor(handle, readBytes) {
    this.handle = handle;
    this.block = new Uint8Array(readBytes);
    /** The block as words: a record is copied 4 bytes at a time. */
    this.words = new Uint32Array(this.block.buffer);
    this.length = 0;
    this.offset = 0;
    this.position = 0;
    /** The current record's first four bytes as a number (readKey). */
    this.key = 0;
  }

  /** Reads the next block (whole, but at the file's end); false at the end. */
  async fill() {
    let length = 0;
    while (length < this.block.length) {
      const { bytesRead } = await this.handle.read(this.block, length, this.block.length - length, this.position + length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    // The run files are this sort's own, written whole: a partial record is a bug or a tampered temp dir.
    if (length % DIGEST_LENGTH !== 0) throw new Error(`a sort run file holds a partial record (${length} bytes read)`);
    this.position += length;
    this.length = length;
    this.offset = 0;
    if (length > 0) this.readKey();
    return length > 0;
  }

  /** Reads the current record's first four bytes into `key` (big-endian: their byte order). */
  readKey() {
    const block = this.block;
    const at = this.offset;
    this.key = ((block[at] << 24) | (block[at + 1] << 16) | (block[at + 2] << 8) | block[at + 3]) >>> 0;
  }

  async close() {
    await this.handle.close().catch(() => {});
  }
}
