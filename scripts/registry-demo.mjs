#!/usr/bin/env node
// The precheck-before-push loop against a real OCI registry, measured beside
// skopeo. Two fresh registries (Debian's docker-registry on 127.0.0.1,
// storage in temp dirs, access logs on):
//
//   ours:   push image A (empty repository's snapshot) → publish the
//           repository's snapshot from the registry → push image B with it
//   skopeo: skopeo copy A → skopeo copy B (own blob-info cache and tmp dir)
//
// B shares A's 6 layers and adds 3 layers and its config. The table counts
// the requests each registry's access log shows for the push of B.
//
// Needs docker-registry and skopeo (bash scripts/setup.sh --registry) and the
// built, linked package; scripts/registry-demo.sh does all of that first.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { CLI, tempDir } from "../js-tests/helpers/cli.mjs";
import { OciLayoutBuilder, sharedBaseImages } from "../js-tests/helpers/oci-layout.mjs";
import { publishFromRegistry, pushLayout, putManifestDirect, uploadBlobDirect } from "../js-tests/helpers/oci-steps.mjs";
import { requestTable, runSkopeo, startRegistry } from "../js-tests/helpers/registry.mjs";

const KIB = 1024;
const MORE_TAGS = 200; // for the snapshot build time at a larger scale
const ROWS = ["HEAD blob", "POST upload", "PATCH upload", "PUT upload", "PUT manifest", "GET manifest", "GET tags", "GET base"];

if (!existsSync(CLI)) {
  process.stderr.write(`registry-demo: ${CLI} is missing; run: node scripts/build.mjs && bash js-tests/link-package.sh\n`);
  process.exit(2);
}

function fail(what, run) {
  process.stderr.write(`registry-demo: ${what} failed (exit ${run.code})\n${run.stderr}\n`);
  process.exit(1);
}

const total = (table) => Object.values(table).reduce((sum, count) => sum + count, 0);

async function ours(layout, dir, images) {
  const registry = await startRegistry("demo-ours");
  try {
    const empty = join(dir, "empty.abf1");
    const first = await publishFromRegistry(registry.url, "demo", empty, { version: 1 });
    if (first.run.code !== 0) fail("publish (empty repository)", first.run);
    await registry.settle();
    const markA = registry.mark();
    const pushA = await pushLayout(layout, `${registry.host}/demo:a`, empty);
    if (pushA.run.code !== 0) fail("push A", pushA.run);
    await registry.settle();
    const tableA = requestTable(registry.since(markA));

    const snapshot = join(dir, "demo.abf1");
    const started = performance.now();
    const published = await publishFromRegistry(registry.url, "demo", snapshot, { version: 2, expected: 10_000, fpp: 0.001 });
    const wallMs = performance.now() - started;
    if (published.run.code !== 0) fail("publish --from-registry", published.run);

    await registry.settle();
    const markB = registry.mark();
    const pushB = await pushLayout(layout, `${registry.host}/demo:b`, snapshot);
    if (pushB.run.code !== 0) fail("push B", pushB.run);
    await registry.settle();
    const tableB = requestTable(registry.since(markB));

    // Scale: MORE_TAGS more images (each its own config over A's layers), then time the snapshot again.
    for (let index = 0; index < MORE_TAGS; index += 1) {
      const builder = new OciLayoutBuilder();
      const manifest = builder.image({ layers: images.base, label: `scale-${index}` });
      const config = JSON.parse(new TextDecoder().decode(builder.bytes(manifest.digest))).config;
      await uploadBlobDirect(registry.url, "demo", config.digest, builder.bytes(config.digest));
      await putManifestDirect(registry.url, "demo", `scale-${index}`, manifest, builder.bytes(manifest.digest));
    }
    const scaleStarted = performance.now();
    const scaled = await publishFromRegistry(registry.url, "demo", join(dir, "scaled.abf1"), {
      version: 3,
      expected: 10_000,
      fpp: 0.001,
    });
    const scaleWallMs = performance.now() - scaleStarted;
    if (scaled.run.code !== 0) fail("publish --from-registry (scaled)", scaled.run);
    return { tableA, tableB, summary: pushB.summary, published: published.summary, wallMs, scaled: scaled.summary, scaleWallMs };
  } finally {
    await registry.stop();
  }
}

async function skopeo(layout) {
  const registry = await startRegistry("demo-skopeo");
  try {
    const copy = async (tag) => {
      await registry.settle();
      const mark = registry.mark();
      const run = await runSkopeo([
        "copy",
        "--quiet",
        "--dest-tls-verify=false",
        `oci:${layout}:${tag}`,
        `docker://${registry.host}/demo:${tag}`,
      ]);
      if (run.code !== 0) fail(`skopeo copy ${tag}`, run);
      await registry.settle();
      return requestTable(registry.since(mark));
    };
    return { tableA: await copy("a"), tableB: await copy("b") };
  } finally {
    await registry.stop();
  }
}

function printTable(title, left, right) {
  const lines = [`| ${title} | artifact-bloom push --snapshot | skopeo copy |`, "|---|---:|---:|"];
  for (const row of ROWS) {
    if ((left[row] ?? 0) === 0 && (right[row] ?? 0) === 0) continue;
    lines.push(`| ${row} | ${left[row] ?? 0} | ${right[row] ?? 0} |`);
  }
  lines.push(`| **all requests** | **${total(left)}** | **${total(right)}** |`);
  process.stdout.write(`${lines.join("\n")}\n\n`);
}

const dir = await tempDir("registry-demo");
try {
  // Layer content sizes: base layers 4 KiB each, new ones 1 MiB, 64 KiB, 4 KiB.
  const images = sharedBaseImages({ freshSizes: [1024 * KIB, 64 * KIB, 4 * KIB], label: "registry-demo" });
  const layout = await images.builder.write(join(dir.path, "layout"));
  const mine = await ours(layout, dir.path, images);
  const theirs = await skopeo(layout);
  const s = mine.summary;
  process.stdout.write(
    `Image B: ${s.blobs} blobs (${images.base.length} layers shared with A, ${images.fresh.length} new layers + its config), `
      + "Debian's docker-registry on 127.0.0.1; requests counted in each registry's access log.\n\n",
  );
  printTable("push of A into an empty repository", mine.tableA, theirs.tableA);
  printTable("push of B (A already in the repository)", mine.tableB, theirs.tableB);
  const r = mine.published.registry;
  process.stdout.write(
    `Our push of B: ${s.headsSkipped} blobs definitely absent (no HEAD), ${s.headRequests} HEADs `
      + `(${s.alreadyPresent} already present, ${s.falsePositives} false positives), ${s.uploaded} uploaded (${s.uploadedBytes} bytes).\n`
      + `Snapshot of the repository: ${r.tags} tags, ${r.manifests} manifests → ${mine.published.insertedItemCount} digests `
      + `in ${r.milliseconds.toFixed(0)} ms of enumeration (${r.requests.get} GETs); the whole publish command took ${mine.wallMs.toFixed(0)} ms `
      + `(${mine.published.bytes} bytes, fpp ${mine.published.targetFalsePositiveRate}).\n`,
  );
  const big = mine.scaled.registry;
  process.stdout.write(
    `With ${MORE_TAGS} more tagged images: ${big.tags} tags, ${big.manifests} manifests → ${mine.scaled.insertedItemCount} digests `
      + `in ${big.milliseconds.toFixed(0)} ms of enumeration (${big.requests.get} GETs, 8 in flight); whole publish ${mine.scaleWallMs.toFixed(0)} ms.\n`,
  );
} finally {
  await dir.remove();
}
