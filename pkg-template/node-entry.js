// Node entry point. scripts/build.mjs bundles it into node.cjs (CommonJS) and
// generates node.mjs, which re-exports node.cjs (through node-bridge.cjs,
// see build.mjs): `import` and `require` in
// one process share one module and one wasm instance (no dual-package
// hazard: a filter made through one works with functions of the other).
//
// Same modules as the browser entry (web.js), plus Node's own SHA-256 for
// the checksum step of loadSnapshot and loadSnapshotStream (node:crypto
// hashes ~4-10× faster than SHA-256 in wasm; the Rust decoder still compares
// the result with the stored checksum).
// The wasm module is compiled and instantiated on first use, not at import
// (see web.js), so a process that loads node.cjs and never queries compiles
// nothing (bench/import-cost.mjs).
import "./artifact_bloom_instance.js";
import { _useNativeSha256 } from "./lib/snapshot/snapshot-core.js";

export * from "./web.js";
export { default } from "./web.js";
// Internal, for `artifact-bloom/delta`'s Node build, which takes what it
// shares with the main entry from node.cjs (lib/delta/delta-main.js): not in the
// types, and left out of node.mjs.
export { _fetchSnapshotWith } from "./lib/snapshot/snapshot-fetch.js";
export { _encodeSnapshotUnsealed } from "./lib/snapshot/snapshot.js";
export { checkSnapshot as _checkSnapshot } from "./lib/snapshot/snapshot-checks.js";
export { _filterPayload, _loadSnapshotOfBits, _nativeDigest } from "./lib/snapshot/snapshot-of-bits.js";
// Internal, for artifact-bloom/server's Node build (lib/server/server-main.js): the key option's checks.
export { assertKeyOf as _assertKeyOf, checkKey as _checkKey } from "./lib/snapshot/snapshot-key.js";

// Reached through process.getBuiltinModule (Node ≥ 20.16), not require() or
// import: node.cjs must stay free of require() calls so that a bundler can
// turn it into an ES module (esbuild --platform=node --format=esm turns a
// require into a "Dynamic require is not supported" throw), and an import
// would make the CommonJS file impossible. Older Node hashes in wasm.
// Loaded on the first checksum, not at import: node:crypto brings Node's
// streams with it, ≈ 4 ms of a fresh process's start (bench/import-cost.mjs)
// that a process which never loads a snapshot need not pay.
const nodeProcess = globalThis.process;
if (typeof nodeProcess?.getBuiltinModule === "function") {
  /** @type {typeof import("node:crypto") | undefined} */
  let nodeCrypto;
  _useNativeSha256(() => {
    nodeCrypto ??= /** @type {typeof import("node:crypto")} */ (nodeProcess.getBuiltinModule("node:crypto"));
    const hash = nodeCrypto.createHash("sha256");
    return {
      update: (bytes) => hash.update(bytes),
      digest: () => new Uint8Array(hash.digest()),
    };
  });
}
