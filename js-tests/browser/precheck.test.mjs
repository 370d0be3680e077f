// The www precheck page in a real browser (Debian's /usr/bin/chromium driven
// by playwright-core): snapshot loading, hashing in a Web Worker, the
// absence-first verdicts — proven against the demo server's request counters —
// error states, keyboard access and phone width.
//
// One browser per file; each test gets a fresh context. Screenshots of each
// state go to $TMPDIR/artifact-bloom-screenshots/ (outside the checkout:
// tests never write there) for a human to look at.
//
// Run: node scripts/build.mjs && node --test js-tests/browser/
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { CHROMIUM, launchChromium } from "./chromium.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PKG = join(ROOT, "pkg");
const SCREENSHOTS = join(tmpdir(), "artifact-bloom-screenshots");
// The reference's vectors, in ../shared beside the checkout.
const BITFLIP_VECTOR = join(ROOT, "..", "shared", "vectors", "abf1", "payload-bitflip.abf1");
const CATALOG_SIZE = 1000;
const BIG_FILE_MIB = 200;

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing (Debian package "chromium"; scripts/setup.sh --browser installs it): browser tests skipped`;

const sha256 = (data) => createHash("sha256").update(data).digest("hex");

// What the tests need from the built package.
const PACKAGE_FILES = [
  "web.js",
  "artifact_bloom.js",
  "artifact_bloom_bg.wasm",
  "node.mjs",
  "node.cjs",
  "cli/serve/serve.mjs",
  "bin/artifact-bloom.mjs",
  "www/index.html",
  "www/app.js",
  "www/hash-worker.js",
  "www/style.css",
];

/**
 * Copies the built pkg/ to `dest`, and the tests use only the copy: a rebuild
 * (which deletes and rewrites pkg/) during the run must not make the server
 * answer 404 halfway through. Retries while pkg/ is incomplete (mid-build).
 */
async function copyPackage(dest) {
  for (let attempt = 1; ; attempt += 1) {
    rmSync(dest, { recursive: true, force: true });
    try {
      cpSync(PKG, dest, { recursive: true });
      if (PACKAGE_FILES.every((file) => existsSync(join(dest, file)))) return dest;
    } catch {
      // pkg/ changed under the copy: try again.
    }
    if (attempt === 15) throw new Error(`${PKG} is missing ${PACKAGE_FILES.join(", ")}: run node scripts/build.mjs`);
    await sleep(2000);
  }
}

describe("www precheck page in Chromium", { skip }, () => {
  let tmp;
  let browser;
  let good; // server with the real snapshot
  let corrupt; // server whose snapshot fails its checksum
  const files = {}; // name → { path, hex }
  let big; // { path, hex, verdict }

  /** Writes a file into the temp dir and returns { path, hex }. */
  const fixture = (name, content) => {
    const path = join(tmp, "files", name);
    writeFileSync(path, content);
    return { path, hex: sha256(content) };
  };

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), "artifact-bloom-www-"));
    mkdirSync(join(tmp, "files"));
    // The server is started from the copy, so it serves the copy's /pkg/ and www/.
    const pkg = await copyPackage(join(tmp, "pkg"));
    // Under before(), not at top level: a skipped suite must not need these.
    const { loadSnapshot } = await import(join(pkg, "node.mjs"));
    const { startServer } = await import(join(pkg, "cli", "serve", "serve.mjs"));

    mkdirSync(SCREENSHOTS, { recursive: true });

    // The catalog: the digests of CATALOG_SIZE known contents, so any of them
    // can be written out as a file the server "has".
    const contentOf = (i) => `catalog artifact #${i}\n`;
    const catalogHex = Array.from({ length: CATALOG_SIZE }, (_, i) => sha256(contentOf(i)));
    const inCatalog = new Set(catalogHex);
    const catalogPath = join(tmp, "catalog.txt");
    writeFileSync(catalogPath, `${catalogHex.join("\n")}\n`);
    const snapshotPath = join(tmp, "catalog.abf1");
    execFileSync(
      process.execPath,
      [
        join(pkg, "bin", "artifact-bloom.mjs"),
        "publish",
        "--catalog-version",
        "1",
        "--expected-items",
        String(CATALOG_SIZE),
        "--fpp",
        "0.01",
        "--input",
        catalogPath,
        "--out",
        snapshotPath,
      ],
      { stdio: "pipe" },
    );
    const loaded = loadSnapshot(new Uint8Array(readFileSync(snapshotPath)));
    assert.equal(loaded.kind, "success", loaded.message);
    const filter = loaded.value.filter;
    const mightContain = (hex) => filter.mightContain(new Uint8Array(Buffer.from(hex, "hex")));

    files.present = fixture("release-notes-4.2.0.txt", contentOf(0));
    files.present2 = fixture("libcore-4.2.0.so", contentOf(1));
    files.present3 = fixture("app-bundle-4.2.0.tar.gz", contentOf(2));
    files.present4 = fixture("checksums.sha256", contentOf(3));
    // Contents the filter rules out in Node first: only a definite negative
    // may be decided without a request.
    const absent = [];
    const falsePositives = [];
    for (let j = 0; (absent.length < 4 || falsePositives.length < 1) && j < 1_000_000; j += 1) {
      const content = `local build output #${j}\n`;
      const hex = sha256(content);
      if (inCatalog.has(hex)) continue;
      if (!mightContain(hex)) absent.push(content);
      else if (falsePositives.length < 1) falsePositives.push(content); // a Bloom false positive
    }
    assert.equal(falsePositives.length, 1, "no false-positive content found");
    files.absent = fixture("new-feature.patch", absent[0]);
    files.absent2 = fixture("screenshot-build-1187.png", absent[1]);
    files.absent3 = fixture(
      "a-very-long-artifact-file-name-from-the-nightly-pipeline-x86_64-unknown-linux-gnu-2024-11-29.tar.zst",
      absent[2],
    );
    files.absent4 = fixture("coverage-report.html", absent[3]);
    files.falsePositive = fixture("debug-symbols.dwp", falsePositives[0]);

    // 200 MiB: one deterministic pseudo-random 1 MiB block, repeated (fast to
    // write, and the digest is the same on every run).
    const block = Buffer.alloc(1024 * 1024);
    for (let offset = 0; offset < block.length; offset += 32) {
      createHash("sha256").update(`block ${offset}`).digest().copy(block, offset);
    }
    const bigPath = join(tmp, "files", "disk-image-200MiB.img");
    const bigHash = createHash("sha256");
    const fd = openSync(bigPath, "w");
    for (let i = 0; i < BIG_FILE_MIB; i += 1) {
      writeSync(fd, block);
      bigHash.update(block);
    }
    closeSync(fd);
    const bigHex = bigHash.digest("hex");
    big = { path: bigPath, hex: bigHex, verdict: mightContain(bigHex) ? "missing" : "absent" };

    // The corrupted snapshot: the shared payload-bitflip vector, or (when the
    // shared vectors are not on this machine) our snapshot with one payload bit flipped.
    const corruptPath = join(tmp, "corrupt.abf1");
    if (existsSync(BITFLIP_VECTOR)) {
      copyFileSync(BITFLIP_VECTOR, corruptPath);
    } else {
      const bytes = readFileSync(snapshotPath);
      bytes[bytes.length - 1] ^= 0x01;
      writeFileSync(corruptPath, bytes);
    }

    good = await startServer({ snapshot: snapshotPath, catalog: catalogPath, port: 0 });
    corrupt = await startServer({ snapshot: corruptPath, catalog: catalogPath, port: 0 });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await good?.close();
    await corrupt?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /** A fresh context and page that records console errors and uncaught exceptions. */
  async function open(t, viewport = { width: 1100, height: 900 }) {
    const context = await browser.newContext({ viewport });
    t.after(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const problems = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push({ text: message.text(), url: message.location().url ?? "" });
    });
    page.on("pageerror", (error) => problems.push({ text: `uncaught: ${error.message}`, url: "" }));
    return { page, problems };
  }

  /**
   * Asserts nothing went to the console as an error. `allow` exempts only
   * messages the browser itself logs for an expected HTTP outcome.
   */
  function assertNoConsoleErrors(problems, allow = () => false) {
    assert.deepEqual(
      problems.filter((p) => !allow(p)),
      [],
      "console errors on the page",
    );
  }

  const loaded = (page) => page.waitForSelector('body[data-snapshot="loaded"]');
  const decided = (page, count) =>
    page.waitForFunction((n) => document.querySelectorAll(".file[data-verdict]").length === n, count);
  const verdictOf = (page, hex) => page.locator(`.file[data-digest="${hex}"]`).getAttribute("data-verdict");
  const summary = (page) =>
    page.evaluate(() =>
      Object.fromEntries(
        ["files", "skipped", "api", "fp", "upload", "present"].map((k) => [k, document.getElementById(`sum-${k}`).textContent]),
      ),
    );
  const shot = (page, name) => page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true });

  test("loads the snapshot and shows its header and fill gauge", async (t) => {
    const { page, problems } = await open(t);
    await page.goto(good.url);
    await loaded(page);
    assert.equal(await page.locator("#catalog-version").textContent(), "1");
    assert.ok(await page.getByText("Catalog version", { exact: true }).isVisible());
    assert.equal((await page.locator("#items-inserted").textContent()).replace(/\D/g, ""), String(CATALOG_SIZE));
    assert.ok(await page.locator("#fill-gauge").isVisible());
    const gauge = await page.locator("#fill-gauge").evaluate((el) => ({
      now: Number(el.getAttribute("aria-valuenow")),
      marker: parseFloat(el.querySelector("#fill-marker").style.left),
    }));
    assert.ok(gauge.now > 30 && gauge.now < 70, `fill ratio ${gauge.now}% for a full filter`);
    assert.ok(gauge.marker > gauge.now, "the alert threshold lies above the fill of a filter at capacity");
    assert.match(await page.locator("#snapshot-pill").textContent(), /Checksum verified/);
    await shot(page, "01-snapshot-loaded.png");
    assertNoConsoleErrors(problems);
  });

  test("a catalog file is confirmed with one API call; a definite negative makes none", async (t) => {
    const { page, problems } = await open(t);
    await page.goto(good.url);
    await page.setInputFiles("#file-input", [files.present.path, files.absent.path]);
    await decided(page, 2);
    assert.equal(await verdictOf(page, files.present.hex), "present");
    assert.equal(await verdictOf(page, files.absent.hex), "absent");
    assert.equal(good.stats.recentByDigest[files.present.hex], 1, "exactly one existence request for the catalog file");
    assert.equal(good.stats.recentByDigest[files.absent.hex], undefined, "no request at all for the definite negative");
    assert.deepEqual(await summary(page), { files: "2", skipped: "1", api: "1", fp: "0", upload: "1", present: "1" });
    assertNoConsoleErrors(problems);
  });

  test("a false positive is confirmed absent by the server: verdict missing", async (t) => {
    const { page, problems } = await open(t);
    await page.goto(good.url);
    await loaded(page);
    const batch = [files.present2, files.absent2, files.falsePositive, files.present3, files.absent4];
    await page.setInputFiles(
      "#file-input",
      batch.map((f) => f.path),
    );
    await decided(page, batch.length);
    assert.equal(await verdictOf(page, files.falsePositive.hex), "missing");
    assert.equal(await verdictOf(page, files.absent2.hex), "absent");
    assert.equal(await verdictOf(page, files.present3.hex), "present");
    assert.equal(good.stats.recentByDigest[files.falsePositive.hex], 1);
    assert.equal(good.stats.recentByDigest[files.absent4.hex], undefined);
    assert.deepEqual(await summary(page), { files: "5", skipped: "2", api: "3", fp: "1", upload: "3", present: "2" });
    await shot(page, "02-file-results.png");
    // The server's 404 for the false positive is logged by Chromium itself.
    assertNoConsoleErrors(problems, (p) => p.url.includes(`/blobs/sha256/${files.falsePositive.hex}`) && / 404 /.test(p.text));
  });

  test("a corrupted snapshot shows checksumMismatch and what it means", async (t) => {
    const { page, problems } = await open(t);
    await page.goto(corrupt.url);
    await page.waitForSelector('body[data-snapshot="failed"]');
    assert.equal(await page.locator("#snapshot-error-code").textContent(), "checksumMismatch");
    assert.ok(await page.locator("#snapshot-error").isVisible());
    assert.match(
      await page.locator("#snapshot-error-text").textContent(),
      /corrupted.*SHA-256 does not match.*Nothing was loaded/,
    );
    assert.equal(await page.locator("#snapshot-details").isVisible(), false);
    // A file added now is hashed but not decided as absent.
    await page.setInputFiles("#file-input", [files.absent.path]);
    await decided(page, 1);
    assert.equal(await verdictOf(page, files.absent.hex), "error");
    assert.equal(corrupt.stats.existenceRequests, 0);
    await shot(page, "03-corrupted-snapshot.png");
    assertNoConsoleErrors(problems);
  });

  test("a catalog server that cannot be reached is reported as such", async (t) => {
    const { page, problems } = await open(t);
    await page.route("**/snapshot", (route) => route.abort("connectionrefused"));
    await page.goto(good.url);
    await page.waitForSelector('body[data-snapshot="failed"]');
    assert.equal(await page.locator("#snapshot-error-code").textContent(), "networkError");
    assert.match(await page.locator("#snapshot-error-text").textContent(), /Cannot reach the catalog server/);
    await shot(page, "04-server-unreachable.png");
    assertNoConsoleErrors(problems, (p) => p.url.endsWith("/snapshot") && /ERR_CONNECTION_REFUSED/.test(p.text));
  });

  test(`a ${BIG_FILE_MIB} MiB file is hashed in the worker without blocking the page`, { timeout: 90_000 }, async (t) => {
    const { page, problems } = await open(t);
    await page.goto(good.url);
    await loaded(page);
    // The longest gap between 20 ms timer ticks on the page's main thread.
    await page.evaluate(() => {
      window.longestGap = 0;
      let last = performance.now();
      window.gapTimer = setInterval(() => {
        const now = performance.now();
        window.longestGap = Math.max(window.longestGap, now - last);
        last = now;
      }, 20);
    });
    // Records every intermediate value the per-file progress bar shows.
    await page.evaluate(() => {
      window.progressSeen = [];
      new MutationObserver((records) => {
        for (const record of records) {
          if (record.target.matches?.(".file-progress")) window.progressSeen.push(record.target.value);
        }
      }).observe(document.getElementById("results"), { attributes: true, attributeFilter: ["value"], subtree: true });
    });
    await page.setInputFiles("#file-input", big.path);
    await page.waitForSelector(".file[data-verdict]", { timeout: 80_000 });
    const progressSeen = await page.evaluate(() => window.progressSeen);
    assert.ok(
      progressSeen.some((v) => v > 0 && v < 1),
      `the progress bar moved while hashing (${progressSeen.length} updates)`,
    );
    const row = page.locator(".file").first();
    const shown = await row.locator(".digest").textContent();
    assert.equal(shown, big.hex, "the digest shown equals node:crypto's");
    assert.equal(await row.getAttribute("data-digest"), big.hex);
    assert.equal(await row.getAttribute("data-verdict"), big.verdict);
    assert.equal(Number(await row.getAttribute("data-bytes")), BIG_FILE_MIB * 1024 * 1024);
    const ms = Number(await row.getAttribute("data-hash-ms"));
    const longestGap = await page.evaluate(() => {
      clearInterval(window.gapTimer);
      return window.longestGap;
    });
    const mbps = (BIG_FILE_MIB * 1024 * 1024) / 1e6 / (ms / 1000);
    t.diagnostic(
      `hashed ${BIG_FILE_MIB} MiB in the worker in ${ms.toFixed(0)} ms: ${mbps.toFixed(0)} MB/s; longest main-thread gap ${longestGap.toFixed(0)} ms`,
    );
    assert.ok(longestGap < 1000, `the page stayed responsive (longest main-thread gap ${longestGap.toFixed(0)} ms)`);
    assertNoConsoleErrors(problems, (p) => big.verdict === "missing" && p.url.includes(big.hex) && / 404 /.test(p.text));
  });

  test("the drop zone works from the keyboard and results are announced", async (t) => {
    const { page, problems } = await open(t);
    await page.goto(good.url);
    await loaded(page);
    let focused;
    for (let presses = 0; presses < 6 && focused !== "drop-zone"; presses += 1) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement?.id);
    }
    assert.equal(focused, "drop-zone", "the drop zone is reachable with Tab");
    const outline = await page.locator("#drop-zone").evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.notEqual(outline, "none", "the focused drop zone has a visible outline");
    assert.equal(await page.locator("#drop-zone").getAttribute("role"), "button");
    // A standing "filechooser" listener turns Playwright's chooser
    // interception on now, not concurrently with the key press (a race that
    // can let the first picker slip through as a real, never-closed dialog,
    // after which Chromium ignores further picker requests).
    const choosers = [];
    page.on("filechooser", (chooser) => choosers.push(chooser));
    await page.evaluate(() => true); // a round trip: the interception is in place
    const picks = [
      ["Enter", files.present4],
      ["Space", files.absent4],
    ];
    for (const [key, file] of picks) {
      const count = choosers.length;
      await page.keyboard.press(key);
      for (let waited = 0; choosers.length === count && waited < 5000; waited += 50) await sleep(50);
      assert.equal(choosers.length, count + 1, `${key} on the focused drop zone opens the file picker`);
      const chooser = choosers.at(-1);
      assert.ok(chooser.isMultiple(), "the picker accepts many files");
      await chooser.setFiles([file.path]); // answered before the next key: one open picker at a time
    }
    await decided(page, 2);
    assert.equal(await verdictOf(page, files.present4.hex), "present");
    assert.equal(await verdictOf(page, files.absent4.hex), "absent");
    assert.equal(await page.locator("#results").getAttribute("aria-live"), "polite");
    assertNoConsoleErrors(problems);
  });

  test("many files dropped at once are all decided", async (t) => {
    const { page, problems } = await open(t);
    await page.goto(good.url);
    await loaded(page);
    const dropped = [files.present, files.present2, files.absent, files.absent2];
    const contents = dropped.map((f) => ({ name: f.path.split("/").pop(), text: readFileSync(f.path, "utf8") }));
    const dataTransfer = await page.evaluateHandle((list) => {
      const transfer = new DataTransfer();
      for (const { name, text } of list) transfer.items.add(new File([text], name));
      return transfer;
    }, contents);
    await page.dispatchEvent("#drop-zone", "dragover", { dataTransfer });
    assert.ok(await page.locator("#drop-zone.dragging").isVisible(), "the drop zone highlights while dragging");
    await page.dispatchEvent("#drop-zone", "drop", { dataTransfer });
    await decided(page, dropped.length);
    const verdicts = await Promise.all(dropped.map((f) => verdictOf(page, f.hex)));
    assert.deepEqual(verdicts, ["present", "present", "absent", "absent"]);
    assertNoConsoleErrors(problems);
  });

  test("a lookup that fails is shown as an error, never as absent", async (t) => {
    const { page, problems } = await open(t);
    await page.goto(good.url);
    await loaded(page);
    // The catalog server goes away after the snapshot arrived.
    await page.route("**/blobs/sha256/**", (route) => route.abort("connectionrefused"));
    await page.setInputFiles("#file-input", [files.present3.path, files.absent3.path]);
    await decided(page, 2);
    assert.equal(await verdictOf(page, files.present3.hex), "error");
    assert.equal(await verdictOf(page, files.absent3.hex), "absent", "a definite negative needs no server");
    const text = await page.locator(`.file[data-digest="${files.present3.hex}"] .verdict-text`).textContent();
    assert.match(text, /Cannot reach the catalog server.*Not assumed absent/);
    assertNoConsoleErrors(problems, (p) => p.url.includes("/blobs/sha256/") && /ERR_CONNECTION_REFUSED/.test(p.text));
  });

  test("an existence URL that answers like a static host (unmarked 404) is an error, never absent", async (t) => {
    const { page, problems } = await open(t);
    await page.goto(good.url);
    await loaded(page);
    // nginx's own 404 page: no Artifact-Bloom-Catalog-Version mark (issue 32 §1.3).
    await page.route("**/blobs/sha256/**", (route) =>
      route.fulfill({ status: 404, contentType: "text/html", body: "<html><h1>404 Not Found</h1></html>" }),
    );
    await page.setInputFiles("#file-input", [files.present3.path]);
    await decided(page, 1);
    assert.equal(await verdictOf(page, files.present3.hex), "error");
    const text = await page.locator(`.file[data-digest="${files.present3.hex}"] .verdict-text`).textContent();
    assert.match(text, /not the catalog's existence API.*Not assumed absent/);
    assertNoConsoleErrors(problems, (p) => p.url.includes("/blobs/sha256/") && / 404 /.test(p.text));
  });

  test("fits a 375 px phone screen without horizontal scrolling", async (t) => {
    const { page, problems } = await open(t, { width: 375, height: 812 });
    await page.goto(good.url);
    await loaded(page);
    await page.setInputFiles("#file-input", [files.present.path, files.absent3.path]);
    await decided(page, 2);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= 375, `scrollWidth ${scrollWidth} > 375`);
    await shot(page, "05-phone-375px.png");
    assertNoConsoleErrors(problems);
  });
});
