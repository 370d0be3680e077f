// Types of "artifact-bloom/variants": the other filters of the package and
// the sizing helpers, in their own wasm module (the main entry,
// "artifact-bloom", carries only the artifact filter, ABF1 and SHA-256).
// scripts/build.mjs copies this file to index.d.cts, the CommonJS view.
//
// TlBloom (TLBF bytes, byte-compatible with `tl_ds::bloom::Bloom`),
// MergeableBloomFilter + MergeableDelta (the CRDT filter, MBLF,
// docs/mergeable-format.md), ScalableBloomFilter (SBLF,
// docs/scalable-format.md) and the sizing helpers.
//
// Error policy, the same for all of them:
// - Builders (`TlBloom.withRate`, `MergeableBloomFilter.create`,
//   `new ScalableBloomFilter`) and the sizing helpers THROW for invalid
//   arguments: a `TypeError` for a wrong type, a `RangeError` for a number out
//   of range, both carrying `code` (a `SystemsArgumentError`).
// - Loaders (`TlBloom.fromBytes`, `MergeableBloomFilter.decode`,
//   `MergeableDelta.decode`, `ScalableBloomFilter.decode`) throw a `TypeError`
//   only when `bytes` is not a `Uint8Array`; any byte content RETURNS a
//   `DecodeResult` (`{ kind: "success", value }` or
//   `{ kind: "failure", error, message }`), like `loadSnapshot`.
// - `union` / `piece` of different shapes throw an `Error` whose `code` is
//   `"incompatibleFilters"`; a wrong argument type is a `TypeError`.
// - Items are a `Uint8Array` or a `string` (hashed as its UTF-8 bytes, lone
//   surrogates as U+FFFD); anything else is a `TypeError` naming `item`.
// - Every method and getter except `freed` and `free()` throws once the
//   object was freed.


// `Symbol.dispose` and `Disposable` where the project's lib lacks them (see
// the main entry's index.d.ts).
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
  interface Disposable {
    [Symbol.dispose](): void;
  }
}

/** A byte result: `Uint8Array<ArrayBuffer>` on TypeScript ≥ 5.7, `Uint8Array` before. */
export type Bytes = ReturnType<typeof Uint8Array.from>;

/** An item: raw bytes, or a string hashed as its UTF-8 bytes. */
export type BloomItem = Uint8Array | string;

/** The `code` on a `TypeError`/`RangeError` thrown for an invalid argument. */
export type SystemsArgumentError =
  | "invalidExpectedItemCount"
  | "invalidFalsePositiveRate"
  | "filterTooLarge"
  | "invalidInitialCapacity"
  | "invalidGrowthFactor"
  | "invalidTighteningRatio"
  | "invalidFillRatio"
  | "invalidHashCount"
  | "invalidItemCount"
  | "invalidBitCount";

/** A loader's result: the value, or the first failed check's code and a message. */
export type DecodeResult<TValue, TError extends string> =
  | Readonly<{ kind: "success"; value: TValue }>
  | Readonly<{ kind: "failure"; error: TError; message: string }>;

/** `TlBloom.fromBytes` failures, in the order they are checked. */
export type TlbfDecodeError =
  | "truncated"
  | "badMagic"
  | "unsupportedVersion"
  | "zeroBitCount"
  | "zeroHashCount"
  | "nonZeroReserved"
  | "filterTooLarge"
  | "hashCountTooLarge"
  | "lengthMismatch"
  | "nonZeroPadding";

/**
 * The TLBF filter, byte-compatible with `tl_ds::bloom::Bloom` and
 * the Python dedup implementation (FNV-1a 64 + SplitMix64 double hashing).
 * `contains` false: never inserted; true: probably inserted. Inserting more
 * than the designed n is allowed — the rate degrades; watch `fillRatio`.
 *
 * @example
 * ```ts
 * using filter = TlBloom.withRate(4, 0.1);      // m = 20, k = 3
 * filter.insert("cat").insert("dog");
 * filter.contains("bird");                       // false
 * const bytes = filter.toBytes();                // 35 bytes
 * const loaded = TlBloom.fromBytes(bytes);
 * if (loaded.kind === "failure") throw new Error(`${loaded.error}: ${loaded.message}`);
 * loaded.value.contains("cat");                  // true
 * ```
 */
export declare class TlBloom implements Disposable {
  private constructor();
  /**
   * Sized for `n` items at rate `p`: `m = ceil(−n·ln p / ln² 2)`,
   * `k = max(1, round(m/n · ln 2))`.
   * @throws {TypeError | RangeError} with `code` `invalidExpectedItemCount`
   * (n not an integer ≥ 1), `invalidFalsePositiveRate` (p not in (0, 1)) or
   * `filterTooLarge` (m above 2^30).
   */
  static withRate(n: number, p: number): TlBloom;
  /**
   * Parses TLBF bytes. Beyond the TLBF format's own rejections it also refuses m above
   * 2^30, k above 4096 and set padding bits, so every accepted input
   * round-trips through `toBytes` byte for byte.
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static fromBytes(bytes: Uint8Array): DecodeResult<TlBloom, TlbfDecodeError>;
  /** Sets the item's k bits and counts the call; returns this. */
  insert(item: BloomItem): this;
  /** `false`: never inserted. `true`: maybe. */
  contains(item: BloomItem): boolean;
  /**
   * ORs `other` into this filter; the inserted counts add. Returns this.
   * @throws {Error} with `code` `"incompatibleFilters"` when m or k differ.
   * @throws {TypeError} when `other` is not a `TlBloom`.
   */
  union(other: TlBloom): this;
  /** The TLBF layout: a 32-byte header, then `ceil(m / 8)` bit bytes. */
  toBytes(): Bytes;
  /** Bits. */
  readonly m: number;
  /** Probes per item. */
  readonly k: number;
  /** Insert calls so far (union adds); a loaded count above 2^53 is rounded. */
  readonly insertedCount: number;
  /** Set bits / m. The implied rate is `fppFromFillRatio(fillRatio, k)`. */
  readonly fillRatio: number;
  readonly freed: boolean;
  free(): void;
  [Symbol.dispose](): void;
}

/** `MergeableBloomFilter.decode` / `MergeableDelta.decode` failures (docs/mergeable-format.md). */
export type MergeableDecodeError =
  | "truncated"
  | "badMagic"
  | "unsupportedVersion"
  | "checksumMismatch"
  | "unknownKind"
  | "unexpectedKind"
  | "nonZeroReserved"
  | "invalidBitCount"
  | "filterTooLarge"
  | "zeroHashCount"
  | "hashCountTooLarge"
  | "lengthMismatch"
  | "entryCountMismatch"
  | "wordIndexOutOfRange"
  | "wordIndicesNotIncreasing"
  | "zeroWordValue"
  | "nonCanonicalEncoding";

/** One changed 64-bit word: its index and its full value after the add. */
export type MergeableDeltaEntry = Readonly<{ wordIndex: number; wordValue: bigint }>;

/**
 * The sparse delta one `add` returns: the words it changed, each with its
 * full value, so applying it anywhere is an OR (idempotent, commutative,
 * associative). Held in JavaScript, not in wasm memory: ignoring it is free.
 *
 * @example
 * ```ts
 * const delta = replicaA.add("alice");
 * send(delta.encode());                                   // the wire form
 * const received = MergeableDelta.decode(bytesFromPeer);
 * if (received.kind === "success") replicaB.piece(received.value);
 * ```
 */
export declare class MergeableDelta implements Disposable {
  private constructor();
  /**
   * Parses a delta's wire form (kind 3).
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static decode(bytes: Uint8Array): DecodeResult<MergeableDelta, MergeableDecodeError>;
  /** bitCount of the filter it came from. */
  readonly bitCount: number;
  /** hashCount of the filter it came from. */
  readonly hashCount: number;
  /** The changed words, `wordIndex` strictly increasing, `wordValue` non-zero (empty when nothing changed). */
  readonly entries: readonly MergeableDeltaEntry[];
  /** The wire form: header, 12-byte entries, SHA-256 trailer. */
  encode(): Bytes;
  readonly freed: boolean;
  free(): void;
  [Symbol.dispose](): void;
}

/**
 * The mergeable Bloom filter: a state-based CRDT whose merge is
 * bitwise OR. Union-only (no removes). Probes: Kirsch–Mitzenmacher double
 * hashing with MurmurHash3_x86_32 (`h1 = murmur(x, 0)`, `h2 = murmur(x, h1)`).
 * Replicas created with the same arguments have the same shape.
 *
 * @example
 * ```ts
 * const replicaA = MergeableBloomFilter.create(1_000, 0.01);
 * const replicaB = MergeableBloomFilter.create(1_000, 0.01);
 * replicaA.piece(replicaA.add("alice"));
 * replicaB.piece(replicaB.add("bob"));
 * const merged = replicaA.piece(replicaB);      // in place; returns replicaA
 * merged.mightContain("alice") && merged.mightContain("bob"); // true
 * ```
 */
export declare class MergeableBloomFilter implements Disposable {
  private constructor();
  /**
   * `bitCount` = the optimum m rounded up to whole 64-bit words,
   * `hashCount = max(1, round(m/n · ln 2))`.
   * @throws {TypeError | RangeError} with `code` `invalidExpectedItemCount`,
   * `invalidFalsePositiveRate` or `filterTooLarge`.
   */
  static create(expectedElements: number, falsePositiveRate: number): MergeableBloomFilter;
  /**
   * Parses a dense or sparse state (a delta is `unexpectedKind`).
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static decode(bytes: Uint8Array): DecodeResult<MergeableBloomFilter, MergeableDecodeError>;
  /** Sets the item's bits; returns the delta of the words that changed. */
  add(item: BloomItem): MergeableDelta;
  /** `false`: never added here or in anything pieced in. `true`: maybe. */
  mightContain(item: BloomItem): boolean;
  /**
   * Joins a delta or another replica's state in place (bitwise OR); returns this.
   * @throws {Error} with `code` `"incompatibleFilters"` when bitCount or hashCount differ.
   * @throws {TypeError} when the argument is neither a `MergeableDelta` nor a `MergeableBloomFilter`.
   */
  piece(deltaOrFilter: MergeableDelta | MergeableBloomFilter): this;
  /** The wire form: sparse when strictly smaller than dense, so equal states have equal bytes. */
  encode(): Bytes;
  /** 64-bit words (`bitCount / 64`). */
  readonly wordCount: number;
  /** Words with at least one bit set (what the sparse form carries). */
  readonly nonZeroWordCount: number;
  readonly bitCount: number;
  readonly hashCount: number;
  /** Set bits / bitCount. */
  readonly fillRatio: number;
  readonly freed: boolean;
  free(): void;
  [Symbol.dispose](): void;
}

/** Options of `new ScalableBloomFilter`. */
export type ScalableBloomFilterOptions = Readonly<{
  /** Items the first stage holds: an integer ≥ 1. */
  initialCapacity: number;
  /** Compound false-positive bound p, in (0, 1). */
  targetFalsePositiveRate: number;
  /** Capacity multiplier between stages: an integer from 1 to 2^32 − 1. Default 2. */
  growthFactor?: number;
  /** Rate multiplier r between stages, in (0, 1). Default 0.5. */
  tighteningRatio?: number;
}>;

/** `ScalableBloomFilter.decode` failures (docs/scalable-format.md). */
export type ScalableDecodeError =
  | "truncated"
  | "badMagic"
  | "unsupportedVersion"
  | "checksumMismatch"
  | "nonZeroReserved"
  | "invalidInitialCapacity"
  | "invalidFalsePositiveRate"
  | "invalidGrowthFactor"
  | "invalidTighteningRatio"
  | "zeroStageCount"
  | "filterTooLarge"
  | "stageCapacityMismatch"
  | "itemCountExceedsCapacity"
  | "stageNotFull"
  | "emptyStage"
  | "invalidBitCount"
  | "zeroHashCount"
  | "hashCountTooLarge"
  | "lengthMismatch";

/**
 * A scalable Bloom filter (Almeida et al. 2007): a chain of
 * plain filters, stage i holding `initialCapacity · growthFactor^i` items at
 * rate `p·(1 − r)·r^i`, so the compound rate stays under p however many
 * items arrive (until the 2^30-bit / 256-stage limit). No deletes.
 *
 * @example
 * ```ts
 * using filter = new ScalableBloomFilter({ initialCapacity: 1_000, targetFalsePositiveRate: 0.01 });
 * for (const id of ids) filter.add(id);           // grows a stage when the newest is full
 * filter.stageCount;                               // e.g. 4 after 10,000 items
 * const copy = ScalableBloomFilter.decode(filter.encode());
 * ```
 */
export declare class ScalableBloomFilter implements Disposable {
  /**
   * @throws {TypeError | RangeError} with `code` `invalidInitialCapacity`,
   * `invalidFalsePositiveRate`, `invalidGrowthFactor`, `invalidTighteningRatio`
   * or `filterTooLarge` (the first stage alone exceeds 2^30 bits); a plain
   * `TypeError` when `options` is not an object.
   */
  constructor(options: ScalableBloomFilterOptions);
  /**
   * Parses an encoded chain.
   * @throws {TypeError} only when `bytes` is not a `Uint8Array`.
   */
  static decode(bytes: Uint8Array): DecodeResult<ScalableBloomFilter, ScalableDecodeError>;
  /**
   * Adds an item (every call counts, duplicates included); returns this.
   * @throws {Error} with `code` `"filterTooLarge"` (chain unchanged) when a
   * new stage would exceed 2^30 bits in total or 256 stages.
   */
  add(item: BloomItem): this;
  /** `false`: never added. `true`: maybe. */
  mightContain(item: BloomItem): boolean;
  /** The wire form, SHA-256 sealed. */
  encode(): Bytes;
  readonly stageCount: number;
  /** Add calls so far, over all stages. */
  readonly itemCount: number;
  /** Bits over all stages. */
  readonly bitCount: number;
  /** `1 − Π(1 − fill_i^k_i)` from the stages' observed fill ratios. */
  readonly estimatedFalsePositiveRate: number;
  readonly initialCapacity: number;
  readonly targetFalsePositiveRate: number;
  readonly growthFactor: number;
  readonly tighteningRatio: number;
  readonly freed: boolean;
  free(): void;
  [Symbol.dispose](): void;
}

/**
 * The classic optimum for n items at rate p: `m = ceil(−n·ln p / ln² 2)` bits,
 * `k = max(1, round(m/n · ln 2))` (half away from zero).
 * @throws {TypeError | RangeError} with `code` `invalidExpectedItemCount`,
 * `invalidFalsePositiveRate` or `filterTooLarge` (m above 2^30).
 *
 * @example
 * ```ts
 * optimalParams(1_000, 0.01); // { m: 9586, k: 7 }
 * ```
 */
export declare function optimalParams(n: number, p: number): { m: number; k: number };

/**
 * The false-positive rate implied by an observed fill ratio: `fill^k`.
 * @throws {TypeError | RangeError} with `code` `invalidFillRatio` (not in
 * [0, 1]) or `invalidHashCount` (k not an integer from 1 to 4096).
 *
 * @example
 * ```ts
 * fppFromFillRatio(filter.fillRatio, filter.k); // 0.0078125 at fill 0.5, k = 7
 * ```
 */
export declare function fppFromFillRatio(fill: number, k: number): number;

/**
 * The fill ratio at which `fill^k` reaches twice the target: `(2p)^(1/k)` —
 * the operator's alert line (≥ 1, so never reached, when p ≥ 0.5).
 * @throws {TypeError | RangeError} with `code` `invalidFalsePositiveRate` or `invalidHashCount`.
 *
 * @example
 * ```ts
 * if (filter.fillRatio >= alertFillRatio(0.01, filter.k)) alert("rebuild the filter"); // 0.5719 for k = 7
 * ```
 */
export declare function alertFillRatio(p: number, k: number): number;

/**
 * The expected fill after n inserts of k probes into m bits: `1 − e^(−kn/m)`.
 * @throws {TypeError | RangeError} with `code` `invalidItemCount` (n not an
 * integer ≥ 0), `invalidBitCount` (m not an integer ≥ 1) or `invalidHashCount`.
 *
 * @example
 * ```ts
 * const { m, k } = optimalParams(1_000, 0.01);
 * fppFromFillRatio(expectedFillRatio(2_000, m, k), k); // the model's rate at 2× the design n
 * ```
 */
export declare function expectedFillRatio(n: number, m: number, k: number): number;
