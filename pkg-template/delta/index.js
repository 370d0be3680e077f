// `artifact-bloom/delta`: ABD1 deltas — the server side (the encoder and the
// composer) and the client side (applySnapshotDelta, readSnapshotDeltaHeader,
// a fetchSnapshot that asks for deltas) — in their own wasm module, so the
// main entry carries no delta code. Its module is instantiated on first use
// like the main entry's (see ../web.js); Node resolves to index.mjs /
// index.cjs, built from this file by scripts/build.mjs, which share the main
// entry's node.cjs (one ArtifactBloomFilter class, one main wasm instance).
export * from "../lib/delta.js";
