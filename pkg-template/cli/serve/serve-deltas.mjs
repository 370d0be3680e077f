// The snapshot versions `artifact-bloom serve` has served, kept as the ABD1
// deltas between them (docs/ABD1.md "HTTP"), so a client several versions
// behind can be sent one composed delta to the current version.
//
// Only the current snapshot is held loaded; each older version is one delta
// (its successor's new bits), a few percent of a full file each. A client's
// delta is composed from the chain once per (its version, current version)
// and cached until the next version. The chain breaks — every kept version
// is dropped — when the new snapshot is no delta away from the previous one
// (another layout, a removed digest, an older catalogVersion): such clients
// get the full file, as they would from a server without deltas.
import { loadSnapshot } from "artifact-bloom";
import { composeSnapshotDeltas, encodeSnapshotDelta } from "artifact-bloom/delta";
import { DELTA_IM } from "artifact-bloom/server";
import { EXPOSED_HEADERS } from "./serve-layout.mjs";

/** Default number of earlier versions a delta is offered from. */
export const DEFAULT_DELTA_HISTORY = 8;

export const DELTA_HELP = `  --delta-history K      earlier snapshot versions a delta is offered from
                         (0 .. 1024, default ${DEFAULT_DELTA_HISTORY}; 0: never a delta)

Deltas (RFC 3229, docs/ABD1.md "HTTP"): the ETag is the ABF1 checksum. A GET
/snapshot with "A-IM: abd1" and "If-None-Match" holding the ETag of one of
the last K versions this server served is answered "226 IM Used", "IM: abd1",
with one ABD1 delta from that version to the current one (the chain of
deltas composed). Kept: only the current snapshot, plus one delta per older
version. Unknown or too old a version, a delta not smaller than the file, or
a republish that is no delta away (another layout, a removed digest) → the
full snapshot (200).
`;

export class DeltaHistory {
  #limit;
  /** @type {{ etag: string, snapshot: object, fullBytes: number } | undefined} the version being served */
  #current;
  /**
   * @type {{ etag: string, catalogVersion: number, delta: Uint8Array }[]} oldest first; each delta leads to the
   *   next entry (the last to #current)
   */
  #chain = [];
  /** @type {Map<string, Uint8Array | null>} composed deltas to #current, by base ETag (null: none is smaller than the file) */
  #composed = new Map();
  /** Delta responses sent and their bytes; full files sent to clients that asked for a delta. */
  deltaResponses = 0;
  deltaBytes = 0;
  fullFallbacks = 0;
  /** Why the chain last broke (an encodeSnapshotDelta code), for /stats. */
  lastBreak = null;

  /** @param {number} limit earlier versions kept (0: deltas off) */
  constructor(limit = DEFAULT_DELTA_HISTORY) {
    this.#limit = limit;
  }

  /**
   * A new snapshot file is being served: its delta from the previous one
   * joins the chain (or the chain breaks). Same ETag: nothing changes.
   * @param {Uint8Array} bytes the ABF1 file
   * @param {string} etag its ETag
   */
  advance(bytes, etag) {
    if (this.#current?.etag === etag || this.#limit === 0) return;
    const loaded = loadSnapshot(bytes);
    const previous = this.#current;
    this.#current = loaded.kind === "success" ? { etag, snapshot: loaded.value, fullBytes: bytes.byteLength } : undefined;
    this.#composed.clear();
    if (previous === undefined) {
      this.#chain = [];
      return;
    }
    // An unloadable file breaks the chain with its own failure.
    const encoded = loaded.kind === "failure" ? loaded : encodeSnapshotDelta(previous.snapshot, loaded.value);
    previous.snapshot.filter.free();
    if (encoded.kind === "failure") {
      this.lastBreak = encoded.error;
      this.#chain = [];
      return;
    }
    this.#chain.push({ etag: previous.etag, catalogVersion: previous.snapshot.catalogVersion, delta: encoded.value });
    if (this.#chain.length > this.#limit) this.#chain.splice(0, this.#chain.length - this.#limit);
  }

  /**
   * The delta to the current version from the first kept version named in
   * `tags` (If-None-Match entity tags): `{ baseTag, bytes }`, or undefined
   * when none is kept or the delta would not be smaller than the file.
   * @param {string[]} tags
   */
  deltaFor(tags) {
    const start = this.#chain.findIndex((entry) => tags.includes(entry.etag));
    if (start === -1 || this.#current === undefined) return undefined;
    const baseTag = this.#chain[start].etag;
    if (!this.#composed.has(baseTag)) this.#composed.set(baseTag, this.#compose(start));
    const bytes = this.#composed.get(baseTag);
    return bytes === null ? undefined : { baseTag, bytes };
  }

  /** The chain from entry `start` to the current version as one delta, or null. */
  #compose(start) {
    let delta = this.#chain[start].delta;
    for (let index = start + 1; index < this.#chain.length; index += 1) {
      const composed = composeSnapshotDeltas(delta, this.#chain[index].delta);
      if (composed.kind === "failure") return null;
      delta = composed.value;
    }
    // Too far behind: the full file costs less to send and to load.
    return delta.byteLength < this.#current.fullBytes ? delta : null;
  }

  /** For GET /stats. */
  stats() {
    return {
      historyLimit: this.#limit,
      keptVersions: this.#chain.map((entry) => entry.catalogVersion),
      deltaResponses: this.deltaResponses,
      deltaBytes: this.deltaBytes,
      fullFallbacks: this.fullFallbacks,
      lastBreak: this.lastBreak,
    };
  }
}

/**
 * GET/HEAD /snapshot for the current `file`: 304 when If-None-Match names
 * it, 226 with a delta when A-IM accepts abd1 and If-None-Match names a kept
 * version, else the full file (200).
 */
export function answerSnapshot(request, response, file, deltas, send) {
  // Vary: a cache must not answer one client's delta request with another's.
  // ETag exposed: a page on another origin names its snapshot with it.
  const headers = {
    etag: file.etag,
    "last-modified": file.lastModified,
    vary: "A-IM, If-None-Match",
    "access-control-expose-headers": EXPOSED_HEADERS,
  };
  const tags = entityTags(request.headers["if-none-match"]);
  if (tags.includes(file.etag) || tags.includes("*")) return send(response, 304, undefined, headers);
  const body = (bytes) => (request.method === "HEAD" ? undefined : bytes);
  if (acceptsDelta(request.headers["a-im"])) {
    const delta = deltas.deltaFor(tags);
    if (delta !== undefined) {
      deltas.deltaResponses += 1;
      deltas.deltaBytes += delta.bytes.byteLength;
      return send(response, 226, body(delta.bytes), {
        ...headers,
        ...NEVER_SHARED,
        im: DELTA_IM,
        "delta-base": delta.baseTag,
        "content-type": "application/vnd.artifact-bloom.abd1",
        "content-length": delta.bytes.byteLength,
      });
    }
    if (tags.length > 0) deltas.fullFallbacks += 1;
  }
  return send(response, 200, body(file.bytes), {
    ...headers,
    "content-type": "application/octet-stream",
    "content-length": file.bytes.length,
  });
}

/**
 * A 226 fits only the client whose If-None-Match named its base: replayed to
 * another, it cannot load (an outage until the cache entry expires). Vary
 * says so to a cache that honours it; these say it to caches set to ignore
 * Vary and Cache-Control: nginx still obeys X-Accel-Expires (0: do not store)
 * unless told to ignore it too, and CDNs obey Surrogate-Control.
 */
const NEVER_SHARED = { "cache-control": "private, no-store", "x-accel-expires": "0", "surrogate-control": "no-store" };

/** The entity tags of an If-None-Match header (`*` included as is). */
function entityTags(header) {
  if (typeof header !== "string") return [];
  return header
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .filter((tag) => tag !== "");
}

// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Whether an A-IM header accepts the ABD1 instance manipulation: an `abd1`
 * item whose weight, if any, is a qvalue above 0. `q=0`, `q=0.0`, `q=0.000`
 * (and, leniently, `q = 0`) mean "not acceptable"; a malformed weight is not
 * taken as acceptance either (the full file is always a correct answer).
 * The token is the library's.
 */
export function acceptsDelta(header) {
  if (typeof header !== "string") return false;
  return header.split(",").some((item) => {
    const [name, ...params] = item.split(";").map((part) => part.trim().toLowerCase());
    if (name !== DELTA_IM) return false;
    const weight = params.map((param) => /^q\s*=\s*(.*)$/.exec(param)).find((match) => match !== null);
    if (weight === undefined) return true;
    return QVALUE.test(weight[1]) && Number(weight[1]) > 0;
  });
}
