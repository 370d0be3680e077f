// Staging of caller bytes into the variants' own wasm module (the other
// filters and sizing helpers of `artifact-bloom/variants`); staging.js says why.

import { inputBuffer, wasmMemory } from "../artifact_bloom_variants.js";
import { stagingFor } from "./staging.js";

export const { toWasm } = stagingFor(inputBuffer, wasmMemory);
