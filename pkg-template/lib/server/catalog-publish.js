// publishCatalog: a catalog version from a store into the static layout,
// at the format's full scale with bounded memory (issue 34 §3; the seed's
// "guarantee uniqueness via DISTINCT in the DB; deduplicate from a sorted
// digest stream; provide an exact unique count"). A sorted (or DISTINCT
// ORDER BY) source streams straight into the sorted build: memory is the
// bit array plus one chunk. An unsorted one goes through an external sort
// (catalog-stream.js): plus two run buffers, then the merge's read buffers. Either way
// the count is exact, and the result is publishToLayout's, deltas included.
// The work is sliced: the event loop gets a turn between chunks.

import { typeError } from "../core/errors.js";
import { failure } from "../core/results.js";
import { DEFAULT_RUN_BYTES, externalSort, packedChunks, StreamFailure } from "./catalog-stream.js";
import { parseLayoutManifest } from "../layout/manifest.js";
import { publishToLayout } from "./layout-publish.js";
import { directoryLayoutStore } from "./layout-store.js";
import { _checkKey, readSnapshotHeader } from "./server-main.js";
import { _keyedBuild, _SortedBuild } from "./server-delta.js";

/**
 * @import { LayoutStore } from "./layout-store.js"
 */

/**
 * A catalog version: its number, its digests (64-hex-digit strings, 32-byte
 * Uint8Arrays or packed 32-byte chunks, sync or async), and whether they
 * arrive in ascending byte order (a `SELECT DISTINCT … ORDER BY digest`, a
 * sorted file). Or a loader returning one (postgresCatalog,
 * directoryCatalog), called with the publish's `signal`.
 *
 * @typedef {{ catalogVersion: number; digests: Iterable<unknown> | AsyncIterable<unknown>; sorted?: boolean }} CatalogVersionSource
 * @typedef {CatalogVersionSource | ((context: { signal?: AbortSignal }) => Promise<CatalogVersionSource>)} CatalogSource
 */

/**
 * Options: the layout's spec (`expectedItemCount`, `targetFalsePositiveRate`:
 * keep them from version to version, so deltas exist), publishToLayout's
 * (`deltaHistory`, `pruneAfterMs`, `now`), `signal` (checked between
 * chunks: an abort rejects with its reason and publishes nothing),
 * `tempDir` (for an unsorted source's runs; default the OS temp dir),
 * `runBytes` (one run, default 32 MiB), and for a store that only grows
 * `append: true` (publishCatalog: the source holds only the digests added
 * since the layout's current version, which is continued without a
 * rebuild; the layout's spec must be the options', and a layout that
 * fills up is `capacityExceeded`: publish the whole catalog with a larger
 * one) — buildCatalogSnapshot takes that version's ABF1 bytes as `base`.
 * `key` (16 to 1024 secret bytes): keyed snapshots (ABF1 hashProtocolVersion
 * 2, docs/ABF1.md "Keyed snapshots"): each digest is replaced by its
 * HMAC-SHA-256 under the key before the sort and the build (so a keyed
 * source is always sorted externally: MACs are in no order), and the built
 * file is sealed as protocol 3; publishToLayout gets the key too.
 *
 * @typedef {{
 *   expectedItemCount: number;
 *   targetFalsePositiveRate: number;
 *   deltaHistory?: number;
 *   pruneAfterMs?: number;
 *   now?: () => number;
 *   signal?: AbortSignal;
 *   tempDir?: string;
 *   runBytes?: number;
 *   append?: boolean;
 *   base?: Uint8Array;
 *   key?: Uint8Array;
 * }} PublishCatalogOptions
 */

/**
 * Builds the catalog version `source` and publishes it into the layout at
 * `layout` (a directory or a LayoutStore) → publishToLayout's result, its
 * value with `uniqueCount` (the exact number of distinct digests). Refusals
 * are failures: `invalidDigest` (naming the stream index), `unsortedInput`
 * (a source said sorted that is not), `capacityExceeded`, `outOfMemory`, and
 * publishToLayout's (`versionNotNewer`, `versionConflict`, …).
 *
 * @example
 * ```ts
 * const result = await publishCatalog("var/catalog", postgresCatalog({ client, ... }), {
 *   expectedItemCount: 80_000_000, targetFalsePositiveRate: 0.001,
 * });
 * ```
 *
 * @param {string | LayoutStore} layout
 * @param {CatalogSource} source
 * @param {PublishCatalogOptions} options
 */
export async function publishCatalog(layout, source, options) {
  /** @type {Uint8Array | undefined} */
  let base;
  if (options?.append === true) {
    const current = await currentSnapshot(typeof layout === "string" ? directoryLayoutStore(layout) : layout);
    if (current.kind === "failure") return current;
    base = current.value;
    if (base !== undefined) {
      const header = readSnapshotHeader(base);
      if (header.kind === "failure") return failure("invalidLayout", `the layout's snapshot does not read: ${header.message}`);
      const { expectedItemCount, targetFpp } = header.value;
      if (expectedItemCount !== options.expectedItemCount || targetFpp !== options.targetFalsePositiveRate) {
        return failure(
          "layoutChanged",
          `append continues the layout's snapshot (expectedItemCount ${expectedItemCount}, p = ${targetFpp}), `
            + `not one of ${options.expectedItemCount}, p = ${options.targetFalsePositiveRate}: publish the full catalog to change the layout`,
        );
      }
    }
  }
  const built = await buildCatalogSnapshot(source, base === undefined ? options : { ...options, base });
  if (built.kind === "failure" && built.error === "capacityExceeded" && base !== undefined) {
    return failure(
      "capacityExceeded",
      `the layout is full (expectedItemCount ${options.expectedItemCount}): publish the whole catalog with a larger one (a new full snapshot)`,
    );
  }
  if (built.kind === "failure") return built;
  const { bytes, uniqueCount } = built.value;
  const published = await publishToLayout(layout, bytes, {
    ...(options.deltaHistory === undefined ? {} : { deltaHistory: options.deltaHistory }),
    ...(options.pruneAfterMs === undefined ? {} : { pruneAfterMs: options.pruneAfterMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.key === undefined ? {} : { key: options.key }),
  });
  return published.kind === "success" ? { ...published, value: { ...published.value, uniqueCount } } : published;
}

/**
 * The ABF1 file of a catalog version, built as publishCatalog builds it
 * (streamed, sorted or externally sorted, exact unique count) but not
 * published: `{ bytes, catalogVersion, uniqueCount }`, or the same failures.
 * For a single-file snapshot (`publish --out`) or a store of your own.
 *
 * @param {CatalogSource} source
 * @param {PublishCatalogOptions} options
 * @returns {Promise<{ kind: "success"; value: { bytes: Uint8Array; catalogVersion: number; uniqueCount: number } }
 *   | { kind: "failure"; error: string; message: string }>}
 */
export async function buildCatalogSnapshot(source, options) {
  if (options === null || typeof options !== "object") throw typeError("options", "an object", options);
  const { signal, runBytes = DEFAULT_RUN_BYTES } = options;
  if (!Number.isSafeInteger(runBytes) || runBytes < 32 || runBytes % 32 !== 0) {
    throw typeError("runBytes", "a positive multiple of 32", runBytes);
  }
  _checkKey(options.key, "options.key");
  signal?.throwIfAborted();
  const resolved = typeof source === "function" ? await source({ signal }) : source;
  if (resolved === null || typeof resolved !== "object" || resolved.digests === undefined) {
    throw typeError("source", "{ catalogVersion, digests, sorted? } or a loader returning one", resolved);
  }
  const { catalogVersion, digests, sorted = false } = resolved;
  const keyed = options.key === undefined ? undefined : _keyedBuild(options.key);
  try {
    return await buildFrom(catalogVersion, digests, sorted, options, keyed);
  } finally {
    keyed?.free();
  }
}

/**
 * buildCatalogSnapshot's build, with `keyed` the key's tools when it has one.
 *
 * @param {number} catalogVersion
 * @param {Iterable<unknown> | AsyncIterable<unknown>} digests
 * @param {boolean} sorted
 * @param {PublishCatalogOptions} options
 * @param {ReturnType<typeof _keyedBuild> | undefined} keyed
 * @returns {Promise<{ kind: "success"; value: { bytes: Uint8Array; catalogVersion: number; uniqueCount: number } }
 *   | { kind: "failure"; error: string; message: string }>}
 */
async function buildFrom(catalogVersion, digests, sorted, options, keyed) {
  const { signal, runBytes = DEFAULT_RUN_BYTES } = options;
  // A keyed base continues as the protocol-1 file of its bits (built from MACs).
  let base = options.base;
  if (base !== undefined && keyed !== undefined) {
    const unsealed = keyed.unseal(base);
    if (unsealed.kind === "failure") {
      await closeUnread(digests);
      return unsealed;
    }
    base = unsealed.value;
  }
  const started =
    base === undefined
      ? _SortedBuild.start({
          expectedItemCount: options.expectedItemCount,
          targetFalsePositiveRate: options.targetFalsePositiveRate,
        })
      : _SortedBuild.continuing(base);
  if (started.kind === "failure") {
    await closeUnread(digests);
    return started;
  }
  const build = started.value;
  try {
    const packed = packedChunks(digests, signal);
    const chunks = keyed === undefined ? packed : macChunks(packed, keyed);
    // A run holds at most expectedItemCount digests' bytes: a small catalog reserves small buffers.
    const { expectedItemCount } = options;
    const runCap = expectedItemCount >= 1 ? Math.min(runBytes, Math.ceil(expectedItemCount) * 32) : runBytes;
    const ordered =
      sorted && keyed === undefined
        ? chunks
        : externalSort(chunks, { tempDir: options.tempDir ?? (await osTempDir()), runBytes: runCap, signal });
    for await (const chunk of ordered) {
      signal?.throwIfAborted();
      const pushed = build.push(chunk);
      if (pushed.kind === "failure") return pushed;
      // A chunk is at most CHUNK_BYTES of digests (a few ms of work): then the event loop's turn.
      await nextTurn();
    }
    signal?.throwIfAborted();
    const uniqueCount = build.uniqueCount;
    const built = build.finish(catalogVersion);
    if (built.kind === "failure") return built;
    const file = keyed === undefined ? built : keyed.seal(built.value);
    if (file.kind === "failure") return file;
    return { kind: "success", value: { bytes: file.value, catalogVersion, uniqueCount } };
  } catch (error) {
    if (error instanceof StreamFailure) return failure(error.code, error.message);
    throw error;
  } finally {
    build.free();
  }
}

/**
 * Each chunk's digests replaced by their MACs (a new array each: the
 * external sort keeps what it is given).
 *
 * @param {AsyncIterable<Uint8Array>} chunks
 * @param {ReturnType<typeof _keyedBuild>} keyed
 * @returns {AsyncGenerator<Uint8Array>}
 */
async function* macChunks(chunks, keyed) {
  for await (const chunk of chunks) yield keyed.mac(chunk);
}

/**
 * The layout's current snapshot file (the one its manifest names), or
 * undefined when nothing is published yet.
 *
 * @param {LayoutStore} store
 * @returns {Promise<{ kind: "success"; value: Uint8Array | undefined } | { kind: "failure"; error: string; message: string }>}
 */
async function currentSnapshot(store) {
  const manifestBytes = await store.read("manifest.json");
  if (manifestBytes === undefined) return { kind: "success", value: undefined };
  const manifest = parseLayoutManifest(manifestBytes);
  if (manifest.kind === "failure") return failure("invalidLayout", `manifest.json does not read: ${manifest.message}`);
  const bytes = await store.read(manifest.value.snapshot.url);
  if (bytes === undefined) return failure("invalidLayout", `the manifest's snapshot ${manifest.value.snapshot.url} is missing`);
  return { kind: "success", value: bytes };
}

/**
 * Tells a source that will not be read that it is done (postgresCatalog's
 * transaction ends and its client is free again).
 *
 * @param {Iterable<unknown> | AsyncIterable<unknown>} digests
 */
async function closeUnread(digests) {
  if (typeof (/** @type {any} */ (digests)[Symbol.asyncIterator]) !== "function") return;
  await /** @type {AsyncIterable<unknown>} */ (digests)[Symbol.asyncIterator]().return?.();
}

/** Yields to the event loop (a macrotask: timers and I/O run). */
function nextTurn() {
  const immediate = /** @type {((callback: () => void) => unknown) | undefined} */ (/** @type {any} */ (globalThis).setImmediate);
  return new Promise((resolve) => (immediate ?? setTimeout)(() => resolve(undefined)));
}

/** The OS temp dir (Node, Deno and Bun have node:os). */
async function osTempDir() {
  const specifier = "node:os";
  const os = /** @type {{ tmpdir(): string }} */ (await import(specifier));
  return os.tmpdir();
}
