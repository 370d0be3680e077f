// Staging of caller bytes into the variants' own wasm module (the other
// filters and sizing helpers of `artifact-bloom/variants`); staging.js says why.

import { inputBuffer, wasmMemory } from "../../artifact_bloom_variants.js";
import { stagingFor } from "./staging.js";

/**
 * Size of the variants module's own wasm linear memory in bytes (separate
 * from the main entry's `wasmMemoryBytes()`). It never shrinks.
 *
 * @returns {number}
 */
export function variantsMemoryBytes() {
  return /** @type {WebAssembly.Memory} */ (wasmMemory()).buffer.byteLength;
}

export const { toWasm } = stagingFor(inputBuffer, wasmMemory);
