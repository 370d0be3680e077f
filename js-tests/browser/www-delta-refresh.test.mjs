// The www page refreshing its snapshot with an ABD1 delta, in Debian's
// Chromium against a real `serve` (127.0.0.1, port 0): the page loads v1,
// the catalog is republished as v2 (1 % more digests, same layout), and
// "Check for updates" fetches a `226 IM Used` delta with
// `artifact-bloom/delta`'s fetchSnapshot (/pkg/delta/index.js), applies it
// in the browser build, and shows the bytes saved. The result must be v2: its
// header (checksum included) equals the full v2's, and applySnapshotDelta
// only succeeds when the rebuilt bits hash to that checksum.
//
// Run: node scripts/build.mjs && node --test js-tests/browser/www-delta-refresh.test.mjs
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CHROMIUM, launchChromium } from "./chromium.mjs";

const PKG = fileURLToPath(new URL("../../pkg", import.meta.url));
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (scripts/setup.sh --browser installs it): skipped`;
const SPEC = { expectedItemCount: 3000, targetFalsePositiveRate: 0.01 };
// Bounded waits for the page (generous: the machine is shared).
const WAIT = { timeout: 30_000 };

describe("www page: refresh with a delta (Chromium)", { skip }, () => {
  let tmp;
  let server;
  let browser;
  let pkg;
  let snapshotPath;
  let catalogPath;

  /** v1 holds 2000 digests, v2 2020: the packed digests of `version`. */
  const digestsAt = (version) => {
    const digests = new Uint8Array(32 * (2000 + 20 * (version - 1)));
    const count = digests.byteLength / 32;
    for (let i = 0; i < count; i += 1) digests.set(pkg.sha256(new TextEncoder().encode(`artifact ${i}`)), 32 * i);
    return digests;
  };
  /** The ABF1 file of `version`. */
  const fileAt = (version) => {
    const digests = digestsAt(version);
    const built = pkg.ArtifactBloomFilter.createPacked(digests, SPEC);
    assert.equal(built.kind, "success");
    try {
      return pkg.encodeSnapshot(built.value, { catalogVersion: version });
    } finally {
      built.value.free();
    }
  };
  /** As an operator publishes: the complete catalog list first, then the snapshot (both atomically). */
  const publish = (version) => {
    const digests = digestsAt(version);
    const lines = [];
    for (let i = 0; i < digests.byteLength; i += 32) lines.push(Buffer.from(digests.subarray(i, i + 32)).toString("hex"));
    writeFileSync(`${catalogPath}.tmp`, `${lines.join("\n")}\n`);
    renameSync(`${catalogPath}.tmp`, catalogPath);
    writeFileSync(`${snapshotPath}.tmp`, fileAt(version));
    renameSync(`${snapshotPath}.tmp`, snapshotPath);
  };

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), "artifact-bloom-www-delta-"));
    // Served from a copy: a rebuild of pkg/ during the run must not change what is served.
    const copy = join(tmp, "pkg");
    cpSync(PKG, copy, { recursive: true });
    pkg = await import(join(copy, "node.mjs"));
    snapshotPath = join(tmp, "catalog.abf1");
    catalogPath = join(tmp, "catalog.txt");
    publish(1);
    const { startServer } = await import(join(copy, "cli", "serve", "serve.mjs"));
    server = await startServer({ snapshot: snapshotPath, catalog: catalogPath, port: 0 });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test("loads v1, refreshes to v2 with a delta, equal to the full v2, and shows the bytes saved", async () => {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(server.url);
    await page.waitForSelector("body[data-snapshot=loaded]", WAIT);
    const v1 = pkg.loadSnapshot(fileAt(1)).value;
    assert.equal(await page.getAttribute("body", "data-checksum"), v1.header.checksum);

    publish(2);
    await page.click("#snapshot-refresh");
    await page.waitForSelector("body[data-refresh]", WAIT);
    assert.equal(await page.getAttribute("body", "data-refresh"), "delta", await page.textContent("#refresh-status"));
    const full = fileAt(2);
    const v2 = pkg.loadSnapshot(full).value;
    assert.equal(await page.getAttribute("body", "data-checksum"), v2.header.checksum);
    assert.equal(await page.textContent("#catalog-version"), "2");
    assert.equal((await page.textContent("#items-inserted")).replace(/\D/g, ""), "2020");
    const bytes = Number(await page.getAttribute("body", "data-refresh-bytes"));
    // 20 new digests at 7 hashes set at most 140 bits: a few hundred bytes of a ~3.7 KB file.
    assert.ok(bytes > 0 && bytes * 4 < full.byteLength, `${bytes} of ${full.byteLength}`);
    assert.match(await page.textContent("#refresh-status"), /with a delta: .* instead of .* saved/);
    assert.equal(server.stats.deltas.deltaResponses, 1);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
