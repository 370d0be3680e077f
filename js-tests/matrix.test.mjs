// The bad-input MATRIX: every export of the package (and every public method
// and parameter of the exported classes) × the same 20 awkward values.
//
// bad-input.test.mjs holds hand-written tables for the filter's core calls;
// this file is generated from one table of (export, member, parameter,
// contract) rows, and checks that the table covers every export
// (of "artifact-bloom", "artifact-bloom/variants" and "artifact-bloom/delta") and every public member of
// every exported class — a new export or method fails "the table covers …"
// until a row is added for it.
//
// Contracts (what "the documented result" means per parameter kind):
//   digest  a 32-byte SHA-256 digest: a valid view (plain, at byteOffset 5 of
//           a larger buffer, over a SharedArrayBuffer) answers exactly like a
//           fresh copy; anything else throws/rejects RangeError or TypeError
//           naming the parameter — never false/"absent".
//   packed  N × 32 digest bytes: non-Uint8Array → TypeError, a length that is
//           not a multiple of 32 → RangeError (both naming the parameter),
//           whole digests → like a fresh copy.
//   bytes   any Uint8Array (hash input, a file to load): non-Uint8Array →
//           TypeError naming the parameter; every Uint8Array → like a fresh copy
//           (a file loader then answers a typed failure for these short inputs).
//   item    a Uint8Array or a string (TLBF / mergeable / scalable items).
//   throws  no value in the list is valid: TypeError/RangeError naming it.
//   failure a result-shaped typed failure `{ kind: "failure", error: code }`.
//   ignored a method without that parameter: the extra argument changes nothing.
//   accepts an options bag whose fields all have defaults: anything that is
//           not an object is treated as "no options" (no throw).
// A detached view has length 0 (the buffer was transferred): for a digest
// it is a RangeError; for byte/batch parameters it is read as 0 bytes (or
// refused with a TypeError/RangeError naming the parameter — either passes).
// In every case: never a WebAssembly.RuntimeError, never "unreachable".
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as mainEntry from "artifact-bloom";
import * as variantsEntry from "artifact-bloom/variants";
import * as deltaEntry from "artifact-bloom/delta";

// The three entries, as one table: the matrix covers every export of each.
const pkg = { ...mainEntry, ...variantsEntry, ...deltaEntry };

const {
  ArtifactBloomFilter,
  ArtifactExistenceService,
  HttpArtifactRepository,
  MergeableBloomFilter,
  MergeableDelta,
  OciRegistryError,
  OciRegistryRepository,
  ScalableBloomFilter,
  Sha256,
  SnapshotHolder,
  TlBloom,
} = pkg;

const SPEC = Object.freeze({ expectedItemCount: 16, targetFalsePositiveRate: 0.01 });
const CATALOG_VERSION = 7;
const digestOf = (text) => new Uint8Array(createHash("sha256").update(text).digest());
const hexOf = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
const MEMBERS = Array.from({ length: 10 }, (_, i) => digestOf(`member:${i}`));
const MEMBER = MEMBERS[3];
const MEMBER_HEX = new Set(MEMBERS.map(hexOf));

// ---------------------------------------------------------------------------
// The 20 values. Built fresh for every call (a call may keep or detach them).
// kind: "d32" a valid 32-byte view holding a member digest; "u8" another
// Uint8Array; "detached" a Uint8Array whose buffer was transferred; "other".
// ---------------------------------------------------------------------------
function atOffset5(content) {
  const backing = new Uint8Array(5 + content.byteLength + 27).fill(0xa5);
  backing.set(content, 5);
  return backing.subarray(5, 5 + content.byteLength);
}
function onShared(content) {
  const view = new Uint8Array(new SharedArrayBuffer(content.byteLength));
  view.set(content);
  return view;
}
function detached(content) {
  const view = Uint8Array.from(content);
  structuredClone(view.buffer, { transfer: [view.buffer] });
  return view;
}

const VALUES = [
  ["undefined", () => undefined, "other"],
  ["null", () => null, "other"],
  ["0", () => 0, "other"],
  ["NaN", () => Number.NaN, "other"],
  ['""', () => "", "other"],
  ['"ab"', () => "ab", "other"],
  ["{}", () => ({}), "other"],
  ["[]", () => [], "other"],
  ["[1,2,3]", () => [1, 2, 3], "other"],
  ["ArrayBuffer(32)", () => new ArrayBuffer(32), "other"],
  ["DataView(ArrayBuffer(32))", () => new DataView(new ArrayBuffer(32)), "other"],
  ["Uint16Array(16)", () => new Uint16Array(16), "other"],
  ["Int8Array(32)", () => new Int8Array(32), "other"],
  ["Float64Array(4)", () => new Float64Array(4), "other"],
  ["Uint8Array(31)", () => MEMBER.slice(0, 31), "u8"],
  ["Uint8Array(32)", () => Uint8Array.from(MEMBER), "d32"],
  ["Uint8Array(33)", () => Uint8Array.from([...MEMBER, 1]), "u8"],
  ["Uint8Array subarray at byteOffset 5", () => atOffset5(MEMBER), "d32"],
  ["Uint8Array over a SharedArrayBuffer", () => onShared(MEMBER), "d32"],
  ["detached Uint8Array (buffer transferred)", () => detached(MEMBER), "detached"],
];

/** A plain copy of a Uint8Array value (detached → a fresh empty one), anything else as is. */
const freshCopy = (value) =>
  value instanceof Uint8Array ? (value.byteLength === 0 ? new Uint8Array(0) : Uint8Array.from(value)) : value;

// ---------------------------------------------------------------------------
// Outcomes: what a call did, as comparable plain data.
// ---------------------------------------------------------------------------
function summarize(value, depth = 0) {
  if (value === undefined || value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : value;
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return "function";
  if (value instanceof Uint8Array) return { u8: hexOf(value) };
  if (value instanceof ArtifactBloomFilter) {
    return value.freed
      ? { filter: "freed" }
      : { filter: hexOf(digestOf(value.serializeBits())), bitCount: value.getBitCount(), inserted: value.getInsertedItemCount() };
  }
  if (value instanceof TlBloom) return value.freed ? { tlbf: "freed" } : { tlbf: hexOf(value.toBytes()) };
  if (value instanceof MergeableBloomFilter || value instanceof ScalableBloomFilter || value instanceof MergeableDelta) {
    return value.freed ? { [value.constructor.name]: "freed" } : { [value.constructor.name]: hexOf(value.encode()) };
  }
  if (
    value instanceof Sha256
    || value instanceof SnapshotHolder
    || value instanceof ArtifactExistenceService
    || value instanceof HttpArtifactRepository
  )
    return { instance: value.constructor.name };
  if (value instanceof Date) return { date: value.getTime() };
  if (Array.isArray(value)) return value.map((item) => summarize(item, depth + 1));
  if (typeof value === "object" && depth < 4) {
    const out = {};
    for (const key of Object.keys(value)) out[key] = key === "message" ? "…" : summarize(value[key], depth + 1);
    return out;
  }
  return typeof value;
}

const TIMEOUT = Symbol("timeout");
/** Runs `call()` (sync or async) → `{ ok: summary }` or `{ threw: name, message }`. */
async function outcomeOf(call) {
  try {
    let result = call();
    if (result instanceof Promise) {
      let timer;
      result = await Promise.race([
        result,
        new Promise((resolve) => {
          timer = setTimeout(resolve, 30_000, TIMEOUT);
        }),
      ]);
      clearTimeout(timer);
      if (result === TIMEOUT) return { threw: "Timeout", message: "the promise did not settle in 30 s" };
    }
    return { ok: summarize(result) };
  } catch (error) {
    const name = error instanceof WebAssembly.RuntimeError ? "WebAssembly.RuntimeError" : (error?.name ?? typeof error);
    return { threw: name, message: String(error?.message ?? error) };
  }
}

// ---------------------------------------------------------------------------
// Contracts
// ---------------------------------------------------------------------------
const isParamError = (outcome, param) =>
  (outcome.threw === "TypeError" || outcome.threw === "RangeError") && param.test(outcome.message);
const describeOutcome = (o) => ("ok" in o ? `returned ${JSON.stringify(o.ok)}` : `threw ${o.threw}: ${o.message}`);

/**
 * Checks one outcome → undefined (as documented) or a string saying what is wrong.
 * `fresh` is the outcome of the same call with a fresh copy of the value.
 */
function violation(contract, label, kind, outcome, fresh, baseline) {
  if (outcome.threw === "WebAssembly.RuntimeError" || /unreachable/i.test(outcome.message ?? "")) {
    return `wasm trap: ${outcome.message}`;
  }
  if (contract.type === "custom") return contract.check(outcome);
  if (
    outcome.threw !== undefined
    && outcome.threw !== "TypeError"
    && outcome.threw !== "RangeError"
    && !(contract.allowErrors ?? []).includes(outcome.threw)
  ) {
    return `threw ${outcome.threw} (${outcome.message}); documented: TypeError/RangeError or a result`;
  }
  // A detached buffer refused by the engine itself ("Cannot perform … on a
  // detached ArrayBuffer") is a refusal, as documented for any bad value.
  if (kind === "detached" && outcome.threw === "TypeError" && /detached/.test(outcome.message)) return undefined;
  const override = contract.valid?.[label];
  if (override !== undefined) return override(outcome, fresh);
  const { param } = contract;
  const paramError = () =>
    isParamError(outcome, param) ? undefined : `expected a TypeError/RangeError naming ${param}, ${describeOutcome(outcome)}`;
  // A detached view: refused with a TypeError/RangeError naming the parameter
  // or the engine's own "detached ArrayBuffer" TypeError, or read as 0 bytes.
  const detachedOk = () =>
    isParamError(outcome, param) || (outcome.threw === "TypeError" && /detached/.test(outcome.message)) ? undefined : likeFresh();
  const likeFresh = () =>
    JSON.stringify(outcome) === JSON.stringify(fresh)
      ? undefined
      : `differs from a fresh copy: ${describeOutcome(outcome)} vs ${describeOutcome(fresh)}`;
  switch (contract.type) {
    case "digest":
      return kind === "d32" ? likeFresh() : paramError();
    case "packed":
      if (kind === "d32") return likeFresh();
      if (kind === "detached") return detachedOk();
      if (kind === "u8")
        return outcome.threw === "RangeError" && param.test(outcome.message)
          ? undefined
          : `expected a RangeError naming ${param}, ${describeOutcome(outcome)}`;
      return outcome.threw === "TypeError" && param.test(outcome.message)
        ? undefined
        : `expected a TypeError naming ${param}, ${describeOutcome(outcome)}`;
    case "bytes":
    case "item":
      if (kind === "detached") return detachedOk();
      return kind === "other" ? paramError() : likeFresh();
    case "throws":
      return paramError();
    case "failure":
      return "ok" in outcome && outcome.ok?.kind === "failure" && outcome.ok.error === contract.code
        ? undefined
        : `expected { kind: "failure", error: "${contract.code}" }, ${describeOutcome(outcome)}`;
    case "ignored":
      return JSON.stringify(outcome) === JSON.stringify(baseline)
        ? undefined
        : `an extra argument changed the outcome: ${describeOutcome(outcome)} vs ${describeOutcome(baseline)}`;
    case "accepts":
      return "ok" in outcome ? undefined : `options should default, ${describeOutcome(outcome)}`;
    default:
      throw new Error(`unknown contract ${contract.type}`);
  }
}

// Shorthands for the table.
const digest = (param) => ({ type: "digest", param });
const packed = (param) => ({ type: "packed", param });
const bytes = (param, extra = {}) => ({ type: "bytes", param, ...extra });
const throws = (param, extra = {}) => ({ type: "throws", param, ...extra });
const failure = (code, extra = {}) => ({ type: "failure", code, ...extra });
const ignored = { type: "ignored" };
const accepts = { type: "accepts" };
/** Items: strings are items too (their UTF-8 bytes), so they answer. */
const item = (param) => ({
  type: "item",
  param,
  valid: { '""': ok, '"ab"': ok },
});
function ok(outcome) {
  return "ok" in outcome ? undefined : `expected an answer, ${describeOutcome(outcome)}`;
}
const okResult = (outcome) =>
  "ok" in outcome && outcome.ok?.kind === "success" ? undefined : `expected success, ${describeOutcome(outcome)}`;
const okValue = (expected) => (outcome) =>
  JSON.stringify(outcome) === JSON.stringify({ ok: expected })
    ? undefined
    : `expected ${JSON.stringify(expected)}, ${describeOutcome(outcome)}`;

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------
function buildFilter(digests = MEMBERS) {
  const result = ArtifactBloomFilter.create(digests, SPEC);
  assert.equal(result.kind, "success");
  return result.value;
}
const FILTER = buildFilter();
const SNAPSHOT_BYTES = pkg.encodeSnapshot(FILTER, { catalogVersion: CATALOG_VERSION });
const snapshot = () => ({ catalogVersion: CATALOG_VERSION, filter: FILTER });
// Two later versions of the catalog (three and five more digests) and the
// ABD1 deltas 7 → 8 and 8 → 9.
const grown = (extra, catalogVersion) => ({
  catalogVersion,
  filter: buildFilter([...MEMBERS, ...Array.from({ length: extra }, (_, i) => digestOf(`grown:${i}`))]),
});
const grownSnapshot = () => grown(3, CATALOG_VERSION + 1);
const mustDelta = (result) => {
  assert.equal(result.kind, "success", result.message);
  return result.value;
};
const ABD1_BYTES = mustDelta(pkg.encodeSnapshotDelta(snapshot(), grownSnapshot()));
const NEXT_ABD1_BYTES = mustDelta(pkg.encodeSnapshotDelta(grownSnapshot(), grown(5, CATALOG_VERSION + 2)));
const repository = () => ({ existsAtVersionAsync: async (d) => MEMBER_HEX.has(hexOf(d)) });
// A fixed clock: metrics() and prometheus() report the snapshot's age, and two
// calls a millisecond apart must render identically for the "ignored" rows.
const FIXED_NOW = () => 1_700_000_000_000;
const service = () => new ArtifactExistenceService(snapshot(), repository(), { now: FIXED_NOW });
const holder = () => new SnapshotHolder(snapshot());
const tlbf = () => TlBloom.withRate(16, 0.01).insert("member");
const TLBF_BYTES = tlbf().toBytes();
const mergeable = () => {
  const filter = MergeableBloomFilter.create(16, 0.01);
  filter.add("member");
  return filter;
};
const MERGEABLE_BYTES = mergeable().encode();
const DELTA_BYTES = MergeableBloomFilter.create(16, 0.01).add("member").encode();
const delta = () => MergeableDelta.decode(DELTA_BYTES).value;
const scalable = () => new ScalableBloomFilter({ initialCapacity: 4, targetFalsePositiveRate: 0.01 }).add("member");
const SCALABLE_BYTES = scalable().encode();

let server; // the package's own `serve` (HttpArtifactRepository's documented peer)
let registry; // a stand-in OCI registry: HEAD /v2/lib/blobs/sha256:<hex> → 200 for MEMBERS, else 404
const oci = () => new OciRegistryRepository(registry.url, "lib");
let tmp;
const NO_ARG = Symbol("no argument");

// ---------------------------------------------------------------------------
// The table: [export, member, parameter, contract, call(value) ].
// `call(v)` must build its own receiver, so every value meets a fresh object.
// A `valid` map in a contract names the values that are legitimately accepted.
// ---------------------------------------------------------------------------
const ROWS = [
  // ArtifactBloomFilter
  ["ArtifactBloomFilter", "constructor", "token", throws(/create/), (v) => new ArtifactBloomFilter(v)],
  [
    "ArtifactBloomFilter",
    "create",
    "digests",
    failure("invalidDigest", { valid: { "[]": okResult } }),
    (v) => ArtifactBloomFilter.create(v, SPEC),
  ],
  [
    "ArtifactBloomFilter",
    "create",
    "digests[i]",
    {
      ...failure("invalidDigest"),
      valid: Object.fromEntries(
        ["Uint8Array(32)", "Uint8Array subarray at byteOffset 5", "Uint8Array over a SharedArrayBuffer"].map((l) => [
          l,
          (o, f) =>
            JSON.stringify(o) === JSON.stringify(f) && o.ok?.kind === "success"
              ? undefined
              : `expected the filter of a fresh copy, ${describeOutcome(o)}`,
        ]),
      ),
    },
    (v) => ArtifactBloomFilter.create([MEMBERS[0], v], SPEC),
  ],
  ["ArtifactBloomFilter", "create", "spec", failure("invalidExpectedItemCount"), (v) => ArtifactBloomFilter.create([], v)],
  [
    "ArtifactBloomFilter",
    "createPacked",
    "packed",
    {
      ...failure("invalidDigest"),
      valid: {
        ...Object.fromEntries(
          ["Uint8Array(32)", "Uint8Array subarray at byteOffset 5", "Uint8Array over a SharedArrayBuffer"].map((l) => [
            l,
            (o, f) =>
              JSON.stringify(o) === JSON.stringify(f) && o.ok?.kind === "success"
                ? undefined
                : `expected the filter of a fresh copy, ${describeOutcome(o)}`,
          ]),
        ),
        // 0 bytes = 0 digests (documented: a length that is a multiple of 32).
        "detached Uint8Array (buffer transferred)": (o) =>
          (o.ok?.kind === "success" && o.ok.value.inserted === 0)
          || o.ok?.error === "invalidDigest"
          || isParamError(o, /packed/)
          || (o.threw === "TypeError" && /detached/.test(o.message))
            ? undefined
            : describeOutcome(o),
      },
    },
    (v) => ArtifactBloomFilter.createPacked(v, SPEC),
  ],
  [
    "ArtifactBloomFilter",
    "createPacked",
    "spec",
    failure("invalidExpectedItemCount"),
    (v) => ArtifactBloomFilter.createPacked(new Uint8Array(0), v),
  ],
  ["ArtifactBloomFilter", "union", "a", throws(/union/), (v) => ArtifactBloomFilter.union(v, FILTER)],
  ["ArtifactBloomFilter", "union", "b", throws(/union/), (v) => ArtifactBloomFilter.union(FILTER, v)],
  ["ArtifactBloomFilter", "mightContain", "digest", digest(/digest/), (v) => FILTER.mightContain(v)],
  ["ArtifactBloomFilter", "mightContainMany", "packed", packed(/packed/), (v) => FILTER.mightContainMany(v)],
  ["ArtifactBloomFilter", "countMaybe", "packed", packed(/packed/), (v) => FILTER.countMaybe(v)],
  ...[
    "getBitCount",
    "getHashProtocolVersion",
    "getHashCount",
    "getInsertedItemCount",
    "getExpectedItemCount",
    "getTargetFalsePositiveRate",
    "estimateFalsePositiveRate",
    "getFillRatio",
    "serializeBits",
  ].map((m) => ["ArtifactBloomFilter", m, "(none)", ignored, (v) => (v === NO_ARG ? FILTER[m]() : FILTER[m](v))]),
  ["ArtifactBloomFilter", "freed", "(getter)", ignored, () => FILTER.freed],
  [
    "ArtifactBloomFilter",
    "free",
    "(none)",
    ignored,
    (v) => {
      const f = buildFilter();
      if (v === NO_ARG) f.free();
      else f.free(v);
      return f.freed;
    },
  ],
  [
    "ArtifactBloomFilter",
    "Symbol.dispose",
    "(none)",
    ignored,
    (v) => {
      const f = buildFilter();
      if (v === NO_ARG) f[Symbol.dispose]();
      else f[Symbol.dispose](v);
      return f.freed;
    },
  ],

  // Sha256 / sha256 / dedupePacked / wasmMemoryBytes / init
  ["Sha256", "constructor", "(none)", ignored, (v) => (v === NO_ARG ? new Sha256() : new Sha256(v)).update(MEMBER).digest()],
  ["Sha256", "update", "bytes", bytes(/bytes/), (v) => new Sha256().update(v).digest()],
  ["Sha256", "digest", "(none)", ignored, (v) => (v === NO_ARG ? new Sha256().digest() : new Sha256().digest(v))],
  [
    "Sha256",
    "free",
    "(none)",
    ignored,
    (v) => {
      const h = new Sha256();
      if (v === NO_ARG) h.free();
      else h.free(v);
      return "freed";
    },
  ],
  [
    "Sha256",
    "Symbol.dispose",
    "(none)",
    ignored,
    (v) => {
      const h = new Sha256();
      if (v === NO_ARG) h[Symbol.dispose]();
      else h[Symbol.dispose](v);
      return "freed";
    },
  ],
  ["sha256", "(function)", "bytes", bytes(/bytes/), (v) => pkg.sha256(v)],
  ["dedupePacked", "(function)", "packed", packed(/packed/), (v) => pkg.dedupePacked(v)],
  [
    "wasmMemoryBytes",
    "(function)",
    "(none)",
    { type: "custom", check: (o) => (typeof o.ok === "number" && o.ok > 0 ? undefined : describeOutcome(o)) },
    (v) => (v === NO_ARG ? pkg.wasmMemoryBytes() : pkg.wasmMemoryBytes(v)),
  ],
  [
    "variantsMemoryBytes",
    "(function)",
    "(none)",
    { type: "custom", check: (o) => (typeof o.ok === "number" && o.ok > 0 ? undefined : describeOutcome(o)) },
    (v) => (v === NO_ARG ? variantsEntry.variantsMemoryBytes() : variantsEntry.variantsMemoryBytes(v)),
  ],
  [
    "init",
    "(function)",
    "options",
    { type: "custom", check: (o) => ("ok" in o ? undefined : describeOutcome(o)) },
    (v) => pkg.init(v),
  ],
  [
    "default",
    "(function)",
    "options",
    { type: "custom", check: (o) => ("ok" in o ? undefined : describeOutcome(o)) },
    (v) => pkg.default(v),
  ],
  [
    "initSync",
    "(function)",
    "options",
    { type: "custom", check: (o) => ("ok" in o ? undefined : describeOutcome(o)) },
    (v) => pkg.initSync(v),
  ],
  [
    "ABF1_HEADER_LENGTH",
    "(constant)",
    "(none)",
    { type: "custom", check: (o) => (o.ok === 96 ? undefined : describeOutcome(o)) },
    () => pkg.ABF1_HEADER_LENGTH,
  ],
  [
    "MAXIMUM_EXPECTED_ITEM_COUNT",
    "(constant)",
    "(none)",
    { type: "custom", check: (o) => (o.ok === 2 ** 30 ? undefined : describeOutcome(o)) },
    () => pkg.MAXIMUM_EXPECTED_ITEM_COUNT,
  ],
  [
    "MAXIMUM_SNAPSHOT_BYTES",
    "(constant)",
    "(none)",
    { type: "custom", check: (o) => (o.ok === 96 + 2 ** 27 ? undefined : describeOutcome(o)) },
    () => pkg.MAXIMUM_SNAPSHOT_BYTES,
  ],

  // hashFiles (in Node: node:crypto in this thread). An empty list is valid;
  // strings are refused (a name is not a file).
  [
    "hashFiles",
    "(function)",
    "files",
    throws(/files/, { valid: { "[]": okValue([]), "detached Uint8Array (buffer transferred)": okValue([]) } }),
    (v) => pkg.hashFiles(v),
  ],
  ["hashFiles", "(function)", "options", accepts, (v) => pkg.hashFiles([new Blob(["x"])], v)],
  ...[["concurrency"], ["wholeFileLimit", ["0"]], ["onProgress"], ["onFile"], ["signal"], ["workerUrl", ['""', '"ab"']]].map(
    ([field, alsoValid = []]) => {
      const hashed = (o) => ("ok" in o && o.ok?.[0]?.kind === "success" ? undefined : `expected a digest, ${describeOutcome(o)}`);
      const valid = Object.fromEntries(["undefined", ...alsoValid].map((label) => [label, hashed]));
      return [
        "hashFiles",
        "(function)",
        `options.${field}`,
        throws(new RegExp(`^${field}`), { valid }),
        (v) => pkg.hashFiles([new Blob(["x"])], { [field]: v }),
      ];
    },
  ),
  [
    "DEFAULT_WHOLE_FILE_LIMIT",
    "(constant)",
    "(none)",
    { type: "custom", check: (o) => (o.ok === 256 * 1024 * 1024 ? undefined : describeOutcome(o)) },
    () => pkg.DEFAULT_WHOLE_FILE_LIMIT,
  ],

  // Snapshots
  ["loadSnapshot", "(function)", "bytes", bytes(/bytes/), (v) => pkg.loadSnapshot(v)],
  ["readSnapshotHeader", "(function)", "bytes", bytes(/bytes/), (v) => pkg.readSnapshotHeader(v)],
  ["encodeSnapshot", "(function)", "filter", throws(/filter/), (v) => pkg.encodeSnapshot(v, { catalogVersion: 1 })],
  ["encodeSnapshot", "(function)", "options", throws(/catalogVersion/), (v) => pkg.encodeSnapshot(FILTER, v)],
  [
    "encodeSnapshot",
    "(function)",
    "options.catalogVersion",
    throws(/catalogVersion/, {
      valid: { 0: (o) => (o.ok?.u8?.length === SNAPSHOT_BYTES.byteLength * 2 ? undefined : describeOutcome(o)) },
    }),
    (v) => pkg.encodeSnapshot(FILTER, { catalogVersion: v }),
  ],
  // A string is an iterable: "" and [] are zero chunks (→ truncated); a
  // non-Uint8Array chunk is a TypeError naming "source chunk".
  [
    "loadSnapshotStream",
    "(function)",
    "source",
    throws(/source/, { valid: { '""': isTruncated, "[]": isTruncated } }),
    (v) => pkg.loadSnapshotStream(v),
  ],
  ["loadSnapshotStream", "(function)", "source chunk", bytes(/source chunk/), (v) => pkg.loadSnapshotStream([v])],
  ["loadSnapshotStream", "(function)", "options", accepts, (v) => pkg.loadSnapshotStream([SNAPSHOT_BYTES], v)],
  ["fetchSnapshot", "(function)", "url", throws(/url/i), (v) => pkg.fetchSnapshot(v)],
  ["fetchSnapshot", "(function)", "options", accepts, (v) => pkg.fetchSnapshot(`${server.url}snapshot`, v)],

  // Snapshot deltas (ABD1)
  ["encodeSnapshotDelta", "(function)", "base", throws(/base/), (v) => pkg.encodeSnapshotDelta(v, grownSnapshot())],
  ["encodeSnapshotDelta", "(function)", "target", throws(/target/), (v) => pkg.encodeSnapshotDelta(snapshot(), v)],
  ["applySnapshotDelta", "(function)", "baseSnapshot", throws(/baseSnapshot/), (v) => pkg.applySnapshotDelta(v, ABD1_BYTES)],
  ["applySnapshotDelta", "(function)", "deltaBytes", bytes(/deltaBytes/), (v) => pkg.applySnapshotDelta(snapshot(), v)],
  ["applySnapshotDelta", "(function)", "meta", accepts, (v) => pkg.applySnapshotDelta(snapshot(), ABD1_BYTES, v)],
  ["composeSnapshotDeltas", "(function)", "first", bytes(/first/), (v) => pkg.composeSnapshotDeltas(v, NEXT_ABD1_BYTES)],
  ["composeSnapshotDeltas", "(function)", "second", bytes(/second/), (v) => pkg.composeSnapshotDeltas(ABD1_BYTES, v)],
  ["readSnapshotDeltaHeader", "(function)", "bytes", bytes(/bytes/), (v) => pkg.readSnapshotDeltaHeader(v)],
  ["readSnapshotDeltaHeader", "(function)", "options", accepts, (v) => pkg.readSnapshotDeltaHeader(ABD1_BYTES, v)],

  // HttpArtifactRepository (against the package's own `serve`)
  ["HttpArtifactRepository", "constructor", "baseUrl", throws(/baseUrl/), (v) => new HttpArtifactRepository(v)],
  ["HttpArtifactRepository", "constructor", "options", accepts, (v) => new HttpArtifactRepository(server.url, v)],
  [
    "HttpArtifactRepository",
    "existsAtVersionAsync",
    "digest",
    digest(/digest/),
    (v) => new HttpArtifactRepository(server.url).existsAtVersionAsync(v, CATALOG_VERSION),
  ],
  // Not validated by the client: the server answers 409, so it rejects (never "absent").
  [
    "HttpArtifactRepository",
    "existsAtVersionAsync",
    "catalogVersion",
    throws(/catalogVersion/, { allowErrors: ["Error"], valid: Object.fromEntries(VALUES.map(([l]) => [l, rejectsNotAbsent])) }),
    (v) => new HttpArtifactRepository(server.url).existsAtVersionAsync(MEMBER, v),
  ],
  [
    "HttpArtifactRepository",
    "existsAtVersionAsync",
    "signal",
    throws(/signal/, { valid: { undefined: okValue(true), null: okValue(true) } }),
    (v) => new HttpArtifactRepository(server.url).existsAtVersionAsync(MEMBER, CATALOG_VERSION, v),
  ],
  [
    "HttpArtifactRepository",
    "existsManyAtVersionAsync",
    "digests",
    throws(/digests/, { valid: { "[]": okValue([]) } }),
    (v) => new HttpArtifactRepository(server.url).existsManyAtVersionAsync(v, CATALOG_VERSION),
  ],
  [
    "HttpArtifactRepository",
    "existsManyAtVersionAsync",
    "digests[i]",
    digest(/digest/),
    (v) => new HttpArtifactRepository(server.url).existsManyAtVersionAsync([v], CATALOG_VERSION),
  ],
  [
    "HttpArtifactRepository",
    "existsManyAtVersionAsync",
    "catalogVersion",
    throws(/catalogVersion/, { allowErrors: ["Error"], valid: Object.fromEntries(VALUES.map(([l]) => [l, rejectsNotAbsent])) }),
    (v) => new HttpArtifactRepository(server.url).existsManyAtVersionAsync([MEMBER], v),
  ],
  ["HttpArtifactRepository", "requests", "(property)", ignored, () => new HttpArtifactRepository(server.url).requests],

  // OciRegistryRepository (against the stand-in registry) and its error type
  ["OciRegistryRepository", "constructor", "registryUrl", throws(/registryUrl/), (v) => new OciRegistryRepository(v, "lib")],
  [
    "OciRegistryRepository",
    "constructor",
    "repository",
    throws(/repository/, { valid: { '"ab"': ok } }),
    (v) => new OciRegistryRepository(registry.url, v),
  ],
  ["OciRegistryRepository", "constructor", "options", accepts, (v) => new OciRegistryRepository(registry.url, "lib", v)],
  [
    "OciRegistryRepository",
    "existsAtVersionAsync",
    "digest",
    digest(/digest/),
    (v) => oci().existsAtVersionAsync(v, CATALOG_VERSION),
  ],
  [
    "OciRegistryRepository",
    "existsAtVersionAsync",
    "catalogVersion",
    throws(/catalogVersion/, { valid: { 0: okValue(true) } }),
    (v) => oci().existsAtVersionAsync(MEMBER, v),
  ],
  [
    "OciRegistryRepository",
    "existsAtVersionAsync",
    "signal",
    throws(/signal/, { valid: { undefined: okValue(true), null: okValue(true) } }),
    (v) => oci().existsAtVersionAsync(MEMBER, CATALOG_VERSION, v),
  ],
  [
    "OciRegistryRepository",
    "existsManyAtVersionAsync",
    "digests",
    throws(/digests/, { valid: { "[]": okValue([]) } }),
    (v) => oci().existsManyAtVersionAsync(v, CATALOG_VERSION),
  ],
  [
    "OciRegistryRepository",
    "existsManyAtVersionAsync",
    "digests[i]",
    digest(/digests\[1\]/),
    (v) => oci().existsManyAtVersionAsync([MEMBERS[0], v], CATALOG_VERSION),
  ],
  [
    "OciRegistryRepository",
    "existsManyAtVersionAsync",
    "catalogVersion",
    throws(/catalogVersion/, { valid: { 0: okValue([true]) } }),
    (v) => oci().existsManyAtVersionAsync([MEMBER], v),
  ],
  [
    "OciRegistryRepository",
    "existsManyAtVersionAsync",
    "signal",
    throws(/signal/, { valid: { undefined: okValue([true]), null: okValue([true]) } }),
    (v) => oci().existsManyAtVersionAsync([MEMBER], CATALOG_VERSION, v),
  ],
  [
    "OciRegistryRepository",
    "findMissingAsync",
    "digests",
    throws(/digests/, { valid: { "[]": okValue([]) } }),
    (v) => oci().findMissingAsync(v),
  ],
  [
    "OciRegistryRepository",
    "findMissingAsync",
    "digests[i]",
    digest(/digests\[1\]/),
    (v) => oci().findMissingAsync([MEMBERS[0], v]),
  ],
  [
    "OciRegistryRepository",
    "findMissingAsync",
    "signal",
    throws(/signal/, { valid: { undefined: okValue([]), null: okValue([]) } }),
    (v) => oci().findMissingAsync([MEMBER], v),
  ],
  ...["repository", "requests"].map((g) => ["OciRegistryRepository", g, "(getter)", ignored, () => oci()[g]]),
  ["OciRegistryError", "constructor", "message", accepts, (v) => new OciRegistryError(v, { code: "timeout" })],
  ["OciRegistryError", "constructor", "details", throws(/details/), (v) => new OciRegistryError("m", v)],

  // ArtifactExistenceService
  [
    "ArtifactExistenceService",
    "constructor",
    "snapshotSource",
    throws(/snapshotSource/),
    (v) => new ArtifactExistenceService(v, repository()),
  ],
  [
    "ArtifactExistenceService",
    "constructor",
    "repository",
    throws(/repository/),
    (v) => new ArtifactExistenceService(snapshot(), v),
  ],
  [
    "ArtifactExistenceService",
    "constructor",
    "options",
    accepts,
    (v) => new ArtifactExistenceService(snapshot(), repository(), v),
  ],
  ["ArtifactExistenceService", "existsAsync", "digest", digest(/digest/), (v) => service().existsAsync(v)],
  [
    "ArtifactExistenceService",
    "existsAsync",
    "signal",
    throws(/signal/, { valid: { undefined: okValue(true), null: okValue(true) } }),
    (v) => service().existsAsync(MEMBER, v),
  ],
  [
    "ArtifactExistenceService",
    "findMissingAsync",
    "digests",
    throws(/digests/, { valid: { "[]": okValue([]) } }),
    (v) => service().findMissingAsync(v),
  ],
  [
    "ArtifactExistenceService",
    "findMissingAsync",
    "digests[i]",
    digest(/digests\[1\]/),
    (v) => service().findMissingAsync([MEMBERS[0], v]),
  ],
  [
    "ArtifactExistenceService",
    "findMissingAsync",
    "signal",
    throws(/signal/, { valid: { undefined: okValue([]), null: okValue([]) } }),
    (v) => service().findMissingAsync([MEMBER], v),
  ],
  ["ArtifactExistenceService", "snapshot", "(getter)", ignored, () => service().snapshot.catalogVersion],
  ["ArtifactExistenceService", "metrics", "(none)", ignored, (v) => (v === NO_ARG ? service().metrics() : service().metrics(v))],
  [
    "ArtifactExistenceService",
    "prometheus",
    "(none)",
    ignored,
    (v) => (v === NO_ARG ? service().prometheus() : service().prometheus(v)),
  ],

  // SnapshotHolder
  ["SnapshotHolder", "constructor", "initialSnapshot", throws(/initialSnapshot/), (v) => new SnapshotHolder(v)],
  ["SnapshotHolder", "constructor", "options", accepts, (v) => new SnapshotHolder(snapshot(), v).current().catalogVersion],
  [
    "SnapshotHolder",
    "current",
    "(none)",
    ignored,
    (v) => (v === NO_ARG ? holder().current() : holder().current(v)).catalogVersion,
  ],
  [
    "SnapshotHolder",
    "replace",
    "snapshot",
    throws(/snapshot/),
    (v) => {
      const h = holder();
      try {
        return h.replace(v);
      } finally {
        assert.equal(h.current().catalogVersion, CATALOG_VERSION, "the old snapshot stays");
      }
    },
  ],
  ["SnapshotHolder", "onReplace", "callback", throws(/callback/), (v) => holder().onReplace(v)],
  ["SnapshotHolder", "use", "use", throws(/use/), (v) => holder().use(v)],
  [
    "SnapshotHolder",
    "lease",
    "(none)",
    ignored,
    (v) => {
      const { snapshot: leased, release } = v === NO_ARG ? holder().lease() : holder().lease(v);
      release();
      return leased.catalogVersion;
    },
  ],
  ["SnapshotHolder", "refreshFrom", "loader", throws(/loader/), (v) => holder().refreshFrom(v)],
  // A string is a URL to poll (a bad one fails each poll, counted); stopped at once.
  [
    "SnapshotHolder",
    "startPolling",
    "url",
    throws(/url/, { valid: { '""': ok, '"ab"': ok } }),
    (v) => {
      const h = holder();
      try {
        return h.startPolling(v, { intervalMs: 3_600_000 });
      } finally {
        h.stopPolling();
      }
    },
  ],
  [
    "SnapshotHolder",
    "startPolling",
    "options",
    throws(/intervalMs/),
    (v) => {
      const h = holder();
      try {
        return h.startPolling(`${server.url}snapshot`, v);
      } finally {
        h.stopPolling();
      }
    },
  ],
  [
    "SnapshotHolder",
    "stopPolling",
    "(none)",
    ignored,
    (v) => {
      const h = holder();
      if (v === NO_ARG) h.stopPolling();
      else h.stopPolling(v);
      return h.polling;
    },
  ],
  ...[
    "polling",
    "replaceCount",
    "loadFailureCount",
    "staleCount",
    "notModifiedCount",
    "versionConflictCount",
    "lastFailure",
    "deltaRefreshCount",
    "fullRefreshCount",
    "bytesTransferred",
    "bytesSaved",
  ].map((g) => ["SnapshotHolder", g, "(getter)", ignored, () => holder()[g]]),

  ["renderPrometheus", "(function)", "metrics", throws(/metrics/), (v) => pkg.renderPrometheus(v)],

  // TlBloom (TLBF)
  ["TlBloom", "constructor", "token", throws(/withRate/), (v) => new TlBloom(v)],
  ["TlBloom", "withRate", "n", throws(/\bn\b/), (v) => TlBloom.withRate(v, 0.01)],
  ["TlBloom", "withRate", "p", throws(/\bp\b/), (v) => TlBloom.withRate(16, v)],
  ["TlBloom", "fromBytes", "bytes", bytes(/bytes/), (v) => TlBloom.fromBytes(v)],
  ["TlBloom", "insert", "item", item(/item/), (v) => tlbf().insert(v)],
  ["TlBloom", "contains", "item", item(/item/), (v) => tlbf().contains(v)],
  ["TlBloom", "union", "other", throws(/other/), (v) => tlbf().union(v)],
  ...["toBytes"].map((m) => ["TlBloom", m, "(none)", ignored, (v) => (v === NO_ARG ? tlbf()[m]() : tlbf()[m](v))]),
  ...["m", "k", "insertedCount", "fillRatio", "freed"].map((g) => ["TlBloom", g, "(getter)", ignored, () => tlbf()[g]]),
  [
    "TlBloom",
    "free",
    "(none)",
    ignored,
    (v) => {
      const f = tlbf();
      if (v === NO_ARG) f.free();
      else f.free(v);
      return f.freed;
    },
  ],
  [
    "TlBloom",
    "Symbol.dispose",
    "(none)",
    ignored,
    (v) => {
      const f = tlbf();
      if (v === NO_ARG) f[Symbol.dispose]();
      else f[Symbol.dispose](v);
      return f.freed;
    },
  ],

  // MergeableBloomFilter / MergeableDelta
  ["MergeableBloomFilter", "constructor", "token", throws(/create/), (v) => new MergeableBloomFilter(v)],
  ["MergeableBloomFilter", "create", "expectedElements", throws(/expectedElements/), (v) => MergeableBloomFilter.create(v, 0.01)],
  ["MergeableBloomFilter", "create", "falsePositiveRate", throws(/falsePositiveRate/), (v) => MergeableBloomFilter.create(16, v)],
  ["MergeableBloomFilter", "decode", "bytes", bytes(/bytes/), (v) => MergeableBloomFilter.decode(v)],
  ["MergeableBloomFilter", "add", "item", item(/item/), (v) => mergeable().add(v)],
  ["MergeableBloomFilter", "mightContain", "item", item(/item/), (v) => mergeable().mightContain(v)],
  ["MergeableBloomFilter", "piece", "deltaOrFilter", throws(/deltaOrFilter/), (v) => mergeable().piece(v)],
  ["MergeableBloomFilter", "encode", "(none)", ignored, (v) => (v === NO_ARG ? mergeable().encode() : mergeable().encode(v))],
  ...["wordCount", "nonZeroWordCount", "bitCount", "hashCount", "fillRatio", "freed"].map((g) => [
    "MergeableBloomFilter",
    g,
    "(getter)",
    ignored,
    () => mergeable()[g],
  ]),
  [
    "MergeableBloomFilter",
    "free",
    "(none)",
    ignored,
    (v) => {
      const f = mergeable();
      if (v === NO_ARG) f.free();
      else f.free(v);
      return f.freed;
    },
  ],
  [
    "MergeableBloomFilter",
    "Symbol.dispose",
    "(none)",
    ignored,
    (v) => {
      const f = mergeable();
      if (v === NO_ARG) f[Symbol.dispose]();
      else f[Symbol.dispose](v);
      return f.freed;
    },
  ],
  ["MergeableDelta", "constructor", "token", throws(/MergeableDelta/), (v) => new MergeableDelta(v)],
  ["MergeableDelta", "decode", "bytes", bytes(/bytes/), (v) => MergeableDelta.decode(v)],
  ["MergeableDelta", "encode", "(none)", ignored, (v) => (v === NO_ARG ? delta().encode() : delta().encode(v))],
  ...["bitCount", "hashCount", "entries", "freed"].map((g) => ["MergeableDelta", g, "(getter)", ignored, () => delta()[g]]),
  [
    "MergeableDelta",
    "free",
    "(none)",
    ignored,
    (v) => {
      const d = delta();
      if (v === NO_ARG) d.free();
      else d.free(v);
      return d.freed;
    },
  ],
  [
    "MergeableDelta",
    "Symbol.dispose",
    "(none)",
    ignored,
    (v) => {
      const f = delta();
      if (v === NO_ARG) f[Symbol.dispose]();
      else f[Symbol.dispose](v);
      return f.freed;
    },
  ],

  // ScalableBloomFilter
  ["ScalableBloomFilter", "constructor", "options", throws(/options|initialCapacity/), (v) => new ScalableBloomFilter(v)],
  [
    "ScalableBloomFilter",
    "constructor",
    "options.initialCapacity",
    throws(/initialCapacity/),
    (v) => new ScalableBloomFilter({ initialCapacity: v, targetFalsePositiveRate: 0.01 }),
  ],
  [
    "ScalableBloomFilter",
    "constructor",
    "options.targetFalsePositiveRate",
    throws(/targetFalsePositiveRate/),
    (v) => new ScalableBloomFilter({ initialCapacity: 4, targetFalsePositiveRate: v }),
  ],
  [
    "ScalableBloomFilter",
    "constructor",
    "options.growthFactor",
    throws(/growthFactor/, { valid: { undefined: ok } }),
    (v) => new ScalableBloomFilter({ initialCapacity: 4, targetFalsePositiveRate: 0.01, growthFactor: v }),
  ],
  [
    "ScalableBloomFilter",
    "constructor",
    "options.tighteningRatio",
    throws(/tighteningRatio/, { valid: { undefined: ok } }),
    (v) => new ScalableBloomFilter({ initialCapacity: 4, targetFalsePositiveRate: 0.01, tighteningRatio: v }),
  ],
  ["ScalableBloomFilter", "decode", "bytes", bytes(/bytes/), (v) => ScalableBloomFilter.decode(v)],
  ["ScalableBloomFilter", "add", "item", item(/item/), (v) => scalable().add(v)],
  ["ScalableBloomFilter", "mightContain", "item", item(/item/), (v) => scalable().mightContain(v)],
  ["ScalableBloomFilter", "encode", "(none)", ignored, (v) => (v === NO_ARG ? scalable().encode() : scalable().encode(v))],
  ...[
    "stageCount",
    "itemCount",
    "bitCount",
    "estimatedFalsePositiveRate",
    "initialCapacity",
    "targetFalsePositiveRate",
    "growthFactor",
    "tighteningRatio",
    "freed",
  ].map((g) => ["ScalableBloomFilter", g, "(getter)", ignored, () => scalable()[g]]),
  [
    "ScalableBloomFilter",
    "free",
    "(none)",
    ignored,
    (v) => {
      const f = scalable();
      if (v === NO_ARG) f.free();
      else f.free(v);
      return f.freed;
    },
  ],
  [
    "ScalableBloomFilter",
    "Symbol.dispose",
    "(none)",
    ignored,
    (v) => {
      const f = scalable();
      if (v === NO_ARG) f[Symbol.dispose]();
      else f[Symbol.dispose](v);
      return f.freed;
    },
  ],

  // Sizing helpers
  ["optimalParams", "(function)", "n", throws(/\bn\b/), (v) => pkg.optimalParams(v, 0.01)],
  ["optimalParams", "(function)", "p", throws(/\bp\b/), (v) => pkg.optimalParams(16, v)],
  ["fppFromFillRatio", "(function)", "fill", throws(/fill/, { valid: { 0: okValue(0) } }), (v) => pkg.fppFromFillRatio(v, 3)],
  ["fppFromFillRatio", "(function)", "k", throws(/\bk\b/), (v) => pkg.fppFromFillRatio(0.5, v)],
  ["alertFillRatio", "(function)", "p", throws(/\bp\b/), (v) => pkg.alertFillRatio(v, 3)],
  ["alertFillRatio", "(function)", "k", throws(/\bk\b/), (v) => pkg.alertFillRatio(0.01, v)],
  [
    "expectedFillRatio",
    "(function)",
    "n",
    throws(/\bn\b/, { valid: { 0: okValue(0) } }),
    (v) => pkg.expectedFillRatio(v, 128, 3),
  ],
  ["expectedFillRatio", "(function)", "m", throws(/\bm\b/), (v) => pkg.expectedFillRatio(10, v, 3)],
  ["expectedFillRatio", "(function)", "k", throws(/\bk\b/), (v) => pkg.expectedFillRatio(10, 128, v)],
];

function isTruncated(outcome) {
  return outcome.ok?.kind === "failure" && outcome.ok.error === "truncated"
    ? undefined
    : `expected failure truncated, ${describeOutcome(outcome)}`;
}
/** A bad catalogVersion reaches the server, which refuses it (409): the call must reject, never answer. */
function rejectsNotAbsent(outcome) {
  return outcome.threw !== undefined && outcome.threw !== "Timeout"
    ? undefined
    : `expected a rejection, ${describeOutcome(outcome)}`;
}

// Byte parameters also get a VALID input in the three valid wrappers: a real
// file at byteOffset 5 and over a SharedArrayBuffer must load like a fresh copy.
const VALID_FILES = [
  ["loadSnapshot", SNAPSHOT_BYTES, (b) => pkg.loadSnapshot(b)],
  ["readSnapshotHeader", SNAPSHOT_BYTES, (b) => pkg.readSnapshotHeader(b)],
  ["loadSnapshotStream chunk", SNAPSHOT_BYTES, (b) => pkg.loadSnapshotStream([b.subarray(0, 50), b.subarray(50)])],
  ["applySnapshotDelta", ABD1_BYTES, (b) => pkg.applySnapshotDelta(snapshot(), b)],
  ["composeSnapshotDeltas", ABD1_BYTES, (b) => pkg.composeSnapshotDeltas(b, NEXT_ABD1_BYTES)],
  ["readSnapshotDeltaHeader (verify)", ABD1_BYTES, (b) => pkg.readSnapshotDeltaHeader(b, { verify: true })],
  ["TlBloom.fromBytes", TLBF_BYTES, (b) => TlBloom.fromBytes(b)],
  ["MergeableBloomFilter.decode", MERGEABLE_BYTES, (b) => MergeableBloomFilter.decode(b)],
  ["MergeableDelta.decode", DELTA_BYTES, (b) => MergeableDelta.decode(b)],
  ["ScalableBloomFilter.decode", SCALABLE_BYTES, (b) => ScalableBloomFilter.decode(b)],
  ["ArtifactBloomFilter.createPacked (10 digests)", concat(MEMBERS), (b) => ArtifactBloomFilter.createPacked(b, SPEC)],
  ["mightContainMany (10 digests)", concat(MEMBERS), (b) => FILTER.mightContainMany(b)],
  ["dedupePacked (10 digests)", concat(MEMBERS), (b) => pkg.dedupePacked(b)],
  ["sha256 (a snapshot)", SNAPSHOT_BYTES, (b) => pkg.sha256(b)],
];

function concat(list) {
  const out = new Uint8Array(list.length * 32);
  list.forEach((d, i) => {
    out.set(d, i * 32);
  });
  return out;
}

// ---------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), "artifact-bloom-matrix-"));
  writeFileSync(join(tmp, "snapshot.abf1"), SNAPSHOT_BYTES);
  writeFileSync(join(tmp, "catalog.txt"), `${MEMBERS.map(hexOf).join("\n")}\n`);
  const serveModule = new URL("./node_modules/artifact-bloom/cli/serve/serve.mjs", import.meta.url);
  const { startServer } = await import(pathToFileURL(fileURLToPath(serveModule)).href);
  server = await startServer({ snapshot: join(tmp, "snapshot.abf1"), catalog: join(tmp, "catalog.txt"), port: 0 });
  const standIn = createServer((request, response) => {
    const hex = /^\/v2\/lib\/blobs\/sha256:([0-9a-f]{64})$/.exec(request.url ?? "")?.[1];
    response.writeHead(request.method === "HEAD" && hex !== undefined && MEMBER_HEX.has(hex) ? 200 : 404).end();
  });
  await new Promise((resolve) => standIn.listen(0, "127.0.0.1", resolve));
  registry = { url: `http://127.0.0.1:${standIn.address().port}`, close: () => new Promise((resolve) => standIn.close(resolve)) };
});

after(async () => {
  await server?.close();
  await registry?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("the table covers the whole public API", () => {
  const covered = new Map();
  for (const [name, member] of ROWS) {
    if (!covered.has(name)) covered.set(name, new Set());
    covered.get(name).add(member);
  }
  test("every export of the package has rows", () => {
    const missing = Object.keys(pkg).filter((name) => !covered.has(name));
    assert.deepEqual(missing, [], `exports without a row in the matrix table: ${missing.join(", ")}`);
  });
  // Underscore members are internal (documented as not for callers).
  const INTERNAL = new Set(["_raw", "_wrap", "_words", "constructor", "length", "name", "prototype"]);
  test("every public method, getter and static of every exported class has rows", () => {
    const missing = [];
    for (const [name, value] of Object.entries(pkg)) {
      if (typeof value !== "function" || !/^[A-Z]/.test(name)) continue;
      const members = [
        ...Object.getOwnPropertyNames(value.prototype),
        ...Object.getOwnPropertyNames(value),
        ...(Symbol.dispose in value.prototype ? ["Symbol.dispose"] : []),
      ];
      for (const member of members) {
        if (!INTERNAL.has(member) && !covered.get(name)?.has(member)) missing.push(`${name}.${member}`);
      }
      if (!covered.get(name)?.has("constructor")) missing.push(`${name} constructor`);
    }
    assert.deepEqual(missing, [], `members without a row: ${missing.join(", ")}`);
  });
});

describe("every export × 20 awkward values gives the documented result", () => {
  for (const [name, member, param, contract, call] of ROWS) {
    test(`${name}${member.startsWith("(") ? "" : `.${member}`} — ${param}`, async () => {
      const baseline = contract.type === "ignored" ? await outcomeOf(() => call(NO_ARG)) : undefined;
      if (baseline !== undefined) assert.equal(baseline.threw, undefined, `the call itself fails: ${baseline.message}`);
      const problems = [];
      for (const [label, make, kind] of VALUES) {
        const outcome = await outcomeOf(() => call(make()));
        const fresh = kind === "other" ? undefined : await outcomeOf(() => call(freshCopy(make())));
        const problem = violation(contract, label, kind, outcome, fresh, baseline);
        if (problem !== undefined) problems.push(`  ${label}: ${problem}`);
      }
      assert.equal(problems.length, 0, `${name}.${member}(${param}):\n${problems.join("\n")}`);
    });
  }
});

describe("valid files and batches at byteOffset 5 and over a SharedArrayBuffer answer like a fresh copy", () => {
  for (const [label, content, call] of VALID_FILES) {
    test(label, async () => {
      const fresh = await outcomeOf(() => call(Uint8Array.from(content)));
      assert.equal(fresh.threw, undefined, fresh.message);
      if (fresh.ok?.kind !== undefined) assert.equal(fresh.ok.kind, "success", JSON.stringify(fresh.ok));
      assert.deepEqual(await outcomeOf(() => call(atOffset5(content))), fresh, "subarray at byteOffset 5");
      assert.deepEqual(await outcomeOf(() => call(onShared(content))), fresh, "SharedArrayBuffer");
    });
  }
});
