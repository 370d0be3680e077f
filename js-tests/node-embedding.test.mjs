// The Node bundles (node.cjs, variants/index.cjs, delta/index.cjs) carry
// their wasm modules as plain base64 (scripts/node-embedding.mjs: unpacking
// LZMA cost a fresh process ≈ 16 ms at import), while the browser files
// keep LZMA. Each bundle's embeddings must decode to exactly the shipped
// .wasm modules it instantiates, and no LZMA decoder may be left in them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const root = dirname(require.resolve("artifact-bloom/package.json"));
const wasm = (name) => readFileSync(join(root, `${name}_bg.wasm`));

const BUNDLES = {
  // The main bundle carries only its own module: SnapshotHolder's first
  // delta loads delta/index.cjs (one embedding, one instance of the delta module).
  "node.cjs": ["artifact_bloom"],
  "variants/index.cjs": ["artifact_bloom_variants"],
  "delta/index.cjs": ["artifact_bloom_delta"],
  // No wasm of its own: it takes the main and delta modules from node.cjs and delta/index.cjs.
  "server/index.cjs": [],
  // The OCI client is pure JavaScript (node.cjs takes its classes from it).
  "oci/index.cjs": [],
};

for (const [bundle, modules] of Object.entries(BUNDLES)) {
  test(`${bundle} embeds ${modules.join(" and ") || "no wasm module"} as plain base64 that decodes to the shipped .wasm`, () => {
    const source = readFileSync(join(root, bundle), "utf8");
    const embedded = [...source.matchAll(/bytesFromBase64\d*\("([A-Za-z0-9+/=]+)"\)/g)].map((match) =>
      Buffer.from(match[1], "base64"),
    );
    assert.equal(embedded.length, modules.length, `${bundle}: ${embedded.length} embeddings`);
    for (const [index, name] of modules.entries())
      assert.ok(embedded[index].equals(wasm(name)), `${bundle}: embedding ${index} is not ${name}_bg.wasm`);
    assert.doesNotMatch(source, /unpackWasm|lzmaDecode|LZMA_UNPACK_WASM/, `${bundle} still carries the LZMA decoder`);
  });
}

test("the browser embeddings stay LZMA (what a page downloads)", () => {
  const source = readFileSync(join(root, "artifact_bloom_embedded.js"), "utf8");
  assert.match(source, /unpackWasm\("[A-Za-z0-9+/=]+"\)/);
  assert.doesNotMatch(source, /bytesFromBase64/);
});
