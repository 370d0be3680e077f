// A 128 MiB snapshot (2^30 bits, the format's cap) streams into Chromium with
// fetchSnapshot + onProgress: progress events strictly increase to the total,
// the total is known from the first 96 bytes on, and the loaded header is the
// file's. The file is written by hand (helpers/huge-snapshot.mjs: header,
// a sparse payload, the SHA-256 from node:crypto), served from memory on
// 127.0.0.1.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { HUGE_BIT_COUNT, HUGE_TOTAL, hugeSnapshotFile } from "../helpers/huge-snapshot.mjs";
import { CHROMIUM, launchChromium } from "./chromium.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PKG = join(ROOT, "pkg");
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (scripts/setup.sh --browser installs it): skipped`;

const BIT_COUNT = HUGE_BIT_COUNT;
const PAYLOAD = BIT_COUNT / 8; // 128 MiB
const TOTAL = HUGE_TOTAL;
const CATALOG_VERSION = 4242;

const MIME = { ".js": "text/javascript", ".wasm": "application/wasm" };

describe("a 128 MiB snapshot streams into Chromium with progress", { skip }, () => {
  let server;
  let browser;
  let snapshot;

  before(async () => {
    snapshot = hugeSnapshotFile(CATALOG_VERSION);
    server = createServer((request, response) => {
      const path = new URL(request.url, "http://localhost").pathname;
      if (path === "/") {
        response.writeHead(200, { "content-type": "text/html" });
        response.end("<!doctype html><title>huge</title>");
      } else if (path === "/huge.abf1") {
        response.writeHead(200, {
          "content-type": "application/octet-stream",
          "content-length": TOTAL,
          "cache-control": "no-store",
        });
        // 1 MiB writes: the body arrives in many chunks.
        let offset = 0;
        const pump = () => {
          while (offset < TOTAL) {
            const end = Math.min(offset + 2 ** 20, TOTAL);
            const more = response.write(snapshot.file.subarray(offset, end));
            offset = end;
            if (!more) return response.once("drain", pump);
          }
          response.end();
        };
        pump();
      } else {
        const file = normalize(join(PKG, decodeURIComponent(path)));
        if (!file.startsWith(PKG + sep) || !existsSync(file)) {
          response.writeHead(404);
          response.end();
          return;
        }
        response.writeHead(200, { "content-type": MIME[extname(file)] ?? "application/octet-stream" });
        response.end(readFileSync(file));
      }
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  });

  test("fetchSnapshot: progress increases to the total, header and answers are right", async (t) => {
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const r = await page.evaluate(async () => {
      const pkg = await import("/web.js");
      await pkg.default();
      const events = [];
      const started = performance.now();
      const loaded = await pkg.fetchSnapshot("/huge.abf1", { onProgress: (p) => events.push([p.bytes, p.total]) });
      const ms = performance.now() - started;
      if (loaded.kind !== "success") return { failure: `${loaded.error}: ${loaded.message}` };
      let increasing = true;
      for (let i = 1; i < events.length; i += 1) if (!(events[i][0] > events[i - 1][0])) increasing = false;
      const firstKnown = events.findIndex((e) => e[1] !== undefined);
      const totals = new Set(events.map((e) => e[1]));
      const { filter, header, catalogVersion } = loaded.value;
      const probe = new Uint8Array(32); // all-zero digest: probes bit 0, then steps by 1
      return {
        ms,
        count: events.length,
        increasing,
        first: events[0],
        last: events[events.length - 1],
        firstKnown,
        totals: [...totals],
        header,
        catalogVersion,
        bitCount: filter.getBitCount(),
        zeroDigest: filter.mightContain(probe),
        wasmMemory: pkg.wasmMemoryBytes(),
      };
    });
    await page.close();
    assert.equal(r.failure, undefined, r.failure);
    t.diagnostic(
      `${TOTAL} bytes in ${r.ms.toFixed(0)} ms (${(TOTAL / 2 ** 20 / (r.ms / 1000)).toFixed(0)} MiB/s), ${r.count} progress events, wasm memory ${(r.wasmMemory / 2 ** 20).toFixed(0)} MiB`,
    );
    assert.ok(r.count > 10, `${r.count} progress events`);
    assert.equal(r.increasing, true, "progress bytes strictly increase");
    assert.equal(r.last[0], TOTAL, "the last event reports every byte");
    assert.equal(r.last[1], TOTAL);
    // Before 96 bytes the Content-Length stands in; from the header on it is exact.
    assert.deepEqual(r.totals, [TOTAL]);
    assert.equal(r.header.bitCount, BIT_COUNT);
    assert.equal(r.header.payloadLength, PAYLOAD);
    assert.equal(r.header.hashCount, 13);
    assert.equal(r.header.expectedItemCount, 56_002_939);
    assert.equal(r.header.targetFpp, 1e-4);
    assert.equal(r.header.checksum, snapshot.checksum);
    assert.equal(r.catalogVersion, CATALOG_VERSION);
    assert.equal(r.bitCount, BIT_COUNT);
    // Bit 0 is set (byte 96 = 0x81) but bit 1 is not: the zero digest's walk
    // (index 0, step 1) stops at bit 1 → definitely absent.
    assert.equal(r.zeroDigest, false);
    // One bit array (128 MiB) plus small buffers: the stream never holds the file twice.
    assert.ok(r.wasmMemory < 160 * 2 ** 20, `wasm memory ${(r.wasmMemory / 2 ** 20).toFixed(0)} MiB`);
  });

  // The whole-buffer path for comparison: one loadSnapshot call hashes the
  // 128 MiB in wasm (browsers have no node:crypto). Reported, not bounded:
  // in a cold page that single call runs in V8's baseline tier (see
  // js-tests/huge.test.mjs and docs/reliability.md).
  test("loadSnapshot of the same 128 MiB as one buffer (cold page): timing reported", async (t) => {
    const page = await browser.newPage();
    page.setDefaultTimeout(120_000);
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const r = await page.evaluate(async () => {
      const pkg = await import("/web.js");
      await pkg.default();
      const bytes = new Uint8Array(await (await fetch("/huge.abf1")).arrayBuffer());
      const started = performance.now();
      const loaded = pkg.loadSnapshot(bytes);
      const ms = performance.now() - started;
      return { ms, kind: loaded.kind, bitCount: loaded.value?.filter.getBitCount() };
    });
    await page.close();
    t.diagnostic(`loadSnapshot(128 MiB) in a cold page: ${r.ms.toFixed(0)} ms`);
    assert.equal(r.kind, "success");
    assert.equal(r.bitCount, BIT_COUNT);
  });
});
