// Huge filters: a 958,647,744-bit filter (n = 50,000,000, p = 1e-4: close to
// the 2^30-bit cap) is created empty, encoded to a ~120 MB ABF1 file, and
// loaded back from bytes and from a stream — each step in its own child
// process, so the peak RSS (process.resourceUsage().maxRSS) it reports is
// that step's alone. And the cap itself: the largest n that fits at
// p = 1e-4, and n + 1 → filterTooLarge (before anything is allocated).
//
// The file goes to os.tmpdir() and is deleted afterwards.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const N = 50_000_000;
const P = 1e-4;
const EXPECTED_BITS = 958_647_744;
const MIB = 2 ** 20;

function runChild(source, args = [], timeout = 60_000) {
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", source, "--", ...args], {
    cwd: HERE,
    encoding: "utf8",
    timeout,
  });
  assert.equal(result.status, 0, `child failed (${result.signal ?? result.status}):\n${result.stderr}`);
  const lines = result.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

// Shared by the children: the header check and the report.
const COMMON = `
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot, loadSnapshotStream, wasmMemoryBytes } from "artifact-bloom";
import { createReadStream, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
const path = process.argv[process.argv.length - 1];
const maxRssBytes = () => process.resourceUsage().maxRSS * 1024;
const probes = Array.from({ length: 1000 }, (_, i) => new Uint8Array(createHash("sha256").update("probe:" + i).digest()));
function describeLoaded(loaded, ms) {
  if (loaded.kind !== "success") throw new Error(loaded.error + ": " + loaded.message);
  const { header, filter, catalogVersion } = loaded.value;
  const maybes = probes.filter((d) => filter.mightContain(d)).length;
  return { ms, catalogVersion, header: { ...header, checksum: header.checksum.slice(0, 16) }, bitCount: filter.getBitCount(), maybes,
    wasmMemory: wasmMemoryBytes(), maxRss: maxRssBytes() };
}
`;

describe(`a ${EXPECTED_BITS.toLocaleString("en")}-bit filter (n = 50,000,000, p = 1e-4)`, () => {
  let dir;
  let file;
  let created;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "artifact-bloom-huge-"));
    file = join(dir, "huge.abf1");
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("created empty and encoded (child process)", (t) => {
    created = runChild(
      `${COMMON}
      let t0 = performance.now();
      const result = ArtifactBloomFilter.create([], { expectedItemCount: ${N}, targetFalsePositiveRate: ${P} });
      if (result.kind !== "success") throw new Error(result.error);
      const filter = result.value;
      const createMs = performance.now() - t0;
      t0 = performance.now();
      const bytes = encodeSnapshot(filter, { catalogVersion: 9007199254740991 });
      const encodeMs = performance.now() - t0;
      writeFileSync(path, bytes);
      const maybes = probes.filter((d) => filter.mightContain(d)).length;
      console.log(JSON.stringify({ bitCount: filter.getBitCount(), hashCount: filter.getHashCount(), fileBytes: bytes.byteLength,
        createMs, encodeMs, maybes, wasmMemory: wasmMemoryBytes(), maxRss: maxRssBytes() }));
    `,
      [file],
    );
    t.diagnostic(
      `bitCount ${created.bitCount}, hashCount ${created.hashCount}, file ${created.fileBytes} bytes; create ${created.createMs.toFixed(0)} ms, encode ${created.encodeMs.toFixed(0)} ms`,
    );
    t.diagnostic(`wasm memory ${(created.wasmMemory / MIB).toFixed(0)} MiB, peak RSS ${(created.maxRss / MIB).toFixed(0)} MiB`);
    assert.equal(created.bitCount, EXPECTED_BITS);
    assert.equal(created.fileBytes, 96 + EXPECTED_BITS / 8);
    assert.equal(statSync(file).size, created.fileBytes);
    assert.equal(created.maybes, 0, "an empty filter answers every probe definitely absent");
    // Measured: 344 MiB of wasm memory (the bit array, the serialized payload
    // and the output buffer: three 114 MiB copies), plus the output's copy
    // in JS (114 MiB) and Node itself ≈ 515 MiB. A fifth copy would pass 600.
    assert.ok(created.maxRss < 600 * MIB, `peak RSS ${(created.maxRss / MIB).toFixed(0)} MiB`);
  });

  // PACKAGE BUG (performance), left failing on purpose: the first encode in a
  // fresh process takes ~10 s (0.5 s with `node --no-liftoff`, 0.4 s for a
  // second encode). The whole 120 MB SHA-256 runs in ONE wasm call, and V8
  // cannot tier a running wasm function up from its baseline compiler
  // (Liftoff has no on-stack replacement), so the hash runs ~20× slower than
  // optimized code. Hashing in chunks over several calls (as the stream
  // loader does: 120 MB in 0.6 s) avoids it. The same applies to the wasm
  // SHA-256 of loadSnapshot in browsers (Node hashes with node:crypto).
  test("the first encode of a 120 MB snapshot takes < 4 s (a cold module hashes in Liftoff code)", () => {
    assert.ok(created, "needs the encode from the previous test");
    assert.ok(created.encodeMs < 4000, `encodeSnapshot took ${created.encodeMs.toFixed(0)} ms in a fresh process`);
  });

  test("loaded from bytes (child process)", (t) => {
    assert.ok(created, "needs the file from the previous test");
    const r = runChild(
      `${COMMON}
      const bytes = new Uint8Array(readFileSync(path));
      const t0 = performance.now();
      const loaded = loadSnapshot(bytes);
      console.log(JSON.stringify(describeLoaded(loaded, performance.now() - t0)));
    `,
      [file],
    );
    t.diagnostic(
      `loadSnapshot ${r.ms.toFixed(0)} ms; wasm memory ${(r.wasmMemory / MIB).toFixed(0)} MiB, peak RSS ${(r.maxRss / MIB).toFixed(0)} MiB`,
    );
    assert.equal(r.bitCount, EXPECTED_BITS);
    assert.equal(r.catalogVersion, Number.MAX_SAFE_INTEGER);
    assert.equal(r.header.payloadLength, EXPECTED_BITS / 8);
    assert.equal(r.header.expectedItemCount, N);
    assert.equal(r.header.targetFpp, P);
    assert.equal(r.header.insertedItemCount, 0);
    assert.equal(r.maybes, 0);
    // Measured ≈ 400 MiB: the file in JS memory (114 MiB), its copy in wasm
    // and the bit array built from it (230 MiB of wasm memory), plus Node. A
    // fourth copy would pass 480.
    assert.ok(r.maxRss < 480 * MIB, `peak RSS ${(r.maxRss / MIB).toFixed(0)} MiB`);
  });

  test("loaded from a stream (child process): one payload in memory, not two", (t) => {
    assert.ok(created, "needs the file from the previous test");
    const r = runChild(
      `${COMMON}
      const t0 = performance.now();
      let progressEvents = 0;
      let lastBytes = 0;
      const loaded = await loadSnapshotStream(createReadStream(path, { highWaterMark: 1 << 20 }), {
        onProgress: ({ bytes, total }) => {
          if (bytes <= lastBytes) throw new Error("progress went backwards");
          if (total !== undefined && total !== ${96 + EXPECTED_BITS / 8}) throw new Error("wrong total " + total);
          lastBytes = bytes;
          progressEvents += 1;
        },
      });
      const out = describeLoaded(loaded, performance.now() - t0);
      console.log(JSON.stringify({ ...out, progressEvents, lastBytes }));
    `,
      [file],
    );
    t.diagnostic(
      `loadSnapshotStream ${r.ms.toFixed(0)} ms, ${r.progressEvents} progress events; wasm memory ${(r.wasmMemory / MIB).toFixed(0)} MiB, peak RSS ${(r.maxRss / MIB).toFixed(0)} MiB`,
    );
    assert.equal(r.bitCount, EXPECTED_BITS);
    assert.equal(r.catalogVersion, Number.MAX_SAFE_INTEGER);
    assert.equal(r.lastBytes, created.fileBytes);
    assert.equal(r.maybes, 0);
    // The stream never holds the whole file: the bit array (114 MiB; 117 MiB
    // of wasm memory), 1 MiB chunks and Node — about half the bytes path.
    assert.ok(r.maxRss < 260 * MIB, `peak RSS ${(r.maxRss / MIB).toFixed(0)} MiB`);
  });
});

describe("the 2^30-bit cap at p = 1e-4", () => {
  test("the largest n that fits, and n + 1 → filterTooLarge", (t) => {
    const r = runChild(`
      import { ArtifactBloomFilter } from "artifact-bloom";
      const spec = (n) => ({ expectedItemCount: n, targetFalsePositiveRate: 1e-4 });
      // A filterTooLarge answer comes before any allocation; a success
      // allocates the filter, which is freed at once.
      const fits = (n) => {
        const result = ArtifactBloomFilter.create([], spec(n));
        if (result.kind === "success") { const bits = result.value.getBitCount(); result.value.free(); return bits; }
        if (result.error !== "filterTooLarge") throw new Error(result.error);
        return 0;
      };
      let lo = 50_000_000; // fits (958,647,744 bits)
      let hi = 60_000_000; // 2^30 / 19.17 bits per item ≈ 56.0 M: too large
      if (!fits(lo) || fits(hi)) throw new Error("bad bracket");
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (fits(mid)) lo = mid; else hi = mid;
      }
      const packed = ArtifactBloomFilter.createPacked(new Uint8Array(0), spec(hi));
      console.log(JSON.stringify({ largest: lo, largestBits: fits(lo), over: hi, overResult: ArtifactBloomFilter.create([], spec(hi)), packed }));
    `);
    t.diagnostic(
      `largest n at p = 1e-4: ${r.largest} (${r.largestBits} bits = 2^30 - ${2 ** 30 - r.largestBits}); n = ${r.over} → filterTooLarge`,
    );
    assert.equal(r.over, r.largest + 1);
    assert.ok(r.largestBits <= 2 ** 30 && r.largestBits > 2 ** 30 - 64 * 32, `${r.largestBits} bits is just under 2^30`);
    assert.deepEqual(r.overResult, { kind: "failure", error: "filterTooLarge" });
    assert.deepEqual(r.packed, { kind: "failure", error: "filterTooLarge" });
  });
});
