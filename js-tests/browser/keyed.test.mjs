// Keyed snapshots (ABF1 hashProtocolVersion 3) in a real browser: the
// browser build (pkg/web.js, `await init()`, and pkg/delta/index.js) in
// Debian's Chromium, where a load's checksum is WebCrypto's or wasm's, not
// node:crypto's. The same self-contained scenario runs in the page and in
// Node over the keyed vectors (tests/vectors/abf1-keyed.json): the same
// bytes, answers and failure codes in both, and a delta between two keyed
// versions applied with the base's key.
//
// The page and pkg/ are served by Playwright's request interception
// (page.route), so no port is opened.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { CHROMIUM, launchChromium } from "./chromium.mjs";
import { openPackagePage } from "./package-page.mjs";

const VECTORS = JSON.parse(readFileSync(new URL("../../tests/vectors/abf1-keyed.json", import.meta.url), "utf8"));
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (scripts/setup.sh --browser installs it): skipped`;

/**
 * Every load and query path over the vectors: a list of `{ step, outcome }`.
 * Runs in the page as source text, so it closes over nothing of this file.
 */
async function keyedScenario(pkg, vectors) {
  const { ArtifactBloomFilter, applySnapshotDelta, encodeSnapshot, encodeSnapshotDelta, loadSnapshot, loadSnapshotStream } = pkg;
  const fromHex = (text) => new Uint8Array(text.match(/../g).map((pair) => Number.parseInt(pair, 16)));
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const key = fromHex(vectors.key);
  const wrongKey = fromHex(vectors.wrongKey);
  const streamOf = (bytes) => new Response(new Blob([bytes])).body;
  const results = [];
  for (const vector of vectors.cases) {
    const file = fromHex(vector.file);
    const digests = vector.digests.map(fromHex);
    const spec = { expectedItemCount: vector.expectedItemCount, targetFalsePositiveRate: vector.targetFalsePositiveRate };
    const built = ArtifactBloomFilter.create(digests, spec, { key }).value;
    results.push({
      step: `${vector.name} encode`,
      outcome: hex(encodeSnapshot(built, { catalogVersion: vector.catalogVersion })) === vector.file,
    });
    built.free();
    const whole = loadSnapshot(file, { key });
    const streamed = await loadSnapshotStream(streamOf(file), { key, checksumWorkerMinBytes: Infinity });
    for (const [how, loaded] of [
      ["whole", whole],
      ["stream", streamed],
    ]) {
      const answers =
        loaded.kind === "success" ? vector.queries.map((q) => loaded.value.filter.mightContain(fromHex(q.digest))) : [];
      results.push({
        step: `${vector.name} ${how} answers`,
        outcome: JSON.stringify(answers) === JSON.stringify(vector.queries.map((q) => q.maybe)),
      });
      if (loaded.kind === "success") loaded.value.filter.free();
    }
    results.push({ step: `${vector.name} no key`, outcome: loadSnapshot(file).error });
    results.push({
      step: `${vector.name} wrong key`,
      outcome: (await loadSnapshotStream(streamOf(file), { key: wrongKey })).error,
    });
  }
  // A delta between two keyed versions, applied with the base's key.
  const [small, large] = vectors.cases;
  const spec = { expectedItemCount: large.expectedItemCount, targetFalsePositiveRate: large.targetFalsePositiveRate };
  const members = large.digests.map(fromHex);
  const baseFile = encodeSnapshot(ArtifactBloomFilter.create(members.slice(0, 600), spec, { key }).value, { catalogVersion: 1 });
  const base = loadSnapshot(baseFile, { key }).value;
  const target = loadSnapshot(fromHex(large.file), { key }).value;
  const delta = encodeSnapshotDelta(base, target);
  const applied = delta.kind === "success" ? applySnapshotDelta(base, delta.value) : delta;
  results.push({
    step: "delta applied",
    outcome:
      applied.kind === "success"
        ? hex(encodeSnapshot(applied.value.filter, { catalogVersion: large.catalogVersion })) === large.file
        : applied.error,
  });
  results.push({
    step: "delta target answers",
    outcome: applied.kind === "success" ? applied.value.filter.countMaybe(new Uint8Array(members.flatMap((d) => [...d]))) : -1,
  });
  results.push({ step: "small key check", outcome: loadSnapshot(fromHex(small.file), { key }).value.header.reserved });
  return results;
}

describe("keyed snapshots in Chromium (browser build) equal Node", { skip }, () => {
  let browser;
  let browserResults;
  let nodeResults;

  before(async () => {
    browser = await launchChromium();
    const { page, errors } = await openPackagePage(browser, "keyed");
    browserResults = await page.evaluate(
      async ([source, vectors]) => {
        const pkg = await import("/web.js");
        await pkg.default();
        const delta = await import("/delta/index.js");
        // biome-ignore lint/security/noGlobalEval: page.evaluate passes the scenario as source text; this makes it a function again.
        return globalThis.eval(`(${source})`)({ ...pkg, ...delta }, vectors);
      },
      [keyedScenario.toString(), VECTORS],
    );
    assert.deepEqual(errors, []);
    nodeResults = await keyedScenario(
      { ...(await import("artifact-bloom")), ...(await import("artifact-bloom/delta")) },
      VECTORS,
    );
  });

  after(async () => {
    await browser?.close();
  });

  test("the vectors' bytes and answers, whole and streamed; keyRequired and wrongKey", () => {
    const outcomes = Object.fromEntries(browserResults.map((r) => [r.step, r.outcome]));
    for (const vector of VECTORS.cases) {
      assert.equal(outcomes[`${vector.name} encode`], true);
      assert.equal(outcomes[`${vector.name} whole answers`], true);
      assert.equal(outcomes[`${vector.name} stream answers`], true);
      assert.equal(outcomes[`${vector.name} no key`], "keyRequired");
      assert.equal(outcomes[`${vector.name} wrong key`], "wrongKey");
    }
    assert.equal(outcomes["delta applied"], true);
    assert.equal(outcomes["delta target answers"], VECTORS.cases[1].digests.length);
    assert.equal(outcomes["small key check"], VECTORS.keyCheck);
  });

  test("every outcome equals Node's", () => {
    assert.deepEqual(browserResults, nodeResults);
  });
});
