#!/usr/bin/env node
// publish at scale against `sort -u` of the same file (issue 34's table):
// N random digests as hex lines in a temp file, then, each in a child
// process measured by GNU time (wall seconds, peak RSS):
//   sort -u FILE                          (LC_ALL=C, the same unique list)
//   artifact-bloom publish --input FILE   (unsorted: the external sort)
//   artifact-bloom publish --input SORTED (the same list, already sorted)
// at p = 0.001, sized for N. One run, not a timing assertion; the filter's
// own size is printed so the RSS can be read as "filter + buffers".
//
// Usage: node bench/catalog-scale.mjs [--items N] [--pkg DIR]
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { runWithPeak } from "../js-tests/helpers/peak-rss.mjs";

const { values } = parseArgs({ options: { items: { type: "string", default: "10000000" }, pkg: { type: "string" } } });
const items = Number(values.items);
if (!Number.isSafeInteger(items) || items < 1000 || items > 1 << 30) {
  console.error(`bench/catalog-scale.mjs: --items must be an integer from 1000 to 2^30, got ${values.items}`);
  process.exit(2);
}
const pkg = resolve(values.pkg ?? join(import.meta.dirname, "..", "pkg"));
const cli = join(pkg, "bin", "artifact-bloom.mjs");
if (!existsSync(cli)) {
  console.error(`bench/catalog-scale.mjs: no package at ${pkg}; run: node scripts/build.mjs`);
  process.exit(2);
}

/** Writes `count` random digests as hex lines (1 % of them twice) → path. */
async function writeList(path, count) {
  const out = createWriteStream(path);
  const batch = 100_000;
  for (let done = 0; done < count; done += batch) {
    const bytes = randomBytes(Math.min(batch, count - done) * 32);
    let text = "";
    for (let offset = 0; offset < bytes.length; offset += 32) {
      const hex = bytes.subarray(offset, offset + 32).toString("hex");
      text += `${hex}\n`;
      if (offset % 3200 === 0) text += `${hex}\n`; // a duplicate every 100 digests
    }
    if (!out.write(text)) await new Promise((resolve) => out.once("drain", resolve));
  }
  await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  return path;
}

// 2 % headroom, within the format's limit at p = 0.001 (2^30 bits: ≈ 74.6M items).
const expected = items > 70_000_000 ? items : Math.ceil(items * 1.02);
const dir = await mkdtemp(join(tmpdir(), "artifact-bloom-bench-scale-"));
try {
  const list = await writeList(join(dir, "digests.txt"), items);
  const env = { ...process.env, LC_ALL: "C" };
  const sortRun = await runWithPeak("sort", ["-u", "-S", "50%", "-T", dir, "-o", join(dir, "sorted.txt"), list], {
    env,
    timeoutMs: 3_600_000,
  });
  if (sortRun.code !== 0) throw new Error(`sort -u failed: ${sortRun.stderr}`);
  const publish = (input, out) =>
    runWithPeak(
      process.execPath,
      [
        cli,
        "publish",
        "--input",
        input,
        "--catalog-version",
        "1",
        "--expected-items",
        String(expected),
        "--fpp",
        "0.001",
        "--out",
        join(dir, out),
        "--json",
      ],
      { timeoutMs: 3_600_000 },
    );
  const unsorted = await publish(list, "unsorted.abf1");
  const sorted = await publish(join(dir, "sorted.txt"), "sorted.abf1");
  for (const run of [unsorted, sorted]) if (run.code !== 0) throw new Error(`publish failed: ${run.stderr.trim()}`);
  const summary = JSON.parse(unsorted.stdout);
  const filterMiB = summary.bytes / 2 ** 20;
  console.log(
    `${items.toLocaleString("en")} digests (+1 % duplicates), p = 0.001; filter ${filterMiB.toFixed(1)} MiB; ${summary.insertedItemCount.toLocaleString("en")} unique\n`,
  );
  console.log("| run | wall | peak RSS | vs sort -u (time) |");
  console.log("|---|---:|---:|---:|");
  const row = (name, run) =>
    console.log(
      `| ${name} | ${run.wallSeconds.toFixed(1)} s | ${run.peakMiB.toFixed(0)} MiB | ${(run.wallSeconds / sortRun.wallSeconds).toFixed(2)} |`,
    );
  row("`sort -u` (LC_ALL=C)", sortRun);
  row("`publish --input` unsorted", unsorted);
  row("`publish --input` sorted", sorted);
} finally {
  await rm(dir, { recursive: true, force: true });
}
