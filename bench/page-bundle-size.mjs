// What a page importing fetchSnapshot, SnapshotHolder and
// ArtifactExistenceService downloads before any delta arrives (issue 33
// §5: ≤ 42 KiB gzipped): esbuild --bundle --minify --splitting of such a
// page against the built pkg/, gzip -9 of the entry and the chunks it
// imports statically; the chunks it imports dynamically (the delta code)
// are listed apart. Bytes, one run: no timing.
//
//   node scripts/build.mjs && node bench/page-bundle-size.mjs [PKG_DIR]

import { mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const pkg = resolve(process.argv[2] ?? join(import.meta.dirname, "..", "pkg"));
const dir = mkdtempSync(join(tmpdir(), "page-bundle-size-"));
try {
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(pkg, join(dir, "node_modules", "artifact-bloom"), "dir");
  writeFileSync(
    join(dir, "page.mjs"),
    'import { fetchSnapshot, SnapshotHolder, ArtifactExistenceService } from "artifact-bloom";\n'
      + "globalThis.used = [fetchSnapshot, SnapshotHolder, ArtifactExistenceService];\n",
  );
  const result = await esbuild.build({
    absWorkingDir: dir,
    entryPoints: ["page.mjs"],
    bundle: true,
    minify: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    outdir: join(dir, "out"),
    metafile: true,
    logLevel: "error",
  });
  const outputs = result.metafile.outputs;
  const gzipped = (file) => gzipSync(readFileSync(join(dir, file)), { level: 9 }).byteLength;
  const entry = Object.keys(outputs).find((file) => outputs[file].entryPoint === "page.mjs");
  const upFront = new Set([entry]);
  for (const file of upFront) {
    for (const imported of outputs[file].imports) if (imported.kind === "import-statement") upFront.add(imported.path);
  }
  let total = 0;
  for (const file of upFront) {
    total += gzipped(file);
    console.log(`up front  ${file}: ${gzipped(file)} B gzipped`);
  }
  for (const file of Object.keys(outputs).filter((f) => f.endsWith(".js") && !upFront.has(f))) {
    console.log(`on demand ${file}: ${gzipped(file)} B gzipped`);
  }
  console.log(`before any delta: ${total} B = ${(total / 1024).toFixed(1)} KiB gzipped (target ≤ 42 KiB)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
