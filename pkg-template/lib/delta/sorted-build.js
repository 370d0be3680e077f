// The sorted-stream build (src/builder.rs) in the server module: pieces of
// ascending packed digests in, an ABF1 file with the exact unique count
// out; memory is the bit array plus one staged piece, however long the
// stream. artifact-bloom/server's publishCatalog drives it; it lives with
// the delta module so that the main module, which every page downloads,
// carries none of it.

import { RawSortedBuilder, wasmMemory } from "../../artifact_bloom_delta.js";
import { isUint8Array } from "../core/errors.js";
import { attempt } from "../core/errors.js";
import { success } from "../core/results.js";
import { stageInput } from "./delta-inputs.js";

/**
 * A build in progress: `push(packed)` → `{ kind: "success", value: added }`
 * or a failure (`unsortedInput`, `capacityExceeded`, `invalidDigest`,
 * `outOfMemory`); `finish(catalogVersion)` → the ABF1 bytes; `free()`
 * drops it (after a failure, or to abandon it).
 *
 * @internal
 */
export class _SortedBuild {
  /** @type {RawSortedBuilder | undefined} */
  #raw;

  /**
   * @param {RawSortedBuilder} raw
   */
  constructor(raw) {
    this.#raw = raw;
  }

  /**
   * @param {{ expectedItemCount: number; targetFalsePositiveRate: number }} spec
   * @returns {{ kind: "success"; value: _SortedBuild } | { kind: "failure"; error: string; message: string }}
   */
  static start(spec) {
    return attempt(() => new _SortedBuild(new RawSortedBuilder(spec.expectedItemCount, spec.targetFalsePositiveRate)));
  }

  /**
   * A build continuing the ABF1 file `base` (its bits, count and spec): the
   * pieces add the digests that arrived since it (a store that only grows).
   *
   * @param {Uint8Array} base
   * @returns {{ kind: "success"; value: _SortedBuild } | { kind: "failure"; error: string; message: string }}
   */
  static continuing(base) {
    if (!isUint8Array(base)) throw new TypeError("base: expected the ABF1 bytes of the version to continue");
    return attempt(() => {
      stageInput(base.byteLength).set(base);
      return new _SortedBuild(RawSortedBuilder.continuingStaged(base.byteLength));
    });
  }

  /**
   * @param {Uint8Array} packed whole 32-byte records, ascending
   * @returns {{ kind: "success"; value: number } | { kind: "failure"; error: string; message: string }}
   */
  push(packed) {
    const raw = this.#live();
    return attempt(() => {
      stageInput(packed.byteLength).set(packed);
      return raw.pushStaged(packed.byteLength);
    });
  }

  /** Unique digests so far. */
  get uniqueCount() {
    return this.#live().uniqueCount();
  }

  /**
   * @param {number} catalogVersion
   * @returns {{ kind: "success"; value: Uint8Array } | { kind: "failure"; error: string; message: string }}
   */
  finish(catalogVersion) {
    const raw = this.#live();
    const result = attempt(() => {
      const header = raw.finishHeader(catalogVersion);
      // The payload is the filter's own words, copied once straight out of
      // wasm memory (src/wasm/builder.rs says why there is no file there).
      const length = raw.payloadLength();
      const file = new Uint8Array(header.length + length);
      file.set(header);
      const memory = /** @type {WebAssembly.Memory} */ (wasmMemory());
      file.set(new Uint8Array(memory.buffer, raw.payloadAddress(), length), header.length);
      return file;
    });
    this.free();
    return result;
  }

  /** Releases the build's memory. */
  free() {
    this.#raw?.free();
    this.#raw = undefined;
  }

  /** @returns {RawSortedBuilder} */
  #live() {
    if (this.#raw === undefined) throw new TypeError("this build already finished or was freed");
    return this.#raw;
  }
}
