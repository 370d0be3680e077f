// ArtifactExistenceService: the seed's absence-first lookup.
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

import { digestError, isUint8Array, rangeError, typeError } from "./errors.js";
import { SnapshotHolder, validateSnapshot } from "./holder.js";
import { adoptSnapshot, collectMetrics, renderPrometheus } from "./metrics.js";

export { SnapshotHolder } from "./holder.js";
export { renderPrometheus } from "./metrics.js";

const DIGEST_LENGTH = 32;

function isDigest(value) {
  return isUint8Array(value) && value.byteLength === DIGEST_LENGTH;
}

function positiveInteger(parameter, value) {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw rangeError(parameter, "an integer ≥ 1", value);
  }
  return value;
}

/** Validates an optional AbortSignal and rejects (throws) if it already fired. */
function checkSignal(signal) {
  if (signal === undefined) return;
  if (signal === null || typeof signal !== "object" || typeof signal.aborted !== "boolean"
    || typeof signal.addEventListener !== "function") {
    throw typeError("signal", "an AbortSignal", signal);
  }
  if (signal.aborted) throw abortReason(signal);
}

function abortReason(signal) {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}

/**
 * An AbortController that also aborts when `signal` does — the batch's shared
 * signal, aborted as well when one repository call fails so siblings stop.
 */
function linkedController(signal) {
  const controller = new AbortController();
  const onAbort = () => controller.abort(abortReason(signal));
  signal?.addEventListener("abort", onAbort, { once: true });
  return { controller, dispose: () => signal?.removeEventListener("abort", onAbort) };
}

function checkAnswer(value) {
  if (typeof value !== "boolean") throw typeError("repository.existsAtVersionAsync result", "a boolean", value);
  return value;
}

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

export class ArtifactExistenceService {
  #holder;
  #snapshot;
  #repository;
  #hasMany;
  #batchSize;
  #concurrency;
  #now;
  #negative = 0;
  #maybe = 0;
  #falsePositive = 0;

  constructor(snapshotSource, repository, options = {}) {
    if (snapshotSource instanceof SnapshotHolder) {
      this.#holder = snapshotSource;
    } else {
      validateSnapshot(snapshotSource, "snapshotSource");
      this.#snapshot = snapshotSource;
    }
    if (repository === null || typeof repository !== "object" && typeof repository !== "function"
      || typeof repository.existsAtVersionAsync !== "function") {
      throw typeError("repository", "an object with an existsAtVersionAsync(digest, catalogVersion, signal) method", repository);
    }
    const many = repository.existsManyAtVersionAsync;
    if (many !== undefined && typeof many !== "function") {
      throw typeError("repository.existsManyAtVersionAsync", "a function or undefined", many);
    }
    this.#repository = repository;
    this.#hasMany = many !== undefined;
    const { batchSize = 1000, concurrency = 16, now = Date.now } = options ?? {};
    this.#batchSize = positiveInteger("batchSize", batchSize);
    this.#concurrency = positiveInteger("concurrency", concurrency);
    if (typeof now !== "function") throw typeError("now", "a function returning milliseconds", now);
    this.#now = now;
    if (this.#snapshot !== undefined) adoptSnapshot(this.#snapshot, now());
  }

  /** The snapshot a call starting now would use. */
  get snapshot() {
    return this.#holder === undefined ? this.#snapshot : this.#holder.current();
  }

  /**
   * Resolves whether `digest` exists in the catalog: `false` straight from a
   * Bloom negative, otherwise the repository's answer at the snapshot's
   * catalogVersion.
   */
  async existsAsync(digest, signal) {
    checkSignal(signal);
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
   * Like REAPI FindMissingBlobs: the digests (same objects, input order) that
   * do not exist. Bloom negatives are missing without I/O; the maybes are
   * confirmed by the repository, in batches when it has
   * existsManyAtVersionAsync, else one by one with bounded concurrency.
   */
  async findMissingAsync(digests, signal) {
    checkSignal(signal);
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
    const maybes = [];
    for (let index = 0; index < count; index += 1) if (flags[index] !== 0) maybes.push(index);
    this.#negative += count - maybes.length;
    this.#maybe += maybes.length;
    const present = new Uint8Array(count);
    if (maybes.length > 0) await this.#confirm(list, maybes, catalogVersion, present, signal);
    return list.filter((_, index) => present[index] === 0);
  }

  /** Asks the repository about `maybes` (indexes into `list`), marking `present`. */
  async #confirm(list, maybes, catalogVersion, present, signal) {
    const repository = this.#repository;
    const batchSize = this.#hasMany ? this.#batchSize : 1;
    const taskCount = Math.ceil(maybes.length / batchSize);
    const { controller, dispose } = linkedController(signal);
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
          const answers = checkAnswers(
            await repository.existsManyAtVersionAsync(batch.map((index) => list[index]), catalogVersion, controller.signal),
            batch.length,
          );
          batch.forEach((index, position) => record(index, answers[position]));
        } else {
          const index = maybes[task];
          record(index, checkAnswer(await repository.existsAtVersionAsync(list[index], catalogVersion, controller.signal)));
        }
      }
    };
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
   * The seed's metrics for the snapshot in service and this service's
   * queries, plus negativeBypassRatio, observedFalsePositiveRate and
   * falseDiscoveryRatio (0 while their denominator is 0).
   */
  metrics() {
    const counts = { negative: this.#negative, maybe: this.#maybe, falsePositive: this.#falsePositive };
    return collectMetrics(this.snapshot, counts, this.#holder?.loadFailureCount ?? 0, this.#now());
  }

  /** `metrics()` in the Prometheus text exposition format. */
  prometheus() {
    return renderPrometheus(this.metrics());
  }
}
