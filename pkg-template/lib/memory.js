// The wasm module's linear memory, for leak checks.

import { wasmMemory } from "../artifact_bloom.js";

/** Current size of the wasm linear memory in bytes (tests watch it). */
export function wasmMemoryBytes() {
  return wasmMemory().buffer.byteLength;
}
