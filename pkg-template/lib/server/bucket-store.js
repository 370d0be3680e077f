// A layout in an object-store bucket with the Cloudflare R2 binding's API
// (`get`, `head`, `put`, `list`, `delete`): a Worker serves and publishes
// the layout from its bucket binding; an S3 client wrapped in those five
// calls works the same. A `put` of one object is atomic in such stores (a
// reader sees the old object or the new), which is all writeAtomically
// needs.

import { typeError } from "../core/errors.js";

/**
 * The part of an R2 bucket binding the store uses.
 *
 * @typedef {{
 *   get(key: string): Promise<{ size: number; uploaded?: Date; body: ReadableStream<Uint8Array>;
 *     arrayBuffer(): Promise<ArrayBuffer> } | null>;
 *   head(key: string): Promise<{ size: number; uploaded?: Date } | null>;
 *   put(key: string, value: Uint8Array): Promise<unknown>;
 *   list(options: { prefix: string; delimiter?: string; cursor?: string }): Promise<{
 *     objects: { key: string }[]; truncated: boolean; cursor?: string }>;
 *   delete(key: string): Promise<void>;
 * }} LayoutBucket
 */

/**
 * A LayoutStore over `bucket`, its keys under `prefix` (e.g. "catalog/").
 *
 * @param {LayoutBucket} bucket
 * @param {{ prefix?: string }} [options]
 * @returns {import("./layout-store.js").LayoutStore}
 */
export function bucketLayoutStore(bucket, { prefix = "" } = {}) {
  for (const method of ["get", "head", "put", "list", "delete"]) {
    if (typeof (/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (bucket))?.[method]) !== "function") {
      throw typeError("bucket", "an R2-style bucket (get, head, put, list, delete)", bucket);
    }
  }
  if (typeof prefix !== "string") throw typeError("prefix", "a string", prefix);
  /** @param {string} path */
  const key = (path) => `${prefix}${path}`;
  return {
    async read(path) {
      const object = await bucket.get(key(path));
      return object === null ? undefined : new Uint8Array(await object.arrayBuffer());
    },
    async writeAtomically(path, bytes) {
      await bucket.put(key(path), bytes);
    },
    async list(folder) {
      const names = [];
      const start = key(folder.endsWith("/") ? folder : `${folder}/`);
      let cursor;
      do {
        const page = await bucket.list({ prefix: start, delimiter: "/", ...(cursor === undefined ? {} : { cursor }) });
        for (const object of page.objects) names.push(object.key.slice(start.length));
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor !== undefined);
      return names;
    },
    async remove(path) {
      await bucket.delete(key(path));
    },
    async modified(path) {
      return (await bucket.head(key(path)))?.uploaded ?? undefined;
    },
    async open(path) {
      const object = await bucket.get(key(path));
      return object === null ? undefined : { size: object.size, modified: object.uploaded, body: object.body };
    },
  };
}
