// ArtifactBloomFilter: the reference API over the wasm core.
//
// Validation of JavaScript values happens here, in the reference's order
// (spec → capacity → digests), so results match the TypeScript reference
// exactly; the wasm layer re-checks lengths and never panics. When wasm
// memory has no room (for the digests' copy or the bit array), a build
// answers `{ kind: "failure", error: "outOfMemory", message }`; methods that
// throw for bad input throw an Error with `code: "outOfMemory"` then.

import { RawFilter, dedupPacked, planLayout } from "../artifact_bloom.js";
import { codeOf, digestError, freedError, isUint8Array, rangeError, typeError } from "./errors.js";
import { stageInput, toWasm } from "./memory.js";
import { RAW, WasmResource } from "./resource.js";

const DIGEST_LENGTH = 32;
const MAXIMUM_EXPECTED_ITEM_COUNT = 2 ** 30;
// Only code inside the package may wrap a raw filter.
const internal = Symbol("artifact-bloom internal");

export function success(value) {
  return { kind: "success", value };
}

export function failure(error) {
  return { kind: "failure", error };
}

/**
 * The failure for a coded wasm error: the reference's `{ kind, error }`, plus
 * the `message` for `outOfMemory` (a code the reference does not have).
 * @param {string} code
 * @param {Error} error
 * @returns {{ kind: "failure", error: string, message?: string }}
 */
function codedFailure(code, error) {
  return code === "outOfMemory" ? { kind: "failure", error: code, message: error.message } : failure(code);
}

/** The reference's `validateSpec`, widened to reject non-numbers. */
function validateSpec(spec) {
  const n = spec?.expectedItemCount;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || n > MAXIMUM_EXPECTED_ITEM_COUNT) {
    return "invalidExpectedItemCount";
  }
  const p = spec.targetFalsePositiveRate;
  if (typeof p !== "number" || !Number.isFinite(p) || p <= 0 || p >= 1) {
    return "invalidFalsePositiveRate";
  }
  return undefined;
}

/** Plans the layout in wasm; a coded wasm error becomes the reference code. */
function layoutError(spec) {
  try {
    planLayout(spec.expectedItemCount, spec.targetFalsePositiveRate);
    return undefined;
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined) throw error;
    return code;
  }
}

function isDigest(value) {
  return isUint8Array(value) && value.byteLength === DIGEST_LENGTH;
}

/** `packed` must be a Uint8Array of N × 32 digest bytes (a TypeError / RangeError naming it). */
function checkPacked(packed) {
  if (!isUint8Array(packed)) throw typeError("packed", "a Uint8Array of N × 32 digest bytes", packed);
  if (packed.byteLength % DIGEST_LENGTH !== 0) {
    throw rangeError("packed", "a whole number of 32-byte digests", packed);
  }
}

/**
 * Builds the raw filter from the packed digests `stage()` puts into wasm
 * memory (returning their length), mapping coded errors to failures.
 * @param {() => number} stage
 * @param {{ expectedItemCount: number, targetFalsePositiveRate: number }} spec
 */
function fromStaged(stage, spec) {
  try {
    const raw = RawFilter.createPacked(stage(), spec.expectedItemCount, spec.targetFalsePositiveRate);
    return success(new ArtifactBloomFilter(internal, raw));
  } catch (error) {
    const code = codeOf(error);
    if (code === undefined) throw error;
    return codedFailure(code, error);
  }
}

export class ArtifactBloomFilter extends WasmResource {
  /** Not for callers: use `ArtifactBloomFilter.create`. */
  constructor(token, raw) {
    if (token !== internal) {
      throw new TypeError("use ArtifactBloomFilter.create(digests, spec) to build a filter");
    }
    super(raw, "ArtifactBloomFilter");
  }

  /** Internal: wraps a raw filter owned by this package (snapshots, merges). */
  static _wrap(raw) {
    return new ArtifactBloomFilter(internal, raw);
  }

  static create(digests, spec) {
    // The reference's order: the spec first, then the digests.
    const specError = validateSpec(spec) ?? layoutError(spec);
    if (specError !== undefined) return failure(specError);
    if (!Array.isArray(digests)) return failure("invalidDigest");
    if (digests.length > spec.expectedItemCount) return failure("capacityExceeded");
    // Each element is read once: what was checked is what gets packed.
    const checked = new Array(digests.length);
    for (let index = 0; index < digests.length; index += 1) {
      const digest = digests[index];
      if (!isDigest(digest)) return failure("invalidDigest");
      checked[index] = digest;
    }
    // Packed straight into wasm memory, so the build is a single crossing.
    return fromStaged(() => {
      const packed = stageInput(checked.length * DIGEST_LENGTH);
      for (let index = 0; index < checked.length; index += 1) packed.set(checked[index], index * DIGEST_LENGTH);
      return packed.byteLength;
    }, spec);
  }

  static createPacked(packed, spec) {
    // The JS checks cover what wasm cannot see (the types); wasm then checks
    // spec → capacity → length in the reference's order.
    const specError = validateSpec(spec);
    if (specError !== undefined) return failure(specError);
    if (!isUint8Array(packed)) return failure(layoutError(spec) ?? "invalidDigest");
    return fromStaged(() => toWasm(packed), spec);
  }

  static union(a, b) {
    if (!(a instanceof ArtifactBloomFilter) || !(b instanceof ArtifactBloomFilter)) {
      throw typeError("union(a, b)", "two ArtifactBloomFilter instances", a instanceof ArtifactBloomFilter ? b : a);
    }
    try {
      return success(new ArtifactBloomFilter(internal, RawFilter.union(a._raw(), b._raw())));
    } catch (error) {
      const code = codeOf(error);
      if (code === undefined) throw error;
      return codedFailure(code, error);
    }
  }

  mightContain(digest) {
    // A direct field read, not `_raw()`: this is the per-query hot path.
    const raw = this[RAW];
    if (raw === undefined) throw freedError("ArtifactBloomFilter");
    // `instanceof` is the fast path (Buffer included); the tag check covers
    // Uint8Arrays from other realms. byteLength is 0 for a detached buffer.
    if (!((digest instanceof Uint8Array || isUint8Array(digest)) && digest.byteLength === DIGEST_LENGTH)) {
      throw digestError("digest", digest);
    }
    // The probe reads only d[0..16]: pass it as four big-endian u32 numbers,
    // so a query allocates nothing and copies nothing into wasm memory.
    return raw.mightContainWords(
      ((digest[0] << 24) | (digest[1] << 16) | (digest[2] << 8) | digest[3]) >>> 0,
      ((digest[4] << 24) | (digest[5] << 16) | (digest[6] << 8) | digest[7]) >>> 0,
      ((digest[8] << 24) | (digest[9] << 16) | (digest[10] << 8) | digest[11]) >>> 0,
      ((digest[12] << 24) | (digest[13] << 16) | (digest[14] << 8) | digest[15]) >>> 0,
    );
  }

  mightContainMany(packed) {
    const raw = this._raw();
    checkPacked(packed);
    return raw.mightContainMany(toWasm(packed));
  }

  countMaybe(packed) {
    const raw = this._raw();
    checkPacked(packed);
    return raw.countMaybe(toWasm(packed));
  }

  getBitCount() {
    return this._raw().bitCount();
  }

  getHashCount() {
    return this._raw().hashCount();
  }

  getInsertedItemCount() {
    return this._raw().insertedItemCount();
  }

  getExpectedItemCount() {
    return this._raw().expectedItemCount();
  }

  getTargetFalsePositiveRate() {
    return this._raw().targetFalsePositiveRate();
  }

  estimateFalsePositiveRate() {
    return this._raw().estimateFalsePositiveRate();
  }

  getFillRatio() {
    return this._raw().fillRatio();
  }

  serializeBits() {
    return this._raw().serializeBits();
  }
}

/**
 * De-duplicates N × 32 packed digests (first-seen order) → `{ unique, duplicates }`,
 * so a publisher can record an exact unique insertedItemCount.
 */
export function dedupePacked(packed) {
  checkPacked(packed);
  return dedupPacked(toWasm(packed));
}
