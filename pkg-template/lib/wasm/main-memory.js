// The main wasm module's linear memory: its size (for leak checks), and the
// one way caller bytes enter it (staging.js says why).

import { inputBuffer, wasmMemory } from "../../artifact_bloom.js";
import { stagingFor } from "./staging.js";

/**
 * Size of the wasm linear memory in bytes (tests watch it). It never shrinks.
 *
 * @returns {number}
 */
export function wasmMemoryBytes() {
  // The binding returns the module's memory untyped (a JsValue).
  return /** @type {WebAssembly.Memory} */ (wasmMemory()).buffer.byteLength;
}

export const { toWasm, stageInput, stagingCount } = stagingFor(inputBuffer, wasmMemory);
