// Direct-URL mode on a static host (issue 33 §3): a full download of the
// snapshot already held adopts the host's new validator, and a host that
// sends only Last-Modified is asked with If-Modified-Since (never with the
// ABF1 checksum as If-None-Match, which would make it ignore the date).
// The host is a node:http server on 127.0.0.1 answering like nginx: a weak
// validator from mtime and size, Last-Modified, exact-date 304s.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, SnapshotHolder, encodeSnapshot, fetchSnapshot } from "artifact-bloom";
import { startStaticFileHost } from "./helpers/static-file-host.mjs";

const digestOf = (text) => new Uint8Array(createHash("sha256").update(text, "utf8").digest());
const POLL_MS = 1_000_000;

function snapshotBytes(catalogVersion) {
  const digests = Array.from({ length: 200 }, (_, index) => digestOf(`member:${index}`));
  const created = ArtifactBloomFilter.create(digests, { expectedItemCount: 200, targetFalsePositiveRate: 0.01 });
  assert.equal(created.kind, "success");
  const bytes = encodeSnapshot(created.value, { catalogVersion });
  created.value.free();
  return bytes;
}

/** A static host serving one file as nginx does (js-tests/helpers/static-file-host.mjs). */
async function startStaticHost(file, { etag = true } = {}) {
  const host = await startStaticFileHost(file, { etag, file: true });
  return { ...host, url: `${host.url}/snapshot.abf1` };
}

/** Polling driven by hand: `next()` runs the pending poll and resolves with its outcome. */
function handPolling(holder, url) {
  let pending;
  let settle;
  const timers = {
    setTimeout(callback, ms) {
      if (ms === POLL_MS || ms === 0) pending = callback;
      return { unref() {} };
    },
    clearTimeout() {},
  };
  const controller = new AbortController();
  holder.startPolling(url, {
    intervalMs: POLL_MS,
    timers,
    timeoutMs: Infinity,
    signal: controller.signal,
    onRefresh: (outcome) => settle(outcome),
  });
  return {
    next() {
      assert.equal(typeof pending, "function", "a poll is scheduled");
      const run = pending;
      pending = undefined;
      const outcome = new Promise((resolve) => {
        settle = resolve;
      });
      run();
      return outcome;
    },
    stop: () => controller.abort(),
  };
}

describe("direct URL on a static host", () => {
  let dir;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "direct-url-validators-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a byte-identical republish (new ETag, same bytes) costs one download, then polls are 304 again", async () => {
    const file = join(dir, "republish.abf1");
    writeFileSync(file, snapshotBytes(3));
    utimesSync(file, new Date("2026-01-01T00:00:00Z"), new Date("2026-01-01T00:00:00Z"));
    const host = await startStaticHost(file);
    try {
      const loaded = await fetchSnapshot(host.url);
      assert.equal(loaded.kind, "success");
      const holder = new SnapshotHolder(loaded.value);
      const polling = handPolling(holder, host.url);
      assert.equal((await polling.next()).outcome, "notModified");
      assert.equal(host.requests.at(-1).status, 304);
      // The same bytes published again: nginx's ETag follows the mtime.
      utimesSync(file, new Date("2026-02-01T00:00:00Z"), new Date("2026-02-01T00:00:00Z"));
      const republished = await polling.next();
      assert.equal(republished.replaced, false);
      assert.equal(republished.outcome, "notModified", "the same checksum is no stale snapshot");
      assert.equal(host.requests.at(-1).status, 200);
      for (let poll = 0; poll < 3; poll += 1) {
        assert.equal((await polling.next()).outcome, "notModified");
        assert.equal(host.requests.at(-1).status, 304, `poll ${poll} after the republish is conditional on the new ETag`);
      }
      assert.equal(holder.staleCount, 0);
      polling.stop();
    } finally {
      host.close();
    }
  });

  test("a host sending only Last-Modified is asked with If-Modified-Since, not the checksum as If-None-Match", async () => {
    const file = join(dir, "etag-off.abf1");
    writeFileSync(file, snapshotBytes(4));
    utimesSync(file, new Date("2026-03-01T00:00:00Z"), new Date("2026-03-01T00:00:00Z"));
    const host = await startStaticHost(file, { etag: false });
    try {
      const loaded = await fetchSnapshot(host.url);
      assert.equal(loaded.kind, "success");
      const holder = new SnapshotHolder(loaded.value);
      const polling = handPolling(holder, host.url);
      for (let poll = 0; poll < 2; poll += 1) {
        assert.equal((await polling.next()).outcome, "notModified");
        const sent = host.requests.at(-1);
        assert.equal(sent.ifNoneMatch, undefined);
        assert.equal(sent.ifModifiedSince, "Sun, 01 Mar 2026 00:00:00 GMT");
        assert.equal(sent.status, 304);
      }
      polling.stop();
      const direct = await fetchSnapshot(host.url, { lastModified: "Sun, 01 Mar 2026 00:00:00 GMT" });
      assert.equal(direct.kind, "failure");
      assert.equal(direct.error, "notModified");
      assert.match(direct.message, /Last-Modified Sun, 01 Mar 2026/);
      await assert.rejects(async () => fetchSnapshot(host.url, { lastModified: "yesterday-ish" }), TypeError);
      loaded.value.filter.free();
    } finally {
      host.close();
    }
  });
});
