// `artifact-bloom/variants`: the other filters (TLBF, mergeable, scalable)
// and the sizing helpers, in their own wasm module, so the main entry
// carries only the artifact filter, ABF1 and SHA-256. Instantiated on first
// use like the main entry (see ../web.js); Node resolves to index.mjs /
// index.cjs, built from this file by scripts/build.mjs.
import "../artifact_bloom_variants_instance.js";

export * from "../lib/variants.js";
