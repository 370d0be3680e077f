// Atomic replacement of a snapshot file, shared by `publish` and `merge`:
// write a temporary file beside the target, fsync it, reload and check what
// is on disk, rename it over the target, fsync the directory. A crash at any
// point leaves the previous snapshot intact.
//
// The temporary file is `.NAME.tmp-PID-HOST-RANDOM`: a SIGKILL leaves it
// behind (no handler runs), so each replace first removes the ones whose
// writer is gone — same host, and no process with that pid. A live writer's
// file is never touched (a pid that was reused by another process reads as
// alive: the file stays, which is the safe side).
import { randomBytes } from "node:crypto";
import { open as openFile, readdir, rename, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { readBoundedFile } from "./bounded-file.mjs";
import { UsageError, errorCode, errorMessage } from "./common.mjs";
import { ABF1_HEADER_LENGTH, loadSnapshot, readSnapshotHeader } from "artifact-bloom";

const WRITE_CHUNK = 64 * 1024;
// In temp-file names: letters, digits and "_" only, so the name parses back.
const HOST = hostname()
  .replace(/[^A-Za-z0-9]/g, "_")
  .slice(0, 64);

/**
 * What an output-side error code means, for the one-line message.
 * @type {Record<string, string | undefined>}
 */
const CAUSES = {
  EISDIR: "it is a directory",
  ENOTDIR: "a part of the path is not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large for the file system or the process limit",
  EIO: "input/output error",
  EXDEV: "the temporary file and the target are on different file systems",
  EMFILE: "too many open files",
};

/**
 * The one-line UsageError (exit 2, no stack) for a failed write of `out`.
 * @param {string} out the target path
 * @param {unknown} error the file-system error (a NodeJS.ErrnoException)
 * @returns {UsageError}
 */
function outputError(out, error) {
  const code = errorCode(error);
  // ENOENT from creating the temporary file: the target's directory is missing.
  const cause =
    code === "ENOENT" && syscallOf(error) === "open"
      ? `the directory ${dirname(out)} does not exist`
      : ((code === undefined ? undefined : CAUSES[code]) ?? errorMessage(error));
  return new UsageError(`cannot write ${out}: ${code ?? "error"} (${cause})`);
}

/**
 * A file-system error's `syscall` ("open", "write", ...), else undefined.
 * @param {unknown} error
 */
function syscallOf(error) {
  return typeof error === "object" && error !== null ? /** @type {{ syscall?: unknown }} */ (error).syscall : undefined;
}

/**
 * The temp-file name pattern for `out`: captures pid and host.
 * @param {string} out
 */
function tempPattern(out) {
  const escaped = basename(out).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^\\.${escaped}\\.tmp-(\\d+)-([A-Za-z0-9_]*)-[0-9a-f]{8}$`);
}

/**
 * Whether a process with this pid exists here (EPERM: it does, owned by someone else).
 * @param {number} pid
 */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}

/**
 * Removes the temporary files of earlier replaces of `out` whose writer is
 * gone (killed before it could clean up). Best effort: a file that cannot be
 * listed or removed is left, and the write itself reports real problems.
 * @param {string} out the target path
 * @returns {Promise<string[]>} the names removed
 */
async function removeStaleTempFiles(out) {
  const pattern = tempPattern(out);
  const names = await readdir(dirname(out)).catch(() => []);
  const removed = [];
  for (const name of names) {
    const match = pattern.exec(name);
    if (match === null) continue;
    const pid = Number(match[1]);
    if (match[2] !== HOST || pid === process.pid || isAlive(pid)) continue;
    try {
      await rm(join(dirname(out), name));
      removed.push(name);
    } catch {
      /* gone meanwhile, or not ours to remove */
    }
  }
  return removed;
}

/**
 * What `out` holds now, for the publish guards: nothing, an ABF1 header, or
 * a file whose header does not load. Output-side errors (a directory, no
 * permission) are one-line UsageErrors.
 * @param {string} out the target path
 * @returns {Promise<{ kind: "none" } | { kind: "snapshot", header: import("../index.d.ts").SnapshotHeader }
 *   | { kind: "unloadable", error: string }>}
 */
export async function readCurrentSnapshot(out) {
  let handle;
  try {
    handle = await openFile(out, "r");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "none" };
    throw outputError(out, error);
  }
  try {
    const header = new Uint8Array(ABF1_HEADER_LENGTH);
    const { bytesRead } = await handle.read(header, 0, ABF1_HEADER_LENGTH, 0);
    const parsed = readSnapshotHeader(header.subarray(0, bytesRead));
    return parsed.kind === "success" ? { kind: "snapshot", header: parsed.value } : { kind: "unloadable", error: parsed.error };
  } catch (error) {
    throw outputError(out, error); // EISDIR surfaces here on Linux
  } finally {
    await handle.close();
  }
}

/**
 * Writes, fsyncs and closes a new file (never an existing one: flag wx).
 * @param {string} path
 * @param {Uint8Array} bytes
 * @param {typeof openFile} open
 */
async function writeDurably(path, bytes, open) {
  const handle = await open(path, "wx", 0o644);
  try {
    // Test hooks, unset in normal use. A per-chunk delay widens the window in
    // which the crash-safety tests kill the process at random times; a stall
    // after N chunks holds the writer mid-write until it is killed, so the
    // tests that must kill *inside* the write window never race the clock.
    const delay = Number(process.env.ARTIFACT_BLOOM_TEST_WRITE_DELAY_MS ?? 0);
    const stallAfter = Number(process.env.ARTIFACT_BLOOM_TEST_STALL_AFTER_CHUNKS ?? 0);
    let chunks = 0;
    for (let offset = 0; offset < bytes.byteLength; offset += WRITE_CHUNK) {
      await handle.write(bytes, offset, Math.min(WRITE_CHUNK, bytes.byteLength - offset));
      chunks += 1;
      if (chunks === stallAfter) await new Promise(() => setInterval(() => {}, 60_000));
      if (delay > 0) await sleep(delay);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Makes the rename itself durable.
 * @param {string} directory
 */
async function syncDirectory(directory) {
  const handle = await openFile(directory, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `out` with the ABF1 `bytes` atomically. `check(snapshot)` sees the
 * snapshot reloaded from the temporary file and returns a problem (a string)
 * or undefined; on a problem nothing is replaced and the problem is returned.
 * A file-system error on the output side (EISDIR, ENOENT parent, EACCES,
 * ENOSPC…) removes the temporary file and throws a one-line UsageError.
 * @param {string} out the target path
 * @param {Uint8Array} bytes the ABF1 file
 * @param {(snapshot: import("../index.d.ts").ArtifactIndexSnapshot & { header: import("../index.d.ts").SnapshotHeader })
 *   => string | undefined} check
 * @param {{ open?: typeof openFile, onStaleRemoved?: (name: string) => void }} [options]
 *   `open` opens the temporary file (tests inject failing writers through it)
 * @returns {Promise<string | undefined>} the problem, or undefined once replaced
 */
export function replaceSnapshotFile(out, bytes, check, options) {
  return replaceFile(
    out,
    bytes,
    (written) => {
      const reloaded = loadSnapshot(written);
      if (reloaded.kind === "failure") return `the written snapshot does not load: ${reloaded.error}: ${reloaded.message}`;
      try {
        return check(reloaded.value);
      } finally {
        reloaded.value.filter.free();
      }
    },
    options,
  );
}

/**
 * Replaces `out` with `bytes` atomically, whatever the format: the same
 * temporary file, fsync, check and rename as replaceSnapshotFile, with
 * `check(writtenBytes)` judging the bytes read back from disk (a delta is
 * checked by applying it).
 * @param {string} out the target path
 * @param {Uint8Array} bytes the file
 * @param {(written: Uint8Array) => string | undefined} check
 * @param {{ open?: typeof openFile, onStaleRemoved?: (name: string) => void }} [options]
 * @returns {Promise<string | undefined>} the problem, or undefined once replaced
 */
export async function replaceFile(out, bytes, check, { open = openFile, onStaleRemoved } = {}) {
  for (const name of await removeStaleTempFiles(out)) onStaleRemoved?.(name);
  const temporary = join(dirname(out), `.${basename(out)}.tmp-${process.pid}-${HOST}-${randomBytes(4).toString("hex")}`);
  const cleanup = () => rm(temporary, { force: true }).catch(() => {});
  const onSignal = (/** @type {NodeJS.Signals} */ signal) => {
    cleanup().finally(() => process.kill(process.pid, signal));
  };
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  try {
    await writeDurably(temporary, bytes, open);
    // Validate what is on disk, not what is in memory, never more of it than was written.
    const problem = check(await readBoundedFile(temporary, bytes.byteLength, "file just written"));
    if (problem !== undefined) {
      await cleanup();
      return problem;
    }
    await rename(temporary, out);
    await syncDirectory(dirname(out));
    return undefined;
  } catch (error) {
    await cleanup();
    throw errorCode(error) !== undefined && syscallOf(error) !== undefined ? outputError(out, error) : error;
  } finally {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
  }
}
