#!/usr/bin/env node
// What does dedupePacked (the publisher's de-duplication) cost? 1M packed
// digests, every tenth repeating an earlier one; median and minimum of 9
// calls, and a digest of the result so two builds can be compared.
//
// Usage: node bench/dedup.mjs [ENTRY]   (default ../pkg/node.mjs; needs pkg/)
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";

const entry = process.argv[2] ? pathToFileURL(process.argv[2]) : new URL("../pkg/node.mjs", import.meta.url);
const { dedupePacked } = await import(entry.href);
const COUNT = 1_000_000;
const RUNS = 9;

const packed = new Uint8Array(COUNT * 32);
for (let i = 0; i < COUNT; i++) {
  const source = i % 10 === 9 ? (i * 7919) % i : i; // every tenth: an earlier digest
  packed.set(createHash("sha256").update(`artifact:${source}`).digest(), i * 32);
}
const times = [];
let result;
for (let run = 0; run < RUNS; run++) {
  const started = process.hrtime.bigint();
  result = dedupePacked(packed);
  times.push(Number(process.hrtime.bigint() - started) / 1e6);
}
times.sort((a, b) => a - b);
const fingerprint = createHash("sha256").update(result.unique).digest("hex").slice(0, 16);
console.log(
  `dedupePacked of ${COUNT} digests: median ${times[RUNS >> 1].toFixed(1)} ms, min ${times[0].toFixed(1)} ms; `
    + `${result.unique.byteLength / 32} unique, ${result.duplicates} duplicates, sha256(unique) ${fingerprint}…`,
);
