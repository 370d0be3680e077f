// The core of the bad-input matrix (js-tests/matrix.test.mjs) in a real
// browser: the browser build (pkg/web.js, `await init()`) in Debian's
// Chromium must give exactly the outcomes the Node build gives, for
// ArtifactBloomFilter.create / createPacked / mightContain /
// mightContainMany / countMaybe, loadSnapshot, Sha256 and sha256 × the same
// 20 awkward values (SharedArrayBuffer included: the page is cross-origin
// isolated by COOP/COEP headers from the static server below).
//
// `coreMatrix` is self-contained: its source is sent to the page and the
// same function runs in Node, so both sides run identical code.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CHROMIUM, launchChromium } from "./chromium.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PKG = join(ROOT, "pkg");
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (scripts/setup.sh --browser installs it): skipped`;

/**
 * Runs the core rows × 20 values with the given package module; returns
 * [{ row, value, outcome }]. No closures over this file: it runs in the page.
 */
async function coreMatrix(pkg) {
  const { ArtifactBloomFilter, Sha256, loadSnapshot, sha256, encodeSnapshot } = pkg;
  const text = (s) => new TextEncoder().encode(s);
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const members = Array.from({ length: 10 }, (_, i) => sha256(text(`member:${i}`)));
  const member = members[3];
  const spec = { expectedItemCount: 16, targetFalsePositiveRate: 0.01 };
  const filter = ArtifactBloomFilter.create(members, spec).value;
  const snapshotBytes = encodeSnapshot(filter, { catalogVersion: 7 });

  const atOffset5 = (content) => {
    const backing = new Uint8Array(content.byteLength + 32).fill(0xa5);
    backing.set(content, 5);
    return backing.subarray(5, 5 + content.byteLength);
  };
  const onShared = (content) => {
    const view = new Uint8Array(new SharedArrayBuffer(content.byteLength));
    view.set(content);
    return view;
  };
  const detached = (content) => {
    const view = Uint8Array.from(content);
    structuredClone(view.buffer, { transfer: [view.buffer] });
    return view;
  };
  const values = [
    ["undefined", () => undefined],
    ["null", () => null],
    ["0", () => 0],
    ["NaN", () => Number.NaN],
    ['""', () => ""],
    ['"ab"', () => "ab"],
    ["{}", () => ({})],
    ["[]", () => []],
    ["[1,2,3]", () => [1, 2, 3]],
    ["ArrayBuffer(32)", () => new ArrayBuffer(32)],
    ["DataView(ArrayBuffer(32))", () => new DataView(new ArrayBuffer(32))],
    ["Uint16Array(16)", () => new Uint16Array(16)],
    ["Int8Array(32)", () => new Int8Array(32)],
    ["Float64Array(4)", () => new Float64Array(4)],
    ["Uint8Array(31)", () => member.slice(0, 31)],
    ["Uint8Array(32)", () => Uint8Array.from(member)],
    ["Uint8Array(33)", () => Uint8Array.from([...member, 1])],
    ["subarray at byteOffset 5", () => atOffset5(member)],
    ["SharedArrayBuffer-backed", () => onShared(member)],
    ["detached", () => detached(member)],
  ];
  const summarize = (value) => {
    if (value instanceof Uint8Array) return { u8: hex(value) };
    if (value instanceof ArtifactBloomFilter)
      return { filter: hex(sha256(value.serializeBits())), inserted: value.getInsertedItemCount() };
    if (value !== null && typeof value === "object") {
      const out = {};
      for (const key of Object.keys(value)) out[key] = key === "message" ? "…" : summarize(value[key]);
      return out;
    }
    return typeof value === "number" && Number.isNaN(value) ? "NaN" : value;
  };
  const outcome = (call) => {
    try {
      return { ok: summarize(call()) };
    } catch (error) {
      const name = error instanceof WebAssembly.RuntimeError ? "WebAssembly.RuntimeError" : error?.name;
      // Engine messages about detached buffers differ between V8 versions.
      const message = /detached/i.test(String(error?.message)) ? "(detached ArrayBuffer)" : String(error?.message);
      return { threw: name, message };
    }
  };
  const rows = [
    ["create(v, spec)", (v) => ArtifactBloomFilter.create(v, spec)],
    ["create([digest, v], spec)", (v) => ArtifactBloomFilter.create([members[0], v], spec)],
    ["create([], v)", (v) => ArtifactBloomFilter.create([], v)],
    ["createPacked(v, spec)", (v) => ArtifactBloomFilter.createPacked(v, spec)],
    ["mightContain(v)", (v) => filter.mightContain(v)],
    ["mightContainMany(v)", (v) => filter.mightContainMany(v)],
    ["countMaybe(v)", (v) => filter.countMaybe(v)],
    ["loadSnapshot(v)", (v) => loadSnapshot(v)],
    ["new Sha256().update(v)", (v) => new Sha256().update(v).digest()],
    ["sha256(v)", (v) => sha256(v)],
  ];
  const results = [];
  for (const [row, call] of rows) {
    for (const [label, make] of values) results.push({ row, value: label, outcome: outcome(() => call(make())) });
  }
  // A real snapshot at byteOffset 5 and over a SharedArrayBuffer loads like a fresh copy.
  for (const [label, wrap] of [
    ["fresh", (b) => Uint8Array.from(b)],
    ["subarray at byteOffset 5", atOffset5],
    ["SharedArrayBuffer-backed", onShared],
  ]) {
    results.push({ row: "loadSnapshot(valid file)", value: label, outcome: outcome(() => loadSnapshot(wrap(snapshotBytes))) });
    results.push({
      row: "mightContainMany(10 members)",
      value: label,
      outcome: outcome(() => filter.mightContainMany(wrap(new Uint8Array(members.flatMap((d) => [...d]))))),
    });
  }
  return results;
}

const MIME = {
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".html": "text/html",
  ".json": "application/json",
};

/** A static server for pkg/ on 127.0.0.1 with cross-origin isolation headers. */
function startStaticServer() {
  const server = createServer((request, response) => {
    const headers = {
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-embedder-policy": "require-corp",
      "cross-origin-resource-policy": "same-origin",
      "cache-control": "no-store",
    };
    const path = new URL(request.url, "http://localhost").pathname;
    if (path === "/") {
      response.writeHead(200, { ...headers, "content-type": "text/html" });
      response.end("<!doctype html><title>matrix</title>");
      return;
    }
    const file = normalize(join(PKG, decodeURIComponent(path)));
    if (!file.startsWith(PKG + sep) || !existsSync(file)) {
      response.writeHead(404, headers);
      response.end();
      return;
    }
    response.writeHead(200, { ...headers, "content-type": MIME[extname(file)] ?? "application/octet-stream" });
    response.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe("bad-input matrix in Chromium (browser build) equals Node", { skip }, () => {
  let server;
  let browser;
  let browserResults;
  let nodeResults;

  before(async () => {
    server = await startStaticServer();
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    browserResults = await page.evaluate(async (source) => {
      if (!globalThis.crossOriginIsolated) throw new Error("the page is not cross-origin isolated: no SharedArrayBuffer");
      const pkg = await import("/web.js");
      await pkg.default();
      // biome-ignore lint/security/noGlobalEval: page.evaluate passes the matrix as source text; this makes it a function again.
      const run = globalThis.eval(`(${source})`);
      return run(pkg);
    }, coreMatrix.toString());
    assert.deepEqual(errors, []);
    nodeResults = await coreMatrix(await import("artifact-bloom"));
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  });

  test("the browser ran every row × value", () => {
    assert.equal(browserResults.length, nodeResults.length);
    assert.equal(browserResults.length, 10 * 20 + 6);
  });

  test("no outcome is a wasm trap, and a bad digest is never answered", () => {
    for (const { row, value, outcome } of browserResults) {
      assert.notEqual(outcome.threw, "WebAssembly.RuntimeError", `${row} ${value}: ${outcome.message}`);
      assert.doesNotMatch(outcome.message ?? "", /unreachable/i, `${row} ${value}`);
      if (row === "mightContain(v)") {
        const valid = ["Uint8Array(32)", "subarray at byteOffset 5", "SharedArrayBuffer-backed"].includes(value);
        if (valid) assert.deepEqual(outcome, { ok: true }, `${row} ${value}: a member digest answers maybe`);
        else
          assert.ok(
            outcome.threw === "RangeError" || outcome.threw === "TypeError",
            `${row} ${value}: ${JSON.stringify(outcome)}`,
          );
      }
    }
  });

  test("every outcome equals the Node build's", () => {
    const differences = [];
    browserResults.forEach((entry, index) => {
      const node = nodeResults[index];
      assert.equal(entry.row, node.row);
      assert.equal(entry.value, node.value);
      if (JSON.stringify(entry.outcome) !== JSON.stringify(node.outcome)) {
        differences.push(
          `${entry.row} × ${entry.value}: browser ${JSON.stringify(entry.outcome)} vs node ${JSON.stringify(node.outcome)}`,
        );
      }
    });
    assert.deepEqual(differences, []);
  });
});
