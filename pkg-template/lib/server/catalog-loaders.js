// Catalog loaders for publishCatalog: where the exact digest list of a
// catalog version comes from (the seed's Catalog Loader: "retrieve the
// exact digest list from DB/object storage; acquire catalogVersion").
// The library stays dependency-free: a loader takes the app's own client.

import { typeError } from "../core/errors.js";

/**
 * @import { CatalogVersionSource } from "./catalog-publish.js"
 */

/**
 * What postgresCatalog uses of a `pg` Client or PoolClient (or any client
 * with the same `query`).
 *
 * @typedef {{ query(text: string): Promise<{ rows: Record<string, unknown>[] }> }} SqlClient
 */

/**
 * A loader reading one catalog version from PostgreSQL: the version and
 * the digest list in ONE `REPEATABLE READ` transaction, so they describe
 * the same moment however many rows are inserted meanwhile; the digests
 * through a cursor (`FETCH batchSize`), `SELECT DISTINCT … ORDER BY`, so
 * publishCatalog streams them with memory independent of their number.
 *
 * - `client`: a connected `pg` Client or a PoolClient (kept for the whole
 *   publish; released by you afterwards).
 * - `digestsQuery`: SQL returning one column of digests: `bytea` (32
 *   bytes), or 64-hex-digit text with `hex: true`. Duplicates and order do
 *   not matter: the loader wraps it in DISTINCT … ORDER BY.
 * - `versionQuery`: SQL returning the catalogVersion in its first column.
 * - `batchSize`: rows per FETCH (default 10,000).
 *
 * @example
 * ```ts
 * const client = await pool.connect();
 * try {
 *   await publishCatalog("var/catalog", postgresCatalog({
 *     client,
 *     digestsQuery: "SELECT digest FROM blobs",
 *     versionQuery: "SELECT version FROM catalog_version",
 *   }), { expectedItemCount: 10_000_000, targetFalsePositiveRate: 0.001 });
 * } finally {
 *   client.release();
 * }
 * ```
 *
 * @param {{ client: SqlClient; digestsQuery: string; versionQuery: string; hex?: boolean; batchSize?: number }} options
 * @returns {(context: { signal?: AbortSignal }) => Promise<CatalogVersionSource>}
 */
export function postgresCatalog(options) {
  const { client, digestsQuery, versionQuery, hex = false, batchSize = 10_000 } = options ?? {};
  if (typeof client?.query !== "function") throw typeError("client", "a pg Client or PoolClient", client);
  if (typeof digestsQuery !== "string" || typeof versionQuery !== "string") {
    throw typeError("digestsQuery / versionQuery", "SQL strings", { digestsQuery, versionQuery });
  }
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw typeError("batchSize", "a positive integer", batchSize);
  const column = hex ? "decode(lower(d), 'hex')" : "d";
  const cursor = "artifact_bloom_digests";
  return async ({ signal } = {}) => {
    signal?.throwIfAborted();
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    let open = true;
    const end = async (/** @type {string} */ how) => {
      if (!open) return;
      open = false;
      await client.query(how);
    };
    try {
      const { rows } = await client.query(versionQuery);
      const raw = rows[0] === undefined ? undefined : Object.values(rows[0])[0];
      const catalogVersion = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
      if (!Number.isSafeInteger(catalogVersion) || /** @type {number} */ (catalogVersion) < 0) {
        throw typeError("versionQuery's first column", "an integer from 0 to 2^53 - 1", raw);
      }
      await client.query(
        `DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT DISTINCT ${column} AS digest FROM (${digestsQuery}) AS q(d) ORDER BY 1`,
      );
      return {
        catalogVersion: /** @type {number} */ (catalogVersion),
        sorted: true,
        digests: endingEvenUnread(
          async function* rowsOf() {
            try {
              for (;;) {
                signal?.throwIfAborted();
                const batch = await client.query(`FETCH ${batchSize} FROM ${cursor}`);
                if (batch.rows.length === 0) break;
                for (const row of batch.rows) yield digestOf(row.digest);
              }
              await end("COMMIT");
            } finally {
              await end("ROLLBACK");
            }
          },
          () => end("ROLLBACK"),
        ),
      };
    } catch (error) {
      await end("ROLLBACK").catch(() => {});
      throw error;
    }
  };
}

/**
 * The generator `make` returns, except that `return()` before the first
 * `next()` still calls `end`: a generator that never started skips its
 * `finally`, so a publish refused before reading (its spec, say) would
 * leave the transaction open and the client taken.
 *
 * @param {() => AsyncGenerator<unknown, void, void>} make
 * @param {() => Promise<void>} end
 * @returns {AsyncIterableIterator<unknown>}
 */
function endingEvenUnread(make, end) {
  const generator = make();
  let started = false;
  /** @type {AsyncIterableIterator<unknown>} */
  const iterator = {
    next() {
      started = true;
      return generator.next();
    },
    async return() {
      if (!started) {
        started = true;
        await end();
      }
      return generator.return(undefined);
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/**
 * A bytea as `pg` returns it (a Buffer, which is a Uint8Array), or text.
 * @param {unknown} value
 * @returns {unknown}
 */
function digestOf(value) {
  return value instanceof Uint8Array ? new Uint8Array(value) : value;
}

/**
 * What directoryCatalog uses of node:fs/promises.
 * @typedef {{ readdir(path: string, options: { withFileTypes: true }): Promise<{ name: string; isDirectory(): boolean; isFile(): boolean }[]> }} DirFs
 */

/**
 * A loader for a directory of content-addressed files (a blob store that
 * names each file by its SHA-256 in hex, in any folder depth): every file
 * whose name is 64 hex digits is a digest; other names are not. The
 * directory has no version of its own: pass `catalogVersion`.
 *
 * @param {string} directory
 * @param {{ catalogVersion: number }} options
 * @returns {(context: { signal?: AbortSignal }) => Promise<CatalogVersionSource>}
 */
export function directoryCatalog(directory, options) {
  if (typeof directory !== "string") throw typeError("directory", "a path", directory);
  const { catalogVersion } = options ?? {};
  if (!Number.isSafeInteger(catalogVersion) || catalogVersion < 0) {
    throw typeError("catalogVersion", "an integer from 0 to 2^53 - 1", catalogVersion);
  }
  return async ({ signal } = {}) => {
    const specifier = "node:fs/promises";
    const fs = /** @type {DirFs} */ (await import(specifier));
    return { catalogVersion, sorted: false, digests: walk(fs, directory.replace(/\/+$/, ""), signal) };
  };
}

/**
 * @param {DirFs} fs
 * @param {string} folder
 * @param {AbortSignal | undefined} signal
 * @returns {AsyncGenerator<string>}
 */
async function* walk(fs, folder, signal) {
  signal?.throwIfAborted();
  for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
    if (entry.isDirectory()) yield* walk(fs, `${folder}/${entry.name}`, signal);
    else if (entry.isFile() && /^[0-9a-fA-F]{64}$/.test(entry.name)) yield entry.name;
  }
}
