// `artifact-bloom/server`: the server half as a library. It publishes a
// catalog as the static layout of docs/layout.md, which any file host
// serves. It has no wasm module of its own: it uses the main entry's (ABF1)
// and the delta entry's (ABD1). Node resolves to index.mjs / index.cjs,
// built from this file by scripts/build.mjs, which take both from the
// main entry's node.cjs and the delta entry's delta/index.cjs (one
// instance of each module in a process, whichever entries it imports).
export * from "../lib/server.js";
