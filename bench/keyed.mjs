#!/usr/bin/env node
// What a keyed snapshot (ABF1 hashProtocolVersion 2) costs a query, against
// protocol 1 (issue 35 §4 "Measure"): single `mightContain` and batch
// `mightContainMany`, n = 1M members, p = 0.001, half members and half not,
// and next to hashing a 1 MiB file (what a client does before it asks
// anything). Not a test: `node bench/keyed.mjs [--n 1000000]`. Each row is
// the fastest of ROUNDS windows, interleaved between the two protocols, so a
// busy machine (2 shared cores) inflates them less than a median would.
import { createHash } from "node:crypto";
import { ArtifactBloomFilter, sha256 as wasmSha256 } from "../pkg/node.mjs";

const flag = process.argv.indexOf("--n");
const n = flag > 0 ? Number(process.argv[flag + 1]) : 1_000_000;
const WINDOW = 20_000;
const ROUNDS = 15;
const spec = { expectedItemCount: n, targetFalsePositiveRate: 0.001 };
const key = new Uint8Array(32).map((_, i) => i + 1);
const hash = (text) => createHash("sha256").update(text).digest();

const packed = new Uint8Array(n * 32);
for (let i = 0; i < n; i += 1) packed.set(hash(`member:${i}`), i * 32);
const plain = ArtifactBloomFilter.createPacked(packed, spec).value;
const keyed = ArtifactBloomFilter.createPacked(packed, spec, { key }).value;
const queryCount = 200_000;
const queries = Array.from({ length: queryCount }, (_, j) =>
  j % 2 ? new Uint8Array(hash(`probe:${j}`)) : packed.slice(((j >> 1) % n) * 32, ((j >> 1) % n) * 32 + 32),
);
const batch = new Uint8Array(queryCount * 32);
queries.forEach((digest, i) => {
  batch.set(digest, i * 32);
});
const file = new Uint8Array(1 << 20).map((_, i) => (i * 131) & 255);

let sink = 0;
/** Nanoseconds per item of the fastest of ROUNDS runs of `run(start)` over `items` items. */
function fastest(rows) {
  const best = rows.map(() => Infinity);
  for (let round = 0; round < ROUNDS; round += 1) {
    rows.forEach(([, items, run], index) => {
      const start = (round * WINDOW) % (queryCount - WINDOW);
      const t0 = process.hrtime.bigint();
      sink += run(start);
      best[index] = Math.min(best[index], Number(process.hrtime.bigint() - t0) / items);
    });
  }
  return best;
}

const single = (filter) => (start) => {
  let count = 0;
  for (let i = start; i < start + WINDOW; i += 1) count += filter.mightContain(queries[i]) ? 1 : 0;
  return count;
};
const many = (filter) => (start) => filter.countMaybe(batch.subarray(start * 32, (start + WINDOW) * 32));
const [p1Single, p2Single, p1Batch, p2Batch, fileNode, fileWasm] = fastest([
  ["protocol 1 single", WINDOW, single(plain)],
  ["protocol 2 single", WINDOW, single(keyed)],
  ["protocol 1 batch", WINDOW, many(plain)],
  ["protocol 2 batch", WINDOW, many(keyed)],
  ["1 MiB SHA-256 (node:crypto)", 1, () => createHash("sha256").update(file).digest()[0]],
  ["1 MiB SHA-256 (wasm)", 1, () => wasmSha256(file)[0]],
]);

const ns = (value) => `${value.toFixed(0)} ns`;
console.log(
  `keyed query cost, n = ${n}, p = 0.001, k = ${plain.getHashCount()}, ${queryCount} queries (half members), Node ${process.version}`,
);
console.log("| path | protocol 1 | protocol 2 (keyed) | ratio | keyed extra |");
console.log("|---|---:|---:|---:|---:|");
console.log(
  `| single mightContain, per query | ${ns(p1Single)} | ${ns(p2Single)} | ${(p2Single / p1Single).toFixed(1)}× | ${ns(p2Single - p1Single)} |`,
);
console.log(
  `| batch countMaybe, per digest | ${ns(p1Batch)} | ${ns(p2Batch)} | ${(p2Batch / p1Batch).toFixed(1)}× | ${ns(p2Batch - p1Batch)} |`,
);
console.log("");
console.log(
  `hashing a 1 MiB file: ${(fileNode / 1e3).toFixed(0)} µs (node:crypto), ${(fileWasm / 1e3).toFixed(0)} µs (wasm sha256)`,
);
console.log(
  `one keyed query's extra cost is ${((100 * (p2Single - p1Single)) / fileNode).toFixed(2)} % of hashing a 1 MiB file natively, ${((100 * (p2Single - p1Single)) / fileWasm).toFixed(2)} % in wasm`,
);
plain.free();
keyed.free();
if (sink === 0.5) console.log("");
