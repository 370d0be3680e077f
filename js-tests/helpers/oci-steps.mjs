// The steps the registry tests and the demo repeat, through the real
// `artifact-bloom` binary: publish a repository's snapshot, push a layout,
// and look at the registry directly (not through the code under test).
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { publishSizing, runCli, tempDir } from "./cli.mjs";
import { sharedBaseImages } from "./oci-layout.mjs";
import { startProxy } from "./registry-proxy.mjs";
import { startRegistry } from "./registry.mjs";

/**
 * `publish --from-registry` → { run, summary } (summary parsed from --json).
 * Passes --allow-empty: the tests snapshot repositories before their first
 * push, and an empty repository's snapshot is a real answer there (publish
 * refuses empty input by default to protect a live snapshot).
 */
export async function publishFromRegistry(
  registryUrl,
  repository,
  out,
  { version = 1, expected = 10_000, fpp = 0.01, extra = [], env } = {},
) {
  const run = await runCli(
    [
      "publish",
      ...publishSizing(version, expected, fpp),
      "--out",
      out,
      "--from-registry",
      registryUrl,
      ...(repository === undefined ? [] : ["--repository", repository]),
      "--json",
      "--allow-empty",
      ...extra,
    ],
    { env, timeoutMs: 120_000 },
  );
  return { run, summary: run.code === 0 ? JSON.parse(run.stdout) : undefined };
}

/** `publish --input` of hex digests (a hand-made snapshot). */
export async function publishDigests(hexes, out, { version = 1, expected = 10_000, fpp = 0.01 } = {}) {
  const list = `${out}.txt`;
  await writeFile(list, hexes.map((hex) => `${hex}\n`).join(""));
  const run = await runCli(["publish", ...publishSizing(version, expected, fpp), "--out", out, "--input", list]);
  if (run.code !== 0) throw new Error(`publish --input failed: ${run.stderr}`);
  return out;
}

/**
 * `push LAYOUT REF --snapshot S --plain-http --json` → { run, summary }.
 * The summary is parsed whenever stdout is JSON (also on exit 1).
 */
export async function pushLayout(layoutDir, reference, snapshot, { extra = [], env, input } = {}) {
  const run = await runCli(["push", layoutDir, reference, "--snapshot", snapshot, "--plain-http", "--json", ...extra], {
    env,
    input,
    timeoutMs: 120_000,
  });
  let summary;
  try {
    summary = JSON.parse(run.stdout);
  } catch {
    summary = undefined;
  }
  return { run, summary };
}

/** The registry's own answer to HEAD blob (bypassing the package). */
export async function blobStatus(registryUrl, repository, digest) {
  const response = await fetch(`${registryUrl}/v2/${repository}/blobs/${digest}`, { method: "HEAD" });
  return response.status;
}

/** The registry's own answer to GET manifest → { status, bytes }. */
export async function getManifest(
  registryUrl,
  repository,
  reference,
  accept = [
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
  ],
) {
  const response = await fetch(`${registryUrl}/v2/${repository}/manifests/${reference}`, {
    headers: { accept: accept.join(", ") },
  });
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
}

/** PUTs manifest bytes under a reference directly (tags beyond the CLI's one). */
export async function putManifestDirect(registryUrl, repository, reference, descriptor, bytes) {
  const response = await fetch(`${registryUrl}/v2/${repository}/manifests/${reference}`, {
    method: "PUT",
    headers: { "content-type": descriptor.mediaType },
    body: bytes,
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`PUT manifest ${reference} answered ${response.status}`);
}

/** "sha256:<hex>" → "<hex>". */
export const hexOf = (digest) => digest.replace(/^sha256:/, "");

/** Uploads bytes as a blob directly (POST + PUT ?digest=), bypassing the package. */
export async function uploadBlobDirect(registryUrl, repository, digest, bytes) {
  const started = await fetch(`${registryUrl}/v2/${repository}/blobs/uploads/`, { method: "POST" });
  await started.arrayBuffer();
  if (started.status !== 202) throw new Error(`POST upload answered ${started.status}`);
  const location = new URL(started.headers.get("location"), registryUrl);
  location.searchParams.set("digest", digest);
  const done = await fetch(location, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: bytes });
  await done.arrayBuffer();
  if (done.status !== 201) throw new Error(`PUT upload answered ${done.status}`);
}

/**
 * Pushes the layout as `repository:a` into an empty repository, the way a
 * first push really happens: against the snapshot of that empty repository
 * (written to `emptySnapshot`), so every blob is uploaded.
 */
export async function pushFirstImage(registry, layoutDir, repository, emptySnapshot) {
  assert.equal((await publishFromRegistry(registry.url, repository, emptySnapshot)).run.code, 0);
  const { run } = await pushLayout(layoutDir, `${registry.host}/${repository}:a`, emptySnapshot);
  assert.equal(run.code, 0, run.stderr);
}

/**
 * Proxies (auth, faults) in front of the suite's registry: `start(options)`
 * as in startProxy, and `stopAll()` for the suite's after().
 * @param {() => string} upstream the registry URL (known once before() ran)
 */
export function proxyPool(upstream) {
  const started = [];
  return {
    async start(options) {
      const proxy = await startProxy(upstream(), options);
      started.push(proxy);
      return proxy;
    },
    async stopAll() {
      for (const proxy of started.splice(0)) await proxy.stop();
    },
  };
}

/**
 * A suite's starting state: a registry whose repository "seed" holds image
 * A of `sharedBaseImages(imageOptions)`, the layout (A and B) written in a
 * temp dir, and `snapshotA`, the snapshot of "seed" after that push.
 * → { registry, dir, images, layout, snapshotA }.
 */
export async function seededRegistry(label, imageOptions) {
  const registry = await startRegistry(label);
  const dir = await tempDir(label);
  const images = sharedBaseImages(imageOptions);
  const layout = await images.builder.write(join(dir.path, "layout"));
  await pushFirstImage(registry, layout, "seed", join(dir.path, "empty.abf1"));
  const snapshotA = join(dir.path, "a.abf1");
  assert.equal((await publishFromRegistry(registry.url, "seed", snapshotA)).run.code, 0);
  return { registry, dir, images, layout, snapshotA };
}
