// publish streams its input (issue 34 §3): peak memory is the filter plus
// fixed buffers, not the digest list. 4M unsorted digests (128 MB packed,
// with duplicates) are published in a child process whose peak RSS (GNU
// time's ru_maxrss, helpers/peak-rss.mjs) is compared with the same command
// publishing 1,000 digests into the same layout spec (the baseline: Node,
// both wasm modules and the bit array, which depends on the spec only).
//
// Bound: baseline + 256 MiB. The streaming path holds two 32 MiB run
// buffers (the run and its sorted copy, sorted in JavaScript), 16 MiB of
// merge read buffers, 1 MiB chunks and the finished file beside the bit
// array: ≤ 100 MiB over the baseline at this size. Reading the list whole (the path this
// replaced) held the 128 MB list in JavaScript and again in wasm memory,
// ≥ 256 MiB over the baseline at this size, so the bound fails it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { publishSizing, tempDir } from "./helpers/cli.mjs";
import { runCliWithPeak } from "./helpers/peak-rss.mjs";

const COUNT = 4_000_000;
const SIZING = publishSizing(1, 4_200_000, 0.001);
const BOUND_MIB = 256;

describe("publish --binary of 4M digests: memory bounded by the filter and fixed buffers", () => {
  let dir;
  before(async () => {
    dir = await tempDir("publish-memory");
  });
  after(async () => {
    await dir?.remove();
  });

  test(`peak RSS ≤ the 1,000-digest baseline + ${BOUND_MIB} MiB, and the count is exact`, { timeout: 300_000 }, async () => {
    const unique = randomBytes(COUNT * 32 - 100_000 * 32);
    // 100,000 duplicates, appended at the end (they land in another run than their first copy).
    const list = Buffer.concat([unique, unique.subarray(0, 100_000 * 32)]);
    await writeFile(join(dir.path, "big.bin"), list);
    await writeFile(join(dir.path, "small.bin"), unique.subarray(0, 1000 * 32));
    const publish = (input, out) =>
      runCliWithPeak([
        "publish",
        "--binary",
        "--input",
        join(dir.path, input),
        ...SIZING,
        "--out",
        join(dir.path, out),
        "--json",
      ]);
    const baseline = await publish("small.bin", "small.abf1");
    assert.equal(baseline.code, 0, baseline.stderr);
    const big = await publish("big.bin", "big.abf1");
    assert.equal(big.code, 0, big.stderr);
    const summary = JSON.parse(big.stdout);
    assert.equal(summary.digestsRead, COUNT);
    assert.equal(summary.insertedItemCount, COUNT - 100_000, "each duplicate counted once");
    assert.equal(summary.duplicates, 100_000);
    const over = big.peakMiB - baseline.peakMiB;
    assert.ok(
      over <= BOUND_MIB,
      `peak ${big.peakMiB.toFixed(0)} MiB, ${over.toFixed(0)} MiB over the baseline's ${baseline.peakMiB.toFixed(0)} (bound ${BOUND_MIB})`,
    );
  });
});
