#!/usr/bin/env node
// Where a single `mightContain` spends its time (n = 1M, p = 0.001), with the
// benchmark's query mix: 200K separate Uint8Arrays, half members, half not.
// Splits the call into: reading 16 bytes of each digest object, the raw wasm
// call with precomputed arguments, and the batch path (the filter work
// alone). Not a test; `node bench/single-query-profile.mjs`.
import { createHash } from "node:crypto";
import { ArtifactBloomFilter } from "../pkg/node.mjs";

const n = 1_000_000;
const sha256 = (text) => createHash("sha256").update(text).digest();
const packed = new Uint8Array(n * 32);
for (let i = 0; i < n; i += 1) packed.set(sha256(`member:${i}`), i * 32);
const members = Array.from({ length: n }, (_, i) => packed.slice(i * 32, i * 32 + 32));
const strangers = Array.from({ length: 100_000 }, (_, i) => new Uint8Array(sha256(`probe:${i}`)));
const queries = Array.from({ length: 200_000 }, (_, j) => (j % 2 ? strangers[j >> 1] : members[(j >> 1) % n]));
const filter = ArtifactBloomFilter.createPacked(packed, { expectedItemCount: n, targetFalsePositiveRate: 0.001 }).value;
// Internal handle, only to time the crossing without the public wrapper.
const raw = filter._raw();

const word = (d, o) => ((d[o] << 24) | (d[o + 1] << 16) | (d[o + 2] << 8) | d[o + 3]) >>> 0;
const words = new Uint32Array(queries.length * 4);
queries.forEach((d, i) => words.set([word(d, 0), word(d, 4), word(d, 8), word(d, 12)], i * 4));
const batch = new Uint8Array(queries.length * 32);
queries.forEach((d, i) => batch.set(d, i * 32));

/** Best of 7 passes after a warm-up, in ns per query; the sum keeps the work alive. */
function time(fn) {
  let sink = fn();
  let best = Infinity;
  for (let r = 0; r < 7; r += 1) {
    const start = process.hrtime.bigint();
    sink += fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / queries.length);
  }
  return [best, sink];
}

const rows = [
  ["public `mightContain(digest)`", () => { let c = 0; for (const d of queries) c += filter.mightContain(d); return c; }],
  ["read 16 bytes of each digest object only", () => { let c = 0; for (const d of queries) c += d[0] ^ d[5] ^ d[10] ^ d[15]; return c; }],
  ["raw wasm call, arguments precomputed", () => { let c = 0; for (let i = 0; i < queries.length; i += 1) c += raw.mightContainWords(words[i * 4], words[i * 4 + 1], words[i * 4 + 2], words[i * 4 + 3]); return c; }],
  ["batch `mightContainMany` (filter work)", () => filter.mightContainMany(batch)[0]],
];
console.log("| part | ns per query |\n|---|---:|");
for (const [label, fn] of rows) console.log(`| ${label} | ${time(fn)[0].toFixed(1)} |`);
