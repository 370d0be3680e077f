// The main job's demo end to end (scripts/demo.mjs --no-serve): it publishes
// a sample catalog with the CLI, serves it, prechecks a mixed list through
// ArtifactExistenceService over HTTP, and prints a table. The printed counts
// must be consistent with each other and with what the server saw.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import test from "node:test";

const demo = fileURLToPath(new URL("../scripts/demo.mjs", import.meta.url));

test("the demo prechecks 10,000 digests and only asks the API about maybes", async (t) => {
  // Its files go to a temp dir: tests never write inside the checkout (the
  // main job's demo-data/ there holds another catalogVersion 1).
  const dir = mkdtempSync(join(tmpdir(), "artifact-bloom-demo-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [demo, "--no-serve", "--port", "0", "--items", "20000", "--json", "--dir", dir],
    { timeout: 120_000 },
  );
  const report = JSON.parse(stdout.slice(stdout.indexOf("{")));
  const { table, metrics, stats } = report;
  const negatives = metrics["artifact_bloom.negative.count"];
  const maybes = metrics["artifact_bloom.maybe.count"];
  const falsePositives = metrics["artifact_bloom.false_positive.count"];

  assert.equal(table["digests checked"], 10_000);
  // 200 of the digests are in the catalog (the demo's mix), the rest are new.
  assert.equal(table["present (confirmed)"], 200);
  assert.equal(table["missing (to upload)"], 9_800);
  assert.equal(negatives + maybes, 10_000);
  assert.equal(table["skipped calls (definitely absent)"], negatives);
  // Every maybe, and only the maybes, reached the server's existence API.
  assert.equal(stats.digestsAsked, maybes);
  assert.equal(table["API digest lookups"], maybes);
  // A maybe is either one of the 200 members or a false positive.
  assert.equal(falsePositives, maybes - 200);
  assert.equal(table["false positives"], falsePositives);
  assert.equal(metrics.negativeBypassRatio, negatives / 10_000);
  // The filter was built for p = 0.01: on 9,800 non-members the false
  // positives are Binomial(9800, ~0.01), mean 98, sd ≈ 9.85; 5 sd is 148.
  assert.ok(falsePositives <= 148, `false positives ${falsePositives} exceed the 5-sigma bound 148`);
  assert.equal(metrics["artifact_bloom.catalog_version"], 1);
  assert.equal(metrics["artifact_bloom.inserted_item_count"], 20_000);
});

test("the demo runs again with another --items in the same directory (a new catalog each run)", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "artifact-bloom-demo-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (items) =>
    promisify(execFile)(process.execPath, [demo, "--no-serve", "--port", "0", "--items", items, "--json", "--dir", dir], {
      timeout: 120_000,
    });
  await run("3000");
  // Before: the second run's publish refused catalogVersion 1 with other
  // content (exit 1), as it rightly does for a real catalog.
  const { stdout } = await run("2000");
  const report = JSON.parse(stdout.slice(stdout.indexOf("{")));
  assert.equal(report.metrics["artifact_bloom.inserted_item_count"], 2_000);
});
