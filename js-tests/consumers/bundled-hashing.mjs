// What the Bun and Rolldown rows share: the 3 MB page fixtures/hash-page.js
// hashes (its digest computed here with node:crypto), and a bounded page
// run that tells a fallback's expected 404 apart from real problems.
//
// A bundler that does not emit `new URL("./hash-worker.js",
// import.meta.url)` leaves the page asking for a hash-worker.js that is not
// there: that one 404 (and the console line Chromium prints for it) is what
// the fallback answers, so it is reported, not counted as a problem.
import { createHash } from "node:crypto";
import { TIMEOUT_MS } from "./harness.mjs";

/** The bytes fixtures/hash-page.js builds: byte i is the top byte of i × 2654435761 (mod 2³²). */
export function pageBytes() {
  const bytes = new Uint8Array(3_000_000);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = Math.imul(i, 2654435761) >>> 24;
  return bytes;
}

export const PAGE_DIGEST = createHash("sha256").update(pageBytes()).digest("hex");

/**
 * Opens `url` and waits (bounded) for `globalThis.consumerOutcome`; resolves
 * `{ ...outcome, problems, workerMisses }`: `workerMisses` are the requests
 * for a hash-worker.js that failed, `problems` everything else that went wrong.
 */
export async function hashPageOutcome(browser, url) {
  const page = await browser.newPage();
  const problems = [];
  const workerMisses = [];
  const isWorker = (text) => /hash-worker\.js/.test(text);
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    // Chromium's line for the 404 names no URL; the response below does.
    if (/Failed to load resource: the server responded with a status of 404/.test(message.text())) return;
    problems.push(`console: ${message.text()}`);
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
    return { ...outcome, problems: [...problems], workerMisses: [...workerMisses] };
  } finally {
    await page.close();
  }
}
