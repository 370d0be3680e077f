#!/usr/bin/env node
// Where `create(digests[])` spends its time (n = 1M, p = 0.001), with the
// benchmark's input: 1M separate 32-byte Uint8Arrays, as a caller holds
// them. Splits the build into: visiting and checking each digest object
// alone (what any build from separate objects must do), the same plus
// copying each into one 512 KiB buffer with `set`, `createPacked` of the
// same digests already packed (the wasm side: copy in a chunk at a time,
// set the bits), and the whole `create(digests[])`. Not a test;
// `node bench/build-profile.mjs`. Each row is the fastest of 7 interleaved
// repetitions (after one untimed), so a busy machine inflates them less than
// it does bench/run.mjs's medians.
import { createHash } from "node:crypto";
import { ArtifactBloomFilter } from "../pkg/node.mjs";

const n = 1_000_000;
const REPS = 8;
const spec = { expectedItemCount: n, targetFalsePositiveRate: 0.001 };
const sha256 = (text) => createHash("sha256").update(text).digest();
const packed = new Uint8Array(n * 32);
for (let i = 0; i < n; i += 1) packed.set(sha256(`member:${i}`), i * 32);
const digests = Array.from({ length: n }, (_, i) => packed.slice(i * 32, i * 32 + 32));
const chunk = new Uint8Array(16384 * 32);

// The package's own digest check (lib/filter/packing.js `isDigest`), restated so
// the row measures the visit, not a call into the package.
const isDigest = (d) => ArrayBuffer.isView(d) && d instanceof Uint8Array && d.length === 32;
const rows = [
  [
    "visit and check each digest object",
    () => {
      let c = 0;
      for (let i = 0; i < n; i += 1) {
        const d = digests[i];
        if (!isDigest(d)) throw new Error("bad");
        c += d[0];
      }
      return c;
    },
  ],
  [
    "… and copy each into a 512 KiB buffer (`set`)",
    () => {
      for (let i = 0; i < n; i += 1) {
        const d = digests[i];
        if (!isDigest(d)) throw new Error("bad");
        chunk.set(d, (i & 16383) * 32);
      }
      return chunk[7];
    },
  ],
  [
    "`createPacked` of the same digests, packed",
    () => {
      const f = ArtifactBloomFilter.createPacked(packed, spec).value;
      f.free();
      return 1;
    },
  ],
  [
    "`create(digests[])`",
    () => {
      const f = ArtifactBloomFilter.create(digests, spec).value;
      f.free();
      return 1;
    },
  ],
];
const best = rows.map(() => Infinity);
let sink = 0;
for (let rep = 0; rep < REPS; rep += 1) {
  for (const [r, [, run]] of rows.entries()) {
    const start = process.hrtime.bigint();
    sink += run();
    if (rep > 0) best[r] = Math.min(best[r], Number(process.hrtime.bigint() - start) / 1e6);
  }
}
console.log("| part (1M digests) | ms |\n|---|---:|");
for (const [r, [label]] of rows.entries()) console.log(`| ${label} | ${best[r].toFixed(1)} |`);
console.log(`\n(checksum ${sink})`);
