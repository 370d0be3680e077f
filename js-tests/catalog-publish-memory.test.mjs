// publishCatalog's memory bound (issue 34 §3), in the library without the
// CLI: 2M unsorted digests in a child process, whose peak RSS (VmHWM, the
// kernel's high-water mark, so no short peak is missed) must stay within
//
//   baseline + filter bytes + 256 MiB
//
// where the baseline is the same child's VmHWM with the package loaded and
// both wasm modules instantiated, before the catalog. Why 256 MiB: the
// external sort holds two run buffers (2 × 32 MiB by default), the merge
// 16 MiB of read buffers, the chunks 2 × 1 MiB; the filter is counted about
// four times over by the finish and the publish (the bit array, the ABF1
// file in JS, the snapshot publishToLayout loads again, its checksum) — at
// 2M digests and p = 0.001 that is ≈ 4 × 3.6 MiB — and the rest is room for
// garbage not yet collected. What it rules out is memory that grows with
// the catalog: 2M digests alone are 61 MiB packed, and a copy of them in
// wasm memory (the sort this replaced) or as per-digest objects would be
// several times that.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tempDir } from "./helpers/cli.mjs";

const CHILD = fileURLToPath(new URL("./helpers/catalog-publish-memory-child.mjs", import.meta.url));
const COUNT = 2_000_000;
const MIB = 1024 * 1024;
let dir;
before(async () => {
  dir = await tempDir("catalog-publish-memory");
});
after(async () => {
  await dir?.remove();
});

for (const run of ["default", String(600_000)]) {
  test(`2M unsorted digests (sort runs: ${run}) publish within baseline + filter + 256 MiB`, { timeout: 300_000 }, async () => {
    const layout = join(dir.path, `layout-${run}`);
    const { stdout } = await promisify(execFile)(process.execPath, [CHILD, layout, dir.path, String(COUNT), run], {
      timeout: 300_000,
      maxBuffer: MIB,
    });
    const { baseline, peak, snapshotBytes, uniqueCount } = JSON.parse(stdout);
    // Chunks 8, 16, …, 56 of 62 each repeat 100 digests of the one before.
    assert.equal(uniqueCount, COUNT - 7 * 100);
    const filterBytes = snapshotBytes - 96;
    const bound = baseline + filterBytes + 256 * MIB;
    const mib = (n) => `${(n / MIB).toFixed(1)} MiB`;
    assert.ok(peak <= bound, `peak ${mib(peak)} > bound ${mib(bound)} (baseline ${mib(baseline)}, filter ${mib(filterBytes)})`);
    // The sort's runs were written to (and removed from) the temp dir.
    assert.deepEqual(
      (await readdir(dir.path)).filter((name) => name.startsWith("artifact-bloom-sort-")),
      [],
    );
    process.stdout.write(`# runs ${run}: peak ${mib(peak)}, baseline ${mib(baseline)}, growth ${mib(peak - baseline)}\n`);
  });
}
