// One error style (issue 12, item 4): the Rust core keeps a code and numbers,
// the binding hands them to lib/core/errors.js, which builds the sentence. So the
// messages a user reads still say what was expected and what came, with the
// input's own numbers, while the wasm carries no message text.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import { fileURLToPath } from "node:url";
import { Sha256, loadSnapshot, readSnapshotHeader } from "artifact-bloom";
import { readSnapshotDeltaHeader } from "artifact-bloom/delta";
import { readVector } from "./helpers/abf1.mjs";

const PACKAGE = new URL("node_modules/artifact-bloom/", import.meta.url);

/** A valid 96-byte header with one little-endian field overwritten. */
function headerWith(offset, write) {
  const bytes = readVector("small-v42.abf1").slice(0, 96);
  write(new DataView(bytes.buffer), offset);
  return bytes;
}

test("snapshot failures name what was expected and what came, with the input's numbers", () => {
  const cases = [
    [new Uint8Array(10), "truncated", /expected at least 96 bytes .*got 10$/],
    [new TextEncoder().encode("TLBF".padEnd(96, "\0")), "badMagic", /^expected magic "ABF1" \(41 42 46 31\), found 54 4c 42 46$/],
    [
      headerWith(4, (view, at) => view.setUint16(at, 2, true)),
      "unsupportedFormatVersion",
      /^formatVersion 2 is not supported \(expected 1\)$/,
    ],
    [
      headerWith(16, (view, at) => view.setBigUint64(at, 100n, true)),
      "invalidHeader",
      /^invalid header field bitCount: must be a multiple of 64, got 100$/,
    ],
    [
      headerWith(28, (view, at) => view.setUint32(at, 7, true)),
      "invalidHeader",
      /^invalid header field reserved: must be 0, got 7$/,
    ],
    [
      headerWith(40, (view, at) => view.setBigUint64(at, 1000n, true)),
      "invalidHeader",
      /^invalid header field insertedItemCount: must be at most expectedItemCount = \d+, got 1000$/,
    ],
    [
      headerWith(48, (view, at) => view.setFloat64(at, Number.NaN, true)),
      "invalidHeader",
      /field targetFpp: must be a finite number strictly between 0 and 1, got NaN$/,
    ],
  ];
  for (const [bytes, code, message] of cases) {
    const loaded = readSnapshotHeader(bytes);
    assert.equal(loaded.kind, "failure", code);
    assert.equal(loaded.error, code);
    assert.match(loaded.message, message);
  }
  const padded = new Uint8Array(readVector("small-v42.abf1").byteLength + 3);
  padded.set(readVector("small-v42.abf1"));
  const long = loadSnapshot(padded);
  assert.equal(long.error, "lengthMismatch");
  assert.match(long.message, /must be exactly 104 bytes .*got 107$/);
});

test("delta failures keep their own sentences (the same code reads differently for a delta)", () => {
  const short = readSnapshotDeltaHeader(new Uint8Array(3));
  assert.equal(short.kind, "failure");
  assert.equal(short.error, "truncated");
  assert.match(short.message, /^the delta is truncated: expected at least 200 bytes, got 3$/);
  const magic = readSnapshotDeltaHeader(new TextEncoder().encode("ABF1".padEnd(200, "\0")));
  assert.equal(magic.error, "badMagic");
  assert.match(magic.message, /^expected magic "ABD1" \(41 42 44 31\), found 41 42 46 31$/);
});

test("a coded error thrown by the wasm carries its numbers as properties, not only in its text", async () => {
  // The raw layer, as the package's own lib/ sees it (its own instance).
  await import(new URL("artifact_bloom_instance.js", PACKAGE).href);
  const raw = await import(new URL("artifact_bloom.js", PACKAGE).href);
  const thrown = (call) => {
    try {
      call();
    } catch (error) {
      return error;
    }
    assert.fail("expected a throw");
  };
  const short = thrown(() => raw.parseSnapshotHeader(new Uint8Array(10)));
  assert.equal(short.name, "ArtifactBloomError");
  assert.equal(short.code, "truncated");
  assert.equal(short.expected, 96);
  assert.equal(short.got, 10);
  const reserved = thrown(() => raw.parseSnapshotHeader(headerWith(28, (view, at) => view.setUint32(at, 7, true))));
  assert.deepEqual(
    { code: reserved.code, field: reserved.field, got: reserved.got },
    { code: "invalidHeader", field: "reserved", got: 7 },
  );
  // Delta calls are the delta module's and read staged input (the package's
  // own staging, as lib/delta/delta-apply.js does); its instance module hands
  // the glue its instantiation, as the main one's does above.
  await import(new URL("artifact_bloom_delta_instance.js", PACKAGE).href);
  const rawDelta = await import(new URL("artifact_bloom_delta.js", PACKAGE).href);
  const { stagingFor } = await import(new URL("lib/wasm/staging.js", PACKAGE).href);
  const { toWasm } = stagingFor(rawDelta.inputBuffer, rawDelta.wasmMemory);
  const magic = thrown(() => rawDelta.parseDeltaHeader(toWasm(new TextEncoder().encode("ABF1".padEnd(200, "\0")))));
  assert.deepEqual([...magic.got], [0x41, 0x42, 0x46, 0x31]);
  // A wrong size at query time stays a plain RangeError (never a coded result).
  const digest = thrown(() => raw.decodeSnapshotPrehashed(0, new Uint8Array(5)));
  assert.ok(digest instanceof RangeError);
  assert.equal(digest.code, undefined);
  assert.match(digest.message, /sha256 must be a 32-byte SHA-256 digest, got 5 bytes/);
  // And the public API shows the same sentence a user reads.
  const hasher = new Sha256();
  hasher.digest();
  const finished = thrown(() => hasher.digest());
  assert.equal(finished.code, "hasherFinished");
  assert.match(finished.message, /already returned its digest/);
});

test("the main wasm holds no message text: the sentences live in lib/core/errors.js", async () => {
  const wasmPath = fileURLToPath(new URL("artifact_bloom_bg.wasm", PACKAGE));
  let wasm;
  try {
    wasm = readFileSync(wasmPath, "latin1");
  } catch {
    // Packages built without the .wasm beside the glue: unpack the embedding.
    const { unpackWasm } = await import(new URL("lib/wasm/wasm-bytes.js", PACKAGE).href);
    const embedded = readFileSync(fileURLToPath(new URL("artifact_bloom_embedded.js", PACKAGE)), "utf8");
    wasm = Buffer.from(unpackWasm(/unpackWasm\("([A-Za-z0-9+/=]+)"\)/.exec(embedded)[1])).toString("latin1");
  }
  for (const text of [
    "is truncated",
    "expected magic",
    "WebAssembly memory grows",
    "must be a multiple of 64",
    "does not match",
  ]) {
    assert.equal(wasm.includes(text), false, `the wasm still contains "${text}"`);
  }
  const glue = readFileSync(fileURLToPath(new URL("artifact_bloom.js", PACKAGE)), "utf8");
  assert.match(glue, /import \{ codedError \} from "\.\/lib\/core\/errors\.js"/);
});

// The other filters take the same path: the wasm sends a code and the filter's
// name, and lib/variants/variant-messages.js holds the sentence, its one home
// (the Rust declares only codes). Every code declared in src/variants/ (the
// `coded_errors!` blocks) must have one, and nothing else.
test("every code of the other filters has its sentence in JS, and the wasm sends only codes", async () => {
  const { VARIANT_MESSAGES } = await import(new URL("lib/variants/variant-messages.js", PACKAGE).href);
  for (const filter of ["tlbf", "mergeable", "scalable", "sizing"]) {
    const source = readFileSync(fileURLToPath(new URL(`../src/variants/${filter}.rs`, import.meta.url)), "utf8");
    const block = source.slice(source.indexOf("coded_errors! {"));
    const declared = [...block.slice(0, block.indexOf("\n}\n")).matchAll(/=> "(\w+)",/g)].map((match) => match[1]);
    assert.ok(declared.length >= 3, `found the codes of ${filter}`);
    assert.deepEqual(Object.keys(VARIANT_MESSAGES[filter]).sort(), declared.sort(), `${filter}: JS sentences vs Rust codes`);
  }
  const { TlBloom, ScalableBloomFilter } = await import("artifact-bloom/variants");
  const short = TlBloom.fromBytes(new Uint8Array(5));
  assert.deepEqual(short, { kind: "failure", error: "truncated", message: VARIANT_MESSAGES.tlbf.truncated });
  const scalable = ScalableBloomFilter.decode(new TextEncoder().encode("XXXX".padEnd(64, "\0")));
  assert.equal(scalable.kind, "failure");
  assert.equal(scalable.message, VARIANT_MESSAGES.scalable[scalable.error]);
  const wasm = readFileSync(fileURLToPath(new URL("artifact_bloom_variants_bg.wasm", PACKAGE)), "latin1");
  for (const sentence of [VARIANT_MESSAGES.tlbf.truncated, VARIANT_MESSAGES.mergeable.badMagic, "WebAssembly memory grows"]) {
    assert.equal(wasm.includes(sentence), false, `the variants wasm still contains "${sentence}"`);
  }
});
