// Each wasm module (the main one, the variants', the delta one) is compiled
// on first use, not at import, the one way the package instantiates
// (scripts/wasm-glue.mjs): loading the package through any entry compiles
// and instantiates nothing, the first call that reaches into a module does
// it once, and the format constants read at import (folded into
// lib/wasm/format-rules.js by the build) are the numbers the module gives.
// Each case runs in a fresh process that counts WebAssembly compiles and
// instantiations from before the package loads.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const ROOT = dirname(require.resolve("artifact-bloom/package.json"));
const HERE = dirname(fileURLToPath(import.meta.url));

// Counts `new WebAssembly.Module/Instance` and the async compile and
// instantiate calls in the child, then loads the package with `load`.
const COUNTER = `
const counts = { compiled: 0, instantiated: 0 };
for (const [name, key] of [["Module", "compiled"], ["Instance", "instantiated"]]) {
  WebAssembly[name] = new Proxy(WebAssembly[name], {
    construct(target, args, newTarget) { counts[key] += 1; return Reflect.construct(target, args, newTarget); },
  });
}
for (const name of ["compile", "instantiate", "compileStreaming", "instantiateStreaming"]) {
  if (typeof WebAssembly[name] !== "function") continue;
  WebAssembly[name] = new Proxy(WebAssembly[name], { apply() { throw new Error("unexpected WebAssembly." + name); } });
}
`;
const FIRST_USE = `
const atImport = { ...counts };
const digest = new Uint8Array(32).fill(7);
const built = api.ArtifactBloomFilter.create([digest], { expectedItemCount: 10, targetFalsePositiveRate: 0.01 });
if (built.kind !== "success") throw new Error(built.error);
const answer = built.value.mightContain(digest);
built.value.free();
console.log(JSON.stringify({ atImport, afterUse: counts, answer, headerLength: api.ABF1_HEADER_LENGTH }));
`;

/** Runs `load` (which binds `api`) between COUNTER and `use` (FIRST_USE by default) in a fresh ES-module process. */
function firstUse(load, use = FIRST_USE) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", `${COUNTER}${load}${use}`], {
    cwd: HERE,
    encoding: "utf8",
  });
  return JSON.parse(out);
}

// Each entry's load, and how many modules its first query compiles: the
// main one, plus in web.js the LZMA decoder that unpacks it (the Node
// bundles embed plain base64).
const ENTRIES = {
  'import "artifact-bloom" (node.mjs)': ['const api = await import("artifact-bloom");', 1],
  'require("artifact-bloom") (node.cjs)': [
    'const api = (await import("node:module")).createRequire(process.cwd() + "/")("artifact-bloom");',
    1,
  ],
  "web.js (browsers and bundlers)": [`const api = await import(${JSON.stringify(pathToFileURL(join(ROOT, "web.js")).href)});`, 2],
  '"artifact-bloom/delta" first, then the main entry': [
    'await import("artifact-bloom/delta"); const api = await import("artifact-bloom");',
    1,
  ],
};

for (const [entry, [load, modules]] of Object.entries(ENTRIES)) {
  test(`${entry}: nothing is compiled at import; the first query compiles and instantiates the main module`, () => {
    const run = firstUse(load);
    assert.deepEqual(run.atImport, { compiled: 0, instantiated: 0 });
    assert.deepEqual(run.afterUse, { compiled: modules, instantiated: modules });
    assert.equal(run.answer, true);
    assert.equal(typeof run.headerLength, "number");
  });
}

// The variants and delta modules: the first call that reaches into the
// module (a decode of 5 or 3 bytes, which fails `truncated` in wasm)
// compiles it, and only it (plus, in the ES entries, the LZMA decoder).
const webEntry = (entry) => `const api = await import(${JSON.stringify(pathToFileURL(join(ROOT, entry)).href)});`;
const OTHER_MODULES = {
  'import "artifact-bloom/variants" (index.mjs)': [
    'const api = await import("artifact-bloom/variants");',
    "TlBloom.fromBytes",
    5,
    1,
  ],
  "variants/index.js (browsers and bundlers)": [webEntry("variants/index.js"), "TlBloom.fromBytes", 5, 2],
  'import "artifact-bloom/delta" (index.mjs)': [
    'const api = await import("artifact-bloom/delta");',
    "readSnapshotDeltaHeader",
    3,
    1,
  ],
  "delta/index.js (browsers and bundlers)": [webEntry("delta/index.js"), "readSnapshotDeltaHeader", 3, 2],
};

for (const [entry, [load, call, length, modules]] of Object.entries(OTHER_MODULES)) {
  test(`${entry}: nothing is compiled at import; the first call into its module compiles and instantiates it`, () => {
    const use = `
const atImport = { ...counts };
const decoded = api.${call}(new Uint8Array(${length}));
console.log(JSON.stringify({ atImport, afterUse: counts, error: decoded.error }));
`;
    const run = firstUse(load, use);
    assert.deepEqual(run.atImport, { compiled: 0, instantiated: 0 });
    assert.deepEqual(run.afterUse, { compiled: modules, instantiated: modules });
    assert.equal(run.error, "truncated");
  });
}

test("the constants folded into lib/wasm/format-rules.js are what the built module answers", async () => {
  const file = join(ROOT, "lib", "wasm", "format-rules.js");
  const source = readFileSync(file, "utf8");
  assert.doesNotMatch(source, /artifact_bloom\.js/, "the package's format-rules.js still imports the glue");
  const folded = [...source.matchAll(/^export const ([A-Z0-9_]+) = .*\/\/ (\w+)\(\) of artifact_bloom_bg\.wasm/gm)];
  assert.ok(folded.length >= 3, `only ${folded.length} folded constants`);
  const rules = await import(pathToFileURL(file).href);
  // The raw layer as the package's own lib/ sees it: its instance module hands the glue its instantiation.
  await import(pathToFileURL(join(ROOT, "artifact_bloom_instance.js")).href);
  const glue = await import(pathToFileURL(join(ROOT, "artifact_bloom.js")).href);
  for (const [, name, rule] of folded) assert.equal(rules[name], glue[rule](), `${name} = ${rule}()`);
  assert.equal((await import(pathToFileURL(join(ROOT, "web.js")).href)).ABF1_HEADER_LENGTH, glue.abf1HeaderLength());
});
