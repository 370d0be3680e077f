// Reading an OCI image layout directory (the image-layout spec: `oci-layout`,
// `index.json`, `blobs/<alg>/<hex>`) for `push`: the tagged entry, every
// manifest under it (nested indexes included) in push order — children
// before the index that names them — and the unique config and layer blobs.
// Manifests are read, size- and digest-checked here; other blobs are only
// stat-checked (their digest is checked while they are uploaded).
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { readBoundedFile, readBoundedText } from "../bounded-file.mjs";
import { UsageError, errorMessage } from "../common.mjs";

export const MANIFEST_TYPES = new Set([
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
]);
export const INDEX_TYPES = new Set([
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
]);

const REF_NAME = "org.opencontainers.image.ref.name";
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024; // the distribution reference's limit
/** Nested indexes deeper than this are refused, in a layout and in a registry's answers. */
export const MAX_INDEX_DEPTH = 8;
/** A descriptor's digest, as the CLI accepts it: sha256 only, lowercase hex (captured). */
export const OCI_DIGEST = /^sha256:([0-9a-f]{64})$/;

/**
 * @typedef {{ mediaType: string, digest: string, size: number }} Descriptor
 * @typedef {{ descriptor: Descriptor, bytes: Uint8Array }} LayoutManifest
 * @typedef {{ root: LayoutManifest, manifests: LayoutManifest[], blobs: Descriptor[],
 *   blobPath: (digest: string) => string }} ImageToPush
 */

/**
 * A layout's JSON file (at most MAX_MANIFEST_BYTES), parsed; unreadable or not JSON → UsageError.
 * @param {string} path
 * @param {string} what the file's name in messages
 * @returns {Promise<any>} the parsed JSON, checked by its callers field by field
 */
async function readJson(path, what) {
  let text;
  try {
    text = await readBoundedText(path, MAX_MANIFEST_BYTES, what);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`not an OCI image layout: cannot read ${what} (${errorMessage(error)})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${errorMessage(error)}`);
  }
}

/** @param {unknown} value @param {string} where @returns {Descriptor} */
function checkDescriptor(value, where) {
  const { mediaType, digest, size } = /** @type {Record<string, unknown>} */ (value ?? {});
  if (typeof digest !== "string" || !OCI_DIGEST.test(digest)) {
    throw new UsageError(`${where}: expected a sha256:<64 lowercase hex> digest, got ${JSON.stringify(digest)}`);
  }
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
    throw new UsageError(`${where}: expected a size in bytes, got ${JSON.stringify(size)}`);
  }
  if (typeof mediaType !== "string" || mediaType === "") throw new UsageError(`${where}: no mediaType`);
  return { mediaType, digest, size };
}

/**
 * Reads the layout at `dir` and selects one index.json entry: the one
 * annotated org.opencontainers.image.ref.name = `select` (a string, or
 * `{ name }`), or the one with `{ digest }`; else the only entry when there
 * is exactly one — unless `{ exact: true }` (an entry the user named).
 * @param {string} dir
 * @param {string | { name?: string, digest?: string, exact?: boolean }} select
 * @returns {Promise<ImageToPush>}
 */
export async function readLayoutImage(dir, select) {
  const { name: tag, digest, exact = false } = typeof select === "string" ? { name: select } : select;
  const wanted = tag === undefined ? `digest ${digest}` : `named "${tag}"`;
  const layout = await readJson(join(dir, "oci-layout"), "oci-layout");
  if (typeof layout?.imageLayoutVersion !== "string" || !layout.imageLayoutVersion.startsWith("1.")) {
    throw new UsageError(
      `${join(dir, "oci-layout")}: expected imageLayoutVersion "1.0.0", got ${JSON.stringify(layout?.imageLayoutVersion)}`,
    );
  }
  const index = await readJson(join(dir, "index.json"), "index.json");
  const entries = Array.isArray(index?.manifests) ? index.manifests : [];
  if (entries.length === 0) throw new UsageError(`${join(dir, "index.json")} lists no manifests`);
  const named = entries.filter((/** @type {any} */ entry) =>
    tag === undefined ? entry?.digest === digest : entry?.annotations?.[REF_NAME] === tag,
  );
  let chosen;
  if (named.length === 1) chosen = named[0];
  else if (named.length === 0 && entries.length === 1 && !exact) chosen = entries[0];
  else {
    const names = entries
      .map((/** @type {any} */ entry) => entry?.annotations?.[REF_NAME])
      .filter((/** @type {unknown} */ name) => typeof name === "string");
    throw new UsageError(
      named.length > 1
        ? `index.json has ${named.length} entries ${wanted}`
        : `index.json has no entry ${wanted} (${REF_NAME}); it has: ${names.join(", ") || "no named entries"}`,
    );
  }
  const blobPath = (/** @type {string} */ digest) => join(dir, "blobs", "sha256", digest.slice("sha256:".length));
  /** @type {LayoutManifest[]} */
  const manifests = [];
  /** @type {Map<string, Descriptor>} */
  const blobs = new Map();
  /** @type {Set<string>} */
  const visited = new Set();

  /** @type {(descriptor: Descriptor, where: string) => Promise<Uint8Array>} */
  const readManifest = async (descriptor, where) => {
    if (descriptor.size > MAX_MANIFEST_BYTES) {
      throw new UsageError(`${where}: manifest of ${descriptor.size} bytes exceeds ${MAX_MANIFEST_BYTES}`);
    }
    let bytes;
    try {
      // At most the size checked above (+1 to tell): the file may be larger than its descriptor says.
      bytes = await readBoundedFile(blobPath(descriptor.digest), MAX_MANIFEST_BYTES, "manifest");
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`the layout is missing ${descriptor.digest} (${where}): ${errorMessage(error)}`);
    }
    const actual = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    if (bytes.byteLength !== descriptor.size || actual !== descriptor.digest) {
      throw new UsageError(
        `layout blob ${descriptor.digest} (${where}) is ${bytes.byteLength} bytes hashing to ${actual}; `
          + `its descriptor says ${descriptor.size} bytes, ${descriptor.digest}`,
      );
    }
    return bytes;
  };

  /** @type {(value: unknown, where: string) => Promise<void>} */
  const addBlob = async (value, where) => {
    const descriptor = checkDescriptor(value, where);
    if (blobs.has(descriptor.digest)) return;
    let info;
    try {
      info = await stat(blobPath(descriptor.digest));
    } catch (error) {
      throw new UsageError(`the layout is missing ${descriptor.digest} (${where}): ${errorMessage(error)}`);
    }
    if (!info.isFile() || info.size !== descriptor.size) {
      throw new UsageError(
        `layout blob ${descriptor.digest} (${where}) is ${info.size} bytes; its descriptor says ${descriptor.size}`,
      );
    }
    blobs.set(descriptor.digest, descriptor);
  };

  /**
   * Post-order walk: children are pushed before the manifest naming them.
   * @type {(value: unknown, where: string, depth: number) => Promise<LayoutManifest | undefined>}
   */
  const walk = async (value, where, depth) => {
    const descriptor = checkDescriptor(value, where);
    if (visited.has(descriptor.digest)) return undefined;
    visited.add(descriptor.digest);
    if (depth > MAX_INDEX_DEPTH) throw new UsageError(`${where}: indexes nested deeper than ${MAX_INDEX_DEPTH}`);
    const bytes = await readManifest(descriptor, where);
    let json;
    try {
      json = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new UsageError(`${where}: ${descriptor.digest} is not JSON`);
    }
    const type = descriptor.mediaType;
    if (INDEX_TYPES.has(type)) {
      const children = Array.isArray(json?.manifests) ? json.manifests : [];
      for (const [position, child] of children.entries()) {
        await walk(child, `${descriptor.digest} manifests[${position}]`, depth + 1);
      }
    } else if (MANIFEST_TYPES.has(type)) {
      await addBlob(json?.config, `${descriptor.digest} config`);
      const layers = Array.isArray(json?.layers) ? json.layers : [];
      for (const [position, layer] of layers.entries()) await addBlob(layer, `${descriptor.digest} layers[${position}]`);
    } else {
      throw new UsageError(`${where}: unsupported media type ${type} (expected an OCI or Docker v2 manifest or index)`);
    }
    const entry = { descriptor, bytes };
    manifests.push(entry);
    return entry;
  };

  const root = await walk(chosen, `index.json entry ${wanted}`, 0);
  // The first walk visits nothing seen before: it always returns its manifest.
  if (root === undefined) throw new TypeError("the layout walk returned no root manifest");
  return { root, manifests, blobs: [...blobs.values()], blobPath };
}
