// ABD1 deltas in a real browser: the browser build (pkg/web.js, `await
// init()`, and pkg/delta/index.js for the encoder and applySnapshotDelta)
// in Debian's Chromium, where the target checksum that ends
// applySnapshotDelta is hashed in wasm instead of by node:crypto. The same
// self-contained scenario runs in the page and in Node; both must give the
// same outcomes, and the applied snapshot must re-encode to the full target.
//
// The page and pkg/ are served by Playwright's request interception
// (page.route), so no port is opened.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { CHROMIUM, launchChromium } from "./chromium.mjs";
import { openPackagePage } from "./package-page.mjs";

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (scripts/setup.sh --browser installs it): skipped`;

/**
 * Encode, apply, damage: a list of `{ step, outcome }`. Runs in the page as
 * source text, so it closes over nothing of this file.
 */
async function deltaScenario(pkg) {
  const { ArtifactBloomFilter, applySnapshotDelta, encodeSnapshot, encodeSnapshotDelta, sha256 } = pkg;
  const text = (s) => new TextEncoder().encode(s);
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const spec = { expectedItemCount: 1200, targetFalsePositiveRate: 0.01 };
  const snapshotOf = (count, catalogVersion) => {
    const digests = Array.from({ length: count }, (_, i) => sha256(text(`member:${i}`)));
    return { catalogVersion, filter: ArtifactBloomFilter.create(digests, spec).value };
  };
  const base = snapshotOf(1000, 3);
  const target = snapshotOf(1010, 4);
  const targetFile = encodeSnapshot(target.filter, { catalogVersion: 4 });
  const delta = encodeSnapshotDelta(base, target).value;
  const results = [{ step: "delta", outcome: { bytes: delta.byteLength, sha256: hex(sha256(delta)) } }];

  const applied = applySnapshotDelta(base, delta);
  const reencoded = applied.kind === "success" ? encodeSnapshot(applied.value.filter, { catalogVersion: 4 }) : new Uint8Array(0);
  results.push({
    step: "apply",
    outcome:
      applied.kind === "success"
        ? { kind: applied.kind, identical: hex(sha256(reencoded)) === hex(sha256(targetFile)) }
        : { kind: applied.kind, error: applied.error },
  });
  const flipped = delta.slice();
  flipped[300 % flipped.byteLength] ^= 4;
  const rejected = applySnapshotDelta(base, flipped);
  results.push({ step: "bit flip", outcome: { kind: rejected.kind, error: rejected.error } });
  // The target header's checksum flipped and the delta's trailer recomputed:
  // only the final ABF1 load (the wasm SHA-256 here) can catch it.
  const forged = delta.slice();
  forged[168] ^= 1;
  forged.set(sha256(forged.subarray(0, forged.byteLength - 32)), forged.byteLength - 32);
  const caught = applySnapshotDelta(base, forged);
  results.push({ step: "forged target header", outcome: { kind: caught.kind, error: caught.error } });
  const older = applySnapshotDelta({ catalogVersion: 2, filter: base.filter }, delta);
  results.push({ step: "wrong base", outcome: { kind: older.kind, error: older.error } });
  return results;
}

describe("ABD1 deltas in Chromium (browser build) equal Node", { skip }, () => {
  let browser;
  let browserResults;
  let nodeResults;

  before(async () => {
    browser = await launchChromium();
    const { page, errors } = await openPackagePage(browser, "delta");
    browserResults = await page.evaluate(async (source) => {
      const pkg = await import("/web.js");
      await pkg.default();
      // Deltas (encode and apply) are artifact-bloom/delta's: its own wasm
      // module, sharing the main entry's filters.
      const delta = await import("/delta/index.js");
      // biome-ignore lint/security/noGlobalEval: page.evaluate passes the scenario as source text; this makes it a function again.
      return globalThis.eval(`(${source})`)({ ...pkg, ...delta });
    }, deltaScenario.toString());
    assert.deepEqual(errors, []);
    nodeResults = await deltaScenario({ ...(await import("artifact-bloom")), ...(await import("artifact-bloom/delta")) });
  });

  after(async () => {
    await browser?.close();
  });

  test("the applied snapshot re-encodes to the full target, byte for byte", () => {
    const apply = browserResults.find((r) => r.step === "apply");
    assert.deepEqual(apply.outcome, { kind: "success", identical: true });
  });

  test("damage and a wrong base are rejected with their codes", () => {
    const codes = Object.fromEntries(browserResults.slice(2).map((r) => [r.step, r.outcome.error]));
    assert.deepEqual(codes, {
      "bit flip": "checksumMismatch",
      "forged target header": "resultChecksumMismatch",
      "wrong base": "wrongBase",
    });
  });

  test("every outcome equals Node's, the delta bytes included", () => {
    assert.deepEqual(browserResults, nodeResults);
  });
});
