// Digest streams for publishCatalog: whatever a catalog source yields —
// 64-hex-digit strings, 32-byte Uint8Arrays, or packed N × 32-byte chunks —
// as packed chunks of at most CHUNK_BYTES; and the external sort of an
// unsorted stream (fixed-size runs sorted and deduplicated in the server
// module's wasm, written to temp files, then a k-way merge), so memory is
// one run and one read buffer per run, never the catalog.

import { failure } from "../core/results.js";
import { _sortUniqueRun } from "./server-delta.js";

/** Bytes of one packed chunk handed on (32,768 digests). */
export const CHUNK_BYTES = 1024 * 1024;
/** Bytes of one sorted run (1M digests) by default. */
export const DEFAULT_RUN_BYTES = 32 * 1024 * 1024;
const DIGEST_LENGTH = 32;
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;

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

/**
 * The source's digests as packed chunks.
 *
 * @param {Iterable<unknown> | AsyncIterable<unknown>} digests
 * @param {AbortSignal | undefined} signal
 * @returns {AsyncGenerator<Uint8Array>}
 */
export async function* packedChunks(digests, signal) {
  let chunk = new Uint8Array(CHUNK_BYTES);
  let used = 0;
  let index = 0;
  for await (const item of /** @type {AsyncIterable<unknown>} */ (digests)) {
    signal?.throwIfAborted();
    const bytes = digestBytes(item, index);
    for (let offset = 0; offset < bytes.length; ) {
      const take = Math.min(bytes.length - offset, CHUNK_BYTES - used);
      chunk.set(bytes.subarray(offset, offset + take), used);
      used += take;
      offset += take;
      if (used === CHUNK_BYTES) {
        yield chunk;
        chunk = new Uint8Array(CHUNK_BYTES);
        used = 0;
      }
    }
    index += bytes.length / DIGEST_LENGTH;
  }
  if (used > 0) yield chunk.subarray(0, used);
}

/**
 * @param {unknown} item
 * @param {number} index the stream index of its first digest
 * @returns {Uint8Array}
 */
function digestBytes(item, index) {
  if (typeof item === "string") {
    if (!HEX_DIGEST.test(item))
      throw new StreamFailure("invalidDigest", `digest ${index}: expected 64 hex digits, got "${item.slice(0, 80)}"`);
    const bytes = new Uint8Array(DIGEST_LENGTH);
    for (let i = 0; i < DIGEST_LENGTH; i += 1) bytes[i] = Number.parseInt(item.slice(2 * i, 2 * i + 2), 16);
    return bytes;
  }
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
 * runs: the sorted build counts each digest once). Temp files go in a new
 * directory under `tempDir` and are removed when the generator ends,
 * whichever way.
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
  let used = 0;
  const sortRun = () => {
    const sorted = _sortUniqueRun(run.subarray(0, used));
    if (sorted.kind === "failure") throw new StreamFailure(sorted.error, sorted.message);
    used = 0;
    return sorted.value;
  };
  try {
    for await (const chunk of chunks) {
      for (let offset = 0; offset < chunk.length; ) {
        const take = Math.min(chunk.length - offset, runBytes - used);
        run.set(chunk.subarray(offset, offset + take), used);
        used += take;
        offset += take;
        if (used === runBytes) {
          fs ??= /** @type {SortFs} */ (await import(fsSpecifier));
          dir ??= await fs.mkdtemp(`${tempDir.replace(/\/+$/, "")}/artifact-bloom-sort-`);
          /** @type {string} */
          const path = `${dir}/run-${runs.length}`;
          await fs.writeFile(path, sortRun());
          runs.push(path);
          signal?.throwIfAborted();
        }
      }
    }
    if (runs.length === 0) {
      // One run: sorted in memory, no file.
      const sorted = used === 0 ? new Uint8Array(0) : sortRun();
      for (let offset = 0; offset < sorted.length; offset += CHUNK_BYTES) yield sorted.subarray(offset, offset + CHUNK_BYTES);
      return;
    }
    if (used > 0 && fs !== undefined && dir !== undefined) {
      const path = `${dir}/run-${runs.length}`;
      await fs.writeFile(path, sortRun());
      runs.push(path);
    }
    run = new Uint8Array(0); // the run buffer is not needed by the merge
    if (fs === undefined) return;
    yield* mergeRuns(fs, runs, signal);
  } finally {
    if (fs !== undefined && dir !== undefined) await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Bytes read from each run file at a time. */
const READ_BYTES = 1024 * 1024;

/**
 * The k-way merge of sorted run files into ascending chunks.
 *
 * @param {SortFs} fs
 * @param {string[]} paths
 * @param {AbortSignal | undefined} signal
 * @returns {AsyncGenerator<Uint8Array>}
 */
async function* mergeRuns(fs, paths, signal) {
  const readers = [];
  try {
    for (const path of paths) readers.push(await RunReader.open(fs, path));
    // A binary min-heap of the runs by their current record: log k compares a record.
    /** @type {RunReader[]} */
    const heap = [];
    for (const reader of readers) if (await reader.fill()) heap.push(reader);
    for (let index = (heap.length >> 1) - 1; index >= 0; index -= 1) siftDown(heap, index);
    let out = new Uint8Array(CHUNK_BYTES);
    let used = 0;
    while (heap.length > 0) {
      const reader = heap[0];
      out.set(reader.current(), used);
      used += DIGEST_LENGTH;
      if (used === CHUNK_BYTES) {
        yield out;
        signal?.throwIfAborted();
        out = new Uint8Array(CHUNK_BYTES);
        used = 0;
      }
      if (!(await reader.advance())) {
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
    const smaller = right < heap.length && heap[right].compare(heap[left]) < 0 ? right : left;
    if (heap[smaller].compare(heap[index]) >= 0) return;
    [heap[smaller], heap[index]] = [heap[index], heap[smaller]];
    index = smaller;
  }
}

/** A sorted run file read a block at a time. */
class RunReader {
  /**
   * @param {SortHandle} handle
   */
  constructor(handle) {
    this.handle = handle;
    this.block = new Uint8Array(READ_BYTES);
    this.length = 0;
    this.offset = 0;
    this.position = 0;
  }

  /**
   * @param {SortFs} fs
   * @param {string} path
   */
  static async open(fs, path) {
    return new RunReader(await fs.open(path, "r"));
  }

  /** Reads the next block; false at the end. */
  async fill() {
    const { bytesRead } = await this.handle.read(this.block, 0, READ_BYTES, this.position);
    this.position += bytesRead;
    this.length = bytesRead - (bytesRead % DIGEST_LENGTH);
    this.offset = 0;
    return this.length > 0;
  }

  current() {
    return this.block.subarray(this.offset, this.offset + DIGEST_LENGTH);
  }

  /**
   * Byte order of the current records.
   * @param {RunReader} other
   */
  compare(other) {
    const a = this.block;
    const b = other.block;
    for (let i = 0; i < DIGEST_LENGTH; i += 1) {
      const difference = a[this.offset + i] - b[other.offset + i];
      if (difference !== 0) return difference;
    }
    return 0;
  }

  /** Moves to the next record; false at the end of the run. */
  async advance() {
    this.offset += DIGEST_LENGTH;
    return this.offset < this.length || (await this.fill());
  }

  async close() {
    await this.handle.close().catch(() => {});
  }
}
