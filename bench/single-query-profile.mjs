#!/usr/bin/env node
// Where a single `mightContain` spends its time (n = 1M, p = 0.001), with the
// benchmark's query mix: 200K separate Uint8Arrays, half members, half not.
// Splits the call into: the same call on views of one contiguous buffer (no
// scattered digest objects to fetch), the same call on one digest repeated
// (nothing to fetch at all: what the checks, the call into wasm and the walk
// cost by themselves), reading 16 bytes of each digest object alone, and the
// batch path (the filter work in wasm, one copy in). Not a
// test; `node bench/single-query-profile.mjs`. Each row is the fastest of
// many short windows (5,000 queries), interleaved, so a busy machine
// inflates them less than it does bench/run.mjs's medians.
import { createHash } from "node:crypto";
import { ArtifactBloomFilter } from "../pkg/node.mjs";

const n = 1_000_000;
const WINDOW = 5000;
const ROUNDS = 25;
const sha256 = (text) => createHash("sha256").update(text).digest();
const packed = new Uint8Array(n * 32);
for (let i = 0; i < n; i += 1) packed.set(sha256(`member:${i}`), i * 32);
const members = Array.from({ length: n }, (_, i) => packed.slice(i * 32, i * 32 + 32));
const strangers = Array.from({ length: 100_000 }, (_, i) => new Uint8Array(sha256(`probe:${i}`)));
const queries = Array.from({ length: 200_000 }, (_, j) => (j % 2 ? strangers[j >> 1] : members[(j >> 1) % n]));
const filter = ArtifactBloomFilter.createPacked(packed, { expectedItemCount: n, targetFalsePositiveRate: 0.001 }).value;

const batch = new Uint8Array(queries.length * 32);
queries.forEach((d, i) => {
  batch.set(d, i * 32);
});
const views = queries.map((_, i) => batch.subarray(i * 32, i * 32 + 32));

// One loop per row (each call site stays monomorphic); `s` is the window's start.
const rows = [
  [
    "public `mightContain(digest)`, separate digest objects",
    (s) => {
      let c = 0;
      for (let i = s; i < s + WINDOW; i += 1) c += filter.mightContain(queries[i]);
      return c;
    },
  ],
  [
    "the same on views of one contiguous buffer",
    (s) => {
      let c = 0;
      for (let i = s; i < s + WINDOW; i += 1) c += filter.mightContain(views[i]);
      return c;
    },
  ],
  [
    "the same call on one digest over and over (everything in cache: the call's own cost)",
    (s) => {
      let c = 0;
      const d = queries[s];
      for (let i = s; i < s + WINDOW; i += 1) c += filter.mightContain(d);
      return c;
    },
  ],
  [
    "read 16 bytes of each digest object only",
    (s) => {
      let c = 0;
      for (let i = s; i < s + WINDOW; i += 1) {
        const d = queries[i];
        c += d[0] ^ d[5] ^ d[10] ^ d[15];
      }
      return c;
    },
  ],
  ["`countMaybe` of the window's packed bytes (wasm)", (s) => filter.countMaybe(batch.subarray(s * 32, (s + WINDOW) * 32))],
];
const best = rows.map(() => Infinity);
let sink = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [r, [, loop]] of rows.entries()) {
    for (let s = 0; s < queries.length; s += WINDOW) {
      const start = process.hrtime.bigint();
      sink += loop(s);
      // The first rounds warm the code and the caches up.
      if (round >= 3) best[r] = Math.min(best[r], Number(process.hrtime.bigint() - start) / WINDOW);
    }
  }
}
console.log("| part | ns per query |\n|---|---:|");
for (const [r, [label]] of rows.entries()) console.log(`| ${label} | ${best[r].toFixed(1)} |`);
console.log(`\n(checksum ${sink})`);
