#!/usr/bin/env node
// Requests a push costs, ours against skopeo's, on real images and the real
// registry: `umoci` builds image A (5 layers from real file trees), B (A's
// layers plus 2 new ones) and a two-platform index C (B and an "arm64"
// image D with one more layer) in one OCI layout; Debian's docker-registry
// (access log on) receives them twice, in two repositories:
//
//   ours    push A (snapshot of the empty repository), publish, push B with
//           the new snapshot, publish, push C
//   skopeo  copy A, copy B, copy --all C (a fresh blob-info cache each time)
//
// and the table counts, from the access log, each push's blob HEADs and
// requests of every kind. Both repositories must end with the same
// reachable digests (read from the registry's storage directory).
//
// Needs: docker-registry, skopeo, umoci (Debian), the built package (pkg/).
// Usage: node bench/registry-requests.mjs
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reachableInStorage, requestTable, runSkopeo, startRegistry } from "../js-tests/helpers/registry.mjs";
import { publishFromRegistry, pushLayout } from "../js-tests/helpers/oci-steps.mjs";

/** Real file trees for the layers; the ones this machine lacks are skipped. */
const TREES = [
  "/usr/share/zoneinfo",
  "/usr/share/perl5",
  "/usr/share/mime",
  "/usr/share/X11",
  "/usr/share/i18n",
  "/usr/lib/python3",
  "/usr/share/man/man1",
  "/usr/share/doc",
].filter((tree) => existsSync(tree));
assert.ok(TREES.length >= 8, `need 8 file trees for the layers, found ${TREES.length}`);

const umoci = (...args) => execFileSync("umoci", args, { stdio: ["ignore", "ignore", "inherit"], timeout: 300_000 });

/** Adds a layer holding `tree` (under /data) to LAYOUT:TAG. */
const addLayer = (layout, tag, tree) => umoci("insert", "--image", `${layout}:${tag}`, tree, `/data${tree}`);

/** The manifest descriptor index.json names `tag`. */
function descriptorOf(layout, tag) {
  const index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8"));
  const found = index.manifests.find((entry) => entry.annotations?.["org.opencontainers.image.ref.name"] === tag);
  assert.ok(found, `layout has no ${tag}`);
  return found;
}

/** Writes an image index over B (amd64) and D (arm64) as the layout's entry `c`. */
function addIndex(layout) {
  const platforms = { b: { architecture: "amd64", os: "linux" }, d: { architecture: "arm64", os: "linux" } };
  const manifests = Object.entries(platforms).map(([tag, platform]) => {
    const { mediaType, digest, size } = descriptorOf(layout, tag);
    return { mediaType, digest, size, platform };
  });
  const bytes = Buffer.from(
    JSON.stringify({ schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json", manifests }),
  );
  const hex = createHash("sha256").update(bytes).digest("hex");
  writeFileSync(join(layout, "blobs", "sha256", hex), bytes);
  const index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8"));
  index.manifests.push({
    mediaType: "application/vnd.oci.image.index.v1+json",
    digest: `sha256:${hex}`,
    size: bytes.length,
    annotations: { "org.opencontainers.image.ref.name": "c" },
  });
  writeFileSync(join(layout, "index.json"), JSON.stringify(index));
}

function buildLayout(dir) {
  const layout = join(dir, "layout");
  umoci("init", "--layout", layout);
  umoci("new", "--image", `${layout}:a`);
  for (const tree of TREES.slice(0, 5)) addLayer(layout, "a", tree);
  umoci("tag", "--image", `${layout}:a`, "b");
  for (const tree of TREES.slice(5, 7)) addLayer(layout, "b", tree);
  umoci("tag", "--image", `${layout}:b`, "d");
  umoci("config", "--image", `${layout}:d`, "--architecture", "arm64");
  addLayer(layout, "d", TREES[7]);
  umoci("gc", "--layout", layout);
  addIndex(layout);
  return layout;
}

/** HEAD blob count and total requests of a log slice, plus the by-kind table. */
function summarize(entries) {
  const table = requestTable(entries);
  const total = Object.values(table).reduce((sum, count) => sum + count, 0);
  return { heads: table["HEAD blob"] ?? 0, total, table };
}

async function oursPushes(registry, layout, dir) {
  const rows = {};
  let version = 1;
  for (const tag of ["a", "b", "c"]) {
    const snapshot = join(dir, `ours-${tag}.abf1`);
    const published = await publishFromRegistry(registry.url, "ours", snapshot, { version: version++ });
    assert.equal(published.run.code, 0, published.run.stderr);
    await registry.settle();
    const mark = registry.mark();
    const pushed = await pushLayout(layout, `${registry.host}/ours:${tag}`, snapshot);
    assert.equal(pushed.run.code, 0, pushed.run.stderr);
    await registry.settle();
    rows[tag] = { ...summarize(registry.since(mark)), falsePositives: pushed.summary?.falsePositives };
  }
  return rows;
}

async function skopeoPushes(registry, layout) {
  const rows = {};
  for (const tag of ["a", "b", "c"]) {
    await registry.settle();
    const mark = registry.mark();
    const all = tag === "c" ? ["--all"] : [];
    const copied = await runSkopeo([
      "copy",
      ...all,
      "--dest-tls-verify=false",
      `oci:${layout}:${tag}`,
      `docker://${registry.host}/theirs:${tag}`,
    ]);
    assert.equal(copied.code, 0, copied.stderr);
    await registry.settle();
    rows[tag] = summarize(registry.since(mark));
  }
  return rows;
}

const dir = mkdtempSync(join(tmpdir(), "artifact-bloom-requests-"));
const registry = await startRegistry("requests");
try {
  const layout = buildLayout(dir);
  const ours = await oursPushes(registry, layout, dir);
  const theirs = await skopeoPushes(registry, layout);
  const [mine, skopeo] = await Promise.all([
    reachableInStorage(registry.storage, "ours"),
    reachableInStorage(registry.storage, "theirs"),
  ]);
  assert.deepEqual([...mine].sort(), [...skopeo].sort(), "both repositories hold the same digests");

  console.log(`layers from: ${TREES.join(", ")}; ${mine.size} digests reachable in each repository\n`);
  console.log("| push | blob HEADs: ours | skopeo | requests: ours | skopeo | ratio | false positives |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const tag of ["a", "b", "c"]) {
    const label = { a: "A into an empty repository", b: "B over A", c: "index C (B + arm64 D) over B" }[tag];
    const ratio = (ours[tag].total / theirs[tag].total).toFixed(2);
    console.log(
      `| ${label} | ${ours[tag].heads} | ${theirs[tag].heads} | ${ours[tag].total} | ${theirs[tag].total} | ${ratio}× | ${ours[tag].falsePositives} |`,
    );
  }
  console.log("\nrequests by kind (ours / skopeo):");
  for (const tag of ["a", "b", "c"])
    console.log(`  ${tag}: ${JSON.stringify(ours[tag].table)} / ${JSON.stringify(theirs[tag].table)}`);
} finally {
  await registry.stop();
  rmSync(dir, { recursive: true, force: true });
}
