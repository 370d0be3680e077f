// The layout `artifact-bloom serve` publishes what it serves into: a
// LayoutStore (artifact-bloom/server, lib/server/layout-store.js) held in
// memory. serve publishes each unit it swaps to through publishToLayout, so
// the library's handler answers GET /snapshot (and the layout's own routes)
// from it, deltas included; the publisher prunes what no delta base needs.
// In memory, not in a temp directory: a serve that is killed leaves nothing
// behind, and the files are small next to the catalog list serve holds.

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
