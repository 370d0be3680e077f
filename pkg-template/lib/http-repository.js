// An ArtifactRepository that asks the demo server's existence API over HTTP
// (browsers and Node's global fetch). It is the exact, authoritative answer
// that a Bloom "maybe" must be confirmed with.

import { isUint8Array, rangeError, typeError } from "./errors.js";

function checkVersion(catalogVersion) {
  if (typeof catalogVersion !== "number" || !Number.isSafeInteger(catalogVersion) || catalogVersion < 0) {
    throw rangeError("catalogVersion", "an integer from 0 to 2^53 - 1", catalogVersion);
  }
}

function toHex(digest) {
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

export class HttpArtifactRepository {
  #base;
  #fetch;
  /** Requests sent so far, by kind (for summaries; the server counts too). */
  requests = { exists: 0, findMissing: 0 };

  /**
   * @param baseUrl the server root, e.g. "http://127.0.0.1:8080/"
   * @param options.fetch a fetch implementation (default: globalThis.fetch)
   */
  constructor(baseUrl, options) {
    if (typeof baseUrl !== "string" && !(baseUrl instanceof URL)) {
      throw typeError("baseUrl", "a URL or a URL string", baseUrl);
    }
    try {
      this.#base = new URL(baseUrl, globalThis.location?.href);
    } catch {
      throw typeError("baseUrl", "a valid absolute URL (or a path, in a page)", baseUrl);
    }
    const fetchImpl = options?.fetch ?? globalThis.fetch?.bind(globalThis);
    if (typeof fetchImpl !== "function") throw typeError("options.fetch", "a fetch function", fetchImpl);
    this.#fetch = fetchImpl;
  }

  /** HEAD /blobs/sha256/<hex>?catalogVersion=N → true (200) / false (404). */
  async existsAtVersionAsync(digest, catalogVersion, signal) {
    if (!isUint8Array(digest) || digest.byteLength !== 32) throw rangeError("digest", "a 32-byte Uint8Array", digest);
    checkVersion(catalogVersion);
    this.requests.exists += 1;
    const url = new URL(`blobs/sha256/${toHex(digest)}`, this.#base);
    url.searchParams.set("catalogVersion", String(catalogVersion));
    const response = await this.#fetch(url, { method: "HEAD", signal });
    if (response.status === 200) return true;
    if (response.status === 404) return false;
    // Anything else is not an answer: never turn it into "absent".
    throw new Error(`HEAD ${url} answered ${response.status} ${response.statusText}`);
  }

  /** POST /blobs:findMissing → one boolean (exists) per digest, in order. */
  async existsManyAtVersionAsync(digests, catalogVersion, signal) {
    if (!Array.isArray(digests)) throw typeError("digests", "an array of 32-byte Uint8Array", digests);
    // Validate before anything is sent: a wrong-length or non-Uint8Array
    // element must never come back as "absent".
    digests.forEach((digest, index) => {
      if (!isUint8Array(digest) || digest.byteLength !== 32) {
        throw rangeError(`digests[${index}]`, "a 32-byte Uint8Array", digest);
      }
    });
    checkVersion(catalogVersion);
    this.requests.findMissing += 1;
    const hexes = digests.map(toHex);
    // "./" keeps "blobs:" from parsing as a URL scheme.
    const url = new URL("./blobs:findMissing", this.#base);
    const response = await this.#fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ catalogVersion, digests: hexes }),
      signal,
    });
    if (!response.ok) throw new Error(`POST ${url} answered ${response.status} ${response.statusText}`);
    const body = await response.json();
    // A malformed answer must never read as "everything exists": that would
    // skip uploads of blobs the repository lacks.
    if (body?.catalogVersion !== catalogVersion || !Array.isArray(body.missing)
      || !body.missing.every((hex) => typeof hex === "string")) {
      throw new Error(`POST ${url} answered a malformed body (expected { catalogVersion: ${catalogVersion}, missing: [hex…] })`);
    }
    const absent = new Set(body.missing.map((hex) => hex.toLowerCase()));
    return hexes.map((hex) => !absent.has(hex));
  }
}
