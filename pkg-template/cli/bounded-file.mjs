// Reading a file the CLI was pointed at, never more than a limit: a path may
// name /dev/zero, a FIFO or a file that keeps growing, and fs.readFile of it
// grows memory until the process dies (`check /dev/zero` passed 1.5 GiB in
// 2 s). Each reader states its limit — a snapshot's from the format, a
// credential file's or a CA bundle's a small fixed one — and gets a one-line
// UsageError (exit 2) naming the path and the limit when more is there.
import { open } from "node:fs/promises";
import { UsageError, errorMessage } from "./common.mjs";
import { MAXIMUM_SNAPSHOT_BYTES } from "artifact-bloom";

/** Credential files (auth.json, docker's config.json) and PEM bundles: far above any real one (the system CA bundle is ≈ 220 KB). */
export const SMALL_FILE_LIMIT = 1024 * 1024;
/** ABD1's fixed part: a 200-byte header and a 32-byte checksum (docs/ABD1.md). */
const DELTA_FIXED_BYTES = 232;

/**
 * The largest snapshot or delta file the CLI reads: the largest ABF1 file
 * (the format's, asked of wasm), or a delta to it — whose body publish never
 * writes longer than the target's payload (Rice coding with k = 0 costs one
 * bit per zero bit of the base), plus its fixed part.
 * @returns {number}
 */
export function snapshotFileLimit() {
  return MAXIMUM_SNAPSHOT_BYTES + DELTA_FIXED_BYTES;
}

/**
 * A snapshot or delta file the CLI was given (at most snapshotFileLimit() bytes); unreadable → UsageError.
 * @param {string} path
 */
export async function readSnapshotFile(path) {
  try {
    return await readBoundedFile(path, snapshotFileLimit(), "snapshot or delta file");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${path}: ${errorMessage(error)}`);
  }
}

/** Bytes asked of the file per read. */
const CHUNK = 1024 * 1024;

/**
 * The file at `path` as a Uint8Array of at most `limit` bytes. Reads at most
 * `limit` + 1 bytes whatever the path is (a regular file's size is only a
 * hint: it may grow while read); memory grows with what arrives, never with
 * a size the file claims. Over the limit → UsageError (exit 2); a file that
 * cannot be opened or read rejects with the fs error (its `code`, ENOENT…),
 * for the caller to word.
 *
 * @param {string} path
 * @param {number} limit the largest acceptable file, in bytes
 * @param {string} what what the file is, for the message ("snapshot", "CA file", …)
 * @returns {Promise<Uint8Array<ArrayBuffer>>} its own buffer (never shared), so it may be a fetch or Response body
 */
export async function readBoundedFile(path, limit, what) {
  const handle = await open(path, "r");
  try {
    /** @type {Uint8Array<ArrayBuffer>[]} */
    const chunks = [];
    let total = 0;
    for (;;) {
      const want = Math.min(CHUNK, limit + 1 - total);
      const chunk = new Uint8Array(want);
      const { bytesRead: read } = await handle.read(chunk, 0, want, null);
      if (read === 0) break;
      chunks.push(read === want ? chunk : chunk.subarray(0, read));
      total += read;
      if (total > limit) {
        throw new UsageError(`${path} is larger than the largest ${what} (${limit} bytes); not reading it`);
      }
    }
    if (chunks.length === 1) return chunks[0];
    const whole = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      whole.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return whole;
  } finally {
    await handle.close();
  }
}

/**
 * The file at `path` as UTF-8 text of at most `limit` bytes (see readBoundedFile).
 * @param {string} path
 * @param {number} limit
 * @param {string} what
 */
export async function readBoundedText(path, limit, what) {
  return new TextDecoder().decode(await readBoundedFile(path, limit, what));
}
