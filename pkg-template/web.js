// Browser (and any ES-module host) entry point.
//
// The wasm module must be instantiated before first use:
//
//   import init, { ArtifactBloomFilter } from "artifact-bloom";
//   await init();                      // fetches artifact_bloom_bg.wasm beside this file
//   await init({ module_or_path: url }) // or from another URL / Response / bytes
//
// `init` is idempotent: later calls return the same promise.
import wasmInit, { initSync as wasmInitSync } from "./artifact_bloom.js";

let ready;

export default function init(options) {
  ready ??= wasmInit(options);
  return ready;
}

export { init, wasmInitSync as initSync };
export * from "./lib/index.js";
