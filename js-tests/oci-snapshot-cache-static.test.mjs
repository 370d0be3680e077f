// push --snapshot URL --snapshot-cache FILE on a static host (issue 33 §2):
// the cache keeps the host's validator beside the snapshot
// (FILE.validator.json), so the next push is one conditional GET answered
// 304 — by ETag on an nginx-like host, by Last-Modified on one that sends
// no ETag — and a byte-identical republish (new mtime, same bytes) rewrites
// only the validator. The layout's manifest.json works the same way. A
// validator for another URL, or a malformed one, is ignored.
// Hosts: docker-registry and an in-process static file host on 127.0.0.1.
import assert from "node:assert/strict";
import { copyFile, readFile, rename, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { tempDir } from "./helpers/cli.mjs";
import { sharedBaseImages } from "./helpers/oci-layout.mjs";
import { publishFromRegistry, pushFirstImage, pushLayout } from "./helpers/oci-steps.mjs";
import { startRegistry } from "./helpers/registry.mjs";
import { startStaticFileHost } from "./helpers/static-file-host.mjs";

let registry;
let dir;
let layout;
const hosts = [];

before(async () => {
  registry = await startRegistry("oci-cache-static");
  dir = await tempDir("oci-cache-static");
  const images = sharedBaseImages({ freshSizes: [4096, 5000], label: "cache-static" });
  layout = await images.builder.write(join(dir.path, "layout"));
  await pushFirstImage(registry, layout, "cached", join(dir.path, "empty.abf1"));
  const www = join(dir.path, "www");
  const published = await publishFromRegistry(registry.url, "cached", join(www, "catalog.abf1"), {
    extra: ["--layout", join(www, "layout")],
  });
  assert.equal(published.run.code, 0, published.run.stderr);
  // mtimes well in the past: the host's Last-Modified is then a strong validator.
  for (const name of ["catalog.abf1", "layout/manifest.json"]) await ageFile(join(www, name), 3600);
});
after(async () => {
  for (const host of hosts) await host.close();
  await registry?.stop();
  await dir?.remove();
});

/** Sets a file's mtime `seconds` in the past. */
async function ageFile(path, seconds) {
  const when = Date.now() / 1000 - seconds;
  await utimes(path, when, when);
}

/**
 * Rewrites a file with its own bytes (a redeploy): same content, an mtime
 * whole seconds after the previous one (Last-Modified has one-second
 * resolution, and two tests republish the same file: "60 s before now" twice
 * within one second gave the same validator, failed once in CI), still well in
 * the past so the host's Last-Modified stays a strong validator.
 */
async function republish(path) {
  const previous = Math.floor((await stat(path)).mtimeMs / 1000);
  await copyFile(path, `${path}.copy`);
  await rename(`${path}.copy`, path);
  const when = Math.min(previous + 5, Math.floor(Date.now() / 1000) - 30);
  assert.ok(when > previous, "the republished mtime moves forward by whole seconds");
  await utimes(path, when, when);
}

async function host(options) {
  const started = await startStaticFileHost(join(dir.path, "www"), options);
  hosts.push(started);
  return started;
}

const push = (url, cache, tag) =>
  pushLayout(`${layout}:b`, `${registry.host}/cached:${tag}`, url, { extra: ["--snapshot-cache", cache] });

/** What the host answered for `path` since request index `from`. */
const answers = (server, path, from) =>
  server.requests
    .slice(from)
    .filter((request) => request.path === path)
    .map((request) => request.status);

describe("push --snapshot-cache on a static host", () => {
  for (const [mode, options, validator] of [
    ["ETag", {}, "etag"],
    ["Last-Modified only", { etag: false }, "lastModified"],
  ]) {
    test(`${mode}: the second push revalidates (304), a republish rewrites only the validator`, async () => {
      const server = await host(options);
      const url = `${server.url}/catalog.abf1`;
      const cache = join(dir.path, `cache-${validator}.abf1`);
      const first = await push(url, cache, `${validator}-1`);
      assert.equal(first.run.code, 0, first.run.stderr);
      assert.equal(first.summary.snapshotTransfer.from, "full");
      const kept = JSON.parse(await readFile(`${cache}.validator.json`, "utf8"));
      assert.equal(kept.url, url);
      assert.equal(typeof kept[validator], "string", JSON.stringify(kept));

      let from = server.requests.length;
      const second = await push(url, cache, `${validator}-2`);
      assert.equal(second.run.code, 0, second.run.stderr);
      assert.equal(second.summary.snapshotTransfer.from, "cache");
      assert.deepEqual(answers(server, "/catalog.abf1", from), [304], "one conditional GET, no body");

      await republish(join(dir.path, "www", "catalog.abf1"));
      const cachedBefore = await stat(cache);
      from = server.requests.length;
      const third = await push(url, cache, `${validator}-3`);
      assert.equal(third.run.code, 0, third.run.stderr);
      assert.deepEqual(answers(server, "/catalog.abf1", from), [200], "the new validator costs one download");
      assert.equal((await stat(cache)).mtimeMs, cachedBefore.mtimeMs, "the same snapshot: the cache file is not rewritten");
      from = server.requests.length;
      const fourth = await push(url, cache, `${validator}-4`);
      assert.equal(fourth.run.code, 0, fourth.run.stderr);
      assert.deepEqual(answers(server, "/catalog.abf1", from), [304], "then 304 again");
    });
  }

  test("the layout's manifest: the second push is one 304 of the manifest", async () => {
    const server = await host({});
    const url = `${server.url}/layout/manifest.json`;
    const cache = join(dir.path, "cache-layout.abf1");
    const first = await push(url, cache, "layout-1");
    assert.equal(first.run.code, 0, first.run.stderr);
    const from = server.requests.length;
    const second = await push(url, cache, "layout-2");
    assert.equal(second.run.code, 0, second.run.stderr);
    assert.equal(second.summary.snapshotTransfer.from, "cache");
    assert.deepEqual(
      // (push also asks for the snapshot's key-set sidecar, URL + ".meta.json": a layout has none, a 404 push reads as "unknown".)
      server.requests
        .slice(from)
        .filter((request) => request.path.startsWith("/layout/") && !request.path.endsWith(".meta.json"))
        .map((r) => [r.path, r.status]),
      [["/layout/manifest.json", 304]],
    );
  });

  test("a validator for another URL or a malformed one is ignored: a full download, no failure", async () => {
    const server = await host({});
    const url = `${server.url}/catalog.abf1`;
    const cache = join(dir.path, "cache-other.abf1");
    assert.equal((await push(url, cache, "other-1")).run.code, 0);
    for (const content of ['{"url":"http://127.0.0.1:1/elsewhere","checksum":"x","etag":"\\"a\\""}', "{not json"]) {
      await writeFile(`${cache}.validator.json`, content);
      const from = server.requests.length;
      const again = await push(url, cache, "other-2");
      assert.equal(again.run.code, 0, again.run.stderr);
      assert.deepEqual(answers(server, "/catalog.abf1", from), [200]);
    }
  });
});
