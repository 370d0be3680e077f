// What the Bun and Rolldown rows share: the 3 MB page fixtures/hash-page.js
// hashes (its digest computed here with node:crypto), and a bounded page
// run that tells a fallback's expected 404 apart from real problems.
//
// A bundler that does not emit `new URL("./hash-worker.js",
// import.meta.url)` leaves the page asking for a hash-worker.js that is not
// there: that one 404 (and the console line Chromium prints for it) is what
// the fallback answers, so it is reported, not counted as a problem.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { TIMEOUT_MS, contentSecurityPolicy, serveStatic } from "./harness.mjs";

/** The bytes fixtures/hash-page.js builds: byte i is the top byte of i × 2654435761 (mod 2³²). */
export function pageBytes() {
  const bytes = new Uint8Array(3_000_000);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = Math.imul(i, 2654435761) >>> 24;
  return bytes;
}

export const PAGE_DIGEST = createHash("sha256").update(pageBytes()).digest("hex");

/**
 * Opens `url` and waits (bounded) for `globalThis.consumerOutcome`; resolves
 * `{ ...outcome, problems, workerMisses, expected }`: `workerMisses` are the
 * requests for a hash-worker.js that failed, `expected` the console errors
 * that match `expect` (say the CSP refusing a blob: worker), `problems`
 * everything else that went wrong.
 * @param {import("playwright-core").Browser} browser
 * @param {string} url
 * @param {{ expect?: RegExp[] }} [options]
 */
export async function hashPageOutcome(browser, url, { expect = [] } = {}) {
  const page = await browser.newPage();
  const problems = [];
  const workerMisses = [];
  const expected = [];
  const isWorker = (text) => /hash-worker\.js/.test(text);
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    // Chromium's line for the 404 names no URL; the response below does.
    if (/Failed to load resource: the server responded with a status of 404/.test(message.text())) return;
    (expect.some((pattern) => pattern.test(message.text())) ? expected : problems).push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("response", (response) => {
    if (response.status() < 400) return;
    (isWorker(response.url()) ? workerMisses : problems).push(`HTTP ${response.status()}: ${response.url()}`);
  });
  try {
    await page.goto(url, { timeout: TIMEOUT_MS });
    const deadline = Date.now() + 60_000;
    let outcome;
    while (outcome === undefined && problems.length === 0 && Date.now() < deadline) {
      outcome = await page.evaluate(() => globalThis.consumerOutcome);
      if (outcome === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    outcome ??= { ok: false, error: problems.length > 0 ? problems[0] : "no outcome within 60 s" };
    return { ...outcome, problems: [...problems], workerMisses: [...workerMisses], expected: [...expected] };
  } finally {
    await page.close();
  }
}

/** The CSP refusing a Blob-URL worker, as Chromium prints it. */
export const BLOB_WORKER_REFUSED = /worker from 'blob:.*violates the following Content Security Policy/;

/**
 * The built page in Chromium twice: served with no CSP, the file is hashed
 * in a Blob-URL worker; under the harness's CSP (no `blob:` workers) on the
 * calling thread. Both times the digest is node:crypto's, and the page asked
 * for the hash-worker.js its bundler did not emit. Returns both outcomes.
 * @param {import("playwright-core").Browser} browser
 * @param {{ url: string, strictUrl: string }} served
 */
export async function checkHashPage(browser, { url, strictUrl }) {
  const open = await hashPageOutcome(browser, url);
  assert.deepEqual(open.problems, []);
  assert.equal(open.ok, true, open.error);
  assert.equal(open.result.digest, PAGE_DIGEST);
  assert.ok(open.workerMisses.length >= 1, "the bundle asks for a hash-worker.js it did not emit (what the fallback is for)");
  assert.equal(open.result.runner, "blob-workers");
  const strict = await hashPageOutcome(browser, strictUrl, { expect: [BLOB_WORKER_REFUSED] });
  assert.deepEqual(strict.problems, []);
  assert.equal(strict.ok, true, strict.error);
  assert.equal(strict.result.digest, PAGE_DIGEST);
  assert.equal(strict.expected.length, 1, "the Blob-URL worker was tried once, and refused");
  assert.equal(strict.result.runner, "calling-thread");
  return { open, strict };
}

/**
 * Serves a built page twice on 127.0.0.1: as is, and under the harness's CSP.
 * @param {string} dir
 * @returns {Promise<{ url: string, strictUrl: string, close: () => Promise<void> }>}
 */
export async function serveTwice(dir) {
  const open = await serveStatic(dir);
  const strict = await serveStatic(dir, { "content-security-policy": contentSecurityPolicy() });
  return {
    url: open.url,
    strictUrl: strict.url,
    close: async () => {
      await open.close();
      await strict.close();
    },
  };
}
