// Bad-input tables for the other seed systems (TlBloom, MergeableBloomFilter,
// MergeableDelta, ScalableBloomFilter, the sizing helpers). The contract
// (index.d.ts, "The other seed systems"): builders and sizing helpers throw a
// TypeError (wrong type) or RangeError (out of range) carrying `code`; loaders
// throw a TypeError only for a non-Uint8Array and otherwise return the result
// shape; items are a Uint8Array or a string. Never a wrong answer, never a
// wasm trap (a WebAssembly.RuntimeError), never a state change on refusal.
//
// The decode fuzz runs 1,000 seeded buffers per decoder: random bytes, valid
// encodings with random edits, truncations and extensions, and for the sealed
// formats (MBLF, SBLF) edits re-sealed with a correct SHA-256 so the deeper
// checks run too.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MergeableBloomFilter, MergeableDelta, ScalableBloomFilter, TlBloom } from "artifact-bloom/variants";
import { alertFillRatio, expectedFillRatio, fppFromFillRatio, optimalParams } from "artifact-bloom/variants";
import { hex, sealed } from "./helpers/digests.mjs";
import { seededRandom } from "./helpers/random.mjs";

// The brief's table, then a few more numeric edge cases for number parameters.
const BAD = [
  ["undefined", undefined],
  ["null", null],
  ["0", 0],
  ["NaN", Number.NaN],
  ['""', ""],
  ["{}", {}],
  ["[]", []],
  ["[1,2,3]", [1, 2, 3]],
  ["ArrayBuffer(32)", new ArrayBuffer(32)],
  ["DataView", new DataView(new ArrayBuffer(32))],
  ["Uint16Array(16)", new Uint16Array(16)],
];
const MORE_NUMBERS = [
  ["-1", -1],
  ["1.5", 1.5],
  ["Infinity", Number.POSITIVE_INFINITY],
  ["-Infinity", Number.NEGATIVE_INFINITY],
  ["2^53", 2 ** 53],
  ['"10"', "10"],
  ["10n", 10n],
  ["true", true],
  ["Number(5)", Object(5)],
];

/** Asserts `call` throws a TypeError/RangeError (never a trap) naming `parameter`, with `code` if given. */
function throwsArgumentError(call, { parameter, code, kind }) {
  let thrown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown !== undefined, `expected a throw for ${parameter}`);
  assert.ok(!(thrown instanceof WebAssembly.RuntimeError), `a wasm trap: ${thrown?.message}`);
  assert.ok(thrown instanceof TypeError || thrown instanceof RangeError, `${thrown?.name}: ${thrown?.message}`);
  if (kind !== undefined) assert.ok(thrown instanceof kind, `expected ${kind.name}, got ${thrown.name}: ${thrown.message}`);
  assert.ok(thrown.message.startsWith(parameter), `message names ${parameter}: ${thrown.message}`);
  if (code !== undefined) assert.equal(thrown.code, code, thrown.message);
  return thrown;
}

const OPTIONS = Object.freeze({ initialCapacity: 10, targetFalsePositiveRate: 0.01 });

/**
 * Number parameters: [label, call(value), parameter, code, valid(value)]. A
 * number out of range is a RangeError, anything else a TypeError, both with
 * the code. `valid` returns a checker for values that are legitimately fine.
 */
const NUMBER_PARAMETERS = [
  ["TlBloom.withRate(n)", (v) => TlBloom.withRate(v, 0.1), "n", "invalidExpectedItemCount"],
  ["TlBloom.withRate(p)", (v) => TlBloom.withRate(10, v), "p", "invalidFalsePositiveRate"],
  [
    "MergeableBloomFilter.create(expectedElements)",
    (v) => MergeableBloomFilter.create(v, 0.1),
    "expectedElements",
    "invalidExpectedItemCount",
  ],
  [
    "MergeableBloomFilter.create(falsePositiveRate)",
    (v) => MergeableBloomFilter.create(10, v),
    "falsePositiveRate",
    "invalidFalsePositiveRate",
  ],
  [
    "new ScalableBloomFilter({ initialCapacity })",
    (v) => new ScalableBloomFilter({ ...OPTIONS, initialCapacity: v }),
    "initialCapacity",
    "invalidInitialCapacity",
  ],
  [
    "new ScalableBloomFilter({ targetFalsePositiveRate })",
    (v) => new ScalableBloomFilter({ ...OPTIONS, targetFalsePositiveRate: v }),
    "targetFalsePositiveRate",
    "invalidFalsePositiveRate",
  ],
  [
    "new ScalableBloomFilter({ growthFactor })",
    (v) => new ScalableBloomFilter({ ...OPTIONS, growthFactor: v }),
    "growthFactor",
    "invalidGrowthFactor",
    (v) => v === undefined && ((filter) => assert.equal(filter.growthFactor, 2)),
  ],
  [
    "new ScalableBloomFilter({ tighteningRatio })",
    (v) => new ScalableBloomFilter({ ...OPTIONS, tighteningRatio: v }),
    "tighteningRatio",
    "invalidTighteningRatio",
    (v) => v === undefined && ((filter) => assert.equal(filter.tighteningRatio, 0.5)),
  ],
  ["optimalParams(n)", (v) => optimalParams(v, 0.1), "n", "invalidExpectedItemCount"],
  ["optimalParams(p)", (v) => optimalParams(10, v), "p", "invalidFalsePositiveRate"],
  [
    "fppFromFillRatio(fill)",
    (v) => fppFromFillRatio(v, 3),
    "fill",
    "invalidFillRatio",
    (v) => v === 0 && ((r) => assert.equal(r, 0)),
  ],
  ["fppFromFillRatio(k)", (v) => fppFromFillRatio(0.5, v), "k", "invalidHashCount"],
  ["alertFillRatio(p)", (v) => alertFillRatio(v, 3), "p", "invalidFalsePositiveRate"],
  ["alertFillRatio(k)", (v) => alertFillRatio(0.01, v), "k", "invalidHashCount"],
  [
    "expectedFillRatio(n)",
    (v) => expectedFillRatio(v, 100, 3),
    "n",
    "invalidItemCount",
    (v) => v === 0 && ((r) => assert.equal(r, 0)),
  ],
  ["expectedFillRatio(m)", (v) => expectedFillRatio(10, v, 3), "m", "invalidBitCount"],
  ["expectedFillRatio(k)", (v) => expectedFillRatio(10, 100, v), "k", "invalidHashCount"],
];

describe("number parameters: TypeError / RangeError with a code, never a result", () => {
  for (const [label, call, parameter, code, valid = () => false] of NUMBER_PARAMETERS) {
    test(label, () => {
      for (const [name, value] of [...BAD, ...MORE_NUMBERS]) {
        const check = valid(value);
        if (check) {
          check(call(value));
          continue;
        }
        const kind = typeof value === "number" ? RangeError : TypeError;
        try {
          throwsArgumentError(() => call(value), { parameter, code, kind });
        } catch (error) {
          error.message = `${label} with ${name}: ${error.message}`;
          throw error;
        }
      }
    });
  }

  test("ranges at their edges", () => {
    throwsArgumentError(() => TlBloom.withRate(2 ** 30, 0.01), { parameter: "n", code: "filterTooLarge", kind: RangeError });
    throwsArgumentError(() => MergeableBloomFilter.create(2 ** 30, 0.01), {
      parameter: "expectedElements",
      code: "filterTooLarge",
      kind: RangeError,
    });
    throwsArgumentError(() => new ScalableBloomFilter({ initialCapacity: 2 ** 30, targetFalsePositiveRate: 0.01 }), {
      parameter: "initialCapacity",
      code: "filterTooLarge",
    });
    throwsArgumentError(() => new ScalableBloomFilter({ ...OPTIONS, growthFactor: 2 ** 32 }), {
      parameter: "growthFactor",
      code: "invalidGrowthFactor",
    });
    throwsArgumentError(() => new ScalableBloomFilter({ ...OPTIONS, tighteningRatio: 1 }), {
      parameter: "tighteningRatio",
      code: "invalidTighteningRatio",
    });
    throwsArgumentError(() => fppFromFillRatio(1.0000001, 3), { parameter: "fill", code: "invalidFillRatio" });
    throwsArgumentError(() => fppFromFillRatio(0.5, 4097), { parameter: "k", code: "invalidHashCount" });
    throwsArgumentError(() => TlBloom.withRate(10, 1), { parameter: "p", code: "invalidFalsePositiveRate" });
    // The accepted edges.
    new ScalableBloomFilter({ ...OPTIONS, growthFactor: 2 ** 32 - 1 }).free();
    new ScalableBloomFilter({ ...OPTIONS, growthFactor: 1 }).free();
    assert.equal(fppFromFillRatio(1, 4096), 1);
    TlBloom.withRate(1, Number.MIN_VALUE).free();
    TlBloom.withRate(1, 1 - Number.EPSILON).free();
  });
});

describe("ScalableBloomFilter options object", () => {
  test("a non-object is a TypeError naming options; an object without initialCapacity is coded", () => {
    for (const [name, value] of BAD) {
      const isObject = value !== null && typeof value === "object";
      const error = throwsArgumentError(() => new ScalableBloomFilter(value), {
        parameter: isObject ? "initialCapacity" : "options",
        code: isObject ? "invalidInitialCapacity" : undefined,
        kind: TypeError,
      });
      assert.ok(error, name);
    }
  });
});

describe("private constructors", () => {
  for (const Class of [TlBloom, MergeableBloomFilter, MergeableDelta]) {
    test(`new ${Class.name}(…) is a TypeError`, () => {
      for (const [, value] of [...BAD, ["no argument", undefined]]) {
        assert.throws(() => new Class(value), TypeError);
        assert.throws(() => new Class(value, {}), TypeError);
      }
    });
  }
});

/** Fresh instances with a little content, and a way to snapshot their state. */
function subjects() {
  const tl = TlBloom.withRate(100, 0.01).insert("cat");
  const mg = MergeableBloomFilter.create(100, 0.01);
  const delta = mg.add("cat");
  const sc = new ScalableBloomFilter(OPTIONS).add("cat");
  return { tl, mg, delta, sc };
}

const stateOf = ({ tl, mg, sc }) => [tl.toBytes(), mg.encode(), sc.encode()].map(hex);

describe("item parameters: a Uint8Array or a string, anything else a TypeError naming item", () => {
  const ITEM_METHODS = [
    ["TlBloom#insert", (s, v) => s.tl.insert(v)],
    ["TlBloom#contains", (s, v) => s.tl.contains(v)],
    ["MergeableBloomFilter#add", (s, v) => s.mg.add(v)],
    ["MergeableBloomFilter#mightContain", (s, v) => s.mg.mightContain(v)],
    ["ScalableBloomFilter#add", (s, v) => s.sc.add(v)],
    ["ScalableBloomFilter#mightContain", (s, v) => s.sc.mightContain(v)],
  ];
  for (const [label, call] of ITEM_METHODS) {
    test(label, () => {
      const s = subjects();
      for (const [name, value] of [...BAD, ...MORE_NUMBERS, ["a Buffer-like object", { length: 3, 0: 1, 1: 2, 2: 3 }]]) {
        if (typeof value === "string") continue; // a valid item ("" is checked below)
        const before = stateOf(s);
        const error = throwsArgumentError(() => call(s, value), { parameter: "item", kind: TypeError });
        assert.ok(error, name);
        assert.deepEqual(stateOf(s), before, `${label} with ${name} changed the state`);
      }
    });
  }

  test('"" is the empty item, exactly like new Uint8Array(0)', () => {
    const a = subjects();
    const b = subjects();
    assert.equal(a.tl.contains(""), false);
    assert.equal(a.mg.mightContain(""), a.mg.mightContain(new Uint8Array(0)));
    a.tl.insert("");
    b.tl.insert(new Uint8Array(0));
    assert.deepEqual(a.mg.add("").entries, b.mg.add(new Uint8Array(0)).entries);
    a.sc.add("");
    b.sc.add(new Uint8Array(0));
    assert.deepEqual(stateOf(a), stateOf(b));
    assert.equal(a.tl.contains(new Uint8Array(0)), true);
    assert.equal(b.mg.mightContain(""), true);
    assert.equal(b.sc.mightContain(""), true);
  });

  test("a Buffer and a Uint8Array view at an offset are items like any Uint8Array", () => {
    const s = subjects();
    const backing = new Uint8Array([9, 9, ...Buffer.from("dog"), 9]);
    s.tl.insert(Buffer.from("dog"));
    assert.equal(s.tl.contains(backing.subarray(2, 5)), true);
    assert.equal(s.tl.contains("dog"), true);
  });
});

describe("object parameters: union and piece", () => {
  test("TlBloom#union and MergeableBloomFilter#piece refuse anything but their own kind", () => {
    const s = subjects();
    const others = [...BAD, ["a MergeableBloomFilter", s.mg], ["a ScalableBloomFilter", s.sc]];
    for (const [name, value] of others) {
      const before = stateOf(s);
      assert.ok(
        throwsArgumentError(() => s.tl.union(value), { parameter: "other", kind: TypeError }),
        name,
      );
      assert.deepEqual(stateOf(s), before);
    }
    for (const [name, value] of [...BAD, ["a TlBloom", s.tl], ["a ScalableBloomFilter", s.sc]]) {
      const before = stateOf(s);
      assert.ok(
        throwsArgumentError(() => s.mg.piece(value), { parameter: "deltaOrFilter", kind: TypeError }),
        name,
      );
      assert.deepEqual(stateOf(s), before);
    }
  });

  test("a freed argument is refused with the freed error", () => {
    const s = subjects();
    const freedTl = TlBloom.withRate(100, 0.01);
    freedTl.free();
    assert.throws(() => s.tl.union(freedTl), /freed/);
    const freedDelta = s.mg.add("x");
    freedDelta.free();
    assert.throws(() => s.mg.piece(freedDelta), /freed/);
  });
});

describe("loaders: a non-Uint8Array is a TypeError naming bytes", () => {
  const LOADERS = [
    ["TlBloom.fromBytes", (v) => TlBloom.fromBytes(v)],
    ["MergeableBloomFilter.decode", (v) => MergeableBloomFilter.decode(v)],
    ["MergeableDelta.decode", (v) => MergeableDelta.decode(v)],
    ["ScalableBloomFilter.decode", (v) => ScalableBloomFilter.decode(v)],
  ];
  for (const [label, load] of LOADERS) {
    test(label, () => {
      for (const [name, value] of BAD) {
        assert.ok(
          throwsArgumentError(() => load(value), { parameter: "bytes", kind: TypeError }),
          name,
        );
      }
      // An empty Uint8Array is bytes: a typed failure, not a throw.
      const empty = load(new Uint8Array(0));
      assert.equal(empty.kind, "failure");
      assert.equal(empty.error, "truncated");
    });
  }
});

describe("methods without parameters ignore extra arguments", () => {
  test("toBytes / encode / getters answer the same with any extra argument", () => {
    const s = subjects();
    for (const [, value] of BAD) {
      assert.deepEqual(s.tl.toBytes(value), s.tl.toBytes());
      assert.deepEqual(s.mg.encode(value), s.mg.encode());
      assert.deepEqual(s.delta.encode(value), s.delta.encode());
      assert.deepEqual(s.sc.encode(value), s.sc.encode());
    }
  });
});

describe("after free(), every method and getter throws (no trap, no stale answer)", () => {
  const cases = {
    TlBloom: [
      (x) => x.insert("a"),
      (x) => x.contains("a"),
      (x) => x.union(TlBloom.withRate(100, 0.01)),
      (x) => x.toBytes(),
      (x) => x.m,
      (x) => x.k,
      (x) => x.insertedCount,
      (x) => x.fillRatio,
    ],
    MergeableBloomFilter: [
      (x) => x.add("a"),
      (x) => x.mightContain("a"),
      (x) => x.piece(MergeableBloomFilter.create(100, 0.01)),
      (x) => x.encode(),
      (x) => x.wordCount,
      (x) => x.nonZeroWordCount,
      (x) => x.bitCount,
      (x) => x.hashCount,
      (x) => x.fillRatio,
    ],
    MergeableDelta: [(x) => x.encode(), (x) => x.entries, (x) => x.bitCount, (x) => x.hashCount],
    ScalableBloomFilter: [
      (x) => x.add("a"),
      (x) => x.mightContain("a"),
      (x) => x.encode(),
      (x) => x.stageCount,
      (x) => x.itemCount,
      (x) => x.bitCount,
      (x) => x.estimatedFalsePositiveRate,
      (x) => x.initialCapacity,
      (x) => x.targetFalsePositiveRate,
      (x) => x.growthFactor,
      (x) => x.tighteningRatio,
    ],
  };
  const make = {
    TlBloom: () => subjects().tl,
    MergeableBloomFilter: () => subjects().mg,
    MergeableDelta: () => subjects().delta,
    ScalableBloomFilter: () => subjects().sc,
  };
  for (const [name, calls] of Object.entries(cases)) {
    test(name, () => {
      const subject = make[name]();
      assert.equal(subject.freed, false);
      subject.free();
      assert.equal(subject.freed, true);
      for (const call of calls) {
        assert.throws(
          () => call(subject),
          (error) => !(error instanceof WebAssembly.RuntimeError) && /freed/.test(error.message),
        );
      }
      subject.free(); // idempotent
      subject[Symbol.dispose]();
    });
  }
});

// ---- decode fuzz ---------------------------------------------------------------

const TLBF_ERRORS = new Set([
  "truncated",
  "badMagic",
  "unsupportedVersion",
  "zeroBitCount",
  "zeroHashCount",
  "nonZeroReserved",
  "filterTooLarge",
  "hashCountTooLarge",
  "lengthMismatch",
  "nonZeroPadding",
]);
const MBLF_ERRORS = new Set([
  "truncated",
  "badMagic",
  "unsupportedVersion",
  "checksumMismatch",
  "unknownKind",
  "unexpectedKind",
  "nonZeroReserved",
  "invalidBitCount",
  "filterTooLarge",
  "zeroHashCount",
  "hashCountTooLarge",
  "lengthMismatch",
  "entryCountMismatch",
  "wordIndexOutOfRange",
  "wordIndicesNotIncreasing",
  "zeroWordValue",
  "nonCanonicalEncoding",
]);
const SBLF_ERRORS = new Set([
  "truncated",
  "badMagic",
  "unsupportedVersion",
  "checksumMismatch",
  "nonZeroReserved",
  "invalidInitialCapacity",
  "invalidFalsePositiveRate",
  "invalidGrowthFactor",
  "invalidTighteningRatio",
  "zeroStageCount",
  "filterTooLarge",
  "stageCapacityMismatch",
  "itemCountExceedsCapacity",
  "stageNotFull",
  "emptyStage",
  "invalidBitCount",
  "zeroHashCount",
  "hashCountTooLarge",
  "lengthMismatch",
]);

/** One fuzz input derived from `valid` encodings (or not) by a seeded strategy. */
function fuzzInput(random, valids, { seal }) {
  const int = (n) => Math.floor(random() * n);
  const strategy = int(seal ? 6 : 5);
  if (strategy === 0) return Uint8Array.from({ length: int(200) }, () => int(256));
  const base = valids[int(valids.length)];
  if (strategy === 1) return base.subarray(0, int(base.length + 1));
  if (strategy === 2) return new Uint8Array([...base, ...Array.from({ length: 1 + int(16) }, () => int(256))]);
  if (strategy === 3) {
    // Random bytes after a valid magic and version.
    return new Uint8Array([...base.subarray(0, 8), ...Array.from({ length: int(120) }, () => int(256))]);
  }
  const bytes = base.slice();
  // Edits biased towards the header, where the interesting fields are.
  for (let i = 1 + int(4); i > 0; i -= 1) {
    const at = random() < 0.7 ? int(Math.min(bytes.length, 80)) : int(bytes.length);
    bytes[at] = random() < 0.5 ? int(256) : bytes[at] ^ (1 << int(8));
  }
  if (strategy === 5) return sealed(bytes.subarray(0, bytes.length - 32));
  return bytes;
}

/** Codes seen per decoder (reported as a diagnostic: how deep the fuzz reached). */
const seen = new Map();

function checkResult(result, errors, Class, label) {
  assert.ok(result !== null && typeof result === "object", label);
  if (result.kind === "failure") {
    if (!seen.has(errors)) seen.set(errors, new Set());
    seen.get(errors).add(result.error);
    assert.ok(errors.has(result.error), `${label}: undocumented code ${result.error}`);
    assert.equal(typeof result.message, "string");
    assert.ok(result.message.length > 0);
    assert.deepEqual(Object.keys(result).sort(), ["error", "kind", "message"]);
    return undefined;
  }
  assert.equal(result.kind, "success", label);
  assert.ok(result.value instanceof Class, label);
  return result.value;
}

describe("decode fuzz: 1,000 seeded buffers per decoder, only the documented result shape", () => {
  test("TlBloom.fromBytes", (t) => {
    const random = seededRandom(0x71bf);
    const valids = [
      TlBloom.withRate(4, 0.1).insert("cat").insert("dog").toBytes(),
      TlBloom.withRate(10, 0.01).toBytes(),
      TlBloom.withRate(100, 0.001).insert("x").toBytes(),
    ];
    let accepted = 0;
    for (let i = 0; i < 1_000; i += 1) {
      const input = fuzzInput(random, valids, { seal: false });
      const filter = checkResult(TlBloom.fromBytes(input), TLBF_ERRORS, TlBloom, `input ${i}`);
      if (filter) {
        accepted += 1;
        // Every accepted input round-trips byte for byte and answers queries.
        assert.deepEqual(filter.toBytes(), input);
        assert.equal(typeof filter.contains("probe"), "boolean");
        filter.free();
      }
    }
    t.diagnostic(`${accepted} of 1000 accepted; failure codes seen: ${[...seen.get(TLBF_ERRORS)].join(", ")}`);
  });

  test("MergeableBloomFilter.decode and MergeableDelta.decode", (t) => {
    const random = seededRandom(0x3b1f);
    const dense = MergeableBloomFilter.create(50, 0.1);
    for (let i = 0; i < 60; i += 1) dense.add(`d${i}`);
    const sparse = MergeableBloomFilter.create(1_000, 0.01);
    const delta = sparse.add("alice").encode();
    sparse.add("bob");
    const valids = [dense.encode(), sparse.encode(), delta, MergeableBloomFilter.create(10, 0.5).encode()];
    let accepted = 0;
    for (let i = 0; i < 1_000; i += 1) {
      const input = fuzzInput(random, valids, { seal: true });
      const filter = checkResult(MergeableBloomFilter.decode(input), MBLF_ERRORS, MergeableBloomFilter, `state ${i}`);
      const parsed = checkResult(MergeableDelta.decode(input), MBLF_ERRORS, MergeableDelta, `delta ${i}`);
      if (filter) {
        accepted += 1;
        assert.deepEqual(filter.encode(), input, "canonical: re-encodes to itself");
        assert.equal(typeof filter.mightContain("probe"), "boolean");
        filter.free();
      }
      if (parsed) {
        accepted += 1;
        assert.deepEqual(parsed.encode(), input);
        // Applying it to a filter of its shape works or is incompatibleFilters, nothing else.
        assert.ok(Array.isArray(parsed.entries));
      }
    }
    t.diagnostic(`${accepted} of 2000 decodes accepted; failure codes seen: ${[...seen.get(MBLF_ERRORS)].join(", ")}`);
  });

  test("ScalableBloomFilter.decode", (t) => {
    const random = seededRandom(0x5b1f);
    const grown = new ScalableBloomFilter({ initialCapacity: 4, targetFalsePositiveRate: 0.1 });
    for (let i = 0; i < 20; i += 1) grown.add(`g${i}`);
    const valids = [
      grown.encode(),
      new ScalableBloomFilter(OPTIONS).encode(),
      new ScalableBloomFilter({ initialCapacity: 1, targetFalsePositiveRate: 0.5, growthFactor: 1, tighteningRatio: 0.9 })
        .add("a")
        .add("b")
        .encode(),
    ];
    let accepted = 0;
    for (let i = 0; i < 1_000; i += 1) {
      const input = fuzzInput(random, valids, { seal: true });
      const filter = checkResult(ScalableBloomFilter.decode(input), SBLF_ERRORS, ScalableBloomFilter, `input ${i}`);
      if (filter) {
        accepted += 1;
        assert.deepEqual(filter.encode(), input);
        assert.equal(typeof filter.mightContain("probe"), "boolean");
        assert.ok(Number.isFinite(filter.estimatedFalsePositiveRate));
        filter.free();
      }
    }
    t.diagnostic(`${accepted} of 1000 accepted; failure codes seen: ${[...seen.get(SBLF_ERRORS)].join(", ")}`);
  });
});
