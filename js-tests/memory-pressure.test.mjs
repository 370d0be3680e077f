// Memory pressure: a refused allocation is a typed `outOfMemory` answer,
// never a wasm trap, and the module keeps working afterwards.
//
// WebAssembly memory grows to 4 GiB at most and never shrinks. Before the
// fix, the stream decoder reserved a header's whole payload (up to 128 MiB)
// as soon as the header validated, before `maxBytes` was compared, and every
// allocation aborted when the memory could not grow: callers got
// `RuntimeError: unreachable`, then "attempted to take ownership of Rust
// value while it was borrowed" from the decoders the trap left borrowed.
//
// Each scenario runs in a child `node --expose-gc` (some grow wasm memory to
// its 4 GiB limit: the test runner's own heap stays small) and prints one
// JSON line. No bound depends on time; every loop is bounded.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runChild as runChildModule } from "./helpers/child.mjs";

const MIB = 2 ** 20;
const GIB = 2 ** 30;
const mib = (bytes) => (bytes / MIB).toFixed(1);

const runChild = (source, timeout = 180_000) => runChildModule(source, timeout);

// Shared by the children: a valid ABF1 header declaring `bitCount` bits (the
// checksum is irrelevant: steps 1–5 decide before the payload), and a
// summary of how a call ended, so a trap shows up as data, not as a crash.
const PRELUDE = `
import * as pkg from "artifact-bloom";
import { createHash } from "node:crypto";
const { ArtifactBloomFilter, encodeSnapshot, loadSnapshot, loadSnapshotStream, wasmMemoryBytes } = pkg;
const digest = (text) => new Uint8Array(createHash("sha256").update(text).digest());
function headerOf(bitCount) {
  const small = ArtifactBloomFilter.create([], { expectedItemCount: 1000, targetFalsePositiveRate: 0.01 }).value;
  const header = encodeSnapshot(small, { catalogVersion: 7 }).slice(0, 96);
  small.free();
  const view = new DataView(header.buffer);
  view.setBigUint64(16, BigInt(bitCount), true); // bitCount
  view.setBigUint64(56, BigInt(bitCount / 8), true); // payloadLength
  return header;
}
const outcome = (call) => {
  try {
    const value = call();
    return value?.kind === "failure" ? { failure: value.error, message: value.message } : { ok: true };
  } catch (error) {
    return { threw: error?.name, code: error?.code, message: String(error?.message) };
  }
};
const settle = async (rounds = 3) => {
  for (let i = 0; i < rounds; i += 1) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
};
// Create + query + free on a small filter: is the module still usable?
const stillWorks = () => outcome(() => {
  const member = digest("still works");
  const made = ArtifactBloomFilter.create([member], { expectedItemCount: 10, targetFalsePositiveRate: 0.01 });
  if (made.kind === "failure") return made;
  const answer = made.value.mightContain(member) && !made.value.mightContain(digest("absent"));
  made.value.free();
  if (!answer) throw new Error("wrong answers");
  return made;
});
`;

describe("maxBytes is compared with the header before anything is reserved", () => {
  test("loadSnapshotStream([header of 2^30 bits], { maxBytes: 1000 }): tooLarge, wasm memory unchanged", (t) => {
    const r = runChild(`${PRELUDE}
      const header = headerOf(2 ** 30);
      const before = wasmMemoryBytes();
      const onlyHeader = await loadSnapshotStream([header], { maxBytes: 1000 });
      const afterHeader = wasmMemoryBytes();
      // The header and the start of its payload in one 1000-byte chunk: within
      // maxBytes as bytes, but the header declares 128 MiB.
      const chunk = new Uint8Array(1000);
      chunk.set(header);
      const withPayload = await loadSnapshotStream([chunk], { maxBytes: 1000 });
      const afterChunk = wasmMemoryBytes();
      console.log(JSON.stringify({ before, afterHeader, afterChunk, onlyHeader, withPayload }));
    `);
    t.diagnostic(
      `wasm memory MiB: before ${mib(r.before)}, after the header ${mib(r.afterHeader)}, after header + payload chunk ${mib(r.afterChunk)}`,
    );
    for (const result of [r.onlyHeader, r.withPayload]) {
      assert.equal(result.kind, "failure");
      assert.equal(result.error, "tooLarge");
      assert.match(result.message, /134217824 bytes, more than maxBytes \(1000\)/);
    }
    // Not one 64 KiB page: the old decoder reserved 128 MiB here.
    assert.equal(r.afterHeader, r.before, "the header alone grew wasm memory");
    assert.equal(r.afterChunk, r.before, "a chunk within maxBytes grew wasm memory");
  });
});

describe("33 concurrent stalled streams of a 2^30-bit header", () => {
  // Each stream sends its header (and optionally some payload), then never
  // another byte. The loader's request for the next chunk after the last
  // one sent is the signal that the decoder has taken it; then the memory is
  // read, and the loads are aborted.
  const STALLED = `
    async function stalledLoads(count, payloadBytes) {
      const controller = new AbortController();
      const reason = new Error("test abort");
      let waiting = 0;
      let allWaiting;
      const everyoneStalled = new Promise((resolve) => { allWaiting = resolve; });
      const source = () => {
        const chunks = [headerOf(2 ** 30)];
        for (let sent = 0; sent < payloadBytes; sent += 2 ** 20) chunks.push(new Uint8Array(Math.min(2 ** 20, payloadBytes - sent)));
        return {
          [Symbol.asyncIterator]() {
            return {
              next() {
                if (chunks.length > 0) return Promise.resolve({ done: false, value: chunks.shift() });
                waiting += 1;
                if (waiting === count) allWaiting();
                return new Promise(() => {}); // stalled for good
              },
              return: async () => ({ done: true, value: undefined }),
            };
          },
        };
      };
      const before = wasmMemoryBytes();
      const loads = Array.from({ length: count }, () =>
        loadSnapshotStream(source(), { signal: controller.signal }).then(
          (result) => ({ settled: "resolved", kind: result.kind, error: result.error }),
          (error) => ({ settled: error === reason ? "aborted" : "rejected", name: error?.name, message: String(error?.message) }),
        ));
      // Bounded: if a load ended early (a trap, a failure), it is reported below.
      const early = Promise.race(loads).then(() => "a load ended before the abort");
      const stalledOrEarly = await Promise.race([everyoneStalled.then(() => "stalled"), early]);
      const during = wasmMemoryBytes();
      controller.abort(reason);
      const outcomes = await Promise.all(loads);
      const tally = {};
      for (const o of outcomes) {
        const key = o.settled === "aborted" ? "aborted" : JSON.stringify(o);
        tally[key] = (tally[key] ?? 0) + 1;
      }
      return { stalledOrEarly, before, during, tally, afterwards: stillWorks() };
    }
  `;

  test("header only: every load waits, wasm memory grows < 1 MiB, all 33 abort cleanly", (t) => {
    const r = runChild(`${PRELUDE}${STALLED}
      console.log(JSON.stringify(await stalledLoads(33, 0)));
    `);
    t.diagnostic(
      `wasm memory MiB: before ${mib(r.before)}, with 33 stalled streams ${mib(r.during)}; outcomes ${JSON.stringify(r.tally)}`,
    );
    assert.equal(r.stalledOrEarly, "stalled");
    // The old decoder reserved 128 MiB per header: 33 would need 4.1 GiB.
    assert.ok(r.during - r.before < MIB, `33 stalled headers grew wasm memory by ${mib(r.during - r.before)} MiB`);
    assert.deepEqual(r.tally, { aborted: 33 }, "every load rejects with the abort reason, nothing else");
    assert.deepEqual(r.afterwards, { ok: true });
  });

  test("header + 3 MiB of payload each: each holds at most twice what it received", (t) => {
    const r = runChild(`${PRELUDE}${STALLED}
      console.log(JSON.stringify(await stalledLoads(33, 3 * 2 ** 20)));
    `);
    // Bound: a stream that delivered d bytes of payload holds a bit array
    // of at most 2·d (it doubles as bytes arrive, up to 1/32 of the payload,
    // here 4 MiB): for 3 MiB in 1 MiB chunks, 1 → 2 → 4 MiB. Counting every
    // step as never reused, 7 MiB per stream, plus the kept 1 MiB input
    // buffer (and a page or two) for all of them. The old decoder reserved
    // 128 MiB per stream (4.1 GiB for 33).
    const bound = 33 * 7 * MIB + 2 * MIB;
    t.diagnostic(
      `wasm memory MiB: before ${mib(r.before)}, with 33 streams stalled after 3 MiB ${mib(r.during)} (bound ${mib(bound)}); outcomes ${JSON.stringify(r.tally)}`,
    );
    assert.equal(r.stalledOrEarly, "stalled");
    assert.ok(r.during - r.before <= bound, `grew ${mib(r.during - r.before)} MiB`);
    assert.deepEqual(r.tally, { aborted: 33 });
    assert.deepEqual(r.afterwards, { ok: true });
  });
});

describe("wasm memory exhausted: typed outOfMemory answers, then the module still works", () => {
  // Filters of 24 MB (n = 20,000,000, p = 0.01) until the 4 GiB limit: about
  // 170 of them. (1.2 MB filters exhaust it too, but each memory.grow costs
  // V8 milliseconds, and 3,500 of them take over a minute on 2 cores.)
  // Inputs of 62–64 MB cannot fit in what is left (less than one filter).
  test("forgotten filters in a synchronous loop, then kept ones: failures and coded errors, no trap", (t) => {
    const r = runChild(`${PRELUDE}
      const big = { expectedItemCount: 20_000_000, targetFalsePositiveRate: 0.01 };
      const sixtyFour = new Uint8Array(64 * 2 ** 20);
      // A valid 62 MB snapshot, made before memory is short.
      const source = ArtifactBloomFilter.create([digest("member")], { expectedItemCount: 200_000_000, targetFalsePositiveRate: 0.3 }).value;
      const file = encodeSnapshot(source, { catalogVersion: 11 });
      source.free();
      const kept = ArtifactBloomFilter.create([digest("kept")], { expectedItemCount: 10, targetFalsePositiveRate: 0.01 }).value;
      const report = { fileBytes: file.byteLength };

      // Phase 1: forgotten filters, created in a synchronous loop, so the
      // FinalizationRegistry cannot run before the memory runs out.
      let made = 0;
      report.exhaustion = { threw: "no failure within 400 filters" };
      for (let i = 0; i < 400; i += 1) {
        const result = outcome(() => {
          const built = ArtifactBloomFilter.create([digest("x")], big);
          if (built.kind === "success") made += 1;
          return built;
        });
        if (!result.ok) { report.exhaustion = result; break; }
      }
      report.made = made;
      report.peak = wasmMemoryBytes();
      // Still exhausted (no await since): every path answers in its own way.
      report.whileExhausted = {
        keptStillAnswers: outcome(() => { if (!kept.mightContain(digest("kept"))) throw new Error("kept filter lost its member"); }),
        loadSnapshot: outcome(() => loadSnapshot(file)),
        mightContainMany: outcome(() => kept.mightContainMany(sixtyFour)),
        countMaybe: outcome(() => kept.countMaybe(sixtyFour)),
        dedupePacked: outcome(() => pkg.dedupePacked(sixtyFour)),
        sha256: outcome(() => pkg.sha256(sixtyFour)),
      };
      // Let the registry reclaim the forgotten filters (bounded rounds).
      const tryBig = () => outcome(() => {
        const built = ArtifactBloomFilter.create([], big);
        built.value?.free();
        return built;
      });
      let rounds = 0;
      let bigAgain = tryBig();
      while (!bigAgain.ok && rounds < 50) {
        await settle(1);
        rounds += 1;
        bigAgain = tryBig();
      }
      report.reclaimed = { rounds, bigAgain, stillWorks: stillWorks(), keptFree: outcome(() => kept.free()) };

      // Phase 2: filters kept referenced (nothing to reclaim) until the limit,
      // then the loaders; then free() them all and load for real.
      const holding = [];
      for (let i = 0; i < 400; i += 1) {
        const built = ArtifactBloomFilter.create([], big);
        if (built.kind === "failure") { report.holdingFailure = built.error; break; }
        holding.push(built.value);
      }
      report.held = holding.length;
      const chunks = (bytes) => (async function* () {
        for (let at = 0; at < bytes.byteLength; at += 2 ** 20) yield bytes.subarray(at, at + 2 ** 20);
      })();
      const streamed = await loadSnapshotStream(chunks(file));
      report.whileHeld = {
        loadSnapshotStream: streamed.kind === "failure" ? { failure: streamed.error, message: streamed.message } : { ok: true },
        loadSnapshot: outcome(() => loadSnapshot(file)),
        encodeSnapshot: outcome(() => encodeSnapshot(holding[0], { catalogVersion: 1 })),
      };
      for (const filter of holding) filter.free();
      const loaded = loadSnapshot(file);
      const streamedAgain = await loadSnapshotStream(chunks(file));
      report.afterFree = {
        loadSnapshot: loaded.kind === "success" ? loaded.value.catalogVersion : loaded.error,
        loadSnapshotStream: streamedAgain.kind === "success" ? streamedAgain.value.catalogVersion : streamedAgain.error,
        member: loaded.value?.filter.mightContain(digest("member")),
      };
      loaded.value?.filter.free();
      streamedAgain.value?.filter.free();
      report.finally = stillWorks();
      console.log(JSON.stringify(report));
    `);
    t.diagnostic(
      `${r.made} forgotten 24 MB filters before outOfMemory; wasm memory at the limit ${mib(r.peak)} MiB; reclaimed after ${r.reclaimed.rounds} gc rounds; ${r.held} kept filters fill it again`,
    );
    // Phase 1: a typed failure, not an exception, and the limit was reached.
    assert.equal(r.exhaustion.failure, "outOfMemory", JSON.stringify(r.exhaustion));
    assert.match(r.exhaustion.message, /4 GiB/);
    assert.ok(r.peak > 3.5 * GIB, `wasm memory reached only ${mib(r.peak)} MiB`);
    const w = r.whileExhausted;
    assert.deepEqual(w.keptStillAnswers, { ok: true });
    // Result-shaped loaders answer a failure; throwing paths throw the coded Error.
    for (const name of ["loadSnapshot"]) {
      assert.equal(w[name].failure, "outOfMemory", `${name}: ${JSON.stringify(w[name])}`);
      assert.match(w[name].message, /could not reserve \d+ bytes/);
    }
    // Batches stage their input a chunk (512 KiB) at a time, so they may
    // still find room; if not, the same coded error.
    for (const name of ["mightContainMany", "countMaybe"]) {
      if (w[name].ok === true) continue;
      assert.equal(w[name].threw, "ArtifactBloomError", `${name}: ${JSON.stringify(w[name])}`);
      assert.equal(w[name].code, "outOfMemory", `${name}: ${JSON.stringify(w[name])}`);
    }
    for (const name of ["dedupePacked", "sha256"]) {
      assert.equal(w[name].threw, "ArtifactBloomError", `${name}: ${JSON.stringify(w[name])}`);
      assert.equal(w[name].code, "outOfMemory", `${name}: ${JSON.stringify(w[name])}`);
    }
    // Afterwards: reclaimed, usable, and the kept filter frees without a borrow error.
    assert.deepEqual(r.reclaimed.bigAgain, { ok: true });
    assert.deepEqual(r.reclaimed.stillWorks, { ok: true });
    assert.deepEqual(r.reclaimed.keptFree, { ok: true });
    // Phase 2.
    assert.equal(r.holdingFailure, "outOfMemory");
    assert.ok(r.held > 100, `only ${r.held} filters fit after reclaiming`);
    assert.equal(r.whileHeld.loadSnapshotStream.failure, "outOfMemory", JSON.stringify(r.whileHeld.loadSnapshotStream));
    assert.equal(r.whileHeld.loadSnapshot.failure, "outOfMemory");
    assert.equal(r.whileHeld.encodeSnapshot.code, "outOfMemory", JSON.stringify(r.whileHeld.encodeSnapshot));
    assert.deepEqual(r.afterFree, { loadSnapshot: 11, loadSnapshotStream: 11, member: true });
    assert.deepEqual(r.finally, { ok: true });
  });
});

describe("the variants module's own memory exhausted: typed outOfMemory answers there too", () => {
  // artifact-bloom/variants has its own wasm instance and memory: fill it with
  // forgotten ~48 MB TLBF filters (n = 40,000,000, p = 0.01) in a synchronous
  // loop, then every variants builder and loader must answer outOfMemory — a
  // coded failure or Error, never a trap — and the module must work again
  // once the forgotten filters are reclaimed.
  test("forgotten TLBF filters until the limit, then each builder and loader", (t) => {
    const r = runChild(`${PRELUDE}
      const variants = await import("artifact-bloom/variants");
      const huge = 40_000_000;
      const sixtyFour = new Uint8Array(64 * 2 ** 20);
      let made = 0;
      let exhaustion = { threw: "no failure within 200 filters" };
      for (let i = 0; i < 200; i += 1) {
        const result = outcome(() => { variants.TlBloom.withRate(huge, 0.01); made += 1; });
        if (!result.ok) { exhaustion = result; break; }
      }
      const whileExhausted = {
        tlbfFromBytes: outcome(() => variants.TlBloom.fromBytes(sixtyFour)),
        mergeableCreate: outcome(() => variants.MergeableBloomFilter.create(huge, 0.01)),
        scalable: outcome(() => new variants.ScalableBloomFilter({ initialCapacity: huge, targetFalsePositiveRate: 0.01 })),
        mainStillWorks: stillWorks(),
      };
      const works = () => outcome(() => {
        const filter = variants.TlBloom.withRate(1000, 0.01).insert("cat");
        const answer = filter.contains("cat");
        filter.free();
        if (!answer) throw new Error("wrong answer");
      });
      let rounds = 0;
      let again = works();
      while (!again.ok && rounds < 50) { await settle(1); rounds += 1; again = works(); }
      console.log(JSON.stringify({ made, exhaustion, whileExhausted, rounds, again }));
    `);
    t.diagnostic(`${r.made} forgotten 48 MB TLBF filters before outOfMemory; usable again after ${r.rounds} gc rounds`);
    assert.equal(r.exhaustion.code, "outOfMemory", JSON.stringify(r.exhaustion));
    assert.ok(r.made > 50, `only ${r.made} filters fit in the variants module's memory`);
    const w = r.whileExhausted;
    assert.equal(w.tlbfFromBytes.failure, "outOfMemory", JSON.stringify(w.tlbfFromBytes));
    for (const name of ["mergeableCreate", "scalable"]) {
      assert.equal(w[name].threw, "ArtifactBloomError", `${name}: ${JSON.stringify(w[name])}`);
      assert.equal(w[name].code, "outOfMemory", `${name}: ${JSON.stringify(w[name])}`);
    }
    // The main entry's memory is separate: still fine.
    assert.deepEqual(w.mainStillWorks, { ok: true });
    assert.deepEqual(r.again, { ok: true });
  });
});
