// In a browser, snapshot loads verify the ABF1 checksum with one WebCrypto
// digest once the whole payload is in (digested in a worker, or on the
// page's thread where there are no workers), and with streaming wasm where
// WebCrypto is missing (an insecure context). This proves all three give
// the same result — success with the same header and answers, or the same
// error code and message — for every ABF1 vector of the shared suite and
// for a multi-chunk snapshot with corrupted variants (a payload bit, a
// covered header byte, the checksum field, one byte short, one too many),
// and that the WebCrypto path really ran, over exactly the bytes the Rust
// decoder says the checksum covers (64 header bytes + the payload).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CHROMIUM, launchChromium } from "./chromium.mjs";
import { startPackageServer } from "./package-server.mjs";

const VECTORS = fileURLToPath(new URL("../../../shared/vectors/abf1/", import.meta.url));
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (scripts/setup.sh --browser installs it): skipped`;

const sha256 = (text) => new Uint8Array(createHash("sha256").update(text).digest());

/** The in-page loader: each file by fetchSnapshot and by loadSnapshotStream over tiny-then-large chunks. */
async function loadInPage({ names, probes }) {
  const pkg = await import("/pkg/web.js");
  await pkg.default();
  const probeDigests = probes.map((hex) => Uint8Array.from(hex.match(/../g), (h) => parseInt(h, 16)));
  const describe = (loaded) => {
    if (loaded.kind !== "success") return { kind: loaded.kind, error: loaded.error, message: loaded.message };
    const { filter, header, catalogVersion } = loaded.value;
    const answers = probeDigests.map((digest) => filter.mightContain(digest));
    filter.free();
    return { kind: "success", header: { ...header }, catalogVersion, answers };
  };
  // Chunks of 5, 50 and 41 bytes first: the header completes only with the
  // third, so bytes arrive before the checksum's coverage can be sized.
  async function* chunked(bytes) {
    let offset = 0;
    for (const size of [5, 50, 41, 1000]) {
      yield bytes.slice(offset, offset + size);
      offset += size;
    }
    while (offset < bytes.length) {
      yield bytes.slice(offset, offset + 65_536);
      offset += 65_536;
    }
  }
  const results = {};
  for (const name of names) {
    const url = `/v/${name}`;
    const before = window.spy.slice();
    // checksumWorkerMinBytes 0: these files are small, and the worker path is the one under test.
    const fetched = describe(await pkg.fetchSnapshot(url, { checksumWorkerMinBytes: 0 }));
    const fetchDigests = window.spy.slice(before.length);
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const streamed = describe(await pkg.loadSnapshotStream(chunked(bytes), { checksumWorkerMinBytes: 0 }));
    results[name] = { fetched, streamed, fetchDigests, streamDigests: window.spy.slice(before.length + fetchDigests.length) };
  }
  return results;
}

/**
 * Records every WebCrypto digest the package asks for: a "digest" job
 * posted to a worker, or crypto.subtle.digest on the page's own thread.
 */
function installSpy() {
  window.spy = [];
  if (typeof Worker === "function") {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, transfer) {
      if (message?.type === "digest") window.spy.push({ where: "worker", bytes: message.bytes.byteLength });
      return post.call(this, message, transfer);
    };
  }
  if (globalThis.crypto?.subtle) {
    const digest = SubtleCrypto.prototype.digest;
    SubtleCrypto.prototype.digest = function (algorithm, data) {
      window.spy.push({ where: "page", bytes: data.byteLength });
      return digest.call(this, algorithm, data);
    };
  }
}

describe("snapshot checksum: WebCrypto and streaming wasm agree", { skip }, () => {
  let server;
  let browser;
  let names;
  let probes;
  let expected; // name → { expect, payloadLength }
  const files = {}; // name → bytes

  before(async () => {
    const manifest = JSON.parse(readFileSync(`${VECTORS}manifest.json`, "utf8"));
    const extra = {};
    expected = {};
    const { ArtifactBloomFilter, encodeSnapshot, readSnapshotHeader } = await import("artifact-bloom");
    const payloadOf = (bytes) => {
      const header = readSnapshotHeader(bytes);
      return header.kind === "success" ? header.value.payloadLength : undefined;
    };
    for (const entry of manifest.files) {
      const bytes = readFileSync(`${VECTORS}${entry.file}`);
      extra[`/v/${entry.file}`] = bytes;
      files[entry.file] = bytes;
      expected[entry.file] = { expect: entry.expect, payloadLength: payloadOf(bytes) };
    }
    // A snapshot of 2.4 MB (many fetch chunks) and its corrupted variants.
    const members = Array.from({ length: 1000 }, (_, i) => sha256(`member ${i}`));
    const created = ArtifactBloomFilter.create(members, { expectedItemCount: 2_000_000, targetFalsePositiveRate: 0.01 });
    assert.equal(created.kind, "success");
    const good = Buffer.from(encodeSnapshot(created.value, { catalogVersion: 77 }));
    created.value.free();
    const variant = (name, expect, edit) => {
      const bytes = edit(Buffer.from(good));
      extra[`/v/${name}`] = bytes;
      files[name] = bytes;
      expected[name] = { expect, payloadLength: payloadOf(bytes) };
    };
    variant("large.abf1", "ok", (b) => b);
    variant("large-payload-bit.abf1", "checksumMismatch", (b) => {
      b[96 + 1_000_003] ^= 0x10;
      return b;
    });
    variant("large-catalog-byte.abf1", "checksumMismatch", (b) => {
      b[8] ^= 0x01;
      return b;
    });
    variant("large-checksum-field.abf1", "checksumMismatch", (b) => {
      b[64 + 31] ^= 0x80;
      return b;
    });
    variant("large-short.abf1", "truncated", (b) => b.subarray(0, b.length - 1));
    variant("large-trailing.abf1", "lengthMismatch", (b) => Buffer.concat([b, Buffer.from([0])]));
    names = Object.keys(expected);
    probes = [
      ...members.slice(0, 16),
      ...Array.from({ length: 16 }, (_, i) => sha256(`outsider ${i}`)),
      ...["cat", "dog", "fish", "bird"].map(sha256),
    ].map((d) => Buffer.from(d).toString("hex"));
    server = await startPackageServer(extra);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Loads every file in a fresh context (insecure: the proxied plain-http origin; noWorkers: Worker deleted). */
  async function loadAll({ insecure = false, noWorkers = false } = {}) {
    const context = insecure ? await server.insecureContext(browser) : await browser.newContext();
    try {
      if (noWorkers)
        await context.addInitScript(() => {
          delete globalThis.Worker;
        });
      const page = await context.newPage();
      page.setDefaultTimeout(60_000);
      await page.goto(insecure ? server.insecureUrl : server.url);
      const secure = await page.evaluate(() => ({
        isSecureContext,
        subtle: typeof globalThis.crypto?.subtle,
        worker: typeof Worker,
      }));
      await page.evaluate(installSpy);
      return { secure, results: await page.evaluate(loadInPage, { names, probes }) };
    } finally {
      await context.close();
    }
  }

  test("the three paths give identical results, and WebCrypto digests exactly the covered bytes", {
    timeout: 180_000,
  }, async () => {
    const webCrypto = await loadAll();
    const onThisThread = await loadAll({ noWorkers: true });
    const wasm = await loadAll({ insecure: true });
    assert.deepEqual(webCrypto.secure, { isSecureContext: true, subtle: "object", worker: "function" });
    assert.deepEqual(onThisThread.secure, { isSecureContext: true, subtle: "object", worker: "undefined" });
    assert.deepEqual(
      wasm.secure,
      { isSecureContext: false, subtle: "undefined", worker: "function" },
      "the insecure origin has no WebCrypto",
    );

    const { loadSnapshot } = await import("artifact-bloom");
    for (const name of names) {
      const { expect, payloadLength } = expected[name];
      const got = webCrypto.results[name];
      // The two loaders and the three paths agree with each other…
      assert.deepEqual(got.streamed, got.fetched, `${name}: loadSnapshotStream = fetchSnapshot`);
      assert.deepEqual(onThisThread.results[name].fetched, got.fetched, `${name}: digest on the page's thread`);
      assert.deepEqual(onThisThread.results[name].streamed, got.fetched, `${name}: digest on the page's thread (chunked)`);
      assert.deepEqual(wasm.results[name].fetched, got.fetched, `${name}: streaming wasm (insecure context)`);
      assert.deepEqual(wasm.results[name].streamed, got.fetched, `${name}: streaming wasm (insecure context, chunked)`);
      // …and with the spec's verdict and Node's loader.
      assert.equal(got.fetched.kind === "success" ? "ok" : got.fetched.error, expect, `${name}: the manifest's verdict`);
      const node = loadSnapshot(new Uint8Array(files[name]));
      assert.equal(node.kind === "success" ? "ok" : node.error, expect, `${name}: Node agrees`);
      if (node.kind === "failure") assert.equal(got.fetched.message, node.message, `${name}: the same message as Node's`);
      else node.value.filter.free();

      // WebCrypto ran once per load that reached the checksum step (complete
      // payload), over headerBytes + payloadLength bytes; never otherwise.
      const reachesChecksum = expect === "ok" || expect === "checksumMismatch";
      const once = reachesChecksum ? [{ bytes: 64 + payloadLength }] : [];
      const strip = (list) => list.map(({ bytes }) => ({ bytes }));
      assert.deepEqual(strip(got.fetchDigests), once, `${name}: WebCrypto digests (fetchSnapshot)`);
      assert.deepEqual(strip(got.streamDigests), once, `${name}: WebCrypto digests (loadSnapshotStream)`);
      assert.ok(
        got.fetchDigests.every((d) => d.where === "worker"),
        `${name}: digested in a worker`,
      );
      assert.deepEqual(
        onThisThread.results[name].fetchDigests,
        once.map((d) => ({ where: "page", ...d })),
        `${name}: no workers → this thread`,
      );
      assert.deepEqual(wasm.results[name].fetchDigests, [], `${name}: no WebCrypto in the insecure context`);
    }
  });
});
