// push never reports as pushed what the registry does not have (issue 21,
// D8): a 201 that names no Docker-Content-Digest is checked by one read-back
// by digest (HEAD of a blob, GET of a manifest), counted in the summary as
// readBacks; nothing there is notStored, exit 3, no tag. The "registry" is
// a proxy in front of the real one that answers 201 itself (nothing stored).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { tempDir } from "./helpers/cli.mjs";
import { sharedBaseImages } from "./helpers/oci-layout.mjs";
import { blobStatus, getManifest, proxyPool, publishFromRegistry, pushLayout } from "./helpers/oci-steps.mjs";
import { startRegistry } from "./helpers/registry.mjs";

let registry;
let dir;
let layout;
let empty;
const proxies = proxyPool(() => registry.url);

before(async () => {
  registry = await startRegistry("oci-commit");
  dir = await tempDir("oci-commit");
  layout = await sharedBaseImages({ label: "commit" }).builder.write(join(dir.path, "layout"));
  empty = join(dir.path, "empty.abf1");
  assert.equal((await publishFromRegistry(registry.url, "nothing", empty)).run.code, 0);
});
after(async () => {
  await proxies.stopAll();
  await registry?.stop();
  await dir?.remove();
});

test("a blob PUT answered 201 without Docker-Content-Digest and not stored: notStored, not reported uploaded", async () => {
  const faking = await proxies.start({
    fault: (req) => (req.method === "PUT" && req.url.includes("/blobs/uploads/") ? { status: 201 } : undefined),
  });
  const { run, summary } = await pushLayout(layout, `${faking.host}/fake-blob:b`, empty, { extra: ["--concurrency", "1"] });
  assert.equal(run.code, 3, run.stderr);
  assert.equal(summary.error.code, "notStored", summary.error.message);
  assert.deepEqual(summary.uploadedDigests, []);
  assert.equal(summary.uploaded, 0);
  assert.equal(summary.tagged, false);
});

test("a manifest PUT answered 201 without Docker-Content-Digest and not stored: notStored, exit 3, not tagged", async () => {
  const faking = await proxies.start({
    fault: (req) => (req.method === "PUT" && req.url.includes("/manifests/") ? { status: 201 } : undefined),
  });
  const { run, summary } = await pushLayout(layout, `${faking.host}/fake-manifest:b`, empty);
  assert.equal(run.code, 3, run.stderr);
  assert.equal(summary.error.code, "notStored", summary.error.message);
  assert.equal(summary.tagged, false);
  assert.equal(summary.manifests, 0);
  for (const digest of summary.uploadedDigests) assert.equal(await blobStatus(registry.url, "fake-manifest", digest), 200);
  assert.equal((await getManifest(registry.url, "fake-manifest", "b")).status, 404);
});

test("a registry that names the digest gets no read-back (readBacks 0)", async () => {
  const { run, summary } = await pushLayout(layout, `${registry.host}/honest:b`, empty);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(summary.readBacks, 0);
});
