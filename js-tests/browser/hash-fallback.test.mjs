// hashFiles where the package's worker file cannot start (issue 22, item 2:
// Bun's and Rolldown's browser bundles do not emit `new URL("./hash-worker.js",
// import.meta.url)`): the package is served with lib/hashing/hash-worker.js missing
// (404), or answering with a script that never says "ready". Files over
// 1 MiB must still get node:crypto's digest — from a Blob-URL worker, or
// from the calling thread where those cannot help (a CSP without blob:
// workers, a file that must stream) — each file hashed exactly once, and
// onFile/onProgress must say where (`runner`). A `workerUrl` the caller gave
// that 404s is not replaced: its files fail with `workerFailed`.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { CHROMIUM, launchChromium } from "./chromium.mjs";
import { startPackageServer } from "./package-server.mjs";

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (scripts/setup.sh --browser installs it): skipped`;
const KiB = 1024;
const MiB = 1024 * KiB;
// Two files for workers, one small file for the page, and an empty one.
const SIZES = [3 * MiB + 5, 200 * KiB, 0, MiB + 1];
const BIG = SIZES.map((size) => size > MiB);
const PAGE = '<!doctype html><title>test</title><input type="file" id="files" multiple>';
const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

describe("hashFiles when lib/hashing/hash-worker.js cannot start", { skip }, () => {
  let tmp;
  let browser;
  const servers = {};
  const paths = [];
  const hexes = [];

  /** A package server where lib/hashing/hash-worker.js answers as `mode` says ("ok": the real file). */
  const serve = (mode) =>
    startPackageServer(
      {},
      {
        route(path, response) {
          if (path === "/strict/") {
            response.writeHead(200, { "content-type": "text/html", "content-security-policy": STRICT_CSP });
            response.end(PAGE);
            return true;
          }
          if (path !== "/pkg/lib/hashing/hash-worker.js" || mode === "ok") return false;
          if (mode === "missing") {
            response.writeHead(404);
            response.end();
          } else {
            // Loads and runs, but never says "ready".
            response.writeHead(200, { "content-type": "text/javascript" });
            response.end("self.addEventListener('message', () => {});\n");
          }
          return true;
        },
      },
    );

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), "artifact-bloom-hash-fallback-"));
    SIZES.forEach((size, i) => {
      const bytes = Buffer.alloc(size);
      for (let offset = 0; offset < size; offset += 32)
        createHash("sha256").update(`fallback ${i}:${offset}`).digest().copy(bytes, offset);
      paths.push(join(tmp, `${i}-${size}.bin`));
      writeFileSync(paths[i], bytes);
      hexes.push(createHash("sha256").update(bytes).digest("hex"));
    });
    for (const mode of ["ok", "missing", "silent"]) servers[mode] = await serve(mode);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    for (const server of Object.values(servers)) await server.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /**
   * Opens `mode`'s server (at `page`, in an insecure context if asked), picks
   * the files, runs hashFiles with `options` (and, when given, the worker
   * start bound shortened to `startMs`), and returns what happened: digests
   * (or failure codes), each file's runner from onFile, the runners progress
   * named per file, the workers made, and the jobs posted per file.
   */
  async function hashIn(t, mode, { options = {}, insecure = false, page: at = "/", startMs } = {}) {
    const server = servers[mode];
    const context = insecure ? await server.insecureContext(browser) : await browser.newContext();
    t.after(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(new URL(at, insecure ? server.insecureUrl : server.url).href);
    await page.setInputFiles("#files", paths);
    return page.evaluate(
      async ({ options, startMs }) => {
        const pkg = await import("/pkg/web.js");
        if (startMs !== undefined) (await import("/pkg/lib/hashing/hash-pool.js")).workerStart.timeoutMs = startMs;
        const files = Array.from(document.getElementById("files").files);
        const workers = [];
        const posted = files.map(() => 0);
        const Native = Worker;
        window.Worker = class extends Native {
          constructor(url, workerOptions) {
            super(url, workerOptions);
            workers.push(String(url).startsWith("blob:") ? "blob" : new URL(String(url)).pathname);
          }
          postMessage(message, transfer) {
            if (message?.type === "hash") posted[files.indexOf(message.file)] += 1;
            return super.postMessage(message, transfer);
          }
        };
        const runners = files.map(() => []);
        const progressRunners = files.map(() => new Set());
        const results = await pkg.hashFiles(files, {
          ...options,
          onFile: ({ index, runner }) => runners[index].push(runner),
          onProgress: ({ index, runner }) => progressRunners[index].add(runner),
        });
        const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
        return {
          digests: results.map((r) => (r.kind === "success" ? hex(r.value) : r.error)),
          messages: results.map((r) => (r.kind === "success" ? "" : r.message)),
          runners: runners.map((list) => list.join(",")),
          progressRunners: progressRunners.map((set) => [...set].join(",")),
          workers,
          posted,
        };
      },
      { options, startMs },
    );
  }

  const bigAre = (big, small) => BIG.map((isBig) => (isBig ? big : small));

  test("served whole: files over 1 MiB are hashed in the package's workers (runner: workers)", async (t) => {
    const r = await hashIn(t, "ok");
    assert.deepEqual(r.digests, hexes);
    assert.deepEqual(r.runners, bigAre("workers", "calling-thread"));
    assert.deepEqual(
      r.progressRunners.filter((_, i) => SIZES[i] > 0),
      bigAre("workers", "calling-thread").filter((_, i) => SIZES[i] > 0),
    );
    assert.ok(r.workers.length >= 1 && r.workers.every((url) => url === "/pkg/lib/hashing/hash-worker.js"), r.workers.join(" "));
    assert.deepEqual(
      r.posted,
      BIG.map((isBig) => (isBig ? 1 : 0)),
    );
  });

  test("hash-worker.js 404s: the same digests, from Blob-URL workers, each file posted once", async (t) => {
    const r = await hashIn(t, "missing");
    assert.deepEqual(r.digests, hexes);
    assert.deepEqual(r.runners, bigAre("blob-workers", "calling-thread"), "one onFile per file, naming where it was hashed");
    assert.deepEqual(
      r.progressRunners.filter((_, i) => SIZES[i] > 0),
      bigAre("blob-workers", "calling-thread").filter((_, i) => SIZES[i] > 0),
    );
    assert.ok(r.workers.includes("/pkg/lib/hashing/hash-worker.js") && r.workers.includes("blob"), r.workers.join(" "));
    // A job reaches a worker only after its "ready": the failed ones got none.
    assert.deepEqual(
      r.posted,
      BIG.map((isBig) => (isBig ? 1 : 0)),
    );
  });

  // Only the package file's bound is shortened: the Blob-URL workers keep theirs (30 s).
  test("hash-worker.js never says ready: after the start bound, the same digests from Blob-URL workers", async (t) => {
    const r = await hashIn(t, "silent", { startMs: 200 });
    assert.deepEqual(r.digests, hexes);
    assert.deepEqual(r.runners, bigAre("blob-workers", "calling-thread"));
    assert.deepEqual(
      r.posted,
      BIG.map((isBig) => (isBig ? 1 : 0)),
    );
  });

  test("hash-worker.js 404s under a CSP without blob: workers: the same digests, on the calling thread", async (t) => {
    const r = await hashIn(t, "missing", { page: "/strict/" });
    assert.deepEqual(r.digests, hexes);
    assert.deepEqual(
      r.runners,
      SIZES.map(() => "calling-thread"),
    );
    assert.deepEqual(
      r.posted,
      SIZES.map(() => 0),
      "no worker ever got a job",
    );
  });

  test("hash-worker.js 404s and files must stream (wholeFileLimit 0, or no WebCrypto): wasm on the calling thread", async (t) => {
    const streamed = await hashIn(t, "missing", { options: { wholeFileLimit: 0 } });
    assert.deepEqual(streamed.digests, hexes);
    assert.deepEqual(
      streamed.runners,
      SIZES.map(() => "calling-thread"),
    );
    assert.ok(!streamed.workers.includes("blob"), "a Blob-URL worker cannot stream: none is made");
    const insecure = await hashIn(t, "missing", { insecure: true });
    assert.deepEqual(insecure.digests, hexes);
    assert.deepEqual(
      insecure.runners,
      SIZES.map(() => "calling-thread"),
    );
  });

  test("a workerUrl the caller gave that 404s is not replaced: its files fail with workerFailed", async (t) => {
    const r = await hashIn(t, "ok", { options: { workerUrl: "/no-such-worker.js" } });
    assert.deepEqual(
      r.digests,
      hexes.map((hex, i) => (BIG[i] ? "workerFailed" : hex)),
    );
    for (const [i, message] of r.messages.entries()) if (BIG[i]) assert.match(message, /^the hashing worker could not start/);
    assert.deepEqual(r.runners, bigAre("workers", "calling-thread"));
    assert.ok(
      r.workers.every((url) => url === "/no-such-worker.js"),
      r.workers.join(" "),
    );
  });
});
