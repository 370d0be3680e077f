// OciRegistryRepository: the authoritative answer of an OCI distribution
// registry, for ArtifactExistenceService. Existence is the distribution
// spec's `HEAD /v2/<name>/blobs/sha256:<hex>`: 200 → true, 404 → false,
// anything else (a 3xx included: redirects are not followed) rejects with
// an OciRegistryError carrying `status` and `code` — never a guess.
//
// catalogVersion: a registry has no catalog versions; it answers for *now*.
// The service passes the catalogVersion of the snapshot that said "maybe";
// this repository checks that it is a valid version and otherwise ignores
// it. Answering "now" for an older snapshot is safe for a pusher: a blob
// pushed since then is found (no upload), a blob deleted since then is
// uploaded again. Pass `options.catalogVersion` to pin the one snapshot
// version this repository may be asked about (any other version rejects
// with code `catalogVersionMismatch`), e.g. to catch a snapshot of another
// repository being used by mistake.

import { digestError, isUint8Array, rangeError, typeError } from "../core/errors.js";
import { toHex } from "../core/text-codec.js";
import { checkSignal } from "../core/deadline.js";
import { checkCatalogVersion, DIGEST_LENGTH } from "../wasm/format-rules.js";
import { OciRegistryError, RegistryClient } from "./oci-client.js";

export { OciRegistryError } from "./oci-client.js";

/** Module-private option: reuse an existing client (the CLI's, for one auth state and one request count). */
const CLIENT = Symbol("client");

/**
 * @typedef {import("./oci-client.js").RegistryCredentials} RegistryCredentials
 * @typedef {import("./oci-client.js").RegistryRequestCounts} RegistryRequestCounts
 */

/** @typedef {import("../client-types.js").OciRegistryRepositoryOptions} OciRegistryRepositoryOptions */

/** @param {string} parameter @param {unknown} digest @returns {Uint8Array} */
function checkDigest(parameter, digest) {
  if (!isUint8Array(digest) || /** @type {Uint8Array} */ (digest).byteLength !== DIGEST_LENGTH) {
    throw digestError(parameter, digest);
  }
  return /** @type {Uint8Array} */ (digest);
}

export class OciRegistryRepository {
  #client;
  #concurrency;
  /** @type {number | undefined} */
  #pinnedVersion;

  /**
   * @param {string | URL} registryUrl the registry root, e.g. "https://registry.example" or "http://127.0.0.1:5000"
   * @param {string} repository the repository name, e.g. "team/app"
   * @param {OciRegistryRepositoryOptions} [options]
   */
  constructor(registryUrl, repository, options = {}) {
    const {
      concurrency = 8,
      catalogVersion,
      [CLIENT]: client,
      ...clientOptions
    } = /** @type {OciRegistryRepositoryOptions & { [CLIENT]?: RegistryClient }} */ (options ?? {});
    if (typeof concurrency !== "number" || !Number.isSafeInteger(concurrency) || concurrency < 1) {
      throw rangeError("options.concurrency", "an integer ≥ 1", concurrency);
    }
    if (catalogVersion !== undefined) checkCatalogVersion("options.catalogVersion", catalogVersion);
    this.#client = client ?? new RegistryClient(registryUrl, repository, clientOptions);
    this.#concurrency = concurrency;
    this.#pinnedVersion = catalogVersion;
  }

  /** The repository name. */
  get repository() {
    return this.#client.name;
  }

  /** Requests sent so far, by method (`head` = existence checks), plus token fetches. */
  get requests() {
    return this.#client.requests;
  }

  /**
   * Whether the blob is linked into this repository now.
   * @param {Uint8Array} digest a 32-byte SHA-256 digest
   * @param {number} catalogVersion the asking snapshot's version (checked, see the file comment)
   * @param {AbortSignal} [signal]
   * @returns {Promise<boolean>}
   */
  async existsAtVersionAsync(digest, catalogVersion, signal) {
    checkDigest("digest", digest);
    this.#checkAsked(catalogVersion);
    return this.#head(digest, checkSignal(signal));
  }

  /**
   * One HEAD per digest, at most `concurrency` in flight; one boolean
   * (exists) per digest, in order. The first failure rejects and stops
   * the HEADs not yet sent.
   * @param {readonly Uint8Array[]} digests
   * @param {number} catalogVersion
   * @param {AbortSignal} [signal]
   * @returns {Promise<boolean[]>}
   */
  async existsManyAtVersionAsync(digests, catalogVersion, signal) {
    if (!Array.isArray(digests)) throw typeError("digests", "an array of 32-byte Uint8Array", digests);
    const list = digests.map((digest, index) => checkDigest(`digests[${index}]`, digest));
    this.#checkAsked(catalogVersion);
    return this.#headAll(list, checkSignal(signal));
  }

  /**
   * The digests (same objects, input order) this repository does not have,
   * asking about every one (no snapshot): the baseline a snapshot improves on.
   * @param {readonly Uint8Array[]} digests
   * @param {AbortSignal} [signal]
   * @returns {Promise<Uint8Array[]>}
   */
  async findMissingAsync(digests, signal) {
    if (!Array.isArray(digests)) throw typeError("digests", "an array of 32-byte Uint8Array", digests);
    const list = digests.map((digest, index) => checkDigest(`digests[${index}]`, digest));
    const exists = await this.#headAll(list, checkSignal(signal));
    return list.filter((_, index) => !exists[index]);
  }

  /**
   * @param {readonly Uint8Array[]} list
   * @param {AbortSignal | undefined} signal
   * @returns {Promise<boolean[]>}
   */
  async #headAll(list, signal) {
    signal?.throwIfAborted();
    const answers = new Array(list.length).fill(false);
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        controller.signal.throwIfAborted(); // the caller aborted, or a sibling failed
        const index = next;
        next += 1;
        answers[index] = await this.#head(/** @type {Uint8Array} */ (list[index]), controller.signal);
      }
    };
    const stopSiblings = (/** @type {unknown} */ error) => {
      controller.abort(error);
      throw error;
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.#concurrency, list.length) }, () => worker().catch(stopSiblings)));
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
    return answers;
  }

  /**
   * @param {Uint8Array} digest
   * @param {AbortSignal | undefined} signal
   * @returns {Promise<boolean>}
   */
  async #head(digest, signal) {
    const name = `sha256:${toHex(digest)}`;
    const response = await this.#client.send("HEAD", `blobs/${name}`, signal === undefined ? {} : { signal });
    if (response.status === 404) return false;
    if (response.status !== 200)
      throw this.#client.error("HEAD", response.url, response, "expected 200 (exists) or 404 (absent)");
    // A registry names the blob it found; another digest is not this blob.
    const named = response.headers.get("docker-content-digest");
    if (named !== null && named !== name) {
      throw new OciRegistryError(`HEAD ${response.url} answered 200 for ${named}, not ${name}`, {
        code: "digestMismatch",
        status: 200,
      });
    }
    return true;
  }

  /** @param {unknown} catalogVersion */
  #checkAsked(catalogVersion) {
    checkCatalogVersion("catalogVersion", catalogVersion);
    if (this.#pinnedVersion !== undefined && catalogVersion !== this.#pinnedVersion) {
      const error = new RangeError(
        `catalogVersion must be ${this.#pinnedVersion} (options.catalogVersion of this repository), got ${catalogVersion}`,
      );
      throw Object.assign(error, { code: "catalogVersionMismatch" });
    }
  }
}

/**
 * An OciRegistryRepository that sends its HEADs through `client`: one set
 * of credentials, one token cache and one request count for the HEADs and
 * whatever else the caller sends through it (the CLI's push: the uploads).
 * @param {RegistryClient} client
 * @param {{ concurrency?: number }} [options]
 * @returns {OciRegistryRepository}
 */
export function repositoryOverClient(client, options = {}) {
  const withClient = /** @type {OciRegistryRepositoryOptions} */ ({ ...options, [CLIENT]: client });
  return new OciRegistryRepository("http://unused.invalid", client.name, withClient);
}
