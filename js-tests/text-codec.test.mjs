// The UTF-8 fallback of lib/core/text-codec.js, used where the host has no
// TextDecoder/TextEncoder (jsdom: consumers/jest-jsdom.test.mjs runs it end
// to end). It must give exactly the strings and bytes Node's own give, on
// valid text and on every kind of bad byte sequence; and the package must
// import and work in a process that has neither global.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";

const PACKAGE = new URL("node_modules/artifact-bloom/", import.meta.url);
const { fallbackDecode, fallbackEncode } = await import(new URL("lib/core/text-codec.js", PACKAGE).href);

/** Byte sequences that probe each branch of the decoder: overlongs, surrogates, > U+10FFFF, truncations, stray continuations. */
const EDGES = [
  [],
  [0x41],
  [0xef, 0xbb, 0xbf, 0x41],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xc2],
  [0xc2, 0x41],
  [0xe0, 0x80, 0x80],
  [0xe0, 0xa0],
  [0xed, 0xa0, 0x80],
  [0xed, 0x9f, 0xbf],
  [0xf0, 0x80, 0x80, 0x80],
  [0xf0, 0x90, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf4, 0x8f, 0xbf, 0xbf],
  [0xf5, 0x80],
  [0xff],
  [0x80, 0x80],
  [0xe2, 0x82, 0xac, 0xe2, 0x82],
  [0xf0, 0x9f, 0x8d, 0xae],
];

/** Deterministic pseudo-random bytes, biased towards the high half where the multi-byte rules live. */
function randomBytes(seed, length) {
  let state = seed;
  return Uint8Array.from({ length }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const byte = state >>> 24;
    return byte < 0x40 ? byte : byte | 0x80;
  });
}

test("fallbackDecode gives what TextDecoder gives, BOM kept (the glue's decoder) and dropped (the default one)", () => {
  const cases = [
    ...EDGES.map((bytes) => Uint8Array.from(bytes)),
    ...Array.from({ length: 300 }, (_, i) => randomBytes(i + 1, 1 + (i % 40))),
  ];
  cases.push(new TextEncoder().encode("crème brûlée 🍮, 日本語, \u{10ffff}"));
  for (const bytes of cases) {
    assert.equal(
      fallbackDecode(bytes, false),
      new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes),
      `[${bytes}] ignoreBOM`,
    );
    assert.equal(fallbackDecode(bytes, true), new TextDecoder().decode(bytes), `[${bytes}]`);
  }
});

test("fallbackDecode handles a text longer than one String.fromCodePoint slice", () => {
  const bytes = new TextEncoder().encode("é🍮".repeat(10_000));
  assert.equal(fallbackDecode(bytes, false), "é🍮".repeat(10_000));
});

test("fallbackEncode gives what TextEncoder gives, lone surrogates included", () => {
  const texts = [
    "",
    "abc",
    "crème brûlée 🍮",
    "\u{10ffff}\u0800\u07ff\u0080\u007f",
    "\ud800",
    "a\udc00b",
    "\udbff\udfff",
    "\ud83c",
  ];
  for (const text of texts) assert.deepEqual(fallbackEncode(text), new TextEncoder().encode(text), JSON.stringify(text));
});

test("with no TextDecoder/TextEncoder at all, the package imports and its strings are the same", async () => {
  const program = `
    const withGlobals = process.argv[1] === "keep";
    if (!withGlobals) { delete globalThis.TextDecoder; delete globalThis.TextEncoder; }
    const { loadSnapshot } = await import("artifact-bloom");
    const { TlBloom } = await import("artifact-bloom/variants");
    const failure = loadSnapshot(new Uint8Array(10));
    const tlbf = TlBloom.withRate(10, 0.01).insert("crème brûlée 🍮");
    console.log(JSON.stringify({ globals: typeof TextDecoder, failure, bytes: Buffer.from(tlbf.toBytes()).toString("base64"), cream: tlbf.contains("crème brûlée 🍮") }));
  `;
  const runWith = async (mode) => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", program, mode], {
      cwd: new URL(".", import.meta.url),
    });
    return JSON.parse(stdout);
  };
  const [without, native] = await Promise.all([runWith("drop"), runWith("keep")]);
  assert.equal(without.globals, "undefined");
  assert.equal(native.globals, "function");
  assert.equal(without.failure.error, "truncated");
  assert.deepEqual({ ...without, globals: "" }, { ...native, globals: "" });
  assert.equal(without.cream, true);
});
