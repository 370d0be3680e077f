// ArtifactExistenceService: the absence-first lookup.
//
//   1. validate the digest (a bad one throws RangeError — never "absent");
//   2. ask the filter: "definitely absent" answers false with no I/O;
//   3. "maybe" is only a reason to ask the authoritative repository, at the
//      catalogVersion of the very snapshot that answered "maybe".
//
// Each call takes the snapshot reference once, before any await, so a
// SnapshotHolder.replace during the call cannot pair snapshot 42's negative
// with version 43's repository (or the other way round). Repository errors
// always propagate: an error is never turned into "absent".

import { checkSignal } from "../core/deadline.js";
import { digestError, rangeError, typeError } from "../core/errors.js";
import { isDigest } from "../filter/packing.js";
import { DIGEST_LENGTH } from "../wasm/format-rules.js";
import { checkSnapshot } from "../snapshot/snapshot-checks.js";
import { assertKeyOf, checkKey } from "../snapshot/snapshot-key.js";
import { SnapshotHolder } from "./holder.js";
import { adoptSnapshot, collectMetrics, renderPrometheus } from "./metrics.js";

export { SnapshotHolder } from "./holder.js";
export { renderPrometheus } from "./metrics.js";

/**
 * @import {
 *   ArtifactBloomMetrics,
 *   ArtifactExistenceServiceOptions,
 *   ArtifactIndexSnapshot,
 *   ArtifactRepository,
 *   CatalogVersion,
 * } from "../types.js"
 */

/**
 * @param {string} parameter
 * @param {unknown} value
 * @returns {number}
 */
function positiveInteger(parameter, value) {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw rangeError(parameter, "an integer ≥ 1", value);
  }
  return value;
}

/**
 * The caller's optional AbortSignal, checked as every client checks one
 * (deadline.js); rejects (throws) if it already fired.
 *
 * @param {unknown} signal
 * @returns {AbortSignal | undefined}
 */
function callerSignal(signal) {
  const checked = checkSignal(signal);
  if (checked?.aborted) throw abortReason(checked);
  return checked;
}

/**
 * @param {AbortSignal} signal
 * @returns {unknown}
 */
function abortReason(signal) {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}

/**
 * An AbortController that also aborts when `signal` does — the batch's shared
 * signal, aborted as well when one repository call fails so siblings stop.
 *
 * @param {AbortSignal | undefined} signal
 * @returns {{ controller: AbortController; dispose: () => void }}
 */
function linkedController(signal) {
  const controller = new AbortController();
  const onAbort = () => controller.abort(abortReason(/** @type {AbortSignal} */ (signal)));
  signal?.addEventListener("abort", onAbort, { once: true });
  return { controller, dispose: () => signal?.removeEventListener("abort", onAbort) };
}

/**
 * @param {unknown} value
 * @returns {boolean}
 */
function checkAnswer(value) {
  if (typeof value !== "boolean") throw typeError("repository.existsAtVersionAsync result", "a boolean", value);
  return value;
}

/**
 * @param {unknown} values
 * @param {number} count
 * @returns {readonly boolean[]}
 */
function checkAnswers(values, count) {
  if (!Array.isArray(values) || values.length !== count) {
    throw typeError("repository.existsManyAtVersionAsync result", `an array of ${count} booleans`, values);
  }
  for (let index = 0; index < count; index += 1) {
    if (typeof values[index] !== "boolean") {
      throw typeError(`repository.existsManyAtVersionAsync result[${index}]`, "a boolean", values[index]);
    }
  }
  return values;
}

/**
 * The absence-first lookup. A Bloom negative answers `false` without
 * I/O; a "maybe" is confirmed by the repository at the catalogVersion of the
 * snapshot that answered. Each call takes the snapshot once at its start, so
 * a `SnapshotHolder.replace` during the call does not affect it. Repository
 * errors propagate; they never become "absent".
 *
 * @example
 * ```ts
 * import { ArtifactExistenceService, SnapshotHolder, fetchSnapshot } from "artifact-bloom";
 * const loaded = await fetchSnapshot(url);
 * if (loaded.kind === "failure") throw new Error(loaded.message);
 * const holder = new SnapshotHolder(loaded.value);
 * holder.startPolling(url, { intervalMs: 60_000 });
 * const service = new ArtifactExistenceService(holder, repository);
 * if (await service.existsAsync(digest, request.signal)) { ... }
 * const missing = await service.findMissingAsync(digests); // upload only these
 * ```
 */
export class ArtifactExistenceService {
  /** @type {SnapshotHolder | undefined} */
  #holder;
  /** @type {ArtifactIndexSnapshot | undefined} */
  #snapshot;
  /** @type {ArtifactRepository} */
  #repository;
  /** @type {boolean} */
  #hasMany;
  /** @type {number} */
  #batchSize;
  /** @type {number} */
  #concurrency;
  /** @type {() => number} */
  #now;
  #negative = 0;
  #maybe = 0;
  #falsePositive = 0;

  /**
   * @param {ArtifactIndexSnapshot | SnapshotHolder} snapshotSource
   * @param {ArtifactRepository} repository
   * @param {ArtifactExistenceServiceOptions} [options]
   * @throws {TypeError} when the repository has no `existsAtVersionAsync`.
   * @throws {TypeError | RangeError} for an invalid snapshot or option.
   */
  constructor(snapshotSource, repository, options = {}) {
    if (snapshotSource instanceof SnapshotHolder) {
      this.#holder = snapshotSource;
    } else {
      checkSnapshot("snapshotSource", snapshotSource);
      this.#snapshot = snapshotSource;
    }
    if (
      repository === null
      || (typeof repository !== "object" && typeof repository !== "function")
      || typeof repository.existsAtVersionAsync !== "function"
    ) {
      throw typeError("repository", "an object with an existsAtVersionAsync(digest, catalogVersion, signal) method", repository);
    }
    const many = repository.existsManyAtVersionAsync;
    if (many !== undefined && typeof many !== "function") {
      throw typeError("repository.existsManyAtVersionAsync", "a function or undefined", many);
    }
    this.#repository = repository;
    this.#hasMany = many !== undefined;
    const { batchSize = 1000, concurrency = 16, now = Date.now, key } = options ?? {};
    // The filter hashes with the key it was loaded with; a key here only
    // asserts that the snapshot in service is keyed with it (never kept).
    checkKey(key);
    if (key !== undefined) assertKeyOf("snapshotSource", this.snapshot.filter, key);
    this.#batchSize = positiveInteger("batchSize", batchSize);
    this.#concurrency = positiveInteger("concurrency", concurrency);
    if (typeof now !== "function") throw typeError("now", "a function returning milliseconds", now);
    this.#now = now;
    if (this.#snapshot !== undefined) adoptSnapshot(this.#snapshot, now());
  }

  /**
   * The snapshot a call starting now would use.
   *
   * @returns {ArtifactIndexSnapshot}
   */
  get snapshot() {
    // The constructor set exactly one of the two.
    return this.#holder === undefined ? /** @type {ArtifactIndexSnapshot} */ (this.#snapshot) : this.#holder.current();
  }

  /**
   * Whether `digest` exists at the snapshot's catalogVersion: `false`
   * straight from a Bloom negative, otherwise the repository's answer.
   * Rejects with `RangeError` for a digest that is not a 32-byte
   * `Uint8Array` (never resolves `false` for it), with `signal.reason` if
   * `signal` already aborted (before any work), and with the repository's
   * error. `signal` is passed to the repository.
   *
   * @param {Uint8Array} digest
   * @param {AbortSignal} [signal]
   * @returns {Promise<boolean>}
   */
  async existsAsync(digest, signal) {
    signal = callerSignal(signal);
    const { catalogVersion, filter } = this.snapshot; // once, before any await
    // mightContain throws the RangeError for a bad digest (never false), so
    // the query path validates once.
    if (!filter.mightContain(digest)) {
      this.#negative += 1;
      return false;
    }
    this.#maybe += 1;
    const exists = checkAnswer(await this.#repository.existsAtVersionAsync(digest, catalogVersion, signal));
    if (!exists) this.#falsePositive += 1;
    return exists;
  }

  /**
   * Like REAPI FindMissingBlobs: the digests that do not exist — the same
   * objects, in input order. Bloom negatives need no I/O; one snapshot
   * serves the whole call. Maybes go to `existsManyAtVersionAsync` in
   * batches of `batchSize` when the repository has it, else to
   * `existsAtVersionAsync`; at most `concurrency` calls are in flight. The
   * repository gets a signal that aborts with `signal` or when a sibling
   * call fails (the first error rejects the call). Rejects with `RangeError`
   * naming the index (`digests[3] must be …`) for a bad digest, before any I/O.
   *
   * @example
   * ```ts
   * const missing = await service.findMissingAsync(blobDigests, AbortSignal.timeout(5_000));
   * await Promise.all(missing.map(upload));
   * ```
   *
   * @param {readonly Uint8Array[]} digests
   * @param {AbortSignal} [signal]
   * @returns {Promise<Uint8Array[]>}
   */
  async findMissingAsync(digests, signal) {
    signal = callerSignal(signal);
    if (!Array.isArray(digests)) throw typeError("digests", "an array of 32-byte digests", digests);
    const list = digests.slice(); // the caller may reuse its array while we wait
    const count = list.length;
    for (let index = 0; index < count; index += 1) {
      if (!isDigest(list[index])) throw digestError(`digests[${index}]`, list[index]);
    }
    const { catalogVersion, filter } = this.snapshot; // one snapshot for the whole batch
    if (count === 0) return [];
    const packed = new Uint8Array(count * DIGEST_LENGTH);
    for (let index = 0; index < count; index += 1) packed.set(list[index], index * DIGEST_LENGTH);
    const flags = filter.mightContainMany(packed);
    /** @type {number[]} */
    const maybes = [];
    for (let index = 0; index < count; index += 1) if (flags[index] !== 0) maybes.push(index);
    this.#negative += count - maybes.length;
    this.#maybe += maybes.length;
    const present = new Uint8Array(count);
    if (maybes.length > 0) await this.#confirm(list, maybes, catalogVersion, present, signal);
    return list.filter((_, index) => present[index] === 0);
  }

  /**
   * Asks the repository about `maybes` (indexes into `list`), marking `present`.
   *
   * @param {readonly Uint8Array[]} list
   * @param {readonly number[]} maybes
   * @param {CatalogVersion} catalogVersion
   * @param {Uint8Array} present
   * @param {AbortSignal | undefined} signal
   * @returns {Promise<void>}
   */
  async #confirm(list, maybes, catalogVersion, present, signal) {
    const repository = this.#repository;
    const batchSize = this.#hasMany ? this.#batchSize : 1;
    const taskCount = Math.ceil(maybes.length / batchSize);
    const { controller, dispose } = linkedController(signal);
    /** @type {(index: number, exists: boolean) => void} */
    const record = (index, exists) => {
      if (exists) present[index] = 1;
      else this.#falsePositive += 1;
    };
    let next = 0;
    const worker = async () => {
      while (next < taskCount) {
        controller.signal.throwIfAborted(); // caller aborted, or a sibling failed
        const task = next;
        next += 1;
        if (this.#hasMany) {
          const batch = maybes.slice(task * batchSize, (task + 1) * batchSize);
          // #hasMany: the repository has the batch method.
          const many = /** @type {Required<ArtifactRepository>} */ (repository);
          const answers = checkAnswers(
            await many.existsManyAtVersionAsync(
              batch.map((index) => list[index]),
              catalogVersion,
              controller.signal,
            ),
            batch.length,
          );
          batch.forEach((index, position) => {
            record(index, answers[position]);
          });
        } else {
          const index = maybes[task];
          record(index, checkAnswer(await repository.existsAtVersionAsync(list[index], catalogVersion, controller.signal)));
        }
      }
    };
    /** @type {(error: unknown) => never} */
    const stopSiblings = (error) => {
      controller.abort(error);
      throw error;
    };
    try {
      const workers = Array.from({ length: Math.min(this.#concurrency, taskCount) }, () => worker().catch(stopSiblings));
      await Promise.all(workers);
    } finally {
      dispose();
    }
  }

  /**
   * The `artifact_bloom.*` metrics (filter shape and fill, query counts,
   * snapshot age, load failures) of the snapshot in service and this
   * service's queries, plus negativeBypassRatio, observedFalsePositiveRate and
   * falseDiscoveryRatio (0 while their denominator is 0). Cheap: filter
   * statistics are cached per snapshot.
   *
   * @returns {ArtifactBloomMetrics}
   */
  metrics() {
    const counts = { negative: this.#negative, maybe: this.#maybe, falsePositive: this.#falsePositive };
    return collectMetrics(this.snapshot, counts, this.#holder?.loadFailureCount ?? 0, this.#now());
  }

  /**
   * `renderPrometheus(this.metrics())`: the Prometheus text exposition format.
   *
   * @returns {string}
   */
  prometheus() {
    return renderPrometheus(this.metrics());
  }
}
