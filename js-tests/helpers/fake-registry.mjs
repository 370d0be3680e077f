// A scripted "registry" on 127.0.0.1 port 0, for the hostile answers a real
// registry never gives: a Link or token realm naming another host, a huge or
// endless body, a tag page of 200k entries. Each server records every
// request (method, path, Authorization), so a second one started beside it
// plays "another host" (a different port is a different origin) and tells
// whether credentials reached it.
//
//   const other = await startScriptedServer((req, res) => res.writeHead(404).end());
//   const registry = await startScriptedServer(routes({ "GET /v2/app/tags/list": … }));
import { createHash } from "node:crypto";
import { createServer } from "node:http";

export const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";

/**
 * Starts a server whose every request goes to `handle(req, res, url)` →
 * { url, host, origin, requests, stop() }. `requests` is the record:
 * [{ method, path, authorization }] in arrival order.
 */
export async function startScriptedServer(handle) {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method, path: req.url, authorization: req.headers.authorization });
    const url = new URL(req.url, "http://scripted");
    Promise.resolve()
      .then(() => handle(req, res, url))
      .catch((error) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
        else res.destroy();
      });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    origin,
    host: `127.0.0.1:${port}`,
    requests,
    /** The requests that carried an Authorization header. */
    authorized: () => requests.filter((entry) => entry.authorization !== undefined),
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A JSON answer. */
export function sendJson(res, status, value, headers = {}) {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers }).end(body);
}

/** 401 unless the request carries `Basic base64(user:password)`; true when it was answered. */
export function refuseWithoutBasic(req, res, user, password) {
  if (req.headers.authorization === `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`) return false;
  req.resume();
  sendJson(
    res,
    401,
    { errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] },
    { "www-authenticate": 'Basic realm="scripted"' },
  );
  return true;
}

/**
 * A minimal valid OCI image manifest (config + one layer, digests made up:
 * enumeration never reads them) → { bytes, digest }.
 */
export function tinyManifest(label = "tiny") {
  const fake = (what) => `sha256:${createHash("sha256").update(`${label}-${what}`).digest("hex")}`;
  const bytes = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: fake("config"), size: 2 },
      layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: fake("layer"), size: 3 }],
    }),
  );
  return { bytes, digest: `sha256:${createHash("sha256").update(bytes).digest("hex")}` };
}

/** Answers a manifest GET with `manifest` (as a real registry would: type, length, digest). */
export function sendManifest(res, manifest) {
  res
    .writeHead(200, {
      "content-type": OCI_MANIFEST,
      "content-length": manifest.bytes.byteLength,
      "docker-content-digest": manifest.digest,
    })
    .end(manifest.bytes);
}

/**
 * Streams `total` bytes of `fill` (1 MiB writes, honouring backpressure)
 * until done or the client goes away; resolves the bytes written. With
 * `declareLength` the Content-Length is sent, else the body is chunked.
 * @returns {Promise<number>}
 */
export function streamBody(
  res,
  status,
  total,
  { declareLength = false, contentType = "application/json", fill = 0x20, headers = {} } = {},
) {
  const chunk = Buffer.alloc(1024 * 1024, fill);
  res.writeHead(status, { "content-type": contentType, ...(declareLength ? { "content-length": total } : {}), ...headers });
  return new Promise((resolve) => {
    let written = 0;
    let closed = false;
    res.once("close", () => {
      closed = true;
      resolve(written);
    });
    const pump = () => {
      while (!closed && written < total) {
        const piece = total - written >= chunk.length ? chunk : chunk.subarray(0, total - written);
        written += piece.length;
        if (!res.write(piece)) {
          res.once("drain", pump);
          return;
        }
      }
      if (!closed) res.end();
    };
    pump();
  });
}
