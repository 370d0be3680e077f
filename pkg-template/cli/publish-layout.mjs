// `publish --layout DIR`: the snapshot published into the static layout of
// docs/layout.md (content-addressed snapshots, deltas from the last K
// versions, one manifest) that any file host serves. The writing, the
// version rule and the prune are the library's (`artifact-bloom/server`'s
// publishToLayout); this module turns flags into its options and its
// answers into the CLI's lines and exit codes.
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { UsageError, integerOption, numberOption } from "./common.mjs";
import { parseLayoutManifest, publishToLayout } from "artifact-bloom/server";
import { DEFAULT_DELTA_HISTORY, DEFAULT_PRUNE_AFTER_SECONDS, MAX_DELTA_HISTORY } from "./option-groups.mjs";

/**
 * What --layout asks for: nothing, or the directory and the options.
 * @param {Record<string, unknown>} values
 * @returns {{ dir: string; deltaHistory: number; pruneAfterMs: number } | undefined}
 */
export function layoutRequest(values) {
  const layout = values.layout;
  if (typeof layout !== "string") {
    for (const flag of ["delta-history", "prune-after"]) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} needs --layout DIR`);
    }
    return undefined;
  }
  if (values["allow-version-reuse"]) {
    throw new UsageError("--allow-version-reuse does not apply to --layout: a layout's clients never adopt a reused version");
  }
  const deltaHistory =
    values["delta-history"] === undefined ? DEFAULT_DELTA_HISTORY : integerOption(values, "delta-history", 0, MAX_DELTA_HISTORY);
  const pruneAfter = values["prune-after"] === undefined ? DEFAULT_PRUNE_AFTER_SECONDS : numberOption(values, "prune-after");
  if (pruneAfter < 0) throw new UsageError(`--prune-after must be a number of seconds ≥ 0, got "${values["prune-after"]}"`);
  return { dir: resolve(layout), deltaHistory, pruneAfterMs: pruneAfter * 1000 };
}

/**
 * The file of the snapshot the layout serves now (for publish's shrink and
 * empty guards), or undefined: no layout yet, or a manifest that does not
 * read (publishToLayout refuses that layout with the reason).
 * @param {{ dir: string } | undefined} request
 * @returns {Promise<string | undefined>}
 */
export async function layoutSnapshotFile(request) {
  if (request === undefined) return undefined;
  let body;
  try {
    body = await readFile(join(request.dir, "manifest.json"));
  } catch {
    return undefined;
  }
  const manifest = parseLayoutManifest(new Uint8Array(body));
  if (manifest.kind === "failure" || /^[a-z][a-z0-9+.-]*:|^\//i.test(manifest.value.snapshot.url)) return undefined;
  return join(request.dir, manifest.value.snapshot.url);
}

/**
 * Publishes `bytes` into the layout: the summary, or `{ problem }` (exit 1)
 * when the layout refuses. A store error is a one-line UsageError (exit 2).
 * @param {{ dir: string; deltaHistory: number; pruneAfterMs: number }} request
 * @param {Uint8Array} bytes the new ABF1 snapshot
 */
export async function writeLayout(request, bytes) {
  let result;
  try {
    result = await publishToLayout(request.dir, bytes, {
      deltaHistory: request.deltaHistory,
      pruneAfterMs: request.pruneAfterMs,
    });
  } catch (error) {
    const { code, message } = /** @type {NodeJS.ErrnoException} */ (error);
    throw new UsageError(`cannot write the layout ${request.dir}: ${code ?? "error"} (${message})`);
  }
  if (result.kind === "failure") return { problem: `layout ${request.dir}: ${result.error}: ${result.message}` };
  const { unchanged, manifest, skippedBases, pruned } = result.value;
  return {
    summary: {
      dir: request.dir,
      unchanged,
      catalogVersion: manifest.catalogVersion,
      snapshot: manifest.snapshot,
      deltas: manifest.deltas,
      skippedBases: skippedBases.map(({ catalogVersion, error }) => ({ catalogVersion, error })),
      pruned,
    },
  };
}

/**
 * The text lines of a layout publish.
 * @param {{ dir: string; unchanged: boolean; deltas: readonly { baseCatalogVersion: number; size: number }[];
 *   skippedBases: readonly { catalogVersion: number; error: string }[]; pruned: readonly string[] }} summary
 * @returns {string}
 */
export function layoutLines(summary) {
  if (summary.unchanged) return `  layout ${summary.dir}: unchanged (it already serves this snapshot)\n`;
  const deltas = summary.deltas.map((delta) => `${delta.baseCatalogVersion} (${delta.size} B)`).join(", ");
  const skipped = summary.skippedBases.map((base) => `${base.catalogVersion}: ${base.error}`).join(", ");
  return (
    `  layout ${summary.dir}: manifest.json written, deltas from ${summary.deltas.length === 0 ? "no version" : deltas}\n`
    + (skipped === "" ? "" : `  layout: no delta from ${skipped}\n`)
    + (summary.pruned.length === 0 ? "" : `  layout: pruned ${summary.pruned.length} files\n`)
  );
}
