// Where a layout's files live, as the few operations the publisher needs. A
// directory on a local file system (`directoryLayoutStore`) is the one the
// package ships; an object store (S3, R2) or a test that fails on purpose
// supplies its own. The publisher writes through `writeAtomically` only, so
// a reader of the store sees a file whole or not at all.
//
// lib/ is type-checked against the web platform's types only (no
// @types/node): node:fs is reached through a dynamic import typed by the
// small interface below, and only when a directory store is first used, so
// importing the server entry where there is no node:fs costs nothing.

/**
 * The storage a layout is published to. Paths are relative to the layout's
 * root, "/"-separated (`manifest.json`, `snapshots/<checksum>.abf1`).
 *
 * - `read`: the file's bytes, or `undefined` when there is none.
 * - `writeAtomically`: replaces (or creates) the file so that a reader sees
 *   the old bytes or the new ones, never a part; durable when it resolves.
 * - `list`: the names of the files directly in a folder (none: `[]`).
 * - `remove`: deletes the file; one that is already gone is no error.
 * - `modified` (optional, for serving): when the file last changed (the
 *   Last-Modified the request handler sends), or undefined.
 * - `open` (optional, for serving): the file as a stream with its size,
 *   so a large snapshot is never held whole; without it the handler reads
 *   the file with `read`.
 *
 * @typedef {{
 *   read(path: string): Promise<Uint8Array | undefined>;
 *   writeAtomically(path: string, bytes: Uint8Array): Promise<void>;
 *   list(folder: string): Promise<string[]>;
 *   remove(path: string): Promise<void>;
 *   modified?(path: string): Promise<Date | undefined>;
 *   open?(path: string): Promise<OpenedFile | undefined>;
 * }} LayoutStore
 */
/**
 * A file opened for serving: its byte length, its last change, its bytes.
 * @typedef {{ size: number; modified: Date | undefined; body: ReadableStream<Uint8Array> }} OpenedFile
 */

/**
 * What the directory store uses of node:fs/promises.
 * @typedef {{ code?: string }} FsError
 * @typedef {{ write(bytes: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
 *   read(bytes: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
 *   stat(): Promise<FsStat>; sync(): Promise<void>; close(): Promise<void> }} FsHandle
 * @typedef {{ size: number; mtime: Date; isFile(): boolean }} FsStat
 * @typedef {{
 *   readFile(path: string): Promise<Uint8Array>;
 *   open(path: string, flags: string): Promise<FsHandle>;
 *   rename(from: string, to: string): Promise<void>;
 *   readdir(path: string): Promise<string[]>;
 *   rm(path: string, options: { force: boolean }): Promise<void>;
 *   mkdir(path: string, options: { recursive: boolean }): Promise<unknown>;
 *   stat(path: string): Promise<FsStat>;
 * }} FsPromises
 */

/** @type {Promise<FsPromises> | undefined} */
let fsModule;

/** @returns {Promise<FsPromises>} */
function nodeFs() {
  // A specifier in a variable: bundlers for the browser leave it alone, and
  // tsc (web types only) does not look for node:fs's declarations.
  const specifier = "node:fs/promises";
  fsModule ??= /** @type {Promise<FsPromises>} */ (import(specifier));
  return fsModule;
}

/**
 * A layout in a local directory (created when first written). A file is
 * written as `.NAME.tmp-<random>` beside its target, fsynced, renamed over
 * it, and the directory fsynced, so a crash leaves the old file or the new.
 * @param {string} directory an absolute or working-directory-relative path
 * @returns {LayoutStore}
 */
export function directoryLayoutStore(directory) {
  const root = directory.replace(/\/+$/, "") || "/";
  /** @param {string} path */
  const full = (path) => `${root}/${path}`;
  return {
    async read(path) {
      const fs = await nodeFs();
      try {
        return new Uint8Array(await fs.readFile(full(path)));
      } catch (error) {
        if (/** @type {FsError} */ (error).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async writeAtomically(path, bytes) {
      const fs = await nodeFs();
      const target = full(path);
      const folder = target.slice(0, target.lastIndexOf("/")) || "/";
      await fs.mkdir(folder, { recursive: true });
      const temp = `${folder}/.${target.slice(folder.length + 1)}.tmp-${randomSuffix()}`;
      try {
        const handle = await fs.open(temp, "wx");
        try {
          let offset = 0;
          while (offset < bytes.length) {
            const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
            offset += bytesWritten;
          }
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.rename(temp, target);
      } catch (error) {
        await fs.rm(temp, { force: true });
        throw error;
      }
      await syncFolder(fs, folder);
    },
    async list(folder) {
      const fs = await nodeFs();
      try {
        return await fs.readdir(full(folder));
      } catch (error) {
        if (/** @type {FsError} */ (error).code === "ENOENT") return [];
        throw error;
      }
    },
    async remove(path) {
      const fs = await nodeFs();
      await fs.rm(full(path), { force: true });
    },
    async modified(path) {
      const fs = await nodeFs();
      try {
        return (await fs.stat(full(path))).mtime;
      } catch (error) {
        if (/** @type {FsError} */ (error).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async open(path) {
      const fs = await nodeFs();
      let handle;
      try {
        handle = await fs.open(full(path), "r");
      } catch (error) {
        if (/** @type {FsError} */ (error).code === "ENOENT") return undefined;
        throw error;
      }
      const info = await handle.stat().catch(async (error) => {
        await handle?.close();
        throw error;
      });
      if (!info.isFile()) {
        await handle.close();
        return undefined;
      }
      return { size: info.size, modified: info.mtime, body: fileStream(handle, info.size) };
    },
  };
}

/** Bytes read from a file per chunk of a served stream. */
const READ_CHUNK = 256 * 1024;

/**
 * The open file's first `size` bytes as a stream, read as the consumer
 * pulls (a file renamed over meanwhile is still the one opened; one pruned
 * ends early only if truncated, never with other bytes); closed at the end
 * or on cancel.
 * @param {FsHandle} handle
 * @param {number} size
 * @returns {ReadableStream<Uint8Array>}
 */
function fileStream(handle, size) {
  let position = 0;
  return new ReadableStream({
    async pull(controller) {
      try {
        const chunk = new Uint8Array(Math.min(READ_CHUNK, size - position));
        const { bytesRead } = chunk.length === 0 ? { bytesRead: 0 } : await handle.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) {
          await handle.close();
          if (position < size) controller.error(new Error(`the file ended after ${position} of ${size} bytes`));
          else controller.close();
          return;
        }
        position += bytesRead;
        controller.enqueue(chunk.subarray(0, bytesRead));
      } catch (error) {
        await handle.close().catch(() => {});
        controller.error(error);
      }
    },
    async cancel() {
      await handle.close().catch(() => {});
    },
  });
}

/**
 * Makes a rename durable: the directory entry is flushed too. A file system
 * that cannot fsync a directory (some network ones) answers EISDIR/EINVAL;
 * the rename itself still happened.
 * @param {FsPromises} fs
 * @param {string} folder
 */
async function syncFolder(fs, folder) {
  let handle;
  try {
    handle = await fs.open(folder, "r");
    await handle.sync();
  } catch (error) {
    const code = /** @type {FsError} */ (error).code;
    if (code !== "EISDIR" && code !== "EINVAL" && code !== "EPERM") throw error;
  } finally {
    await handle?.close();
  }
}

/** @returns {string} 8 random hex digits: two writers never share a temp file. */
function randomSuffix() {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
