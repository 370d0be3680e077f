// `artifact-bloom publish`, once its arguments are parsed (./publish.mjs):
// stream the digests through the library's sorted build, check the guards,
// replace PATH atomically, and write the delta, the layout and the sidecar
// that were asked for.
import { createReadStream } from "node:fs";
import { loadSnapshot, MAXIMUM_EXPECTED_ITEM_COUNT, readSnapshotHeader } from "artifact-bloom";
import { buildCatalogSnapshot } from "artifact-bloom/server";
import {
  EXIT_OK,
  EXIT_PROBLEMS,
  UsageError,
  binaryDigestChunks,
  errorCode,
  errorMessage,
  hexDigestChunks,
  integerOption,
} from "./common.mjs";
import { ALLOW_VERSION_REUSE } from "./option-groups.mjs";
import { createProgress } from "./progress.mjs";
import { deltaLine, deltaRequest, readDeltaBase, writeDelta } from "./publish-delta.mjs";
import { layoutLines, layoutRequest, layoutSnapshotFile, writeLayout } from "./publish-layout.mjs";
import { readRegistryDigests } from "./registry/registry-catalog.mjs";
import { readCurrentSnapshot, replaceSnapshotFile } from "./replace.mjs";
import { buildSidecar, writeSidecar } from "./snapshot-sidecar.mjs";
import { versionRuleProblem } from "./version-guard.mjs";

/**
 * @param {Record<string, any>} values the parsed options
 * @param {{ catalogVersion: number, expectedItemCount: number, targetFalsePositiveRate: number,
 *   out: string | undefined, maxShrink: number }} checked what the usage checks already read
 * @returns {Promise<number>} the exit code
 */
export async function runPublish(values, { catalogVersion, expectedItemCount, targetFalsePositiveRate, out, maxShrink }) {
  const wantLayout = layoutRequest(values);
  const wantDelta = deltaRequest(values, out);
  // The capacity limit is the library's (asked of its wasm), known once it is loaded.
  integerOption(values, "expected-items", 1, MAXIMUM_EXPECTED_ITEM_COUNT);
  // Read now: OLD may be PATH itself, which the publish replaces.
  const deltaBase = wantDelta === undefined ? undefined : await readDeltaBase(wantDelta);

  const fromRegistry = values["from-registry"] !== undefined;
  if (fromRegistry && values.input !== undefined) throw new UsageError("--from-registry and --input are exclusive");
  const inputPath = values.input ?? "-";
  const stream = fromRegistry ? undefined : inputPath === "-" ? process.stdin : createReadStream(inputPath);
  // Someone at a terminal who forgot --input would otherwise see a silent wait.
  if (stream === process.stdin && process.stdin.isTTY) {
    process.stderr.write("publish: reading digests from standard input (end with Ctrl-D; --input FILE reads a file)\n");
  }
  // A live line on a terminal only (intervalMs Infinity): no noise in logs or pipes.
  let read = "0 digests";
  const progress = fromRegistry
    ? undefined
    : createProgress(process.stderr, { intervalMs: Infinity }).start(() => `reading digests: ${read}`);
  const reading = (/** @type {string} */ text) => {
    read = text;
    progress?.update();
  };
  // The digests stream through the library's sorted build (an external sort
  // in temp files for unsorted input): memory is the filter plus fixed
  // buffers, whatever the list's length (artifact-bloom/server's buildCatalogSnapshot).
  const counts = { lines: 0, digests: 0 };
  const registryInput = fromRegistry ? await readRegistryDigests(values) : undefined;
  if (registryInput !== undefined)
    Object.assign(counts, { lines: registryInput.lines, digests: registryInput.packed.byteLength / 32 });
  /** @type {Uint8Array[] | AsyncIterable<Uint8Array>} */
  let digests;
  if (registryInput !== undefined) digests = registryInput.packed.byteLength === 0 ? [] : [registryInput.packed];
  else if (stream === undefined) throw new TypeError("publish: no digest input (neither --from-registry nor a stream)");
  else if (values.binary) digests = binaryDigestChunks(stream, counts, (n) => reading(`${n} digests`));
  else digests = hexDigestChunks(stream, counts, (n, line) => reading(`${n} digests, line ${line}`));
  const spec = { expectedItemCount, targetFalsePositiveRate };
  let built;
  try {
    built = await buildCatalogSnapshot({ catalogVersion, digests, sorted: false }, spec);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "EISDIR" || code === "EACCES") {
      throw new UsageError(`cannot read --input ${values.input}: ${errorMessage(error)}`);
    }
    throw error;
  } finally {
    progress?.finish();
  }
  if (built.kind === "failure") {
    throw new UsageError(`${built.error}: ${explainBuildError(built.error, counts.digests, spec, built.message)}`);
  }
  const { bytes, uniqueCount } = built.value;
  const input = registryInput ?? { lines: counts.lines, registry: undefined };
  const duplicates = counts.digests - uniqueCount;

  // Without --out the guards compare with the snapshot the layout serves now.
  const guarded = out ?? (await layoutSnapshotFile(wantLayout));
  const refusal = await guardReplacement(guarded, uniqueCount, input.lines, { ...values, maxShrink, fromRegistry });
  if (refusal.problem !== undefined) {
    process.stderr.write(`publish: ${refusal.problem}\n`);
    return EXIT_PROBLEMS;
  }
  const loaded = loadSnapshot(bytes);
  if (loaded.kind === "failure") throw new UsageError(`the built snapshot does not load: ${loaded.error}: ${loaded.message}`);
  const { filter } = loaded.value;
  const builtChecksum = loaded.value.header.checksum;
  const reuse =
    out === undefined
      ? undefined
      : await versionRuleProblem(out, bytes, { command: "publish", allowReuse: values[ALLOW_VERSION_REUSE] });
  if (reuse !== undefined) {
    process.stderr.write(`publish: ${reuse}\n`);
    filter.free();
    return EXIT_PROBLEMS;
  }

  // The layout before --out: a layout that refuses leaves --out untouched too.
  const layout = wantLayout === undefined ? undefined : await writeLayout(wantLayout, bytes);
  if (layout?.problem !== undefined) {
    process.stderr.write(`publish: ${layout.problem}\n`);
    filter.free();
    return EXIT_PROBLEMS;
  }

  const onStaleRemoved = (/** @type {string} */ name) =>
    process.stderr.write(`publish: removed ${name}, left by a publish that was killed\n`);
  const problem =
    out === undefined
      ? undefined
      : await replaceSnapshotFile(
          out,
          bytes,
          (reloaded) => {
            if (reloaded.catalogVersion !== catalogVersion) {
              return `the written snapshot has catalogVersion ${reloaded.catalogVersion}, not ${catalogVersion}`;
            }
            // The checksum covers header and bits: the same checksum is the snapshot built from every input digest.
            return reloaded.header.checksum === builtChecksum
              ? undefined
              : `the written snapshot's checksum ${reloaded.header.checksum} is not the built one's ${builtChecksum}`;
          },
          { onStaleRemoved },
        );
  if (problem !== undefined) {
    process.stderr.write(`publish: ${problem}\n`);
    filter.free();
    return EXIT_PROBLEMS;
  }
  const sidecar =
    input.registry === undefined || out === undefined ? undefined : await writeRegistrySidecar(out, input, catalogVersion, bytes);
  const delta =
    wantDelta === undefined || deltaBase === undefined
      ? undefined
      : await writeDelta(wantDelta, deltaBase, { catalogVersion, filter, bytes }, { onStaleRemoved });
  if (delta?.written === false) process.stderr.write(`publish: no delta: ${delta.code}: ${delta.reason}\n`);

  const summary = {
    path: out ?? null,
    catalogVersion,
    linesRead: input.lines,
    digestsRead: counts.digests,
    duplicates,
    insertedItemCount: uniqueCount,
    previousInsertedItemCount: refusal.previous ?? null,
    expectedItemCount,
    targetFalsePositiveRate,
    bitCount: filter.getBitCount(),
    hashCount: filter.getHashCount(),
    fillRatio: filter.getFillRatio(),
    estimatedFalsePositiveRate: filter.estimateFalsePositiveRate(),
    bytes: bytes.byteLength,
    ...(input.registry === undefined ? {} : { registry: input.registry, sidecar }),
    ...(delta === undefined ? {} : { delta }),
    ...(layout === undefined ? {} : { layout: layout.summary }),
  };
  filter.free();
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    process.stdout.write(
      `published ${out ?? wantLayout?.dir}\n`
        + `  catalogVersion ${catalogVersion}: ${uniqueCount} unique digests`
        + ` (${summary.digestsRead} read, ${duplicates} duplicates)\n`
        + `  bitCount ${summary.bitCount}, hashCount ${summary.hashCount}, ${summary.bytes} bytes\n`
        + `  fill ratio ${summary.fillRatio.toFixed(4)}, estimated FPP ${summary.estimatedFalsePositiveRate.toExponential(3)}`
        + ` (target ${targetFalsePositiveRate})\n`
        + (delta === undefined ? "" : deltaLine(delta))
        + (sidecar === undefined ? "" : `  sidecar ${sidecar}\n`)
        + (layout === undefined ? "" : layoutLines(layout.summary)),
    );
  }
  return EXIT_OK;
}

/**
 * The publish guards: an empty input, and a drop in unique digests beyond
 * --max-shrink against what PATH holds now. Returns the refusal (a
 * sentence) or none, and the previous insertedItemCount when there is one.
 * @param {string | undefined} out the snapshot the guards compare with (none: a first publish)
 * @param {number} uniqueCount the new snapshot's
 * @param {number} linesRead
 * @param {Record<string, any>} options the parsed options, with maxShrink and fromRegistry
 * @returns {Promise<{ problem?: string, previous?: number }>}
 */
async function guardReplacement(out, uniqueCount, linesRead, options) {
  if (uniqueCount === 0 && !options["allow-empty"] && !(options.fromRegistry && !(await holdsDigests(out)))) {
    return {
      problem:
        `refusing to publish an empty snapshot to ${out}: the input holds no digest (${linesRead} lines read), `
        + 'and an empty snapshot answers "definitely absent" for every artifact; pass --allow-empty if that is intended',
    };
  }
  const current = out === undefined ? { kind: /** @type {const} */ ("none") } : await readCurrentSnapshot(out);
  if (current.kind === "unloadable") {
    // Without the override the version rule refuses this PATH once the snapshot is built.
    if (options[ALLOW_VERSION_REUSE]) {
      process.stderr.write(
        `publish: note: ${out} is not a loadable snapshot (${current.error}); replacing it without a shrink check\n`,
      );
    }
    return {};
  }
  if (current.kind === "none") return {};
  const previous = current.header.insertedItemCount;
  const floor = (1 - options.maxShrink) * previous;
  if (uniqueCount < floor && !options["allow-shrink"]) {
    const drop = ((previous - uniqueCount) / previous) * 100;
    return {
      previous,
      problem:
        `refusing to shrink ${out} from ${previous} to ${uniqueCount} unique digests (${drop.toFixed(1)} % fewer; `
        + `--max-shrink ${options.maxShrink} allows at least ${Math.ceil(floor)}): digests of some shards may be missing `
        + "from the input; pass --allow-shrink if the catalog really lost them",
    };
  }
  return { previous };
}

/**
 * Whether PATH holds a snapshot with at least one digest (what an empty registry answer must not replace unasked).
 * @param {string | undefined} out
 */
async function holdsDigests(out) {
  if (out === undefined) return false;
  const current = await readCurrentSnapshot(out);
  return current.kind === "snapshot" && current.header.insertedItemCount > 0;
}

/**
 * Writes PATH.meta.json for a --from-registry publish → its path.
 * @param {string} out
 * @param {Awaited<ReturnType<typeof readRegistryDigests>>} input
 * @param {number} catalogVersion
 * @param {Uint8Array} bytes
 */
async function writeRegistrySidecar(out, input, catalogVersion, bytes) {
  const header = readSnapshotHeader(bytes);
  const sidecar = buildSidecar({
    registryUrl: input.registry.url,
    repository: input.registry.repository,
    tags: input.tagNames,
    hexDigests: input.hexes,
    catalogVersion,
    checksum: header.kind === "success" ? header.value.checksum : "",
    createdAt: new Date(),
  });
  return writeSidecar(out, sidecar);
}

/**
 * @param {string} code the build's error code
 * @param {number} count the digests read so far
 * @param {{ expectedItemCount: number, targetFalsePositiveRate: number }} spec
 * @param {string | undefined} message the build's own message
 */
function explainBuildError(code, count, spec, message) {
  switch (code) {
    case "capacityExceeded":
      return `more unique digests than --expected-items ${spec.expectedItemCount} (${count} read so far)`;
    case "invalidFalsePositiveRate":
      return `--fpp must be strictly between 0 and 1, got ${spec.targetFalsePositiveRate}`;
    case "filterTooLarge":
      return "no filter of at most 2^30 bits meets that --fpp for that many items";
    default:
      return message ?? "the filter could not be built";
  }
}
