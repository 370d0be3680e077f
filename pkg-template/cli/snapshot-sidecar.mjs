// The sidecar of a registry snapshot: `publish --from-registry --out FILE`
// writes FILE.meta.json beside the ABF1 file (ABF1 itself carries only a
// catalogVersion), and `push --snapshot FILE|URL` reads it (URL + ".meta.json";
// `serve` answers GET /snapshot.meta.json from its --snapshot PATH's sidecar).
//
// It says which repository the snapshot is of and when it was made, the tag
// list it saw (so a push can tell that tags came or went since), and the
// 64-bit prefixes of the digests it was built from: a Bloom filter cannot
// list its keys, and this list is what lets a push tell a stale entry (a
// digest the snapshot really held, deleted since) from a false positive.
import { readBoundedFile, readBoundedText } from "./bounded-file.mjs";
import { UsageError, errorCode, errorMessage } from "./common.mjs";
import { replaceFile } from "./replace.mjs";
import { SIDECAR_SUFFIX } from "./option-groups.mjs";

const SIDECAR_FORMAT = "artifact-bloom-snapshot-meta/1";
/** Hex characters kept per digest: 64 bits, so two digests of one repository share one by chance ~n/2^64. */
export const PREFIX_HEX = 16;
/** A sidecar larger than this is not read (≈ 19 bytes per digest: about 3 million digests). */
const MAX_SIDECAR_BYTES = 64 * 1024 * 1024;

/** @param {string} snapshotPath @returns {string} */
const sidecarPathOf = (snapshotPath) => `${snapshotPath}${SIDECAR_SUFFIX}`;

/**
 * The sidecar object for a snapshot published from a registry.
 * @param {{ registryUrl: string, repository: string, tags: string[], hexDigests: string[],
 *   catalogVersion: number, checksum: string, createdAt: Date }} facts
 */
export function buildSidecar({ registryUrl, repository, tags, hexDigests, catalogVersion, checksum, createdAt }) {
  const prefixes = [...new Set(hexDigests.map((hex) => hex.slice(0, PREFIX_HEX)))].sort();
  return {
    format: SIDECAR_FORMAT,
    repository: `${new URL(registryUrl).host}/${repository}`,
    registry: new URL(registryUrl).origin,
    createdAt: createdAt.toISOString(),
    catalogVersion,
    snapshotChecksum: checksum,
    tagCount: tags.length,
    tags: [...tags].sort(),
    digestCount: hexDigests.length,
    digestPrefixes: prefixes,
  };
}

/**
 * Writes `sidecar` to PATH.meta.json atomically, as a snapshot is replaced
 * (replace.mjs: temporary file, fsync, check of what is on disk, rename), so
 * a reader never sees half of one. A file-system error is a one-line UsageError.
 * @param {string} snapshotPath
 * @param {object} sidecar
 * @returns {Promise<string>} the sidecar's path
 */
export async function writeSidecar(snapshotPath, sidecar) {
  const target = sidecarPathOf(snapshotPath);
  const problem = await replaceFile(target, new TextEncoder().encode(`${JSON.stringify(sidecar)}\n`), (written) => {
    try {
      return checkSidecar(JSON.parse(new TextDecoder().decode(written))).problem;
    } catch (error) {
      return `the written sidecar is not JSON: ${errorMessage(error)}`;
    }
  });
  if (problem !== undefined) throw new UsageError(`cannot write ${target}: ${problem}`);
  return target;
}

/**
 * Checks a parsed sidecar's fields → the sidecar, or the sentence saying what is wrong.
 * @param {any} value
 * @returns {{ sidecar?: Sidecar, problem?: string }}
 */
function checkSidecar(value) {
  if (value?.format !== SIDECAR_FORMAT) {
    return { problem: `expected format "${SIDECAR_FORMAT}", got ${JSON.stringify(value?.format)}` };
  }
  const problems = [];
  if (typeof value.repository !== "string" || !value.repository.includes("/")) problems.push("repository is not HOST/NAME");
  if (typeof value.createdAt !== "string" || Number.isNaN(Date.parse(value.createdAt))) problems.push("createdAt is not a date");
  if (!Number.isSafeInteger(value.catalogVersion)) problems.push("catalogVersion is not an integer");
  if (typeof value.snapshotChecksum !== "string") problems.push("snapshotChecksum is not a string");
  const isPrefix = (/** @type {unknown} */ p) => typeof p === "string" && /^[0-9a-f]{16}$/.test(p);
  if (!Array.isArray(value.tags) || !value.tags.every((/** @type {unknown} */ tag) => typeof tag === "string")) {
    problems.push("tags is not a list of strings");
  }
  if (!Array.isArray(value.digestPrefixes) || !value.digestPrefixes.every(isPrefix)) {
    problems.push(`digestPrefixes is not a list of ${PREFIX_HEX}-hex-digit strings`);
  }
  if (!Number.isSafeInteger(value.digestCount)) problems.push("digestCount is not an integer");
  return problems.length > 0 ? { problem: problems.join("; ") } : { sidecar: value };
}

/**
 * @typedef {{ format: string, repository: string, registry: string, createdAt: string, catalogVersion: number,
 *   snapshotChecksum: string, tagCount: number, tags: string[], digestCount: number, digestPrefixes: string[] }} Sidecar
 * @typedef {{ kind: "found", source: string, sidecar: Sidecar }
 *   | { kind: "missing", source: string, note: string }
 *   | { kind: "unusable", source: string, warning: string }} SidecarRead
 */

/**
 * Reads the sidecar of `--snapshot SOURCE` (a path or an http(s) URL).
 * Never throws: a missing one is a note, a broken one a warning.
 * @param {string} source the --snapshot argument
 * @param {{ fetch?: typeof fetch, timeoutMs?: number }} [options]
 * @returns {Promise<SidecarRead>}
 */
export async function readSidecar(source, { fetch: fetchImpl = globalThis.fetch, timeoutMs = 30_000 } = {}) {
  const isUrl = /^https?:\/\//i.test(source);
  const where = isUrl ? `${source}${SIDECAR_SUFFIX}` : sidecarPathOf(source);
  let text;
  try {
    if (isUrl) {
      const response = await fetchImpl(where, { signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
      if (response.status === 404) {
        await response.body?.cancel();
        return { kind: "missing", source: where, note: `no snapshot sidecar at ${where} (404)` };
      }
      if (!response.ok) {
        await response.body?.cancel();
        return { kind: "unusable", source: where, warning: `GET ${where} answered ${response.status}` };
      }
      const declared = Number(response.headers.get("content-length") ?? 0);
      if (declared > MAX_SIDECAR_BYTES) {
        await response.body?.cancel();
        return { kind: "unusable", source: where, warning: `${where} is ${declared} bytes, more than ${MAX_SIDECAR_BYTES}` };
      }
      text = await boundedResponseText(response, MAX_SIDECAR_BYTES);
    } else {
      text = await readBoundedText(where, MAX_SIDECAR_BYTES, "snapshot sidecar");
    }
  } catch (error) {
    if (!isUrl && errorCode(error) === "ENOENT") return { kind: "missing", source: where, note: `no snapshot sidecar ${where}` };
    // A UsageError (a file over the limit) names the path already.
    const problem = error instanceof UsageError ? error.message : `cannot read ${where}: ${errorMessage(error)}`;
    return { kind: "unusable", source: where, warning: problem };
  }
  if (text === undefined) {
    return { kind: "unusable", source: where, warning: `${where} is larger than ${MAX_SIDECAR_BYTES} bytes` };
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { kind: "unusable", source: where, warning: `${where} is not JSON: ${errorMessage(error)}` };
  }
  const { sidecar, problem } = checkSidecar(parsed);
  return sidecar === undefined
    ? { kind: "unusable", source: where, warning: `${where} is not a snapshot sidecar: ${problem}` }
    : { kind: "found", source: where, sidecar };
}

/**
 * A response body as text, or undefined once it passes `limit` bytes (a
 * chunked answer states no length: stop reading there, not at its end).
 * @param {Response} response
 * @param {number} limit
 * @returns {Promise<string | undefined>}
 */
async function boundedResponseText(response, limit) {
  if (response.body === null) return "";
  /** @type {Uint8Array[]} */
  const chunks = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `serve`'s GET /snapshot.meta.json: the sidecar beside the served snapshot
 * file, as it is on disk now (404 when there is none).
 * @template T
 * @param {string} snapshotPath serve's --snapshot
 * @param {(status: number, body: string | Uint8Array<ArrayBuffer>, headers?: Record<string, string>) => T} answer
 * @returns {Promise<T>} what `answer` made of it
 */
export async function answerSidecar(snapshotPath, answer) {
  let bytes;
  try {
    bytes = await readBoundedFile(sidecarPathOf(snapshotPath), MAX_SIDECAR_BYTES, "snapshot sidecar");
  } catch (error) {
    if (error instanceof UsageError) return answer(500, "the sidecar is larger than a sidecar can be");
    return answer(404, "no sidecar");
  }
  return answer(200, bytes, { "content-type": "application/json" });
}
