// Atomic replacement of a snapshot file, shared by `publish` and `merge`:
// write a temporary file beside the target, fsync it, reload and check what
// is on disk, rename it over the target, fsync the directory. A crash at any
// point leaves the previous snapshot intact (at worst a stray .NAME.tmp-*).
import { randomBytes } from "node:crypto";
import { open, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { loadSnapshot } from "../node.mjs";

const WRITE_CHUNK = 64 * 1024;

/** Writes, fsyncs and closes a new file (never an existing one: flag wx). */
async function writeDurably(path, bytes) {
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

/** Makes the rename itself durable. */
async function syncDirectory(directory) {
  const handle = await open(directory, "r");
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
 */
export async function replaceSnapshotFile(out, bytes, check) {
  const temporary = join(dirname(out), `.${basename(out)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  const cleanup = () => rm(temporary, { force: true });
  const onSignal = (signal) => {
    cleanup().finally(() => process.kill(process.pid, signal));
  };
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  try {
    await writeDurably(temporary, bytes);
    // Validate what is on disk, not what is in memory.
    const reloaded = loadSnapshot(new Uint8Array(await readFile(temporary)));
    let problem;
    if (reloaded.kind === "failure") {
      problem = `the written snapshot does not load: ${reloaded.error}: ${reloaded.message}`;
    } else {
      try {
        problem = check(reloaded.value);
      } finally {
        reloaded.value.filter.free();
      }
    }
    if (problem !== undefined) {
      await cleanup();
      return problem;
    }
    await rename(temporary, out);
    await syncDirectory(dirname(out));
    return undefined;
  } catch (error) {
    await cleanup();
    throw error;
  } finally {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
  }
}
