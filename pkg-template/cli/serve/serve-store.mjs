// The layout `artifact-bloom serve` publishes what it serves into: a
// LayoutStore (artifact-bloom/server, lib/server/layout-store.js) held in
// memory. serve publishes each unit it swaps to through publishToLayout, so
// the library's handler answers GET /snapshot (and the layout's own routes)
// from it, deltas included; the publisher prunes what no delta base needs.
// In memory, not in a temp directory: a serve that is killed leaves nothing
// behind, and the files are small next to the catalog list serve holds.
import { createHash } from "node:crypto";

/**
 * A LayoutStore over a Map: each write replaces the whole file at once.
 * @returns {import("artifact-bloom/server").LayoutStore}
 */
export function memoryLayoutStore() {
  /** @type {Map<string, { bytes: Uint8Array, modified: Date }>} */
  const files = new Map();
  return {
    async read(path) {
      return files.get(path)?.bytes;
    },
    async writeAtomically(path, bytes) {
      // A copy: the caller may reuse its buffer.
      files.set(path, { bytes: new Uint8Array(bytes), modified: new Date() });
    },
    async list(folder) {
      const prefix = `${folder}/`;
      return [...files.keys()].filter((path) => path.startsWith(prefix)).map((path) => path.slice(prefix.length));
    },
    async remove(path) {
      files.delete(path);
    },
    async modified(path) {
      return files.get(path)?.modified;
    },
  };
}

/**
 * Puts a snapshot file that publishToLayout refuses (it does not load: a
 * checksum mismatch, say) into `store` as the layout's current version,
 * as is, with no delta: serve serves the file at --snapshot as a file host
 * would, and the client's checks are what refuse it (the precheck page
 * shows checksumMismatch). Named by its header's checksum, or the SHA-256
 * of its bytes when the header does not read either (--catalog-version).
 * @param {import("artifact-bloom/server").LayoutStore} store
 * @param {{ bytes: Uint8Array, header?: { checksum: string } }} file
 * @param {number} catalogVersion the version serve answers for
 * @param {typeof import("artifact-bloom/server")} library
 */
export async function publishAsIs(store, file, catalogVersion, library) {
  const checksum = file.header?.checksum ?? createHash("sha256").update(file.bytes).digest("hex");
  const url = library.layoutSnapshotPath(checksum);
  const built = library.buildLayoutManifest({ catalogVersion, snapshot: { url, checksum, size: file.bytes.byteLength } });
  if (built.kind === "failure") throw new Error(`cannot serve the snapshot file as is: ${built.message}`);
  await store.writeAtomically(url, file.bytes);
  await store.writeAtomically("manifest.json", new TextEncoder().encode(library.serializeLayoutManifest(built.value)));
}
