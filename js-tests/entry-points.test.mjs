// How users load the package: ESM import and CommonJS require by name (no
// init call in Node), the browser entry (artifact-bloom/web) instantiated from
// bytes, the package.json that npm and TypeScript read, and the wasm SHA-256
// against node:crypto.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import init, * as api from "artifact-bloom";
import { ArtifactBloomFilter, Sha256, sha256 } from "artifact-bloom";

const require = createRequire(import.meta.url);

function digestOf(text) {
  return new Uint8Array(createHash("sha256").update(text).digest());
}

const SPEC = { expectedItemCount: 500, targetFalsePositiveRate: 0.01 };
const MEMBERS = Array.from({ length: 500 }, (_, i) => digestOf(`member:${i}`));
const QUERIES = [...MEMBERS.slice(0, 50), ...Array.from({ length: 2000 }, (_, i) => digestOf(`non-member:${i}`))];

describe("Node entry points", () => {
  test("ESM import by name resolves to pkg/node.mjs and works without init", () => {
    assert.match(import.meta.resolve("artifact-bloom"), /\/node\.mjs$/);
    const result = ArtifactBloomFilter.create(MEMBERS, SPEC);
    if (result.kind === "failure") assert.fail(result.error);
    assert.equal(result.value.mightContain(MEMBERS[0]), true);
    result.value.free();
  });

  test("require() by name resolves to pkg/node.cjs and works without init", () => {
    assert.match(require.resolve("artifact-bloom"), /\/node\.cjs$/);
    const cjs = require("artifact-bloom");
    const result = cjs.ArtifactBloomFilter.create(MEMBERS, SPEC);
    if (result.kind === "failure") assert.fail(result.error);
    assert.equal(result.value.mightContain(MEMBERS[0]), true);
    result.value.free();
  });

  test("import and require share one module and one wasm instance", () => {
    // Two copies would mean two wasm memories and `instanceof` failing
    // across a mixed ESM/CJS codebase (dual-package hazard).
    const cjs = require("artifact-bloom");
    assert.equal(cjs.ArtifactBloomFilter, ArtifactBloomFilter);
    assert.equal(cjs.Sha256, Sha256);
    assert.equal(cjs.sha256, sha256);
    assert.equal(cjs.wasmMemoryBytes, api.wasmMemoryBytes);
    const fromEsm = ArtifactBloomFilter.create([], SPEC);
    if (fromEsm.kind === "failure") assert.fail(fromEsm.error);
    assert.ok(fromEsm.value instanceof cjs.ArtifactBloomFilter);
    fromEsm.value.free();
  });

  test("the documented names are exported", () => {
    for (const name of ["ArtifactBloomFilter", "Sha256", "sha256", "wasmMemoryBytes", "init"]) {
      assert.equal(typeof api[name], "function", name);
    }
  });

  test("default import init() is a function whose promise resolves (a no-op in Node)", async () => {
    assert.equal(typeof init, "function");
    const pending = init();
    assert.ok(pending instanceof Promise);
    await pending;
    // Still usable afterwards: init must not re-instantiate and lose state.
    const result = ArtifactBloomFilter.create(MEMBERS, SPEC);
    if (result.kind === "failure") assert.fail(result.error);
    assert.equal(result.value.mightContain(MEMBERS[1]), true);
    result.value.free();
  });
});

describe("package.json of the built package", () => {
  const manifestPath = require.resolve("artifact-bloom/package.json");
  const root = dirname(manifestPath);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));

  test('name is "artifact-bloom"', () => assert.equal(manifest.name, "artifact-bloom"));

  test("types points to an existing .d.ts", () => {
    assert.equal(typeof manifest.types, "string");
    assert.ok(existsSync(join(root, manifest.types)), `missing ${manifest.types}`);
    assert.ok(existsSync(join(root, manifest.exports["."].types)), "exports['.'].types");
  });

  test("every path package.json names exists (exports, main, module, bin)", () => {
    const targets = [];
    const walk = (value) => {
      if (typeof value === "string") targets.push(value);
      else if (value && typeof value === "object") Object.values(value).forEach(walk);
    };
    walk(manifest.exports);
    walk(manifest.bin);
    targets.push(manifest.main, manifest.module);
    for (const target of targets) assert.ok(existsSync(join(root, target)), `missing ${target}`);
  });

  test("the browser entry web.js exists and exports default init, init and initSync", () => {
    const web = readFileSync(join(root, "web.js"), "utf8");
    assert.match(web, /export default function init\b/);
    assert.match(web, /export \{[^}]*\binit\b[^}]*\}/);
    assert.match(web, /initSync/);
  });
});

describe("browser entry (artifact-bloom/web) in Node via initSync", () => {
  test("before init, using it throws instead of answering", async () => {
    const web = await import("artifact-bloom/web");
    // Must run before the initSync test below (node:test runs in order):
    // a missing instance must never look like "definitely absent".
    assert.throws(() => web.ArtifactBloomFilter.create([], SPEC));
  });

  test("initSync({ module: bytes }) then answers identically to the Node build", async () => {
    const web = await import("artifact-bloom/web");
    assert.equal(typeof web.default, "function");
    assert.equal(typeof web.init, "function");
    assert.notEqual(web.ArtifactBloomFilter, ArtifactBloomFilter, "a separate (web) module graph");
    const wasmPath = fileURLToPath(import.meta.resolve("artifact-bloom/artifact_bloom_bg.wasm"));
    web.initSync({ module: readFileSync(wasmPath) });
    await web.default(); // idempotent after initSync: no fetch of a file: URL

    const node = ArtifactBloomFilter.create(MEMBERS, SPEC);
    const browser = web.ArtifactBloomFilter.create(MEMBERS, SPEC);
    if (node.kind === "failure" || browser.kind === "failure") assert.fail("create failed");
    assert.equal(browser.value.getBitCount(), node.value.getBitCount());
    assert.equal(browser.value.getHashCount(), node.value.getHashCount());
    assert.deepEqual(browser.value.serializeBits(), node.value.serializeBits());
    for (const digest of QUERIES) {
      assert.equal(browser.value.mightContain(digest), node.value.mightContain(digest));
    }
    assert.deepEqual(web.sha256(new Uint8Array([1, 2, 3])), sha256(new Uint8Array([1, 2, 3])));
    node.value.free();
    browser.value.free();
  });
});

describe("SHA-256 (wasm) equals node:crypto", () => {
  const nodeSha = (bytes) => new Uint8Array(createHash("sha256").update(bytes).digest());
  const NIST = [
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    ["a".repeat(1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"],
  ];

  for (const [input, expected] of NIST) {
    const label = input.length > 60 ? `${input.length} × "${input[0]}"` : JSON.stringify(input);
    test(`NIST ${label}`, () => {
      const bytes = new TextEncoder().encode(input);
      assert.equal(Buffer.from(sha256(bytes)).toString("hex"), expected, "sha256()");
      const hasher = new Sha256();
      assert.equal(hasher.update(bytes), hasher, "update() chains");
      assert.equal(Buffer.from(hasher.digest()).toString("hex"), expected, "Sha256");
      hasher.free();
      assert.equal(Buffer.from(nodeSha(bytes)).toString("hex"), expected, "the vector itself");
    });
  }

  test("every length around the 64-byte block and padding boundaries", () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 131 + 7) & 0xff);
    for (let length = 0; length <= 300; length += 1) {
      const input = bytes.subarray(0, length);
      assert.deepEqual(sha256(input), nodeSha(input), `length ${length}`);
    }
  });

  test("random sizes up to 5 MiB in random chunks (seeded)", (t) => {
    const seed = 0x5ea5_1de5;
    t.diagnostic(`seed ${seed}`);
    let state = seed >>> 0;
    const random = () => {
      // mulberry32
      state = (state + 0x6d2b79f5) >>> 0;
      let x = state;
      x = Math.imul(x ^ (x >>> 15), x | 1);
      x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
    const MAX = 5 * 1024 * 1024;
    const source = new Uint8Array(MAX);
    for (let i = 0; i < MAX; i += 1) source[i] = (random() * 256) & 0xff;
    // Log-uniform sizes cover tiny and huge inputs; 0 and the full 5 MiB always.
    const sizes = [0, MAX, ...Array.from({ length: 10 }, () => Math.floor(Math.exp(random() * Math.log(MAX))))];
    for (const size of sizes) {
      const input = source.subarray(MAX - size); // nonzero byteOffset except for the full size
      const hasher = new Sha256();
      let chunks = 0;
      for (let offset = 0; offset < size; chunks += 1) {
        // Chunks from 0 bytes (an empty update must be harmless) to ~256 KiB.
        const length = random() < 0.1 ? 0 : Math.ceil(Math.exp(random() * Math.log(262_144)));
        hasher.update(input.subarray(offset, offset + length));
        offset += length;
      }
      const expected = nodeSha(input);
      assert.deepEqual(hasher.digest(), expected, `size ${size} in ${chunks} chunks`);
      assert.deepEqual(sha256(input), expected, `one-shot size ${size}`);
      hasher.free();
    }
  });
});
