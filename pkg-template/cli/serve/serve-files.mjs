// The two files of `artifact-bloom serve`'s unit (serve-unit.mjs), read and
// judged: the snapshot file (bytes, ETag, header), the catalog list (its
// exact digest set) and whether the list is complete for the snapshot.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { setImmediate as yieldToRequests } from "node:timers/promises";
import { bytesToHex, readHexDigests } from "../common.mjs";
import { readBoundedFile } from "../bounded-file.mjs";

/**
 * What the unit uses of the library (`artifact-bloom`, imported by serve.mjs):
 * the ABF1 loader and header reader, and the largest file read as a snapshot.
 * @typedef {{
 *   loadSnapshot: (bytes: Uint8Array) => ReturnType<typeof import("artifact-bloom").loadSnapshot>,
 *   readSnapshotHeader: typeof import("artifact-bloom").readSnapshotHeader,
 *   snapshotLimit: number,
 * }} UnitLibrary
 */
/** @typedef {import("artifact-bloom").SnapshotHeader} SnapshotHeader */
/** @typedef {import("node:fs").Stats} Stats */

/**
 * The snapshot file as loaded: `header` is undefined when it does not load,
 * and `headerError` then says why (the load failure's code).
 * @typedef {{ bytes: Uint8Array, etag: string, lastModified: string, header: SnapshotHeader | undefined,
 *   headerError: string | undefined }} SnapshotFile
 */
/**
 * The catalog list as loaded: its digest set (lowercase hex) and the same digests packed, 32 bytes each.
 * @typedef {{ present: Set<string>, packed: Uint8Array }} CatalogList
 */

// Building the catalog's Set yields to the event loop this often, so a
// reload of a large catalog never blocks the requests answered meanwhile.
const CATALOG_YIELD_EVERY = 16_384;

/**
 * The snapshot file: its bytes, ETag, Last-Modified and header (undefined if
 * it does not load). The ETag is the ABF1 checksum, so a client can name any
 * snapshot it holds when asking for a delta; a file whose header does not
 * load gets a hash of its bytes.
 * @param {UnitLibrary} library
 * @param {string} path
 * @param {Stats} info the file's stat (its mtime is the Last-Modified)
 * @returns {Promise<SnapshotFile>}
 */
export async function loadSnapshotFile(library, path, info) {
  // Never more than the largest snapshot: --snapshot may name /dev/zero or a pipe.
  const bytes = await readBoundedFile(path, library.snapshotLimit, "snapshot");
  const header = library.readSnapshotHeader(bytes);
  const etag =
    header.kind === "success"
      ? `"${header.value.checksum}"`
      : `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"`;
  return {
    bytes,
    etag,
    lastModified: info.mtime.toUTCString(),
    header: header.kind === "success" ? header.value : undefined,
    headerError: header.kind === "failure" ? header.error : undefined,
  };
}

/**
 * The catalog list: its exact digest set (lowercase hex) and the digests packed, for checking them against a snapshot.
 * @param {string} path
 * @returns {Promise<CatalogList>}
 */
export async function loadCatalog(path) {
  const { packed } = await readHexDigests(createReadStream(path));
  /** @type {Set<string>} */
  const present = new Set();
  const count = packed.byteLength / 32;
  for (let index = 0; index < count; index += 1) {
    present.add(bytesToHex(packed.subarray(index * 32, index * 32 + 32)));
    if (index % CATALOG_YIELD_EVERY === CATALOG_YIELD_EVERY - 1) await yieldToRequests();
  }
  return { present, packed };
}

/**
 * inode, size and mtime: an atomic replace (a new inode) or an in-place rewrite both change it.
 * @param {Stats} info
 */
export function identityOf(info) {
  return `${info.ino}:${info.size}:${info.mtimeMs}`;
}

/**
 * The file's stat, or undefined if it cannot be stat'ed now (mid-replace or removed: keep serving what is loaded).
 * @param {string} path
 * @returns {Promise<Stats | undefined>}
 */
export async function look(path) {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

/**
 * Why `catalog` cannot be the list `snapshot` was built from, or undefined.
 * A snapshot's insertedItemCount is the exact number of unique digests it
 * was built from, and a Bloom filter answers "maybe" for every member: a
 * list with fewer digests is incomplete (empty, or still being written) and
 * would answer "absent" for the members it lacks; one with more, or one the
 * filter calls absent, is another version's list. Only a snapshot whose
 * header loads is judged: the caller passes that header.
 * @param {UnitLibrary} library
 * @param {SnapshotHeader} header `snapshotBytes`'s header, loaded
 * @param {Uint8Array} snapshotBytes
 * @param {CatalogList} catalog
 * @returns {string | undefined}
 */
export function mismatchOf(library, header, snapshotBytes, catalog) {
  const unique = catalog.present.size;
  const built = header.insertedItemCount;
  if (unique < built) {
    return `it holds ${unique} unique digests, the snapshot was built from ${built} (an incomplete list: empty or still being written)`;
  }
  if (unique > built) {
    return `it holds ${unique} unique digests, the snapshot was built from ${built}`;
  }
  const loaded = library.loadSnapshot(snapshotBytes);
  if (loaded.kind === "failure") return `the snapshot does not load (${loaded.error})`;
  try {
    const maybe = loaded.value.filter.countMaybe(catalog.packed);
    const listed = catalog.packed.byteLength / 32;
    return maybe === listed ? undefined : `${listed - maybe} of its ${listed} digests are absent from the snapshot`;
  } finally {
    loaded.value.filter.free();
  }
}
