// Run by js-tests/memory-limit.test.mjs in a child process (it takes the main
// wasm memory to its 4 GiB limit: ≈ 4.3 GiB RSS, which the test runner's own
// process should not keep). Prints one JSON report on stdout: what every path
// answered at the limit, and after every filter was freed.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot, loadSnapshotStream, wasmMemoryBytes } from "artifact-bloom";
import { applySnapshotDelta, encodeSnapshotDelta } from "artifact-bloom/delta";

const digest = (text) => new Uint8Array(createHash("sha256").update(text).digest());
const build = (count, expectedItemCount) => {
  const built = ArtifactBloomFilter.create(
    Array.from({ length: count }, (_, i) => digest(`limit:${i}`)),
    { expectedItemCount, targetFalsePositiveRate: 0.001 },
  );
  if (built.kind === "failure") throw new Error(`setup: ${built.error}`);
  return built.value;
};

// Built before the memory is full: a 1.8 MB snapshot, a delta v1 → v2, and a
// kept filter whose answers must survive.
const kept = build(1000, 1000);
const keptAnswers = Array.from({ length: 1000 }, (_, i) => kept.mightContain(digest(`limit:${i}`)));
const v1 = build(10_000, 1_000_000);
const v2 = build(10_100, 1_000_000);
const v1Bytes = encodeSnapshot(v1, { catalogVersion: 1 });
const delta = encodeSnapshotDelta({ catalogVersion: 1, filter: v1 }, { catalogVersion: 2, filter: v2 });
if (delta.kind === "failure") throw new Error(`setup: ${delta.error}`);
v2.free();
const base = { catalogVersion: 1, filter: v1 };

/** What a call did: its result's kind and error, or what it threw (a trap is a RuntimeError). */
function outcome(call) {
  try {
    const result = call();
    if (result?.kind === "failure") result.value?.filter?.free?.();
    if (result?.kind === "success") result.value?.free?.() ?? result.value?.filter?.free?.();
    return result?.kind === undefined ? "returned" : result.kind === "success" ? "success" : result.error;
  } catch (error) {
    return error instanceof WebAssembly.RuntimeError ? `trap: ${error.message}` : `threw ${error.code ?? error.name}`;
  }
}
async function outcomeAsync(call) {
  try {
    const result = await call();
    if (result?.kind === "success") result.value.filter.free();
    return result.kind === "success" ? "success" : result.error;
  } catch (error) {
    return error instanceof WebAssembly.RuntimeError ? `trap: ${error.message}` : `threw ${error.code ?? error.name}`;
  }
}

async function everyPath() {
  const spec = { expectedItemCount: 1_000_000, targetFalsePositiveRate: 0.001 };
  return {
    create: outcome(() => ArtifactBloomFilter.create([digest("new")], spec)),
    createPacked: outcome(() => ArtifactBloomFilter.createPacked(new Uint8Array(32 * 1000), spec)),
    loadSnapshot: outcome(() => loadSnapshot(v1Bytes)),
    loadSnapshotStream: await outcomeAsync(() => loadSnapshotStream(Readable.toWeb(Readable.from([v1Bytes])))),
    applySnapshotDelta: outcome(() => applySnapshotDelta(base, delta.value)),
    mightContainMany: outcome(() => kept.mightContainMany(new Uint8Array(32 * 100_000))),
  };
}

// Fill the memory with filters of shrinking size until even the smallest is refused.
const filling = [];
const refusedAt = {};
for (const expectedItemCount of [20_000_000, 100_000, 10_000, 1000, 100, 1]) {
  for (let round = 0; round < 1_000_000; round += 1) {
    let built;
    try {
      built = ArtifactBloomFilter.create([], { expectedItemCount, targetFalsePositiveRate: 0.001 });
    } catch (error) {
      refusedAt[expectedItemCount] = `threw ${error instanceof WebAssembly.RuntimeError ? "trap" : error.code}: ${error.message}`;
      break;
    }
    if (built.kind === "failure") {
      refusedAt[expectedItemCount] = built.error;
      break;
    }
    filling.push(built.value);
  }
}
const report = { refusedAt, memoryAtLimit: wasmMemoryBytes(), atLimit: await everyPath() };
for (const filter of filling) filter.free();
report.afterFree = await everyPath();
report.keptIntact = keptAnswers.every((answer, i) => kept.mightContain(digest(`limit:${i}`)) === answer);
process.stdout.write(`${JSON.stringify(report)}\n`);
