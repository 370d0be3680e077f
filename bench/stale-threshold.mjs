#!/usr/bin/env node
// What should `push --verify-absent-above` default to? A "definitely absent"
// blob above the threshold costs one extra HEAD when the snapshot is right
// (the blob really is absent), and saves its whole upload when the snapshot
// is stale (the blob was pushed since). This measures both on the real
// Debian docker-registry (127.0.0.1, port 0, filesystem storage in a temp
// dir), through the CLI's own RegistryClient and uploadBlob (monolithic PUT up
// to --chunk-size 8 MiB, PATCH chunks above, hashing included):
//   - one blob HEAD (200 and 404), median of HEADS requests on one connection;
//   - uploading fresh blobs of each SIZE (median of RUNS, each a new blob);
//   - the ratio: the HEAD as a share of that upload, and the break-even size
//     (HEAD time × upload rate): the blob size whose upload costs one HEAD.
//
// Usage: node bench/stale-threshold.mjs   (needs pkg/: node scripts/build.mjs)
// Prints a markdown table.
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRegistry } from "../js-tests/helpers/registry.mjs";
import { median, nowNs } from "./util.mjs";

const PKG = new URL("../pkg/", import.meta.url);
if (!existsSync(new URL("cli/registry/oci-upload.mjs", PKG))) {
  console.error("bench/stale-threshold.mjs: pkg/ is not built; run: node scripts/build.mjs");
  process.exit(2);
}
const { RegistryClient } = await import(new URL("lib/repositories/oci-client.js", PKG));
const { uploadBlob } = await import(new URL("cli/registry/oci-upload.mjs", PKG));

const MIB = 1024 * 1024;
const SIZES = [256 * 1024, MIB, 4 * MIB, 16 * MIB, 64 * MIB];
const RUNS = 3;
const HEADS = 200;
const CHUNK = 8 * MIB;

const registry = await startRegistry("stale-threshold");
const dir = await mkdtemp(join(tmpdir(), "artifact-bloom-stale-threshold-"));
try {
  const client = new RegistryClient(registry.url, "bench/stale");
  const fresh = async (size) => {
    const bytes = randomBytes(size);
    const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    const path = join(dir, digest.slice(7));
    await writeFile(path, bytes);
    return { path, descriptor: { digest, size } };
  };
  // A blob to HEAD (200) and a digest nobody pushed (404).
  const present = await fresh(4096);
  await uploadBlob(client, present.path, present.descriptor, { chunkSize: CHUNK });
  const missing = `sha256:${createHash("sha256").update("never pushed").digest("hex")}`;
  const headMs = async (digest) => {
    const times = [];
    for (let index = 0; index < HEADS; index += 1) {
      const started = nowNs();
      await client.send("HEAD", `blobs/${digest}`);
      times.push((nowNs() - started) / 1e6);
    }
    return median(times);
  };
  await headMs(missing); // warm the connection
  const head200 = await headMs(present.descriptor.digest);
  const head404 = await headMs(missing);
  const head = Math.max(head200, head404);

  const rows = [];
  for (const size of SIZES) {
    const times = [];
    for (let run = 0; run < RUNS; run += 1) {
      const blob = await fresh(size);
      const started = nowNs();
      await uploadBlob(client, blob.path, blob.descriptor, { chunkSize: CHUNK });
      times.push((nowNs() - started) / 1e6);
      await rm(blob.path);
    }
    const uploadMs = median(times);
    const mbPerS = size / 1e6 / (uploadMs / 1000);
    rows.push({ size, uploadMs, mbPerS, share: head / uploadMs, breakEvenMB: (head / 1000) * mbPerS });
  }
  console.log(
    `HEAD blob (median of ${HEADS}, one keep-alive connection): 200 ${head200.toFixed(3)} ms, 404 ${head404.toFixed(3)} ms\n`,
  );
  console.log("| blob size | upload (median of 3) | upload rate | one HEAD / upload | break-even size (HEAD × rate) |");
  console.log("|---:|---:|---:|---:|---:|");
  for (const row of rows) {
    console.log(
      `| ${(row.size / MIB).toFixed(2)} MiB | ${row.uploadMs.toFixed(1)} ms | ${row.mbPerS.toFixed(0)} MB/s`
        + ` | ${(row.share * 100).toFixed(2)} % | ${(row.breakEvenMB * 1000).toFixed(0)} kB |`,
    );
  }
  console.log("\nA HEAD above the threshold is wasted when the snapshot is right; the table's share is that waste.");
} finally {
  await registry.stop();
  await rm(dir, { recursive: true, force: true });
}
