// A static file host in-process (node:http on 127.0.0.1, port 0) that
// answers as nginx does: a validator from mtime and size, Last-Modified to
// the second, 304 for a matching If-None-Match (any tag of a list) or an
// exact If-Modified-Since, Content-Type by extension. `etag: false` sends
// Last-Modified only (nginx `etag off`, python3 -m http.server).
// `requests` records what each GET sent and got, for tests that count.
import { readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { join, normalize } from "node:path";

const TYPES = { ".json": "application/json", ".abf1": "application/octet-stream", ".abd1": "application/octet-stream" };

/**
 * Serves `root` (a directory, or a single file at every path) → { url, requests, close() }.
 * @param {string} root
 * @param {{ etag?: boolean, file?: boolean }} [options] `file`: `root` is one file served at any path
 */
export async function startStaticFileHost(root, { etag = true, file = false } = {}) {
  const requests = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://host").pathname;
    const target = file ? root : join(root, normalize(decodeURIComponent(path)).replace(/^(\.\.[/\\])+/, ""));
    const record = {
      path,
      ifNoneMatch: request.headers["if-none-match"],
      ifModifiedSince: request.headers["if-modified-since"],
      status: 404,
      bytes: 0,
    };
    requests.push(record);
    let stat;
    try {
      stat = statSync(target);
    } catch {
      response.writeHead(404).end();
      return;
    }
    if (!stat.isFile()) {
      response.writeHead(404).end();
      return;
    }
    const seconds = Math.floor(stat.mtimeMs / 1000);
    const lastModified = new Date(seconds * 1000).toUTCString();
    const tag = `"${seconds.toString(16)}-${stat.size.toString(16)}"`;
    const headers = { "Last-Modified": lastModified, ...(etag ? { ETag: tag } : {}) };
    const inm = record.ifNoneMatch;
    const matched =
      inm !== undefined ? etag && inm.split(",").some((t) => t.trim() === tag) : record.ifModifiedSince === lastModified;
    if (matched) {
      record.status = 304;
      response.writeHead(304, headers).end();
      return;
    }
    const body = readFileSync(target);
    record.status = 200;
    record.bytes = body.byteLength;
    const type = TYPES[path.slice(path.lastIndexOf("."))] ?? "application/octet-stream";
    response.writeHead(200, { ...headers, "Content-Type": type, "Content-Length": body.byteLength }).end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
