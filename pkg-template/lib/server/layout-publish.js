// The static layout's publisher (docs/layout.md, "How a publisher writes
// it"): the new snapshot, a delta from each of the last K versions, the
// manifest last, then the publisher's state and the prune of what has been
// unneeded for longer than the grace period. Every file but the manifest
// and the state is immutable and named by content, and each is written
// whole (LayoutStore.writeAtomically) before anything names it, so a client
// never reads a manifest naming a file that is not there yet — whatever
// step a crash or a failed write stops at.

import { failure, success } from "../core/results.js";
import {
  buildLayoutManifest,
  LAYOUT_MANIFEST_MAX_DELTAS,
  layoutDeltaPath,
  layoutSnapshotPath,
  parseLayoutManifest,
  serializeLayoutManifest,
} from "../layout/manifest.js";
import { _assertKeyOf, _checkKey, encodeSnapshot, loadSnapshot, readSnapshotHeader } from "./server-main.js";
import { encodeSnapshotDelta } from "./server-delta.js";
import { directoryLayoutStore } from "./layout-store.js";
import { LAYOUT_STATE_PATH, parseLayoutState, serializeLayoutState } from "./layout-state.js";
import { LAYOUT_MANIFEST_PATH, liveLayoutFiles, retireAndPrune } from "./layout-prune.js";

/**
 * @import { ArtifactIndexSnapshot, SnapshotHeader } from "../types.js"
 * @import { LayoutDeltaEntry, LayoutManifest } from "../layout/manifest.js"
 * @import { LayoutStore } from "./layout-store.js"
 * @import { LayoutHistoryEntry, LayoutState } from "./layout-state.js"
 */

/** Deltas from this many earlier versions by default (docs/layout.md says why 8). */
export const DEFAULT_DELTA_HISTORY = 8;
/** A file no longer needed is deleted after one hour by default. */
export const DEFAULT_PRUNE_AFTER_MS = 60 * 60 * 1000;

/**
 * - `deltaHistory`: deltas from up to this many earlier versions, 0 … 64
 *   (default 8).
 * - `pruneAfterMs`: a file no manifest names (and no delta base needs) is
 *   deleted this long after it was first found so (default one hour).
 * - `now`: the clock, ms since the epoch (default `Date.now`).
 * - `key`: the layout's secret (16 to 1024 bytes) when it publishes keyed
 *   snapshots (ABF1 hashProtocolVersion 2): the new snapshot must be keyed
 *   with it (else `invalidSnapshot`: `keyRequired`, `wrongKey`, `notKeyed`),
 *   and earlier versions load with it for their deltas (one under another
 *   key — a rotation — is a skipped base, `wrongKey`: its clients download
 *   the new full snapshot). Never written anywhere.
 * @typedef {{ deltaHistory?: number; pruneAfterMs?: number; now?: () => number; key?: Uint8Array }} LayoutPublishOptions
 */
/**
 * A base no delta was written from, and why: `missing` (its file was
 * pruned), the snapshot loader's code when its file does not load, or
 * `encodeSnapshotDelta`'s code (`incompatibleLayout`: the filter was
 * resized; `notSuperset`: a digest was removed).
 * @typedef {{ readonly catalogVersion: number; readonly checksum: string; readonly error: string;
 *   readonly message: string }} LayoutSkippedBase
 */
/**
 * `unchanged`: the layout already served this very snapshot (its checksum
 * is the manifest's), and nothing was written. `pruned`: the files deleted.
 * @typedef {{ readonly unchanged: boolean; readonly manifest: LayoutManifest;
 *   readonly skippedBases: readonly LayoutSkippedBase[]; readonly pruned: readonly string[] }} LayoutPublication
 */
/**
 * - `invalidSnapshot`: the bytes are not a loadable ABF1 snapshot.
 * - `versionNotNewer`: the layout serves a greater catalogVersion.
 * - `versionConflict`: the layout serves this catalogVersion with other content.
 * - `invalidLayout`: the layout's manifest or state file does not read.
 * - `invalidOptions`: an option out of range.
 * @typedef {"invalidSnapshot" | "versionNotNewer" | "versionConflict" | "invalidLayout" | "invalidOptions"} LayoutPublishError
 */
/**
 * @typedef {{ readonly kind: "success"; readonly value: LayoutPublication }
 *   | { readonly kind: "failure"; readonly error: LayoutPublishError; readonly message: string }} LayoutPublishResult
 */

/**
 * Publishes `snapshot` as the layout's current version (docs/layout.md).
 * The version rule of `publish`: a catalogVersion lower than the layout's,
 * or equal with other content, is refused (clients holding the layout's
 * would never adopt it); the very snapshot the layout serves already is a
 * no-op. Store errors (no permission, no space) reject the promise; what
 * was written before stays consistent (the previous manifest, whole files).
 *
 * @param {string | LayoutStore} layout a directory (Node) or a store
 * @param {Uint8Array | ArtifactIndexSnapshot} snapshot ABF1 bytes, or `{ filter, catalogVersion }`
 * @param {LayoutPublishOptions} [options]
 * @returns {Promise<LayoutPublishResult>}
 */
export async function publishToLayout(layout, snapshot, options = {}) {
  const settings = readOptions(options);
  if (typeof settings === "string") return failure("invalidOptions", settings);
  const key = options?.key;
  _checkKey(key, "options.key");
  const store = typeof layout === "string" ? directoryLayoutStore(layout) : layout;
  const target = readTarget(snapshot, key);
  if (target.kind === "failure") return target;
  const { bytes, header } = target.value;
  try {
    const current = await readLayout(store);
    if (current.kind === "failure") return current;
    const { manifest, state } = current.value;
    if (manifest !== undefined) {
      if (manifest.snapshot.checksum === header.checksum) {
        return success({ unchanged: true, manifest, skippedBases: [], pruned: [] });
      }
      const refusal = versionRuleProblem(manifest, header);
      if (refusal !== undefined) return refusal;
    }
    const snapshotPath = layoutSnapshotPath(header.checksum);
    if ((await store.read(snapshotPath)) === undefined) await store.writeAtomically(snapshotPath, bytes);

    // Newest first; slice(-0) would be the whole history.
    const bases = settings.deltaHistory === 0 ? [] : state.history.slice(-settings.deltaHistory).reverse();
    const { deltas, skippedBases } = await writeDeltas(store, bases, target.value, key);
    const built = buildLayoutManifest({
      catalogVersion: header.catalogVersion,
      snapshot: { url: snapshotPath, checksum: header.checksum, size: bytes.length },
      deltas,
    });
    // Every input was checked above: a manifest the rules refuse is a bug here.
    if (built.kind === "failure") throw new Error(`publishToLayout built an invalid manifest: ${built.message}`);
    await store.writeAtomically(LAYOUT_MANIFEST_PATH, new TextEncoder().encode(serializeLayoutManifest(built.value)));

    const entry = { catalogVersion: header.catalogVersion, checksum: header.checksum, size: bytes.length };
    const history = [...state.history, entry].slice(-Math.max(settings.deltaHistory, 1));
    const pruned = await saveStateAndPrune(store, built.value, history, state.retired, settings);
    return success({ unchanged: false, manifest: built.value, skippedBases, pruned });
  } finally {
    target.value.free();
  }
}

/**
 * Deletes the files of `layout` that have been unneeded for `pruneAfterMs`
 * (recording the rest), without publishing: for a layout that receives no
 * new version for a while. Publishing prunes too.
 * @param {string | LayoutStore} layout
 * @param {Omit<LayoutPublishOptions, "deltaHistory">} [options]
 * @returns {Promise<{ readonly kind: "success"; readonly value: { readonly pruned: readonly string[] } }
 *   | { readonly kind: "failure"; readonly error: "invalidLayout" | "invalidOptions"; readonly message: string }>}
 */
export async function pruneLayout(layout, options = {}) {
  const settings = readOptions({ ...options, deltaHistory: DEFAULT_DELTA_HISTORY });
  if (typeof settings === "string") return failure("invalidOptions", settings);
  const store = typeof layout === "string" ? directoryLayoutStore(layout) : layout;
  const current = await readLayout(store);
  if (current.kind === "failure") return current;
  const { manifest, state } = current.value;
  if (manifest === undefined) return success({ pruned: [] });
  const pruned = await saveStateAndPrune(store, manifest, state.history, state.retired, settings);
  return success({ pruned });
}

/**
 * The layout's manifest (none yet: undefined) and state. A state that lost
 * the manifest's version (the publisher stopped between the two writes)
 * gets it back, so the next publish has its delta base.
 * @param {LayoutStore} store
 * @returns {Promise<{ kind: "success"; value: { manifest: LayoutManifest | undefined; state: LayoutState } }
 *   | { kind: "failure"; error: "invalidLayout"; message: string }>}
 */
async function readLayout(store) {
  const state = parseLayoutState(await store.read(LAYOUT_STATE_PATH));
  if (state.kind === "failure") return state;
  const manifestBytes = await store.read(LAYOUT_MANIFEST_PATH);
  if (manifestBytes === undefined) return success({ manifest: undefined, state: state.value });
  const parsed = parseLayoutManifest(manifestBytes);
  if (parsed.kind === "failure") {
    return failure("invalidLayout", `${LAYOUT_MANIFEST_PATH} does not read (${parsed.error}): ${parsed.message}`);
  }
  const manifest = parsed.value;
  const { history } = state.value;
  if (history.at(-1)?.checksum === manifest.snapshot.checksum) return success({ manifest, state: state.value });
  const { catalogVersion, snapshot } = manifest;
  const recovered = [...history, { catalogVersion, checksum: snapshot.checksum, size: snapshot.size }];
  return success({ manifest, state: { history: recovered, retired: state.value.retired } });
}

/**
 * `publish`'s version rule against the layout's manifest (the same snapshot
 * was answered before this is called).
 * @param {LayoutManifest} manifest
 * @param {SnapshotHeader} header
 * @returns {{ kind: "failure"; error: "versionNotNewer" | "versionConflict"; message: string } | undefined}
 */
function versionRuleProblem(manifest, header) {
  const held = manifest.catalogVersion;
  const next = header.catalogVersion;
  if (next > held) return undefined;
  const consequence = `clients holding it would keep answering "definitely absent" for artifacts the new catalog has; publish a catalogVersion greater than ${held}`;
  if (next === held) {
    return failure(
      "versionConflict",
      `the layout serves catalogVersion ${held} with other content (checksum ${manifest.snapshot.checksum.slice(0, 16)}…, `
        + `new ${header.checksum.slice(0, 16)}…): ${consequence}`,
    );
  }
  return failure("versionNotNewer", `the layout serves the newer catalogVersion ${held}, not ${next}: ${consequence}`);
}

/**
 * Writes the delta from each base to the target, newest base first.
 * @param {LayoutStore} store
 * @param {readonly LayoutHistoryEntry[]} bases
 * @param {{ snapshot: ArtifactIndexSnapshot; header: SnapshotHeader }} target
 * @param {Uint8Array | undefined} key the layout's key (its bases load with it)
 * @returns {Promise<{ deltas: LayoutDeltaEntry[]; skippedBases: LayoutSkippedBase[] }>}
 */
async function writeDeltas(store, bases, target, key) {
  /** @type {LayoutDeltaEntry[]} */
  const deltas = [];
  /** @type {LayoutSkippedBase[]} */
  const skippedBases = [];
  for (const base of bases) {
    const skip = (/** @type {string} */ error, /** @type {string} */ message) =>
      skippedBases.push({ catalogVersion: base.catalogVersion, checksum: base.checksum, error, message });
    const baseBytes = await store.read(layoutSnapshotPath(base.checksum));
    if (baseBytes === undefined) {
      skip("missing", `${layoutSnapshotPath(base.checksum)} is no longer in the layout`);
      continue;
    }
    const loaded = loadSnapshot(baseBytes, { key });
    if (loaded.kind === "failure") {
      skip(loaded.error, loaded.message);
      continue;
    }
    let encoded;
    try {
      encoded = encodeSnapshotDelta(loaded.value, target.snapshot);
    } finally {
      loaded.value.filter.free();
    }
    if (encoded.kind === "failure") {
      skip(encoded.error, encoded.message);
      continue;
    }
    const path = layoutDeltaPath(base.checksum, target.header.checksum);
    await store.writeAtomically(path, encoded.value);
    deltas.push({ baseCatalogVersion: base.catalogVersion, baseChecksum: base.checksum, url: path, size: encoded.value.length });
  }
  return { deltas, skippedBases };
}

/**
 * Records what is no longer needed (and since when), writes the state, then
 * deletes what has been unneeded for the grace period.
 * @param {LayoutStore} store
 * @param {LayoutManifest} manifest
 * @param {readonly LayoutHistoryEntry[]} history
 * @param {Readonly<Record<string, number>>} retired
 * @param {{ pruneAfterMs: number; now: () => number }} settings
 * @returns {Promise<string[]>} the paths deleted
 */
async function saveStateAndPrune(store, manifest, history, retired, settings) {
  const present = [
    ...(await store.list("snapshots")).map((name) => `snapshots/${name}`),
    ...(await store.list("deltas")).map((name) => `deltas/${name}`),
  ];
  const live = liveLayoutFiles(manifest, history);
  const next = retireAndPrune(present, live, retired, settings.now(), settings.pruneAfterMs);
  await store.writeAtomically(LAYOUT_STATE_PATH, serializeLayoutState({ history, retired: next.retired }));
  for (const path of next.prune) await store.remove(path);
  return next.prune;
}

/**
 * @param {LayoutPublishOptions} options
 * @returns {{ deltaHistory: number; pruneAfterMs: number; now: () => number } | string} the settings, or what is wrong
 */
function readOptions(options) {
  const { deltaHistory = DEFAULT_DELTA_HISTORY, pruneAfterMs = DEFAULT_PRUNE_AFTER_MS, now = Date.now } = options;
  if (!Number.isSafeInteger(deltaHistory) || deltaHistory < 0 || deltaHistory > LAYOUT_MANIFEST_MAX_DELTAS) {
    return `expected deltaHistory as an integer 0 … ${LAYOUT_MANIFEST_MAX_DELTAS}, got ${String(deltaHistory)}`;
  }
  if (typeof pruneAfterMs !== "number" || !(pruneAfterMs >= 0)) {
    return `expected pruneAfterMs as a number of milliseconds ≥ 0, got ${String(pruneAfterMs)}`;
  }
  if (typeof now !== "function") return `expected now as a function returning ms since the epoch, got ${typeof now}`;
  return { deltaHistory, pruneAfterMs, now };
}

/**
 * The new snapshot as bytes, header and a loaded snapshot to encode deltas
 * to; `free` releases what this module loaded (never the caller's filter).
 * @param {Uint8Array | ArtifactIndexSnapshot} snapshot
 * @param {Uint8Array | undefined} key the layout's key: a keyed snapshot must have it, an unkeyed one none
 * @returns {{ kind: "success"; value: { bytes: Uint8Array; header: SnapshotHeader; snapshot: ArtifactIndexSnapshot;
 *   free: () => void } } | { kind: "failure"; error: "invalidSnapshot"; message: string }}
 */
function readTarget(snapshot, key) {
  if (snapshot instanceof Uint8Array) {
    const loaded = loadSnapshot(snapshot, { key });
    if (loaded.kind === "failure") {
      return failure("invalidSnapshot", `the snapshot does not load (${loaded.error}): ${loaded.message}`);
    }
    const { header } = loaded.value;
    return success({ bytes: snapshot, header, snapshot: loaded.value, free: () => loaded.value.filter.free() });
  }
  if (typeof snapshot !== "object" || snapshot === null || !("filter" in snapshot)) {
    return failure("invalidSnapshot", `expected ABF1 bytes or { filter, catalogVersion }, got ${typeof snapshot}`);
  }
  let bytes;
  try {
    // The layout's key must be the filter's (or neither has one): a keyed
    // layout never receives an unkeyed version by mistake, nor the reverse.
    if (key !== undefined) _assertKeyOf("snapshot", snapshot.filter, key);
    else if (snapshot.filter.getHashProtocolVersion() !== 1) {
      return failure("invalidSnapshot", "the snapshot is keyed (hashProtocolVersion 2): publish it with options.key");
    }
    bytes = encodeSnapshot(snapshot.filter, { catalogVersion: snapshot.catalogVersion });
  } catch (error) {
    return failure("invalidSnapshot", `the snapshot does not encode: ${/** @type {Error} */ (error).message}`);
  }
  const header = readSnapshotHeader(bytes);
  if (header.kind === "failure") throw new Error(`publishToLayout: an encoded header does not read: ${header.message}`);
  return success({ bytes, header: header.value, snapshot, free: () => {} });
}
