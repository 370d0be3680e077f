// Memory: wasm linear memory and RSS stay flat over many create/free and
// load/free cycles, inputs staged into wasm memory are released, and filters
// that are dropped without free() are reclaimed by the package's
// FinalizationRegistry. (What happens when memory runs out:
// memory-pressure.test.mjs.)
//
// Each scenario runs in a child `node --expose-gc` (so it can force a GC
// before reading RSS, and its memory is isolated from the test runner's) and
// prints one JSON line; the test checks it and reports the numbers with
// t.diagnostic (visible with --test-reporter=spec).
//
// Why the bounds hold:
// - WebAssembly.Memory never shrinks, so "no leak" means: after a warm-up
//   that lets the allocator reach its steady state, 10,000 more cycles do
//   not grow it by a single 64 KiB page. Each cycle's filter is 95,936 bits
//   (n = 10,000, p = 0.01: 11,992 bytes), so leaking every one would add
//   ~120 MB; leaking even 1 % would add 1.2 MB = 18 pages.
// - RSS also moves with V8's heap and the allocator's caches; after a forced
//   GC it stays within a few MB. The bound, 24 MB, is a fifth of what leaking
//   every cycle's bit array (120 MB) would add, yet far above the noise.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runChild as runChildModule } from "./helpers/child.mjs";

const runChild = (source, timeout = 60_000) => runChildModule(source, timeout);

const PRELUDE = `
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot, wasmMemoryBytes } from "artifact-bloom";
import { createHash } from "node:crypto";
const MB = 1024 * 1024;
const settle = async () => {
  for (let i = 0; i < 3; i += 1) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
};
const rss = () => process.memoryUsage().rss;
const packed = new Uint8Array(10_000 * 32);
for (let i = 0; i < 10_000; i += 1) packed.set(createHash("sha256").update("member:" + i).digest(), i * 32);
const spec = { expectedItemCount: 10_000, targetFalsePositiveRate: 0.01 };
const probe = packed.subarray(0, 32);
`;

describe("10,000 create/free and 10,000 load/free cycles leave memory flat", () => {
  test("wasm memory does not grow after warm-up; RSS grows < 24 MB", (t) => {
    const r = runChild(`${PRELUDE}
      const template = ArtifactBloomFilter.createPacked(packed, spec).value;
      const file = encodeSnapshot(template, { catalogVersion: 1 });
      template.free();
      const createCycle = () => {
        const f = ArtifactBloomFilter.createPacked(packed.subarray(0, 32 * 1000), spec).value;
        if (!f.mightContain(probe)) throw new Error("member answered absent");
        f.free();
      };
      const loadCycle = () => {
        const loaded = loadSnapshot(file);
        if (loaded.kind !== "success" || !loaded.value.filter.mightContain(probe)) throw new Error("load failed");
        loaded.value.filter.free();
      };
      for (let i = 0; i < 1000; i += 1) { createCycle(); loadCycle(); }
      await settle();
      const warm = { wasm: wasmMemoryBytes(), rss: rss() };
      let t0 = performance.now();
      for (let i = 0; i < 10_000; i += 1) createCycle();
      const createMs = performance.now() - t0;
      await settle();
      const afterCreate = { wasm: wasmMemoryBytes(), rss: rss() };
      t0 = performance.now();
      for (let i = 0; i < 10_000; i += 1) loadCycle();
      const loadMs = performance.now() - t0;
      await settle();
      const afterLoad = { wasm: wasmMemoryBytes(), rss: rss() };
      console.log(JSON.stringify({ warm, afterCreate, afterLoad, createMs, loadMs, fileBytes: file.byteLength }));
    `);
    const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
    t.diagnostic(
      `snapshot ${r.fileBytes} bytes; 10,000 create/free ${r.createMs.toFixed(0)} ms, 10,000 load/free ${r.loadMs.toFixed(0)} ms`,
    );
    t.diagnostic(
      `wasm memory MB: after warm-up ${mb(r.warm.wasm)}, after 10k create/free ${mb(r.afterCreate.wasm)}, after 10k load/free ${mb(r.afterLoad.wasm)}`,
    );
    t.diagnostic(
      `RSS MB:         after warm-up ${mb(r.warm.rss)}, after 10k create/free ${mb(r.afterCreate.rss)}, after 10k load/free ${mb(r.afterLoad.rss)}`,
    );
    assert.equal(r.afterCreate.wasm, r.warm.wasm, "create/free cycles grew wasm memory");
    assert.equal(r.afterLoad.wasm, r.warm.wasm, "load/free cycles grew wasm memory");
    assert.ok(
      r.afterCreate.rss - r.warm.rss < 24 * 2 ** 20,
      `RSS grew ${mb(r.afterCreate.rss - r.warm.rss)} MB over create/free`,
    );
    assert.ok(
      r.afterLoad.rss - r.warm.rss < 24 * 2 ** 20,
      `RSS grew ${mb(r.afterLoad.rss - r.warm.rss)} MB over create+load/free`,
    );
  });
});

describe("dropped filters (never freed) are reclaimed by the FinalizationRegistry", () => {
  // 2,000 filters of ~1 MiB (n = 874,000 at p = 0.01) created and dropped
  // without free(). If nothing were reclaimed the wasm memory would need
  // ~2 GiB (2,000 × 1.0 MiB); with gc() and a few macrotasks every 25
  // filters, the registry frees them and the memory stays at tens of MiB.
  // The control keeps 150 filters referenced: memory then does grow by
  // ~1 MiB per filter, so the flat line above is the registry's doing.
  test("2,000 × 1 MiB filters dropped: wasm memory stays < 256 MiB (vs ~2 GiB unreclaimed)", (t) => {
    const r = runChild(
      `${PRELUDE}
      const big = { expectedItemCount: 874_000, targetFalsePositiveRate: 0.01 };
      const start = wasmMemoryBytes();
      let peak = start;
      let bytesEach = 0;
      for (let i = 0; i < 2000; i += 1) {
        const f = ArtifactBloomFilter.create([], big).value;
        bytesEach = f.getBitCount() / 8;
        f.mightContain(probe); // used, then dropped without free()
        if (i % 25 === 24) await settle();
        peak = Math.max(peak, wasmMemoryBytes());
      }
      await settle();
      const end = wasmMemoryBytes();
      // Control: the same filters kept alive cannot be reclaimed.
      const kept = [];
      const controlStart = wasmMemoryBytes();
      for (let i = 0; i < 150; i += 1) {
        kept.push(ArtifactBloomFilter.create([], big).value);
        if (i % 25 === 24) await settle();
      }
      const controlEnd = wasmMemoryBytes();
      console.log(JSON.stringify({ start, peak, end, bytesEach, controlStart, controlEnd, kept: kept.length }));
    `,
      120_000,
    );
    const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
    const unreclaimed = 2000 * r.bytesEach;
    t.diagnostic(
      `each filter ${mib(r.bytesEach)} MiB of bits; 2,000 dropped would need ${mib(unreclaimed)} MiB if nothing were reclaimed`,
    );
    t.diagnostic(`wasm memory MiB: start ${mib(r.start)}, peak ${mib(r.peak)}, end ${mib(r.end)}`);
    t.diagnostic(
      `control (150 kept alive): ${mib(r.controlStart)} → ${mib(r.controlEnd)} MiB (+${mib(r.controlEnd - r.controlStart)})`,
    );
    assert.ok(r.bytesEach >= 2 ** 20 * 0.95, `filters are ~1 MiB: ${r.bytesEach} bytes`);
    assert.ok(r.peak < 256 * 2 ** 20, `peak wasm memory ${mib(r.peak)} MiB`);
    assert.ok(r.peak < unreclaimed / 8, "peak is far below the unreclaimed total");
    assert.ok(r.controlEnd - r.controlStart > 100 * 2 ** 20, "kept filters do grow the memory (the control works)");
  });
});

describe("inputs staged into wasm memory are released", () => {
  // Every caller byte enters wasm memory through one staging buffer: kept
  // between calls up to 1 MiB, freed after the call for anything larger. So
  // after warm-up, 2,000 rounds of a 64 KiB batch query, a TLBF item and a
  // mergeable add, and 100 hashes of 3 MiB, must not grow the memory by a
  // page: keeping every 3 MiB copy would add 300 MB, keeping one in ten 30 MB.
  test("2,000 batch queries and items, 100 hashes of 3 MiB: wasm memory flat after warm-up", (t) => {
    const r = runChild(`${PRELUDE}
      const { sha256 } = await import("artifact-bloom");
      const { MergeableBloomFilter, TlBloom, variantsMemoryBytes } = await import("artifact-bloom/variants");
      const filter = ArtifactBloomFilter.createPacked(packed, spec).value;
      const tlbf = TlBloom.withRate(10_000, 0.01);
      const mergeable = MergeableBloomFilter.create(10_000, 0.01);
      const batch = packed.subarray(0, 2048 * 32);
      const large = new Uint8Array(3 * MB).fill(7);
      let maybes = 0;
      const round = (i) => {
        maybes += filter.countMaybe(batch) + filter.mightContainMany(batch)[0];
        tlbf.insert("item:" + i);
        mergeable.add("item:" + i);
        if (!tlbf.contains("item:" + i) || !mergeable.mightContain("item:" + i)) throw new Error("member answered absent");
      };
      const hashLarge = () => {
        if (sha256(large).byteLength !== 32) throw new Error("bad digest");
      };
      for (let i = 0; i < 200; i += 1) round(i);
      for (let i = 0; i < 10; i += 1) hashLarge();
      await settle();
      const warm = wasmMemoryBytes();
      const variantsWarm = variantsMemoryBytes();
      for (let i = 200; i < 2200; i += 1) round(i);
      for (let i = 0; i < 100; i += 1) hashLarge();
      await settle();
      console.log(JSON.stringify({ warm, after: wasmMemoryBytes(), variantsWarm, variantsAfter: variantsMemoryBytes(), maybes }));
    `);
    t.diagnostic(
      `wasm memory MiB: after warm-up ${(r.warm / 2 ** 20).toFixed(1)}, after 2,000 rounds and 100 large hashes ${(r.after / 2 ** 20).toFixed(1)}`,
    );
    assert.equal(r.maybes, 2200 * 2049, "every member answered maybe");
    assert.equal(r.after, r.warm, "staged inputs grew wasm memory");
    assert.equal(r.variantsAfter, r.variantsWarm, "staged inputs grew the variants module's wasm memory");
  });
});
