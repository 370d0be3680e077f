// Chromium on another origin, the snapshot on a static host that sends only
// `Access-Control-Allow-Origin: *` (Debian's nginx, nothing else configured):
// the page loads the catalog from the layout's manifest.json, the catalog
// is republished (+1 %), and one poll of a SnapshotHolder brings it up to
// date with the delta file — never a preflight (nginx would answer OPTIONS
// with 405), never the full snapshot again. The result is the new version
// bit for bit: its re-encoded bytes hash to the published file's SHA-256.
//
// The page: the package's browser build from js-tests/browser/package-server.mjs
// (127.0.0.1, one port); nginx on 127.0.0.1 and another port, so another
// origin. Its access log says what the browser asked for. The poll is fired
// by hand (the page's own timers object): no waiting on the clock.
//
// Run: node scripts/build.mjs && node --test js-tests/browser/hosting-cross-origin.test.mjs
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { packedDigests } from "../helpers/abf1.mjs";
import { publishSizing, runCli, tempDir } from "../helpers/cli.mjs";
import { skipWithout, startNginx } from "../helpers/static-hosts.mjs";
import { CHROMIUM, launchChromium } from "./chromium.mjs";
import { startPackageServer } from "./package-server.mjs";

const skip = existsSync(CHROMIUM)
  ? skipWithout("nginx")
  : `${CHROMIUM} is missing (scripts/setup.sh --browser installs it): skipped`;
// 20 000 digests at p = 0.001, sized for 24 000: a 43 KB snapshot; v2 adds 1 %.
const COUNTS = { 1: 20_000, 2: 20_200 };
const WAIT = { timeout: 30_000 };

describe("Chromium on another origin, host sending only Access-Control-Allow-Origin: *", { skip }, () => {
  let dir;
  let nginx;
  let pages;
  let browser;
  let page;
  const layout = () => join(dir.path, "layout");

  const publish = async (version) => {
    const list = join(dir.path, `v${version}.bin`);
    await writeFile(list, packedDigests("cross-origin:", COUNTS[version]));
    const run = await runCli([
      "publish",
      "--input",
      list,
      "--binary",
      ...publishSizing(version, 24_000, 0.001),
      "--layout",
      layout(),
    ]);
    assert.equal(run.code, 0, run.stderr);
    const manifest = JSON.parse(await readFile(join(layout(), "manifest.json"), "utf8"));
    const bytes = await readFile(join(layout(), manifest.snapshot.url));
    return { manifest, sha256: createHash("sha256").update(bytes).digest("hex") };
  };

  before(async () => {
    dir = await tempDir("hosting-cross-origin");
    await publish(1);
    nginx = await startNginx({ root: layout(), headers: { "Access-Control-Allow-Origin": "*" } });
    pages = await startPackageServer();
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(pages.url);
  });
  after(async () => {
    await browser?.close();
    await pages?.close();
    await nginx?.stop();
    await dir?.remove();
  });

  test("load from the manifest, then one poll refreshes by delta: no preflight, no second full download", WAIT, async () => {
    const manifestUrl = `${nginx.url}/manifest.json`;
    assert.notEqual(new URL(manifestUrl).origin, new URL(pages.url).origin, "two origins");
    const loaded = await page.evaluate(async (url) => {
      const pkg = await import("/pkg/web.js");
      await pkg.default();
      const first = await pkg.fetchSnapshot(url);
      if (first.kind !== "success") return { kind: first.kind, error: first.error, message: first.message };
      // Timers the test fires: the page polls exactly when asked.
      const pending = [];
      const timers = {
        setTimeout: (callback) => pending.push(callback),
        clearTimeout: () => {},
      };
      const holder = new pkg.SnapshotHolder(first.value);
      const refreshed = [];
      holder.startPolling(url, { intervalMs: 60_000, timers, onRefresh: (outcome) => refreshed.push(outcome) });
      globalThis.hosting = { pkg, holder, pending, refreshed };
      return { kind: first.kind, catalogVersion: first.value.catalogVersion };
    }, manifestUrl);
    assert.deepEqual(loaded, { kind: "success", catalogVersion: 1 });

    const v2 = await publish(2);
    const polled = await page.evaluate(async () => {
      const { pkg, holder, pending, refreshed } = globalThis.hosting;
      pending.shift()();
      for (let waited = 0; refreshed.length === 0 && waited < 20_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      holder.stopPolling();
      const current = holder.current();
      const encoded = pkg.encodeSnapshot(current.filter, { catalogVersion: current.catalogVersion });
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoded));
      return {
        outcome: refreshed[0],
        catalogVersion: current.catalogVersion,
        sha256: Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join(""),
        deltaRefreshCount: holder.deltaRefreshCount,
        fullRefreshCount: holder.fullRefreshCount,
      };
    });
    assert.equal(polled.outcome?.outcome, "replaced", JSON.stringify(polled));
    assert.equal(polled.catalogVersion, 2);
    assert.equal(polled.sha256, v2.sha256, "the refreshed snapshot is v2, bit for bit");
    assert.deepEqual([polled.deltaRefreshCount, polled.fullRefreshCount], [1, 0]);

    const deltaFromV1 = v2.manifest.deltas.find((delta) => delta.baseCatalogVersion === 1);
    assert.ok(deltaFromV1 !== undefined, "the manifest offers a delta from v1");
    const requests = (await nginx.readLog("access.log")).split("\n").filter((line) => line !== "" && !line.includes("/__ready"));
    assert.deepEqual(
      requests.filter((line) => line.startsWith("OPTIONS")),
      [],
      "no preflight: the package sends no header of its own",
    );
    const snapshotGets = requests.filter((line) => /^GET \/snapshots\//.test(line));
    assert.equal(snapshotGets.length, 1, `one full download, v1's: ${requests.join("\n")}`);
    assert.ok(
      requests.some((line) => line.startsWith(`GET /${deltaFromV1.url} `)),
      `the delta from v1 was fetched: ${requests.join("\n")}`,
    );
  });
});
