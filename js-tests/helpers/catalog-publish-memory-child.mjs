// The child process of catalog-publish-memory.test.mjs: publishes N random
// digests (unsorted, some repeated) through publishCatalog and prints its
// own peak RSS (VmHWM) before and after, as JSON. The digests are made a
// chunk at a time, so the source itself holds one chunk.
import { randomFillSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { publishCatalog } from "artifact-bloom/server";

const [layout, tempDir, countText, runText] = process.argv.slice(2);
const count = Number(countText);
const runBytes = runText === "default" ? undefined : Number(runText) * 32;
const CHUNK = 32768;

/** VmHWM of this process in bytes. */
const peakBytes = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))[1]) * 1024;

async function* digests() {
  let previous;
  for (let made = 0; made < count; made += CHUNK) {
    const chunk = randomFillSync(new Uint8Array(Math.min(CHUNK, count - made) * 32));
    // Every 8th chunk repeats the previous one's first 100 digests.
    if (previous !== undefined && (made / CHUNK) % 8 === 0) chunk.set(previous.subarray(0, 3200));
    previous = chunk;
    yield chunk;
  }
}

// The baseline: the package loaded and both wasm modules instantiated (a
// tiny publish), before the catalog's first digest.
const warmup = await publishCatalog(
  `${layout}-warmup`,
  { catalogVersion: 1, digests: [new Uint8Array(32).fill(1)] },
  { expectedItemCount: 1, targetFalsePositiveRate: 0.01 },
);
if (warmup.kind !== "success") throw new Error(`${warmup.error}: ${warmup.message}`);
const baseline = peakBytes();
const result = await publishCatalog(
  layout,
  { catalogVersion: 1, digests: digests() },
  { expectedItemCount: count, targetFalsePositiveRate: 0.001, tempDir, ...(runBytes === undefined ? {} : { runBytes }) },
);
if (result.kind !== "success") throw new Error(`${result.error}: ${result.message}`);
process.stdout.write(
  JSON.stringify({
    baseline,
    peak: peakBytes(),
    snapshotBytes: result.value.manifest.snapshot.size,
    uniqueCount: result.value.uniqueCount,
  }),
);
