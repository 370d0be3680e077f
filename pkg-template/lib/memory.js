// The wasm module's linear memory, for leak checks.

import { wasmMemory } from "../artifact_bloom.js";

/**
 * Size of the wasm linear memory in bytes (for leak checks).
 *
 * @returns {number}
 */
export function wasmMemoryBytes() {
  // The binding returns the module's memory untyped (a JsValue).
  return /** @type {WebAssembly.Memory} */ (wasmMemory()).buffer.byteLength;
}
