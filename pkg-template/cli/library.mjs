// The library, as the CLI's modules see it: live bindings that loadLibrary()
// fills in. A command parses its arguments (and answers --help or a usage
// error) first, then awaits loadLibrary() with the parts it uses, so a
// person asking for the usage never pays for node.cjs and its wasm, and a
// command that never meets a delta never instantiates the delta build.
// The command modules and their helpers import the names from here instead
// of from ../node.mjs; the bindings are the package's own functions once
// loaded (one module, one wasm instance, as for any other importer).

/** A stand-in that says what went wrong if a name is used before loadLibrary(). */
const notLoaded = (name) => () => {
  throw new Error(`artifact-bloom CLI: ${name} was used before loadLibrary() (a command must load the library after parsing its arguments)`);
};

// From ../node.mjs. ABF1_HEADER_LENGTH comes from the wasm instance, so it is
// undefined until the library is loaded.
export let ABF1_HEADER_LENGTH;
export let ArtifactBloomFilter = notLoaded("ArtifactBloomFilter");
export let ArtifactExistenceService = notLoaded("ArtifactExistenceService");
export let dedupePacked = notLoaded("dedupePacked");
export let encodeSnapshot = notLoaded("encodeSnapshot");
export let fetchSnapshot = notLoaded("fetchSnapshot");
export let loadSnapshot = notLoaded("loadSnapshot");
export let readSnapshotHeader = notLoaded("readSnapshotHeader");
// From ../delta/index.mjs.
export let applySnapshotDelta = notLoaded("applySnapshotDelta");
export let composeSnapshotDeltas = notLoaded("composeSnapshotDeltas");
export let encodeSnapshotDelta = notLoaded("encodeSnapshotDelta");
export let readSnapshotDeltaHeader = notLoaded("readSnapshotDeltaHeader");
/** The delta build's fetchSnapshot: with a `base`, it asks for an ABD1 delta. */
export let deltaFetchSnapshot = notLoaded("deltaFetchSnapshot");
// From ../variants/index.mjs.
export let alertFillRatio = notLoaded("alertFillRatio");
export let fppFromFillRatio = notLoaded("fppFromFillRatio");

let main;
let delta;
let variants;

/**
 * Loads the main entry (always) and, when asked, the delta and variants
 * builds, then points the bindings above at them. Each part is imported
 * once however often this is called.
 * @param {{ delta?: boolean, variants?: boolean }} [parts]
 */
export async function loadLibrary(parts = {}) {
  main ??= import("../node.mjs").then((api) => {
    ({ ABF1_HEADER_LENGTH, ArtifactBloomFilter, ArtifactExistenceService, dedupePacked, encodeSnapshot, fetchSnapshot, loadSnapshot, readSnapshotHeader } = api);
  });
  if (parts.delta) {
    delta ??= import("../delta/index.mjs").then((api) => {
      ({ applySnapshotDelta, composeSnapshotDeltas, encodeSnapshotDelta, readSnapshotDeltaHeader } = api);
      deltaFetchSnapshot = api.fetchSnapshot;
    });
  }
  if (parts.variants) {
    variants ??= import("../variants/index.mjs").then((api) => {
      ({ alertFillRatio, fppFromFillRatio } = api);
    });
  }
  await Promise.all([main, parts.delta && delta, parts.variants && variants]);
}
