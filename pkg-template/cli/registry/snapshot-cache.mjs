// `push --snapshot URL --snapshot-cache FILE`: the newest snapshot at URL for
// the bytes of the change. FILE holds the snapshot this machine fetched
// last; it is the base of an ABD1 delta request (artifact-bloom/delta's
// fetchSnapshot: `A-IM: abd1`, If-None-Match its checksum, which is the ETag
// `serve` gives). The server answers 304 (FILE is current), 226 (a delta,
// applied and checked against the target's checksum) or 200 (the full file,
// e.g. from a server without deltas). Whatever came is written back to FILE
// atomically before the push uses it, so the push always sees the version the
// URL serves now — a delta can save bytes, never change the answer.
import { encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { fetchSnapshot as deltaFetchSnapshot } from "artifact-bloom/delta";
import { UsageError, errorCode, errorMessage } from "../common.mjs";
import { replaceSnapshotFile } from "../replace.mjs";
import { readBoundedFile, snapshotFileLimit } from "../bounded-file.mjs";
import { readValidator, writeValidator } from "./snapshot-cache-validator.mjs";

/**
 * The cached snapshot, or undefined when FILE is missing or does not load
 * (then the full file is fetched and FILE replaced).
 * @param {string} path
 */
async function readCached(path) {
  let bytes;
  try {
    bytes = await readBoundedFile(path, snapshotFileLimit(), "snapshot");
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`--snapshot-cache: ${error.message}`);
    if (errorCode(error) === "ENOENT") return { snapshot: undefined, note: undefined };
    throw new UsageError(`cannot read --snapshot-cache ${path}: ${errorMessage(error)}`);
  }
  const loaded = loadSnapshot(bytes, { source: path });
  if (loaded.kind === "failure") {
    return { snapshot: undefined, note: `--snapshot-cache ${path} does not load (${loaded.error}); fetching the full snapshot` };
  }
  return { snapshot: loaded.value, note: undefined };
}

/**
 * Writes the snapshot's ABF1 bytes to `path` atomically, as publish replaces a snapshot (replace.mjs).
 * @param {string} path
 * @param {import("artifact-bloom").ArtifactIndexSnapshot} snapshot
 */
async function writeCached(path, snapshot) {
  const bytes = encodeSnapshot(snapshot.filter, { catalogVersion: snapshot.catalogVersion });
  // A file-system error is replaceSnapshotFile's one-line UsageError ("cannot write PATH: …").
  const problem = await replaceSnapshotFile(path, bytes, (written) =>
    written.catalogVersion === snapshot.catalogVersion
      ? undefined
      : `the written file has catalogVersion ${written.catalogVersion}, not ${snapshot.catalogVersion}`,
  );
  if (problem !== undefined) throw new UsageError(`cannot write --snapshot-cache ${path}: ${problem}`);
}

/**
 * Fetches `url` against the cached base in `cachePath` → { snapshot, transfer, notes }.
 * `transfer`: { from: "cache" | "delta" | "full", bytes, fullBytes, baseCatalogVersion, deltaFailure? }.
 * @param {string} url
 * @param {string} cachePath
 */
export async function fetchThroughCache(url, cachePath) {
  const notes = [];
  const cached = await readCached(cachePath);
  if (cached.note !== undefined) notes.push(cached.note);
  const base = cached.snapshot;
  // The host's validator for the cached snapshot, kept beside it: a static
  // host answers 304 to it (the checksum alone matches only serve's ETag).
  const validator = base === undefined ? undefined : await readValidator(cachePath, url, base.header.checksum);
  let result;
  try {
    result = await deltaFetchSnapshot(url, base === undefined ? {} : { base, ...validator });
  } catch (error) {
    base?.filter.free();
    throw new UsageError(`cannot fetch --snapshot ${url}: ${errorMessage(error)}`);
  }
  const baseCatalogVersion = base?.catalogVersion ?? null;
  if (result.kind === "failure" && result.error === "stale" && base !== undefined) {
    // A manifest older than the cache (an edge or origin behind): the cache stays, nothing was downloaded.
    notes.push(`--snapshot ${url}: ${result.message}; using --snapshot-cache ${cachePath}`);
    return { snapshot: base, notes, transfer: { from: "cache", bytes: 0, fullBytes: null, baseCatalogVersion } };
  }
  if (result.kind === "failure" && result.error === "notModified" && base !== undefined) {
    // A manifest that changed but names the cached snapshot carries its new validator.
    if ("etag" in result) await writeValidator(cachePath, url, base.header.checksum, result);
    return { snapshot: base, notes, transfer: { from: "cache", bytes: 0, fullBytes: null, baseCatalogVersion } };
  }
  if (result.kind === "success" && base !== undefined && result.value.header.checksum === base.header.checksum) {
    // The cached snapshot again (a byte-identical republish): only the validator changed.
    await writeValidator(cachePath, url, base.header.checksum, result.value);
    result.value.filter.free();
    const { bytes, fullBytes } = result.transfer;
    return { snapshot: base, notes, transfer: { from: "full", bytes, fullBytes, baseCatalogVersion } };
  }
  base?.filter.free();
  let snapshot;
  let transfer;
  if (result.kind === "success") {
    snapshot = result.value;
    transfer = result.transfer;
  } else if (result.error === "versionConflict" && result.snapshot !== undefined) {
    // The server republished the cached version with other digests: its file proved itself; the cache was wrong.
    notes.push(`--snapshot-cache ${cachePath}: ${result.message}; using the server's snapshot`);
    snapshot = result.snapshot;
    transfer = result.transfer ?? { bytes: 0, delta: false, fullBytes: 0 };
  } else {
    throw new UsageError(`--snapshot ${url}: ${result.error}: ${result.message}`);
  }
  await writeCached(cachePath, snapshot);
  await writeValidator(cachePath, url, snapshot.header.checksum, snapshot);
  return {
    snapshot,
    notes,
    transfer: {
      from: transfer.delta ? "delta" : "full",
      bytes: transfer.bytes,
      fullBytes: transfer.fullBytes,
      baseCatalogVersion,
      ...(transfer.deltaFailure === undefined ? {} : { deltaFailure: transfer.deltaFailure }),
    },
  };
}
