// Uploads to a distribution registry (the spec's push section): a blob goes
// up in one streamed request (POST → 202 Location, PUT Location?digest=
// with the bytes → 201), or, with a chunk size, in streamed PATCH chunks
// with Content-Range and a final empty PUT. The bytes are hashed as they
// are read; a blob whose content does not hash to its name is never
// committed (its last byte is withheld and the session cancelled with
// DELETE). Every commit is checked against the registry's
// Docker-Content-Digest.
import { createHash } from "node:crypto";
import { OciRegistryError } from "artifact-bloom/oci";
import { BlobSource } from "./upload-stream.mjs";

const OCTETS = { "content-type": "application/octet-stream" };

/**
 * The upload URL of a 202 answer (Location may be relative); one on another
 * origin than the registry is refused (crossOrigin), see oci-client.js.
 * @param {import("../../lib/repositories/oci-client.js").RegistryClient} client
 * @param {import("../../lib/repositories/oci-client.js").RegistryResponse} response
 * @returns {URL}
 */
function locationOf(client, response) {
  const location = response.headers.get("location");
  if (!location) {
    throw new OciRegistryError(`${response.url} answered ${response.status} without a Location for the upload`, {
      code: "badResponse",
      status: response.status,
    });
  }
  return client.resolve(location, response.url, `the upload Location of ${response.url}`);
}

/** @param {URL} location @param {string} digest @returns {URL} */
function withDigest(location, digest) {
  const url = new URL(location);
  url.searchParams.set("digest", digest);
  return url;
}

/**
 * Checks Docker-Content-Digest (when the registry sends it) against what was pushed.
 * @param {import("../../lib/repositories/oci-client.js").RegistryResponse} response
 * @param {string} expected
 * @param {string} what
 */
function checkContentDigest(response, expected, what) {
  const named = response.headers.get("docker-content-digest");
  if (named !== null && named !== expected) {
    throw new OciRegistryError(
      `${what}: the registry stored ${named}, not ${expected} (Docker-Content-Digest of ${response.url})`,
      { code: "digestMismatch", status: response.status },
    );
  }
}

/**
 * After a 201: the registry's Docker-Content-Digest must name what was sent;
 * when it sends none, one read-back by digest (HEAD of a blob, GET of a
 * manifest, hashed) proves it is stored, so nothing unreadable is reported
 * as pushed. → the requests the read-back took (0 or 1).
 * @param {import("../../lib/repositories/oci-client.js").RegistryClient} client
 * @param {import("../../lib/repositories/oci-client.js").RegistryResponse} done the 201
 * @param {"blob" | "manifest"} kind
 * @param {string} digest
 * @param {string} [mediaType] a manifest's, for Accept
 * @returns {Promise<number>}
 */
async function checkCommitted(client, done, kind, digest, mediaType) {
  checkContentDigest(done, digest, `${kind} ${digest}`);
  if (done.headers.get("docker-content-digest") !== null) return 0;
  const notStored = (/** @type {string} */ came) =>
    new OciRegistryError(
      `${done.url} answered 201 without Docker-Content-Digest, and reading ${kind} ${digest} back ${came}:`
        + " the registry did not store it",
      { code: "notStored" },
    );
  if (kind === "blob") {
    const head = await client.send("HEAD", `blobs/${digest}`);
    if (head.status !== 200) throw notStored(`answered ${head.status}`);
    checkContentDigest(head, digest, `blob ${digest}`);
    return 1;
  }
  const read = await client.send("GET", `manifests/${digest}`, { headers: { accept: String(mediaType) }, limit: "manifest" });
  if (read.status !== 200) throw notStored(`answered ${read.status}`);
  const actual = `sha256:${createHash("sha256").update(read.body).digest("hex")}`;
  if (actual !== digest) throw notStored(`gave bytes hashing to ${actual}`);
  return 1;
}

/**
 * Sends one upload request with a streamed body; when the stream stopped on
 * the blob's own bytes (digestMismatch), that is the error, not the aborted
 * request it caused, and the session is cancelled (DELETE, best effort).
 * @param {import("../../lib/repositories/oci-client.js").RegistryClient} client
 * @param {BlobSource} source
 * @param {URL} location the upload session
 * @param {() => Promise<import("../../lib/repositories/oci-client.js").RegistryResponse>} send
 */
async function sendStreamed(client, source, location, send) {
  try {
    const answer = await send();
    if (source.failure === undefined) return answer;
  } catch (error) {
    if (source.failure === undefined) throw error;
  }
  await client.send("DELETE", location).catch(() => {});
  throw source.failure;
}

/**
 * Uploads one blob from `path`, streamed from disk and hashed on the way.
 * Without `chunkSize` (or when the blob fits in one chunk): POST, then ONE
 * PUT Location?digest= carrying the whole blob (the spec's monolithic "POST
 * then PUT"). Otherwise PATCH chunks of that size (Content-Range, each streamed too), then an empty
 * PUT ?digest=. Either way the digest is checked before the last byte goes
 * out (see upload-stream.mjs), and the commit against Docker-Content-Digest.
 * @param {import("../../lib/repositories/oci-client.js").RegistryClient} client
 * @param {string} path
 * @param {{ digest: string, size: number }} descriptor
 * @param {{ chunkSize?: number, onProgress?: (sent: number) => void }} options
 * @returns {Promise<{ chunks: number, readBacks: number }>} PATCH requests used (0: one PUT), read-backs (see checkCommitted)
 */
export async function uploadBlob(client, path, descriptor, { chunkSize, onProgress }) {
  const { digest, size } = descriptor;
  const source = await BlobSource.open(path, descriptor);
  try {
    const started = await client.expect("POST", "blobs/uploads/", [202]);
    let location = locationOf(client, started);
    let chunks = 0;
    let done;
    if (chunkSize === undefined || size <= chunkSize) {
      done = await sendStreamed(client, source, location, () =>
        client.expect("PUT", withDigest(location, digest), [201], {
          headers: { ...OCTETS, "content-length": String(size) },
          body: source.body(0, size, onProgress),
        }),
      );
    } else {
      for (let offset = 0; offset < size; offset += chunkSize) {
        const end = Math.min(size, offset + chunkSize);
        const session = location;
        const answer = await sendStreamed(client, source, session, () =>
          client.expect("PATCH", session, [202], {
            headers: { ...OCTETS, "content-range": `${offset}-${end - 1}`, "content-length": String(end - offset) },
            body: source.body(offset, end, onProgress),
          }),
        );
        chunks += 1;
        // Range: 0-<last byte received> (some registries write bytes=0-N).
        const range = /(\d+)-(\d+)\s*$/.exec(answer.headers.get("range") ?? "");
        if (range !== null && Number(range[2]) !== end - 1) {
          throw new OciRegistryError(`PATCH ${session} answered Range ${range[0]}; expected 0-${end - 1}`, {
            code: "badResponse",
            status: 202,
          });
        }
        location = locationOf(client, answer);
      }
      done = await client.expect("PUT", withDigest(location, digest), [201]);
    }
    return { chunks, readBacks: await checkCommitted(client, done, "blob", digest) };
  } finally {
    await source.close();
  }
}

/**
 * PUT /v2/<name>/manifests/<reference> with the exact bytes.
 * @param {import("../../lib/repositories/oci-client.js").RegistryClient} client
 * @param {string} reference a tag or the manifest's digest
 * @param {{ descriptor: { mediaType: string, digest: string }, bytes: Uint8Array }} manifest
 * @returns {Promise<number>} read-backs (see checkCommitted)
 */
export async function putManifest(client, reference, { descriptor, bytes }) {
  const done = await client.expect("PUT", `manifests/${reference}`, [201], {
    headers: { "content-type": descriptor.mediaType },
    body: bytes,
  });
  return checkCommitted(client, done, "manifest", descriptor.digest, descriptor.mediaType);
}
