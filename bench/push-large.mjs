// Pushing one large layer: `artifact-bloom push` (default: one streamed
// request per blob; and with --chunk-size) against `skopeo copy oci:… docker://…`,
// side by side in one run, to a real registry (Debian's docker-registry, a
// fresh one per run so no contender finds the blob already stored).
// Interleaved runs; wall time (spawn to exit) and peak RSS (the child's
// ru_maxrss through /usr/bin/time, exact). Baselines: an idle Node (`node -e
// ""`), and our CLI pushing an image with a 1 MiB layer (the same code loaded,
// snapshot, wasm, fetch — everything but the blob's size).
//
//   node bench/push-large.mjs [--mib 1024] [--runs 3] [--chunk-mib 8]
//
// Needs the built, linked package (scripts/build.mjs, js-tests/link-package.sh).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { writeLargeLayout } from "../js-tests/helpers/large-layout.mjs";
import { publishFromRegistry } from "../js-tests/helpers/oci-steps.mjs";
import { runCliWithPeak, runWithPeak } from "../js-tests/helpers/peak-rss.mjs";
import { startRegistry } from "../js-tests/helpers/registry.mjs";

const { values } = parseArgs({
  options: {
    mib: { type: "string", default: "1024" },
    runs: { type: "string", default: "3" },
    "chunk-mib": { type: "string", default: "8" },
  },
});
const MIB = 1024 * 1024;
const size = Number(values.mib) * MIB;
const runs = Number(values.runs);
const chunk = Number(values["chunk-mib"]) * MIB;

const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
const dir = await mkdtemp(join(tmpdir(), "artifact-bloom-bench-push-"));
try {
  const started = Date.now();
  const layout = await writeLargeLayout(join(dir, "layout"), { size });
  const small = await writeLargeLayout(join(dir, "small"), { size: MIB, label: "small" });
  console.error(`layouts written in ${((Date.now() - started) / 1000).toFixed(1)} s; layer ${layout.layer.digest}`);

  /** Pushes `layoutDir` with `contender` to a fresh registry → { wallSeconds, peakMiB }. */
  const pushOnce = async (contender, layoutDir) => {
    const registry = await startRegistry("bench-push");
    try {
      let run;
      if (contender.skopeo) {
        run = await runWithPeak(
          "skopeo",
          ["--insecure-policy", "copy", "--dest-tls-verify=false", `oci:${layoutDir}:big`, `docker://${registry.host}/bench:big`],
          {
            env: {
              PATH: process.env.PATH,
              HOME: dir,
              TMPDIR: dir,
              XDG_DATA_HOME: join(dir, "xdg"),
              _CONTAINERS_ROOTLESS_UID: "1000",
            },
          },
        );
      } else {
        const snapshot = join(dir, `empty-${registry.port}.abf1`);
        const published = await publishFromRegistry(registry.url, "bench", snapshot);
        if (published.run.code !== 0) throw new Error(published.run.stderr);
        run = await runCliWithPeak([
          "push",
          layoutDir,
          `${registry.host}/bench:big`,
          "--snapshot",
          snapshot,
          "--plain-http",
          "--json",
          ...contender.args,
        ]);
      }
      if (run.code !== 0) throw new Error(`${contender.name}: exit ${run.code}\n${run.stderr}\n${run.stdout}`);
      return run;
    } finally {
      await registry.stop();
    }
  };

  const contenders = [
    { name: "artifact-bloom push (one request)", args: [] },
    { name: `artifact-bloom push --chunk-size ${chunk / MIB} MiB`, args: ["--chunk-size", String(chunk)] },
    { name: "skopeo copy", skopeo: true },
  ];
  const results = new Map(contenders.map((contender) => [contender.name, { walls: [], peaks: [] }]));
  const nodeIdle = (await runWithPeak(process.execPath, ["-e", ""])).peakMiB;
  const cliSmall = (await pushOnce(contenders[0], small.dir)).peakMiB;
  for (let round = 0; round < runs; round += 1) {
    // Rotate the order each round so no contender always runs first.
    for (let index = 0; index < contenders.length; index += 1) {
      const contender = contenders[(index + round) % contenders.length];
      const run = await pushOnce(contender, layout.dir);
      results.get(contender.name).walls.push(run.wallSeconds);
      results.get(contender.name).peaks.push(run.peakMiB);
      console.error(`round ${round + 1}: ${contender.name}: ${run.wallSeconds.toFixed(2)} s, ${run.peakMiB.toFixed(1)} MiB`);
    }
  }
  const skopeoWall = median(results.get("skopeo copy").walls);
  console.log(`\npush of one ${values.mib} MiB layer, ${runs} interleaved runs each, a fresh docker-registry per run`);
  console.log(`idle Node (node -e ""): ${nodeIdle.toFixed(1)} MiB; our CLI pushing a 1 MiB layer: ${cliSmall.toFixed(1)} MiB\n`);
  console.log("| contender | wall s (median) | wall / skopeo | peak RSS MiB (max) | over idle Node | over CLI 1 MiB push |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const { name, skopeo } of contenders) {
    const { walls, peaks } = results.get(name);
    const wall = median(walls);
    const peak = Math.max(...peaks);
    const overCli = skopeo ? "—" : (peak - cliSmall).toFixed(1);
    console.log(
      `| ${name} | ${wall.toFixed(2)} | ${(wall / skopeoWall).toFixed(2)} | ${peak.toFixed(1)} | ${(peak - nodeIdle).toFixed(1)} | ${overCli} |`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
