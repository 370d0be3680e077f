// How users load the package: ESM import and CommonJS require by name (no
// init call anywhere), the browser entry (web.js) with its embedded wasm, the
// variants subpath, the package.json that npm, bundlers and TypeScript read,
// and the wasm SHA-256 against node:crypto. (js-tests/consumers/ installs the
// packed tarball into real toolchains.)
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, test } from "node:test";
import * as esbuild from "esbuild";
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

  test("each ES-module face reaches its bundle through a bridge an __esModule-honouring interop reads right", () => {
    // Turbopack hands `default` of a CommonJS module marked __esModule to
    // `import x from`, and node.cjs (esbuild's CommonJS) is marked: when
    // node.mjs imported it directly, Next.js server components got
    // undefined for every export (issue 22). The bridge it imports is not
    // marked, so every interop gives its module object.
    const root = dirname(require.resolve("artifact-bloom/package.json"));
    for (const face of ["node.mjs", "variants/index.mjs", "delta/index.mjs", "server/index.mjs", "oci/index.mjs"]) {
      const source = readFileSync(join(root, face), "utf8");
      const bridgeName = /^import bridge from "\.\/([^"]+-bridge\.cjs)";$/m.exec(source)?.[1];
      assert.ok(bridgeName, `${face} imports no bridge`);
      const bridge = require(join(root, dirname(face), bridgeName));
      assert.equal(bridge.__esModule, undefined, `${bridgeName} is marked __esModule`);
      const names = /^export const \{ ([^}]+) \} = api;$/m.exec(source)[1].split(", ");
      for (const name of names) assert.notEqual(bridge.api[name], undefined, `${face}: ${name}`);
      assert.equal(
        bridge.api,
        require(join(root, face.replace(/\.mjs$/, ".cjs"))),
        `${face}: the bridge's api is the CommonJS bundle`,
      );
    }
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

  test("types points to an existing .d.cts (node10 resolution reads it beside main, a CommonJS file)", () => {
    assert.equal(manifest.types, "./index.d.cts");
    assert.equal(manifest.main, "./node.cjs");
    assert.ok(existsSync(join(root, manifest.types)), `missing ${manifest.types}`);
  });

  test("every path package.json names exists (exports, main, module, bin) and is shipped", () => {
    const targets = [];
    const walk = (value) => {
      if (typeof value === "string") targets.push(value);
      else if (value && typeof value === "object") Object.values(value).forEach(walk);
    };
    walk(manifest.exports);
    walk(manifest.bin);
    targets.push(manifest.main, manifest.module);
    for (const target of targets) {
      assert.ok(existsSync(join(root, target)), `missing ${target}`);
      const path = target.replace(/^\.\//, "");
      if (path === "package.json") continue; // npm always packs it
      assert.ok(
        manifest.files.some((entry) => path === entry || path.startsWith(entry)),
        `${target} not in files`,
      );
    }
  });

  test("each .d.cts is a copy of its .d.ts (one source of declarations)", () => {
    // The copy differs only in its relative specifiers ("./x.js" → "./x.cjs"),
    // so a CommonJS-typed entry imports only CommonJS-typed files.
    for (const types of ["index.d.ts", "variants/index.d.ts", "delta/index.d.ts", "server/index.d.ts", "oci/index.d.ts"]) {
      const cts = types.replace(/\.d\.ts$/, ".d.cts");
      const asEsm = readFileSync(join(root, cts), "utf8").replace(/("\.\.?\/[^"]*)\.cjs"/g, '$1.js"');
      assert.equal(asEsm, readFileSync(join(root, types), "utf8"), cts);
    }
  });

  test("the files that hand each wasm module's instantiation to its glue are listed as side effects", () => {
    // A bundler may skip a module flagged side-effect free whose own exports
    // are unused — the glue would then have no instantiation to call.
    for (const file of [
      "./web.js",
      "./artifact_bloom_instance.js",
      "./variants/index.js",
      "./artifact_bloom_variants_instance.js",
      "./delta/index.js",
      "./artifact_bloom_delta_instance.js",
    ]) {
      assert.ok(manifest.sideEffects.includes(file), file);
    }
  });
});

describe("the browser entry (web.js) in Node, as a bundler would load it", () => {
  test("works once imported, with no init call, and answers identically to the Node build", async () => {
    const root = dirname(require.resolve("artifact-bloom/package.json"));
    const web = await import(pathToFileURL(join(root, "web.js")).href);
    assert.notEqual(web.ArtifactBloomFilter, ArtifactBloomFilter, "a separate (web) module graph");
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

  test("init() and initSync() are idempotent no-ops that keep the instance", async () => {
    const root = dirname(require.resolve("artifact-bloom/package.json"));
    const web = await import(pathToFileURL(join(root, "web.js")).href);
    const before = web.ArtifactBloomFilter.create(MEMBERS, SPEC);
    if (before.kind === "failure") assert.fail(before.error);
    assert.equal(await web.default(), undefined);
    assert.equal(await web.init({ module_or_path: "/nowhere.wasm" }), undefined, "no fetch, whatever the argument");
    assert.equal(web.initSync({ module: new Uint8Array(8) }), undefined, "no re-instantiation from other bytes");
    assert.equal(before.value.mightContain(MEMBERS[0]), true, "the filter made before still answers");
    before.value.free();
  });

  test("hashFiles' worker is one module whose wasm is instantiated on first use (only when a file streams)", () => {
    const root = dirname(require.resolve("artifact-bloom/package.json"));
    const worker = readFileSync(join(root, "lib", "hashing", "hash-worker.js"), "utf8");
    // A module worker fetches its whole import graph before it takes a message.
    assert.doesNotMatch(
      worker,
      /^\s*(import|export)\b[^(]/m,
      "lib/hashing/hash-worker.js is bundled: no import or export statements",
    );
    // The instantiation is handed to the glue (scripts/wasm-glue.mjs), which
    // calls it when `new Sha256()` first reaches into wasm: never called here.
    assert.match(worker, /^instantiateOnFirstUse\(instantiate\);$/m, "the glue is handed the instantiation");
    const calls = worker.replaceAll(/function instantiate\(\)/g, "");
    assert.doesNotMatch(calls, /\binstantiate\(\)/, "nothing instantiates the module but the glue");
  });
});

describe("the embedded wasm decoder (lib/wasm/wasm-bytes.js)", () => {
  const root = () => dirname(require.resolve("artifact-bloom/package.json"));
  const decoder = async () => import(pathToFileURL(join(root(), "lib", "wasm", "wasm-bytes.js")).href);
  // The build's own encoder (npm `lzma`, a devDependency), at every level.
  const lzma = require("lzma");
  const compress = (bytes, level) => new Uint8Array(lzma.compress(bytes, level).map((byte) => byte & 0xff));

  test("each shipped embedding unpacks to its .wasm, byte for byte", async () => {
    const { unpackWasm } = await decoder();
    for (const name of ["artifact_bloom", "artifact_bloom_variants", "artifact_bloom_delta"]) {
      const source = readFileSync(join(root(), `${name}_embedded.js`), "utf8");
      const packed = /unpackWasm\("([A-Za-z0-9+/=]+)"\)/.exec(source);
      assert.ok(packed, `${name}_embedded.js embeds a base64 string`);
      const wasm = readFileSync(join(root(), `${name}_bg.wasm`));
      assert.ok(
        packed[1].length < wasm.length * 0.6,
        `${name}: the embedding is compressed (${packed[1].length} base64 chars for ${wasm.length} bytes)`,
      );
      assert.deepEqual(Buffer.from(unpackWasm(packed[1])), wasm, name);
    }
  });

  test("random and repetitive inputs of many sizes round-trip through the encoder at every level", async () => {
    const { lzmaDecode } = await decoder();
    let seed = 0x9e3779b9;
    const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
    for (let round = 0; round < 36; round += 1) {
      const size = round < 4 ? round : next() % 50_000;
      const bytes = new Uint8Array(size);
      // Alternate incompressible bytes, a small alphabet (long matches and
      // reps), and runs copied from earlier (distances of every length).
      for (let i = 0; i < size; i += 1) {
        const kind = round % 3;
        bytes[i] =
          kind === 0
            ? next() & 0xff
            : kind === 1
              ? next() & 3
              : i > 300 && next() % 4
                ? bytes[i - 1 - (next() % 300)]
                : next() & 0xff;
      }
      const level = 1 + (round % 9);
      assert.deepEqual(lzmaDecode(compress(bytes, level)), bytes, `round ${round}: ${size} bytes at level ${level}`);
    }
  });

  test("a damaged stream is a clear Error, never wrong bytes or a hang", async () => {
    const { lzmaDecode } = await decoder();
    const bytes = new TextEncoder().encode("artifact-bloom ".repeat(2000));
    const good = compress(bytes, 9);
    const cases = {
      "a truncated stream": good.subarray(0, good.length >> 1),
      "a header only": good.subarray(0, 13),
      "a properties byte over 224": Uint8Array.from(good, (byte, i) => (i === 0 ? 225 : byte)),
      "an unknown size": Uint8Array.from(good, (byte, i) => (i >= 5 && i < 13 ? 0xff : byte)),
      "a first coder byte that is not 0": Uint8Array.from(good, (byte, i) => (i === 13 ? 1 : byte)),
    };
    for (const [label, input] of Object.entries(cases)) {
      assert.throws(() => lzmaDecode(input), /the embedded wasm module is corrupt/, label);
    }
    // Flipping bits in the coded data: either a clear Error or other bytes,
    // never a hang or an out-of-range copy (each decode is bounded by the size).
    for (let at = 20; at < good.length; at += 37) {
      const damaged = good.slice();
      damaged[at] ^= 0x5a;
      try {
        const out = lzmaDecode(damaged);
        assert.equal(out.length, bytes.length);
      } catch (error) {
        assert.match(String(error), /the embedded wasm module is corrupt/);
      }
    }
  });
});

describe("artifact-bloom/variants", () => {
  test("import and require resolve to variants/index.mjs and index.cjs and share one instance", async () => {
    assert.match(import.meta.resolve("artifact-bloom/variants"), /\/variants\/index\.mjs$/);
    assert.match(require.resolve("artifact-bloom/variants"), /\/variants\/index\.cjs$/);
    const esm = await import("artifact-bloom/variants");
    const cjs = require("artifact-bloom/variants");
    assert.equal(esm.TlBloom, cjs.TlBloom);
    const filter = esm.TlBloom.withRate(10, 0.01).insert("cat");
    assert.equal(filter.contains("cat"), true);
    assert.deepEqual(cjs.optimalParams(1_000, 0.01), { m: 9586, k: 7 });
    filter.free();
  });

  test("the main entry no longer carries the other filters", () => {
    for (const name of [
      "TlBloom",
      "MergeableBloomFilter",
      "MergeableDelta",
      "ScalableBloomFilter",
      "optimalParams",
      "alertFillRatio",
    ]) {
      assert.equal(name in api, false, name);
    }
  });
});

describe("artifact-bloom/delta", () => {
  test("import and require resolve to delta/index.mjs and index.cjs, sharing the main entry's filters", async () => {
    assert.match(import.meta.resolve("artifact-bloom/delta"), /\/delta\/index\.mjs$/);
    assert.match(require.resolve("artifact-bloom/delta"), /\/delta\/index\.cjs$/);
    const esm = await import("artifact-bloom/delta");
    const cjs = require("artifact-bloom/delta");
    assert.equal(esm.encodeSnapshotDelta, cjs.encodeSnapshotDelta);
    // Filters of the main entry, by import (this file) and by require.
    const snapshotOf = (Filter, count, catalogVersion) => {
      const made = Filter.create(MEMBERS.slice(0, count), SPEC);
      if (made.kind === "failure") assert.fail(made.error);
      return { catalogVersion, filter: made.value };
    };
    for (const Filter of [ArtifactBloomFilter, require("artifact-bloom").ArtifactBloomFilter]) {
      const base = snapshotOf(Filter, 2, 1);
      const target = snapshotOf(Filter, 4, 2);
      const delta = cjs.encodeSnapshotDelta(base, target);
      assert.equal(delta.kind, "success", delta.message);
      const applied = esm.applySnapshotDelta(base, delta.value);
      assert.equal(applied.kind, "success");
      assert.deepEqual(applied.value.filter.serializeBits(), target.filter.serializeBits());
      for (const snapshot of [base, target, applied.value]) snapshot.filter.free();
    }
  });

  test("the main entry carries no delta function; its fetchSnapshot is not the delta entry's", async () => {
    for (const name of ["encodeSnapshotDelta", "composeSnapshotDeltas", "applySnapshotDelta", "readSnapshotDeltaHeader"]) {
      assert.equal(name in api, false, name);
    }
    const esm = await import("artifact-bloom/delta");
    assert.equal(esm.applySnapshotDelta, require("artifact-bloom/delta").applySnapshotDelta);
    assert.equal(typeof esm.fetchSnapshot, "function");
    assert.notEqual(esm.fetchSnapshot, api.fetchSnapshot);
  });

  test("a page's four imports bundle no delta code; SnapshotHolder (polling with deltas) does", async () => {
    const root = dirname(require.resolve("artifact-bloom/package.json"));
    const inputsOf = async (names) => {
      const built = await esbuild.build({
        stdin: { contents: `export { ${names} } from "./web.js";`, resolveDir: root, sourcefile: "page.js" },
        bundle: true,
        minify: true,
        format: "esm",
        platform: "browser",
        write: false,
        metafile: true,
        logLevel: "silent",
      });
      return Object.values(built.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    };
    const page = await inputsOf("ArtifactBloomFilter, loadSnapshot, fetchSnapshot, Sha256");
    assert.ok(
      page.some((input) => input.endsWith("lib/snapshot/snapshot-fetch.js")),
      page.join(", "),
    );
    assert.deepEqual(
      page.filter((input) => /delta/.test(input)),
      [],
    );
    const polling = await inputsOf("SnapshotHolder");
    assert.ok(
      polling.some((input) => input.endsWith("artifact_bloom_delta_embedded.js")),
      polling.join(", "),
    );
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
