// Node entry point, bundled by scripts/build.mjs into node.cjs (CommonJS), so
// both `require("artifact-bloom")` and `import` (through node.mjs) share one
// wasm instance. The module is compiled synchronously from the file beside it:
// Node callers never need an init call.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { initSync as instantiate } from "./artifact_bloom.js";
import { _useNativeSha256 } from "./lib/snapshot.js";

// `__dirname` exists because this file only ever runs as the CommonJS bundle.
instantiate({ module: readFileSync(join(__dirname, "artifact_bloom_bg.wasm")) });

// node:crypto hashes ~4-10× faster than SHA-256 in wasm: loadSnapshot and
// loadSnapshotStream hash the checksum step with it (the Rust decoder still
// compares the result with the stored checksum).
_useNativeSha256(() => {
  const hash = createHash("sha256");
  return {
    update: (bytes) => hash.update(bytes),
    digest: () => new Uint8Array(hash.digest()),
  };
});

/** Node needs no initialization; kept so isomorphic code can always call it. */
export function init() {
  return Promise.resolve();
}
export default init;
export function initSync() {}
export * from "./lib/index.js";
