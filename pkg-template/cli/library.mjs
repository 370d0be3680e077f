// The library, as the CLI's modules see it: live bindings that loadLibrary()
// fills in. A command parses its arguments (and answers --help or a usage
// error) first, then awaits loadLibrary() with the parts it uses, so a
// person asking for the usage never pays for node.cjs and its wasm, and a
// command that never meets a delta never instantiates the delta build.
// The command modules and their helpers import the names from here instead
// of from ../node.mjs; the bindings are the package's own functions once
// loaded (one module, one wasm instance, as for any other importer). No CLI
// module imports lib/ sources: those would be a second copy of the library
// in the process, whose OciRegistryError is not the exported one.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** @typedef {typeof import("../node.mjs")} Main */
/** @typedef {typeof import("../node.cjs")} MainInternal node-entry.js's `_`-names */
/** @typedef {typeof import("../delta/index.mjs")} Delta */
/** @typedef {typeof import("../variants/index.mjs")} Variants */
/** @typedef {typeof import("../server/index.mjs")} Server */

/**
 * A stand-in that says what went wrong if a name is used before loadLibrary():
 * a plain function, so that `new` and `instanceof` on it reach the message
 * (or answer false) instead of failing on an arrow function. Typed as the
 * binding it stands in for.
 * @template T
 * @param {string} name
 * @returns {T}
 */
const notLoaded = (name) =>
  /** @type {T} */ (
    /** @type {unknown} */ (
      function notLoadedYet() {
        throw new Error(
          `artifact-bloom CLI: ${name} was used before loadLibrary() `
            + "(a command must load the library after parsing its arguments)",
        );
      }
    )
  );

// From ../node.mjs. ABF1_HEADER_LENGTH comes from the wasm instance, so it is
// undefined until the library is loaded.
/** @type {Main["ABF1_HEADER_LENGTH"]} */
export let ABF1_HEADER_LENGTH;
/** @type {Main["ArtifactBloomFilter"]} */
export let ArtifactBloomFilter = notLoaded("ArtifactBloomFilter");
/** @type {Main["ArtifactExistenceService"]} */
export let ArtifactExistenceService = notLoaded("ArtifactExistenceService");
/** @type {Main["dedupePacked"]} */
export let dedupePacked = notLoaded("dedupePacked");
/** @type {Main["encodeSnapshot"]} */
export let encodeSnapshot = notLoaded("encodeSnapshot");
/** @type {Main["fetchSnapshot"]} */
export let fetchSnapshot = notLoaded("fetchSnapshot");
/** @type {Main["loadSnapshot"]} */
export let loadSnapshot = notLoaded("loadSnapshot");
/** @type {Main["readSnapshotHeader"]} */
export let readSnapshotHeader = notLoaded("readSnapshotHeader");
/** @type {Main["OciRegistryError"]} */
export let OciRegistryError = notLoaded("OciRegistryError");
// From ../node.cjs: node-entry.js's internal `_`-names for the registry
// commands, publish's limits, serve's delta token and existence marker (not in node.mjs's export list). The constants are undefined
// until the library is loaded.
/** @type {MainInternal["_DEFAULT_TIMEOUT_MS"]} */
export let DEFAULT_TIMEOUT_MS;
/** @type {MainInternal["_DELTA_IM"]} */
export let DELTA_IM;
/** @type {MainInternal["_EXISTENCE_VERSION_HEADER"]} */
export let EXISTENCE_VERSION_HEADER;
/** @type {MainInternal["_MAXIMUM_EXPECTED_ITEM_COUNT"]} */
export let MAXIMUM_EXPECTED_ITEM_COUNT;
/** @type {MainInternal["_MAXIMUM_SNAPSHOT_BYTES"]} */
export let MAXIMUM_SNAPSHOT_BYTES;
/** @type {MainInternal["_RegistryClient"]} */
export let RegistryClient = notLoaded("RegistryClient");
/** @type {MainInternal["_checkRepositoryName"]} */
export let checkRepositoryName = notLoaded("checkRepositoryName");
/** @type {MainInternal["_repositoryOverClient"]} */
export let repositoryOverClient = notLoaded("repositoryOverClient");
/** @type {MainInternal["_tlsProblemOf"]} */
export let tlsProblemOf = notLoaded("tlsProblemOf");
// From ../delta/index.mjs.
/** @type {Delta["applySnapshotDelta"]} */
export let applySnapshotDelta = notLoaded("applySnapshotDelta");
/** @type {Delta["composeSnapshotDeltas"]} */
export let composeSnapshotDeltas = notLoaded("composeSnapshotDeltas");
/** @type {Delta["encodeSnapshotDelta"]} */
export let encodeSnapshotDelta = notLoaded("encodeSnapshotDelta");
/** @type {Delta["readSnapshotDeltaHeader"]} */
export let readSnapshotDeltaHeader = notLoaded("readSnapshotDeltaHeader");
/**
 * The delta build's fetchSnapshot: with a `base`, it asks for an ABD1 delta.
 * @type {Delta["fetchSnapshot"]}
 */
export let deltaFetchSnapshot = notLoaded("deltaFetchSnapshot");
// From ../variants/index.mjs.
/** @type {Variants["alertFillRatio"]} */
export let alertFillRatio = notLoaded("alertFillRatio");
/** @type {Variants["fppFromFillRatio"]} */
export let fppFromFillRatio = notLoaded("fppFromFillRatio");

// From ../server/index.mjs.
/** @type {Server["parseLayoutManifest"]} */
export let parseLayoutManifest = notLoaded("parseLayoutManifest");
/** @type {Server["publishToLayout"]} */
export let publishToLayout = notLoaded("publishToLayout");
/** @type {Server["buildCatalogSnapshot"]} */
export let buildCatalogSnapshot = notLoaded("buildCatalogSnapshot");

/** @type {Promise<void> | undefined} */
let main;
/** @type {Promise<void> | undefined} */
let delta;
/** @type {Promise<void> | undefined} */
let variants;
/** @type {Promise<void> | undefined} */
let server;

/**
 * Loads the main entry (always) and, when asked, the delta and variants
 * builds and the server entry, then points the bindings above at them. Each part is imported
 * once however often this is called.
 * @param {{ delta?: boolean, variants?: boolean, server?: boolean }} [parts]
 */
export async function loadLibrary(parts = {}) {
  main ??= import("../node.mjs").then((api) => {
    ({
      ABF1_HEADER_LENGTH,
      ArtifactBloomFilter,
      ArtifactExistenceService,
      OciRegistryError,
      dedupePacked,
      encodeSnapshot,
      fetchSnapshot,
      loadSnapshot,
      readSnapshotHeader,
    } = api);
    // node.mjs re-exports node.cjs, so this require is the module just loaded (the same instance).
    ({
      _DEFAULT_TIMEOUT_MS: DEFAULT_TIMEOUT_MS,
      _DELTA_IM: DELTA_IM,
      _EXISTENCE_VERSION_HEADER: EXISTENCE_VERSION_HEADER,
      _MAXIMUM_EXPECTED_ITEM_COUNT: MAXIMUM_EXPECTED_ITEM_COUNT,
      _MAXIMUM_SNAPSHOT_BYTES: MAXIMUM_SNAPSHOT_BYTES,
      _RegistryClient: RegistryClient,
      _checkRepositoryName: checkRepositoryName,
      _repositoryOverClient: repositoryOverClient,
      _tlsProblemOf: tlsProblemOf,
    } = require("../node.cjs"));
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
  if (parts.server) {
    server ??= import("../server/index.mjs").then((api) => {
      ({ buildCatalogSnapshot, parseLayoutManifest, publishToLayout } = api);
    });
  }
  await Promise.all([main, parts.delta && delta, parts.variants && variants, parts.server && server]);
}
