// The validator kept beside `--snapshot-cache FILE` (FILE.validator.json):
// the ETag or Last-Modified the host gave for the URL the cached snapshot
// came from, so the next run's request is conditional on it and a static
// host answers 304 (docs/hosting.md). It names the snapshot's ABF1 checksum
// and the URL: for another file or another URL it is ignored, as is a
// missing, unreadable or malformed one — it can only save a download.
import { rename, rm, writeFile } from "node:fs/promises";
import { readBoundedText } from "../bounded-file.mjs";

/** A validator file is a few hundred bytes; more is not one. */
const VALIDATOR_LIMIT = 16 * 1024;
/**
 * A Last-Modified this close to now may be weak (RFC 9110 §8.8.2, "Comparison": the
 * file can change again within its second keeping the date): not kept.
 */
const WEAK_DATE_MS = 2000;

/** @param {string} cachePath */
export function validatorPath(cachePath) {
  return `${cachePath}.validator.json`;
}

/**
 * The kept validator, as fetchSnapshot options, or undefined.
 * @param {string} cachePath
 * @param {string} url
 * @param {string} checksum the cached snapshot's ABF1 checksum
 * @returns {Promise<{ etag: string } | { lastModified: string } | undefined>}
 */
export async function readValidator(cachePath, url, checksum) {
  let kept;
  try {
    kept = JSON.parse(await readBoundedText(validatorPath(cachePath), VALIDATOR_LIMIT, "validator"));
  } catch {
    return undefined;
  }
  if (kept === null || typeof kept !== "object" || kept.url !== url || kept.checksum !== checksum) return undefined;
  if (typeof kept.etag === "string" && kept.etag !== "") return { etag: kept.etag };
  if (typeof kept.lastModified === "string" && Number.isFinite(Date.parse(kept.lastModified))) {
    return { lastModified: kept.lastModified };
  }
  return undefined;
}

/**
 * Keeps `from`'s validator for the snapshot `checksum` fetched from `url`
 * (temp file and rename; nothing kept, and an old one removed, when the
 * host gave none).
 * @param {string} cachePath
 * @param {string} url
 * @param {string} checksum
 * @param {{ etag?: string, lastModified?: Date }} from a snapshot or a notModified failure
 */
export async function writeValidator(cachePath, url, checksum, from) {
  const path = validatorPath(cachePath);
  const etag = typeof from.etag === "string" && from.etag !== "" ? from.etag : undefined;
  const date = from.lastModified instanceof Date ? from.lastModified : undefined;
  const lastModified = date !== undefined && Date.now() - date.getTime() >= WEAK_DATE_MS ? date.toUTCString() : undefined;
  if (etag === undefined && lastModified === undefined) {
    await rm(path, { force: true }).catch(() => {});
    return;
  }
  const temp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(temp, `${JSON.stringify({ url, checksum, ...(etag ? { etag } : { lastModified }) })}\n`);
    await rename(temp, path);
  } catch {
    // Only a saving is lost: the next run downloads once more.
    await rm(temp, { force: true }).catch(() => {});
  }
}
