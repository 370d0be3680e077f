// A file `artifact-bloom serve` re-reads when it is replaced, one reload at a
// time, serving the previous contents until the new ones are ready.
//
// The first version re-ran `load()` in every request that saw a new file
// identity until one of them finished: an atomic rename of a 200k-line
// catalog under 200 concurrent clients meant 200 parses at once and a
// 114-second stall. Here a change starts exactly one reload; `current()`
// never waits for it (the old value answers meanwhile) and `fresh()` — for a
// request that cannot be answered from the old value — joins that same reload.
import { stat } from "node:fs/promises";

/**
 * @template T
 * @typedef {(path: string, info: import("node:fs").Stats) => Promise<T>} Loader
 */

/** @template T */
export class ReloadingFile {
  #path;
  /** @type {Loader<T>} */
  #load;
  /** @type {(error: Error) => void} */
  #onFailure;
  /** @type {{ identity: string, value: T } | undefined} */
  #cached;
  /** @type {Promise<void> | undefined} the one reload in flight */
  #pending;
  /** @type {string | undefined} an identity whose load failed: not retried until the file changes again */
  #failed;
  /** Completed loads, the first one included. */
  loads = 0;
  /** Reloads that failed (the previous value kept serving). */
  failures = 0;

  /**
   * @param {string} path the file
   * @param {Loader<T>} load reads and parses it
   * @param {(error: Error) => void} onFailure told about a failed reload (the old value stays)
   */
  constructor(path, load, onFailure) {
    this.#path = path;
    this.#load = load;
    this.#onFailure = onFailure;
  }

  /**
   * The first load; its failure is the caller's (the server does not start).
   * @returns {Promise<T>}
   */
  async start() {
    const info = await stat(this.#path); // throws the real error (ENOENT, EACCES…)
    this.#cached = { identity: identityOf(info), value: await this.#load(this.#path, info) };
    this.loads += 1;
    return this.#cached.value;
  }

  /**
   * The loaded value, without waiting: if the file changed, a reload starts
   * in the background (unless one is running) and the old value answers.
   * @returns {Promise<T>}
   */
  async current() {
    const seen = await this.#look();
    if (this.#changed(seen) && this.#pending === undefined) this.#reload(seen);
    return this.#cached.value;
  }

  /**
   * The value of the file as it is now: waits for the reload a change needs,
   * sharing the one in flight. A file replaced again during that reload gets
   * one more round; a failed reload leaves the old value.
   * @returns {Promise<T>}
   */
  async fresh() {
    for (let round = 0; round < 2; round += 1) {
      const seen = await this.#look();
      if (!this.#changed(seen)) break;
      await (this.#pending ?? this.#reload(seen));
    }
    return this.#cached.value;
  }

  /** The file's identity (an atomic replace makes a new inode), or undefined if it cannot be stat'ed now. */
  async #look() {
    try {
      const info = await stat(this.#path);
      return { identity: identityOf(info), info };
    } catch {
      return undefined; // mid-replace or removed: keep serving what is loaded
    }
  }

  #changed(seen) {
    return seen !== undefined && seen.identity !== this.#cached.identity && seen.identity !== this.#failed;
  }

  #reload(seen) {
    const run = async () => {
      try {
        this.#cached = { identity: seen.identity, value: await this.#load(this.#path, seen.info) };
        this.loads += 1;
      } catch (error) {
        this.#failed = seen.identity;
        this.failures += 1;
        this.#onFailure(error);
      }
    };
    // `.finally` runs after this assignment even if `load` fails at once.
    this.#pending = run().finally(() => { this.#pending = undefined; });
    return this.#pending;
  }
}

/** inode, size and mtime: an atomic replace (a new inode) or an in-place rewrite both change it. */
function identityOf(info) {
  return `${info.ino}:${info.size}:${info.mtimeMs}`;
}
