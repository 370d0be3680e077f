// The static layout's manifest (docs/layout.md, "manifest.json (format 1)"):
// every rule of that table is checked here and only here. The publisher
// (lib/server/) builds manifests with `buildLayoutManifest`, the clients
// read them with `parseLayoutManifest`; both go through one validator, so a
// publisher can never write a manifest its own clients would refuse.

import { failure, success } from "../core/results.js";

/** The `format` field's one accepted value. */
export const LAYOUT_MANIFEST_FORMAT = "artifact-bloom-layout";
/** The manifest format this module reads and writes; a higher one is `unsupportedManifest`. */
export const LAYOUT_MANIFEST_FORMAT_VERSION = 1;
/** A manifest body larger than this is refused before it is parsed. */
export const LAYOUT_MANIFEST_MAX_BYTES = 64 * 1024;
/** At most this many deltas in one manifest. */
export const LAYOUT_MANIFEST_MAX_DELTAS = 64;
/** The smallest ABF1 file: its 96-byte header. */
export const LAYOUT_MIN_SNAPSHOT_SIZE = 96;
/** The smallest ABD1 file: its header plus the two embedded ABF1 headers. */
export const LAYOUT_MIN_DELTA_SIZE = 232;

const CHECKSUM_PATTERN = /^[0-9a-f]{64}$/;

/**
 * One file a manifest names.
 * @typedef {{ readonly url: string; readonly checksum: string; readonly size: number }} LayoutSnapshotEntry
 */
/**
 * One delta a manifest names: from the snapshot whose ABF1 checksum is
 * `baseChecksum` to the manifest's snapshot.
 * @typedef {{ readonly baseCatalogVersion: number; readonly baseChecksum: string;
 *   readonly url: string; readonly size: number }} LayoutDeltaEntry
 */
/**
 * A validated manifest (unknown fields dropped).
 * @typedef {{ readonly format: "artifact-bloom-layout"; readonly formatVersion: 1;
 *   readonly catalogVersion: number; readonly snapshot: LayoutSnapshotEntry;
 *   readonly deltas: readonly LayoutDeltaEntry[] }} LayoutManifest
 */
/**
 * @typedef {{ readonly kind: "success"; readonly value: LayoutManifest }
 *   | { readonly kind: "failure"; readonly error: "invalidManifest" | "unsupportedManifest";
 *       readonly message: string }} LayoutManifestResult
 */

/**
 * The path (relative to the layout's root, and so to its manifest's URL)
 * of the snapshot with this ABF1 checksum.
 * @param {string} checksum 64 lowercase hex digits
 * @returns {string}
 */
export function layoutSnapshotPath(checksum) {
  return `snapshots/${checksum}.abf1`;
}

/**
 * The path of the delta from the snapshot `baseChecksum` to `checksum`.
 * @param {string} baseChecksum
 * @param {string} checksum
 * @returns {string}
 */
export function layoutDeltaPath(baseChecksum, checksum) {
  return `deltas/${baseChecksum}-${checksum}.abd1`;
}

/**
 * Reads a manifest body: at most 64 KiB of UTF-8 JSON, then every rule of
 * docs/layout.md's table.
 * @param {string | Uint8Array} body
 * @returns {LayoutManifestResult}
 */
export function parseLayoutManifest(body) {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  if (!(bytes instanceof Uint8Array)) {
    return invalid(`expected the manifest as a string or a Uint8Array, got ${describe(body)}`);
  }
  if (bytes.length > LAYOUT_MANIFEST_MAX_BYTES) {
    return invalid(`expected a manifest of at most ${LAYOUT_MANIFEST_MAX_BYTES} bytes, got ${bytes.length}`);
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return invalid("expected the manifest as UTF-8 text, got bytes that are not UTF-8");
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return invalid(`expected the manifest as JSON, got text JSON.parse refuses (${/** @type {Error} */ (error).message})`);
  }
  return validateLayoutManifest(value);
}

/**
 * Checks a parsed manifest object against docs/layout.md's table and returns
 * the known fields only.
 * @param {unknown} value
 * @returns {LayoutManifestResult}
 */
export function validateLayoutManifest(value) {
  if (!isRecord(value)) return invalid(`expected the manifest as a JSON object, got ${describe(value)}`);
  if (value.format !== LAYOUT_MANIFEST_FORMAT) {
    return invalid(`expected format "${LAYOUT_MANIFEST_FORMAT}", got ${describe(value.format)}`);
  }
  const formatVersion = value.formatVersion;
  if (!Number.isSafeInteger(formatVersion) || /** @type {number} */ (formatVersion) < 1) {
    return invalid(`expected formatVersion ${LAYOUT_MANIFEST_FORMAT_VERSION}, got ${describe(formatVersion)}`);
  }
  if (formatVersion !== LAYOUT_MANIFEST_FORMAT_VERSION) {
    return failure(
      "unsupportedManifest",
      `expected manifest formatVersion ${LAYOUT_MANIFEST_FORMAT_VERSION}, got ${formatVersion} (written by a newer publisher)`,
    );
  }
  const catalogVersion = value.catalogVersion;
  if (!isVersion(catalogVersion)) {
    return invalid(`expected catalogVersion as an integer 0 … 2^53 − 1, got ${describe(catalogVersion)}`);
  }
  const snapshot = readFileEntry(value.snapshot, "snapshot", LAYOUT_MIN_SNAPSHOT_SIZE);
  if (typeof snapshot === "string") return invalid(snapshot);
  const snapshotEntry = { url: snapshot.url, checksum: readChecksumField(value.snapshot), size: snapshot.size };
  if (!CHECKSUM_PATTERN.test(snapshotEntry.checksum)) {
    return invalid(
      `expected snapshot.checksum as 64 lowercase hex digits, got ${describe(/** @type {Record<string, unknown>} */ (value.snapshot).checksum)}`,
    );
  }
  const deltas = readDeltas(value.deltas, catalogVersion);
  if (typeof deltas === "string") return invalid(deltas);
  return success(
    Object.freeze({
      format: LAYOUT_MANIFEST_FORMAT,
      formatVersion: LAYOUT_MANIFEST_FORMAT_VERSION,
      catalogVersion,
      snapshot: Object.freeze(snapshotEntry),
      deltas: Object.freeze(deltas),
    }),
  );
}

/**
 * Builds a manifest from its parts and validates it (a publisher that would
 * write a manifest its clients refuse gets the same failure instead).
 * @param {{ catalogVersion: number; snapshot: LayoutSnapshotEntry; deltas?: readonly LayoutDeltaEntry[] }} parts
 * @returns {LayoutManifestResult}
 */
export function buildLayoutManifest(parts) {
  return validateLayoutManifest({
    format: LAYOUT_MANIFEST_FORMAT,
    formatVersion: LAYOUT_MANIFEST_FORMAT_VERSION,
    catalogVersion: parts.catalogVersion,
    snapshot: { url: parts.snapshot.url, checksum: parts.snapshot.checksum, size: parts.snapshot.size },
    deltas: (parts.deltas ?? []).map((delta) => ({
      baseCatalogVersion: delta.baseCatalogVersion,
      baseChecksum: delta.baseChecksum,
      url: delta.url,
      size: delta.size,
    })),
  });
}

/**
 * The manifest's file body: pretty JSON (a person reads it on the host) and
 * a final newline.
 * @param {LayoutManifest} manifest
 * @returns {string}
 */
export function serializeLayoutManifest(manifest) {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * @param {unknown} value
 * @param {string} name
 * @param {number} minSize
 * @returns {{ url: string; size: number } | string} the entry, or what is wrong with it
 */
function readFileEntry(value, name, minSize) {
  if (!isRecord(value)) return `expected ${name} as a JSON object, got ${describe(value)}`;
  if (typeof value.url !== "string" || value.url.length === 0) {
    return `expected ${name}.url as a non-empty URL reference, got ${describe(value.url)}`;
  }
  if (!Number.isSafeInteger(value.size) || /** @type {number} */ (value.size) < minSize) {
    return `expected ${name}.size as an integer ≥ ${minSize} (the file's byte length), got ${describe(value.size)}`;
  }
  return { url: value.url, size: /** @type {number} */ (value.size) };
}

/**
 * @param {unknown} value the snapshot entry, already known to be an object
 * @returns {string}
 */
function readChecksumField(value) {
  const checksum = /** @type {Record<string, unknown>} */ (value).checksum;
  return typeof checksum === "string" ? checksum : "";
}

/**
 * @param {unknown} value
 * @param {number} catalogVersion
 * @returns {LayoutDeltaEntry[] | string} the entries, or what is wrong with them
 */
function readDeltas(value, catalogVersion) {
  if (!Array.isArray(value)) return `expected deltas as a JSON array, got ${describe(value)}`;
  if (value.length > LAYOUT_MANIFEST_MAX_DELTAS) {
    return `expected at most ${LAYOUT_MANIFEST_MAX_DELTAS} deltas, got ${value.length}`;
  }
  /** @type {LayoutDeltaEntry[]} */
  const deltas = [];
  const bases = new Set();
  for (const [index, item] of value.entries()) {
    const name = `deltas[${index}]`;
    const file = readFileEntry(item, name, LAYOUT_MIN_DELTA_SIZE);
    if (typeof file === "string") return file;
    const { baseCatalogVersion, baseChecksum } = /** @type {Record<string, unknown>} */ (item);
    if (!isVersion(baseCatalogVersion) || baseCatalogVersion >= catalogVersion) {
      return `expected ${name}.baseCatalogVersion as an integer below catalogVersion ${catalogVersion}, got ${describe(baseCatalogVersion)}`;
    }
    if (typeof baseChecksum !== "string" || !CHECKSUM_PATTERN.test(baseChecksum)) {
      return `expected ${name}.baseChecksum as 64 lowercase hex digits, got ${describe(baseChecksum)}`;
    }
    if (bases.has(baseChecksum)) return `expected one delta per baseChecksum, got ${baseChecksum} twice`;
    bases.add(baseChecksum);
    deltas.push(Object.freeze({ baseCatalogVersion, baseChecksum, url: file.url, size: file.size }));
  }
  return deltas;
}

/**
 * @param {unknown} value
 * @returns {value is number}
 */
function isVersion(value) {
  return Number.isSafeInteger(value) && /** @type {number} */ (value) >= 0;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * @param {unknown} value
 * @returns {string}
 */
function describe(value) {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

/**
 * @param {string} message
 * @returns {{ kind: "failure"; error: "invalidManifest"; message: string }}
 */
function invalid(message) {
  return failure("invalidManifest", message);
}
