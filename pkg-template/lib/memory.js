// Direct access to the wasm module's memory for the allocation-free paths.
//
// A view on `WebAssembly.Memory.buffer` is detached whenever the memory grows
// (its byteLength drops to 0), so every accessor here re-creates the view
// when that happened instead of caching it forever.

import { scratchPtr, wasmMemory } from "../artifact_bloom.js";

let scratch = null;

/** A 32-byte view on the wasm scratch digest; valid until memory grows. */
export function scratchView() {
  if (scratch === null || scratch.byteLength === 0) {
    scratch = new Uint8Array(wasmMemory().buffer, scratchPtr(), 32);
  }
  return scratch;
}

/** Current size of the wasm linear memory in bytes (tests watch it). */
export function wasmMemoryBytes() {
  return wasmMemory().buffer.byteLength;
}
