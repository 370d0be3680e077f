// `serve --layout DIR`: the static layout `publish --layout DIR` writes
// (docs/layout.md), served under /layout/ with the headers a shared cache
// needs to keep it right (docs/hosting.md): the immutable, content-named
// snapshots and deltas for a year, the one mutable file — manifest.json —
// revalidated on every request, each with a validator (ETag and
// Last-Modified) so a poll that finds nothing new costs one 304.
//
// Only the layout's own names are served (manifest.json, snapshots/<hex>.abf1,
// deltas/<hex>-<hex>.abd1): nothing else in DIR, and no path can leave it.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { UsageError } from "../common.mjs";

/** Where the layout's files are served. */
export const LAYOUT_PREFIX = "/layout/";

export const LAYOUT_HELP = `  --layout DIR           also serve the static layout publish --layout DIR
                         writes (docs/layout.md) under /layout/: clients
                         given ${LAYOUT_PREFIX}manifest.json follow it (one
                         conditional GET per poll, deltas as plain files), and
                         a cache in front needs no setting (docs/hosting.md)`;

/** Cache-Control of a file named by its content: it never changes. */
export const IMMUTABLE = "public, max-age=31536000, immutable";
/** Cache-Control of manifest.json: a cache may keep it but must ask before each use. */
export const REVALIDATE = "no-cache";
/**
 * Headers a browser on another origin may read: without ETag among them, a
 * page cannot name what it holds (a host that allows the origin adds
 * Access-Control-Allow-Origin; serve itself answers no CORS).
 */
export const EXPOSED_HEADERS = "ETag, Last-Modified, IM, Delta-Base";

const HEX = "[0-9a-f]{64}";
const SNAPSHOT_NAME = new RegExp(`^snapshots/(${HEX})\\.abf1$`);
const DELTA_NAME = new RegExp(`^deltas/(${HEX})-(${HEX})\\.abd1$`);

/** The entity tags of an If-None-Match header, weak ones compared as strong (RFC 9110 §13.1.2: weak comparison). */
function entityTags(header) {
  if (typeof header !== "string") return [];
  return header.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
}

/**
 * Whether the request's validators match: If-None-Match when sent (it
 * overrides If-Modified-Since, RFC 9110 §13.1.3), else If-Modified-Since
 * at or after the file's mtime (HTTP dates have whole seconds).
 */
function notModified(request, etag, mtime) {
  const tags = entityTags(request.headers["if-none-match"]);
  if (tags.length > 0) return tags.includes(etag) || tags.includes("*");
  const since = Date.parse(request.headers["if-modified-since"] ?? "");
  return Number.isFinite(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

/**
 * The layout directory `dir`, served: a usage error when it is not a
 * directory (its manifest may come later: until then /layout/ answers 404).
 * @param {string} dir
 */
export async function openLayout(dir) {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`--layout: expected a directory (publish --layout writes one), got ${dir}`);
  return new ServedLayout(dir);
}

export class ServedLayout {
  #root;

  /** @param {string} dir the layout's directory (publish --layout DIR) */
  constructor(dir) {
    this.#root = resolve(dir);
  }

  /**
   * Answers GET/HEAD `path` (below LAYOUT_PREFIX) from the layout: 200, 304,
   * 404 for any other name or a file not there (yet or any more), 405 for
   * other methods. `send(response, status, body, headers)` is serve's.
   * @param {import("node:http").IncomingMessage} request
   * @param {import("node:http").ServerResponse} response
   * @param {string} path
   * @param {(response: import("node:http").ServerResponse, status: number, body?: unknown, headers?: object) => void} send
   */
  async answer(request, response, path, send) {
    if (request.method !== "GET" && request.method !== "HEAD") return send(response, 405, "method not allowed");
    const name = path.slice(LAYOUT_PREFIX.length);
    if (name === "manifest.json") return this.#manifest(request, response, send);
    const snapshot = SNAPSHOT_NAME.exec(name);
    const delta = DELTA_NAME.exec(name);
    if (snapshot === null && delta === null) return send(response, 404, "not found");
    // The name is the content: its hex is the strong validator.
    const etag = snapshot === null ? `"${delta[1]}-${delta[2]}"` : `"${snapshot[1]}"`;
    const type = snapshot === null ? "application/vnd.artifact-bloom.abd1" : "application/octet-stream";
    return this.#immutable(request, response, name, { etag, type }, send);
  }

  /** manifest.json: small (the format bounds it at 64 KiB), read whole, its ETag a hash of its bytes. */
  async #manifest(request, response, send) {
    const file = join(this.#root, "manifest.json");
    let bytes;
    let info;
    try {
      // stat first: a rename between the two reads leaves an older mtime, never a newer one than the bytes.
      info = await stat(file);
      bytes = await readFile(file);
    } catch {
      return send(response, 404, "not found");
    }
    const etag = `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"`;
    const headers = {
      "cache-control": REVALIDATE,
      etag,
      "last-modified": info.mtime.toUTCString(),
      "access-control-expose-headers": EXPOSED_HEADERS,
    };
    if (notModified(request, etag, info.mtime)) return send(response, 304, undefined, headers);
    const body = request.method === "HEAD" ? undefined : bytes;
    return send(response, 200, body, { ...headers, "content-type": "application/json", "content-length": bytes.byteLength });
  }

  /** A snapshot or delta file, streamed (a snapshot may be large). */
  async #immutable(request, response, name, { etag, type }, send) {
    const file = join(this.#root, name);
    let info;
    try {
      info = await stat(file);
    } catch {
      return send(response, 404, "not found");
    }
    if (!info.isFile()) return send(response, 404, "not found");
    const headers = {
      "cache-control": IMMUTABLE,
      etag,
      "last-modified": info.mtime.toUTCString(),
      "access-control-expose-headers": EXPOSED_HEADERS,
    };
    if (notModified(request, etag, info.mtime)) return send(response, 304, undefined, headers);
    if (request.method === "HEAD") {
      return send(response, 200, undefined, { ...headers, "content-type": type, "content-length": info.size });
    }
    response.writeHead(200, { ...headers, "content-type": type, "content-length": info.size });
    // A file pruned between stat and open ends the response early: the
    // client sees a short body against Content-Length, never other bytes.
    await pipeline(createReadStream(file), response).catch(() => response.destroy());
    return undefined;
  }
}
