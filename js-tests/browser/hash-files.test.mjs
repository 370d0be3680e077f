// hashFiles, for correctness only (speed is bench/browser.mjs's): digests
// equal node:crypto's for every size that matters — 0 bytes, SHA-256 block
// edges, stream-chunk edges, the in-thread/worker edge, the whole-file limit
// ±1, many chunks — on every path (WebCrypto in the page, WebCrypto in a
// worker, streaming wasm in a worker, an insecure context with no WebCrypto,
// and Node); files up to the limit, and only those, go to WebCrypto; an
// abort rejects with the signal's reason and stops; progress never goes
// back and ends at the total; files up to 1 MiB are hashed without asking
// their size; at most `concurrency` files over 1 MiB (and workers) at once,
// 4 times as many in all. Chromium parts use files on disk picked through <input type=file>.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, openAsBlob, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { hashFiles } from "artifact-bloom";
import { CHROMIUM, launchChromium } from "./chromium.mjs";
import { startPackageServer } from "./package-server.mjs";

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (scripts/setup.sh --browser installs it): skipped`;
const KiB = 1024;
const MiB = 1024 * KiB;
// A whole-file limit small enough to test both sides of cheaply.
const LIMIT = 3 * MiB;
const SIZES = [
  0,
  1,
  55,
  56,
  63,
  64,
  65,
  64 * KiB - 1,
  64 * KiB,
  64 * KiB + 1,
  MiB - 1,
  MiB,
  MiB + 1,
  LIMIT - 1,
  LIMIT,
  LIMIT + 1,
  5 * MiB + 3,
];

/** Deterministic bytes of `size` (each file different). */
function content(size, seed) {
  const bytes = Buffer.alloc(size);
  for (let offset = 0; offset < size; offset += 32) {
    createHash("sha256").update(`${seed}:${offset}`).digest().copy(bytes, offset);
  }
  return bytes;
}
const hex = (bytes) => createHash("sha256").update(bytes).digest("hex");

describe("hashFiles in Chromium", { skip }, () => {
  let tmp;
  let server;
  let browser;
  const fixtures = {}; // name → [{ path, hex, size }]

  const writeSet = (name, sizes) => {
    mkdirSync(join(tmp, name));
    fixtures[name] = sizes.map((size, i) => {
      const bytes = content(size, `${name} ${i}`);
      const path = join(tmp, name, `${String(i).padStart(3, "0")}-${size}.bin`);
      writeFileSync(path, bytes);
      return { path, hex: hex(bytes), size };
    });
  };

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), "artifact-bloom-hash-files-"));
    writeSet("sizes", SIZES);
    writeSet("mixed", [...Array(6).fill(2 * MiB), ...Array(6).fill(100 * KiB)]);
    writeSet("many", Array(20).fill(2 * MiB));
    writeSet("vanishing", [100 * KiB, 200 * KiB, 2 * MiB]);
    server = await startPackageServer({
      // The package's worker with WebCrypto's digest reported to the page
      // first (imported afterwards, so the patch is in place).
      "/spy-worker.js": `
        const digest = SubtleCrypto.prototype.digest;
        SubtleCrypto.prototype.digest = function (algorithm, data) {
          self.postMessage({ type: "spy", bytes: data.byteLength });
          return digest.call(this, algorithm, data);
        };
        await import("/pkg/lib/hashing/hash-worker.js");`,
    });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  /**
   * A page with the package loaded, `set`'s files picked, and spies:
   * window.spy (WebCrypto digests: where, bytes), window.workers (every
   * Worker made), window.inFlight / maxInFlight (files started — a
   * main-thread read or a job posted to a worker — and not yet reported).
   */
  async function open(t, set, { insecure = false } = {}) {
    const context = insecure ? await server.insecureContext(browser) : await browser.newContext();
    t.after(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(insecure ? server.insecureUrl : server.url);
    await page.setInputFiles(
      "#files",
      fixtures[set].map((f) => f.path),
    );
    await page.evaluate(async () => {
      window.pkg = await import("/pkg/web.js");
      await window.pkg.default();
      window.files = Array.from(document.getElementById("files").files);
      window.spy = [];
      window.workers = [];
      window.started = new Set();
      window.maxInFlight = 0;
      window.start = (file) => {
        window.started.add(window.files.indexOf(file));
        window.maxInFlight = Math.max(window.maxInFlight, window.started.size);
      };
      // Files over 1 MiB handed to a worker and not yet reported.
      window.bigStarted = new Set();
      window.maxBigInFlight = 0;
      // `size` reads of each picked file (by anyone but these spies).
      const sizeOf = Object.getOwnPropertyDescriptor(Blob.prototype, "size").get;
      window.sizeOf = (file) => sizeOf.call(file);
      window.sizeReads = new Map();
      Object.defineProperty(Blob.prototype, "size", {
        configurable: true,
        get() {
          const index = window.files.indexOf(this);
          if (index >= 0) window.sizeReads.set(index, (window.sizeReads.get(index) ?? 0) + 1);
          return sizeOf.call(this);
        },
      });
      const stream = Blob.prototype.stream;
      Blob.prototype.stream = function () {
        window.start(this);
        return stream.call(this);
      };
      if (globalThis.crypto?.subtle) {
        const digest = SubtleCrypto.prototype.digest;
        SubtleCrypto.prototype.digest = function (algorithm, data) {
          window.spy.push({ where: "page", bytes: data.byteLength });
          return digest.call(this, algorithm, data);
        };
      }
      const arrayBuffer = Blob.prototype.arrayBuffer;
      Blob.prototype.arrayBuffer = function () {
        window.start(this);
        return arrayBuffer.call(this);
      };
      const Native = Worker;
      window.Worker = class extends Native {
        constructor(url, options) {
          super(url, options);
          window.workers.push(String(url));
          this.addEventListener("message", ({ data }) => {
            if (data?.type === "spy") window.spy.push({ where: "worker", bytes: data.bytes });
          });
        }
        postMessage(message, transfer) {
          if (message?.type === "hash") {
            window.start(message.file);
            if (window.sizeOf(message.file) > 1024 * 1024) {
              window.bigStarted.add(window.files.indexOf(message.file));
              window.maxBigInFlight = Math.max(window.maxBigInFlight, window.bigStarted.size);
            }
          }
          return super.postMessage(message, transfer);
        }
      };
    });
    return page;
  }

  /** Runs hashFiles in the page; returns hex digests (or failure codes), the events and the spies' findings. */
  const run = (page, options = {}) =>
    page.evaluate(async (options) => {
      const events = [];
      const reported = [];
      const results = await window.pkg.hashFiles(window.files, {
        ...options,
        onProgress: (p) => events.push(p),
        onFile: ({ index, result }) => {
          reported.push(index);
          window.started.delete(index);
          window.bigStarted.delete(index);
          if (result.kind !== "success") throw new Error(`${index}: ${result.error} ${result.message}`);
        },
      });
      const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      return {
        digests: results.map((r) => (r.kind === "success" ? toHex(r.value) : r.error)),
        events,
        reported,
        spy: window.spy,
        workers: window.workers,
        maxInFlight: window.maxInFlight,
        maxBigInFlight: window.maxBigInFlight,
        sizeReads: Object.fromEntries(window.sizeReads),
      };
    }, options);

  const expectedHex = (set) => fixtures[set].map((f) => f.hex);
  const webCryptoSizes = (spy) => spy.map((s) => s.bytes).sort((a, b) => a - b);

  test("digests equal node:crypto's for every size, with the default limit (all WebCrypto)", async (t) => {
    const page = await open(t, "sizes");
    const r = await run(page, { workerUrl: "/spy-worker.js" });
    assert.deepEqual(r.digests, expectedHex("sizes"));
    // Every file went to WebCrypto once: up to 1 MiB in the page, above it in a worker.
    assert.deepEqual(
      webCryptoSizes(r.spy),
      [...SIZES].sort((a, b) => a - b),
    );
    for (const { where, bytes } of r.spy)
      assert.equal(where, bytes <= MiB ? "page" : "worker", `${bytes} bytes hashed in the ${where}`);
  });

  test("files up to 1 MiB are hashed without asking their size (a browser round trip each); larger ones are asked", async (t) => {
    const page = await open(t, "sizes");
    const r = await run(page);
    assert.deepEqual(r.digests, expectedHex("sizes"));
    const asked = SIZES.map((size, i) => [size, (r.sizeReads[i] ?? 0) > 0]);
    assert.deepEqual(
      asked,
      SIZES.map((size) => [size, size > MiB]),
    );
  });

  test(`wholeFileLimit ${LIMIT}: files up to it go to WebCrypto, larger ones stream through wasm`, async (t) => {
    const page = await open(t, "sizes");
    const r = await run(page, { workerUrl: "/spy-worker.js", wholeFileLimit: LIMIT });
    assert.deepEqual(r.digests, expectedHex("sizes"));
    assert.deepEqual(
      webCryptoSizes(r.spy),
      SIZES.filter((s) => s <= LIMIT).sort((a, b) => a - b),
    );
    // A limit of 0: only the empty file is "whole"; everything else streams.
    const none = await run(page, { workerUrl: "/spy-worker.js", wholeFileLimit: 0 });
    assert.deepEqual(none.digests, expectedHex("sizes"));
    assert.deepEqual(webCryptoSizes(none.spy.slice(r.spy.length)), [0]);
  });

  test("an insecure context (no crypto.subtle anywhere): every file streams through wasm, same digests", async (t) => {
    const page = await open(t, "sizes", { insecure: true });
    assert.equal(await page.evaluate(() => typeof globalThis.crypto?.subtle), "undefined");
    const r = await run(page);
    assert.deepEqual(r.digests, expectedHex("sizes"));
    assert.deepEqual(r.spy, []);
  });

  test("progress never decreases, per file and in total, and ends at the total", async (t) => {
    const page = await open(t, "sizes");
    const { events, reported } = await run(page);
    const total = SIZES.reduce((a, b) => a + b, 0);
    assert.ok(events.length >= SIZES.filter((s) => s > 0).length, `${events.length} events`);
    const perFile = new Map();
    for (let i = 0; i < events.length; i += 1) {
      const e = events[i];
      if (i > 0) assert.ok(e.bytes >= events[i - 1].bytes, `event ${i}: ${e.bytes} after ${events[i - 1].bytes}`);
      assert.ok(e.total === undefined || e.total === total, `event ${i}: total ${e.total}`);
      assert.ok(e.fileBytes >= (perFile.get(e.index) ?? 0) && e.fileBytes <= SIZES[e.index], `file ${e.index}: ${e.fileBytes}`);
      perFile.set(e.index, e.fileBytes);
    }
    assert.deepEqual({ bytes: events.at(-1).bytes, total: events.at(-1).total }, { bytes: total, total });
    assert.deepEqual(
      [...reported].sort((a, b) => a - b),
      SIZES.map((_, i) => i),
      "onFile once per file",
    );
  });

  test("a file deleted after it was picked fails alone (readFailed), and the last event still has the total", async (t) => {
    const page = await open(t, "vanishing");
    rmSync(fixtures.vanishing[1].path);
    const r = await page.evaluate(async () => {
      const events = [];
      const results = await window.pkg.hashFiles(window.files, { onProgress: (p) => events.push(p) });
      return { kinds: results.map((x) => (x.kind === "success" ? "success" : x.error)), last: events.at(-1) };
    });
    assert.deepEqual(r.kinds, ["success", "readFailed", "success"]);
    assert.ok(r.last !== undefined && r.last.total !== undefined && r.last.bytes <= r.last.total, JSON.stringify(r.last));
  });

  for (const concurrency of [1, 3]) {
    test(`concurrency ${concurrency}: at most that many files over 1 MiB at once, 4 times as many in all, and that many workers`, async (t) => {
      const page = await open(t, "mixed");
      const r = await run(page, { concurrency });
      assert.deepEqual(r.digests, expectedHex("mixed"));
      // Small files (and the first MiB of each file, read before its size is asked) are pipelined 4 per lane.
      assert.ok(r.maxInFlight >= 1 && r.maxInFlight <= 4 * concurrency, `${r.maxInFlight} files at once`);
      assert.ok(r.maxBigInFlight >= 1 && r.maxBigInFlight <= concurrency, `${r.maxBigInFlight} files over 1 MiB at once`);
      assert.ok(r.workers.length >= 1 && r.workers.length <= concurrency, `${r.workers.length} workers`);
    });
  }

  test("abort: rejects with the signal's reason, reports no file after it, stops the workers", async (t) => {
    const page = await open(t, "many");
    const r = await page.evaluate(async () => {
      const controller = new AbortController();
      const reported = [];
      let error;
      try {
        await window.pkg.hashFiles(window.files, {
          concurrency: 2,
          signal: controller.signal,
          onFile: ({ index }) => {
            reported.push(index);
            if (reported.length === 1) controller.abort(new Error("the user cancelled"));
          },
        });
      } catch (caught) {
        error = caught.message;
      }
      const atAbort = reported.length;
      // Give any stray result a chance to show up (none may).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const already = new AbortController();
      already.abort();
      const before = window.workers.length;
      let alreadyError;
      await window.pkg.hashFiles(window.files, { signal: already.signal }).catch((e) => {
        alreadyError = e.name;
      });
      return { error, atAbort, later: reported.length, alreadyError, workersForAborted: window.workers.length - before };
    });
    assert.equal(r.error, "the user cancelled");
    assert.equal(r.atAbort, 1);
    assert.equal(r.later, 1, "no file is reported after the abort");
    assert.equal(r.alreadyError, "AbortError");
    assert.equal(r.workersForAborted, 0, "an already-aborted signal starts nothing");
  });
});

describe("hashFiles in Node (no workers: node:crypto in this thread)", () => {
  /**
   * A Blob whose stream holds its bytes until `release()` (possible once
   * `pulled`: the reader is waiting); `cancelled` once its reader cancels.
   */
  function gatedBlob(bytes, gates) {
    const blob = new Blob([bytes]);
    const gate = { opened: false, pulled: false, cancelled: false };
    blob.stream = () => {
      gates.open += 1;
      gates.max = Math.max(gates.max, gates.open);
      gates.list.push(gate);
      gate.opened = true;
      return new ReadableStream({
        pull: (controller) =>
          new Promise((resolve) => {
            gate.pulled = true;
            gate.release = () => {
              gates.open -= 1;
              controller.enqueue(new Uint8Array(bytes));
              controller.close();
              resolve();
            };
          }),
        cancel: () => {
          gate.cancelled = true;
        },
      });
    };
    return blob;
  }

  test("digests equal node:crypto's for every size (Blobs and files on disk)", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "artifact-bloom-hash-files-node-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const contents = SIZES.map((size, i) => content(size, `node ${i}`));
    const blobs = contents.map((bytes) => new Blob([bytes]));
    const onDisk = await Promise.all(
      contents.map((bytes, i) => {
        const path = join(dir, `${i}.bin`);
        writeFileSync(path, bytes);
        return openAsBlob(path);
      }),
    );
    for (const files of [blobs, onDisk]) {
      const events = [];
      const results = await hashFiles(files, { onProgress: (p) => events.push(p.bytes) });
      assert.deepEqual(
        results.map((r) => (r.kind === "success" ? Buffer.from(r.value).toString("hex") : r.error)),
        contents.map(hex),
      );
      assert.ok(
        events.every((b, i) => i === 0 || b >= events[i - 1]),
        "progress never decreases",
      );
      assert.equal(
        events.at(-1),
        SIZES.reduce((a, b) => a + b, 0),
      );
    }
    assert.deepEqual(await hashFiles([]), []);
  });

  test("at most `concurrency` files at once", async () => {
    const gates = { open: 0, max: 0, list: [] };
    const files = Array.from({ length: 9 }, (_, i) => gatedBlob(content(100, `gated ${i}`), gates));
    const done = hashFiles(files, { concurrency: 3 });
    // Release one stream at a time; each release lets exactly one more start.
    for (let released = 0; released < files.length; released += 1) {
      for (let spins = 0; !gates.list[released]?.pulled && spins < 1000; spins += 1) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.ok(gates.open <= 3, `${gates.open} open`);
      gates.list[released].release();
    }
    const results = await done;
    assert.equal(results.filter((r) => r.kind === "success").length, files.length);
    assert.equal(gates.max, 3, "three at once, never more");
  });

  test("abort rejects at once with the reason and cancels the reads in progress", async () => {
    const gates = { open: 0, max: 0, list: [] };
    const files = Array.from({ length: 5 }, (_, i) => gatedBlob(content(100, `abort ${i}`), gates));
    const controller = new AbortController();
    const done = hashFiles(files, { concurrency: 2, signal: controller.signal });
    for (let spins = 0; gates.list.length < 2 && spins < 1000; spins += 1) await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error("stop");
    controller.abort(reason);
    await assert.rejects(done, (error) => error === reason);
    for (let spins = 0; !gates.list.every((g) => g.cancelled) && spins < 1000; spins += 1)
      await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      gates.list.map((g) => g.cancelled),
      [true, true],
      "both open reads were cancelled; no other started",
    );
    const already = new AbortController();
    already.abort();
    await assert.rejects(hashFiles(files, { signal: already.signal }), { name: "AbortError" });
  });

  test("bad arguments are a TypeError or RangeError naming the parameter", async () => {
    const blob = new Blob(["x"]);
    await assert.rejects(hashFiles(42), { name: "TypeError", message: /^files must be an iterable/ });
    await assert.rejects(hashFiles("release.tar"), { name: "TypeError", message: /^files must be an iterable/ });
    await assert.rejects(hashFiles([blob, "not a file"]), {
      name: "TypeError",
      message: /^files\[1\] must be a Blob or File, got a string/,
    });
    for (const concurrency of [0, 1.5, -1, Number.NaN, "2"]) {
      await assert.rejects(hashFiles([blob], { concurrency }), {
        name: "RangeError",
        message: /^concurrency must be an integer of at least 1/,
      });
    }
    for (const wholeFileLimit of [-1, Number.NaN, "1"]) {
      await assert.rejects(hashFiles([blob], { wholeFileLimit }), { name: "RangeError", message: /^wholeFileLimit must be/ });
    }
    await assert.rejects(hashFiles([blob], { onProgress: 1 }), { name: "TypeError", message: /^onProgress must be a function/ });
    await assert.rejects(hashFiles([blob], { onFile: {} }), { name: "TypeError", message: /^onFile must be a function/ });
    await assert.rejects(hashFiles([blob], { signal: {} }), { name: "TypeError", message: /^signal must be an AbortSignal/ });
    await assert.rejects(hashFiles([blob], { workerUrl: 3 }), {
      name: "TypeError",
      message: /^workerUrl must be a string or URL/,
    });
  });
});
