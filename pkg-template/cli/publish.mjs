// `artifact-bloom publish`: build an ABF1 snapshot from a digest list and
// replace the previous one atomically. The sequence is the seed's Snapshot
// Publisher: complete the new filter → validate it → replace.
import { createReadStream } from "node:fs";
import { resolve } from "node:path";
import { MAXIMUM_EXPECTED_ITEM_COUNT, buildCatalogSnapshot, loadLibrary, loadSnapshot, readSnapshotHeader } from "./library.mjs";
import {
  EXIT_OK,
  EXIT_PROBLEMS,
  UsageError,
  integerOption,
  numberOption,
  parseCommand,
  binaryDigestChunks,
  hexDigestChunks,
} from "./common.mjs";
import { createProgress } from "./progress.mjs";
import { EXIT_CODES_HELP } from "./exit-codes.mjs";
import { FROM_REGISTRY_HELP, FROM_REGISTRY_OPTIONS, readRegistryDigests } from "./registry/registry-catalog.mjs";
import { DELTA_HELP, deltaLine, deltaRequest, readDeltaBase, writeDelta } from "./publish-delta.mjs";
import { LAYOUT_HELP, layoutLines, layoutRequest, layoutSnapshotFile, writeLayout } from "./publish-layout.mjs";
import { readCurrentSnapshot, replaceSnapshotFile } from "./replace.mjs";
import { SIDECAR_SUFFIX, buildSidecar, writeSidecar } from "./snapshot-sidecar.mjs";
import { ALLOW_VERSION_REUSE, VERSION_RULE_HELP, versionRuleProblem } from "./version-guard.mjs";

/** The default --max-shrink: a new snapshot may hold at most 10 % fewer unique digests. */
const DEFAULT_MAX_SHRINK = 0.1;

export const HELP = `Usage: artifact-bloom publish --catalog-version V --expected-items N --fpp P --out PATH
                             [--input FILE|-] [--binary] [--json]
                             [--allow-empty] [--max-shrink F | --allow-shrink]
                             [--allow-version-reuse]
                             [--delta-from OLD --delta-out DPATH]
       artifact-bloom publish … --layout DIR [--out PATH]
                             [--delta-history K] [--prune-after S]
       artifact-bloom publish … --from-registry URL --repository NAME
                             [--ca-file PEM | --tls-verify=false]

Builds an ABF1 snapshot of every digest of one catalog version and replaces
PATH atomically.

  --catalog-version V  the catalog version the digests belong to (0 .. 2^53-1)
  --expected-items N   design capacity (1 .. 2^30); more unique digests fail
                       with capacityExceeded
  --fpp P              target false-positive rate, 0 < P < 1
  --input FILE|-       digest list (default: standard input)
  --binary             input is packed 32-byte records instead of text
  --out PATH           the snapshot to write or replace
  --json               print the summary as JSON
  --allow-empty        publish even if the input holds no digest at all
  --max-shrink F       the largest drop in unique digests accepted when PATH
                       already holds a snapshot, as a fraction 0 .. 1
                       (default ${DEFAULT_MAX_SHRINK}: at most 10 % fewer)
  --allow-shrink       publish however much smaller the new snapshot is
${FROM_REGISTRY_HELP}
${DELTA_HELP}

${LAYOUT_HELP}

Text input: one SHA-256 digest per line as 64 hex digits. Blank lines and
lines starting with # are skipped; any other bad line, or one longer than
4096 characters, stops the publish with its line number. Duplicate digests
are counted and reported, and inserted only once: the snapshot's
insertedItemCount is the number of UNIQUE digests.

Guards (nothing is written when one refuses; PATH stays as it was):
  - An empty input is refused (exit 1): an empty snapshot answers "definitely
    absent" for every artifact. --allow-empty publishes it. With
    --from-registry an empty (or unknown) repository is a true answer and is
    published without the flag, unless PATH holds a non-empty snapshot.
  - If PATH holds a snapshot whose header loads, a new one with fewer than
    (1 - F) x its insertedItemCount unique digests is refused (exit 1), with
    both counts: digests of some shards may be missing from the input.
    --allow-shrink publishes it. (An empty input over a non-empty snapshot
    needs both flags.)

${VERSION_RULE_HELP.replaceAll("OUT", "PATH")}

Sidecar (--from-registry only): PATH${SIDECAR_SUFFIX} is written beside PATH
(atomically, after it): { format, repository "HOST:PORT/NAME", registry,
createdAt, catalogVersion, snapshotChecksum, tagCount, tags, digestCount,
digestPrefixes (the first 16 hex digits of every digest) }. push reads it to
warn about a snapshot of another repository or an outdated tag list, and to
tell stale entries from Bloom false positives.

Safety: the snapshot is written to .NAME.tmp-PID-HOST-RANDOM in PATH's
directory, fsynced, reloaded and checked (its checksum must be the one of
the snapshot built from every input digest), and only then renamed over PATH. A crash at any point leaves the
previous snapshot untouched. A temporary file left by a killed publish is
removed by the next publish or merge to the same PATH once its writer (that
pid, on this host) is gone; a running writer's file is never touched.

${EXIT_CODES_HELP}
For publish: 1 a guard refused or the written snapshot failed its check;
2 bad arguments or input (capacityExceeded, invalidFalsePositiveRate, ...)
or an output error (PATH is a directory, its directory is missing, no
permission, no space): one line naming PATH and the cause; 3 the
--from-registry enumeration failed (nothing was written).`;

export async function publish(argv) {
  const parsed = parseCommand(argv, {
    help: HELP,
    options: {
      "catalog-version": { type: "string" },
      "expected-items": { type: "string" },
      fpp: { type: "string" },
      input: { type: "string" },
      binary: { type: "boolean", default: false },
      out: { type: "string" },
      json: { type: "boolean", default: false },
      "allow-empty": { type: "boolean", default: false },
      "max-shrink": { type: "string", default: String(DEFAULT_MAX_SHRINK) },
      "allow-shrink": { type: "boolean", default: false },
      [ALLOW_VERSION_REUSE]: { type: "boolean", default: false },
      "delta-from": { type: "string" },
      "delta-out": { type: "string" },
      layout: { type: "string" },
      "delta-history": { type: "string" },
      "prune-after": { type: "string" },
      ...FROM_REGISTRY_OPTIONS,
    },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values } = parsed;
  const catalogVersion = integerOption(values, "catalog-version", 0, Number.MAX_SAFE_INTEGER);
  const expectedItemCount = integerOption(values, "expected-items", 1, Number.MAX_SAFE_INTEGER);
  const targetFalsePositiveRate = numberOption(values, "fpp");
  if (values.out === undefined && values.layout === undefined) throw new UsageError("--out PATH or --layout DIR is required");
  const out = values.out === undefined ? undefined : resolve(values.out);
  const wantLayout = layoutRequest(values);
  const maxShrink = numberOption(values, "max-shrink");
  if (maxShrink < 0 || maxShrink > 1) {
    throw new UsageError(`--max-shrink must be a fraction from 0 to 1, got "${values["max-shrink"]}"`);
  }
  const wantDelta = deltaRequest(values, out);
  await loadLibrary({ delta: wantDelta !== undefined, server: wantLayout !== undefined });
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
  const reading = (text) => {
    read = text;
    progress.update();
  };
  // The digests stream through the library's sorted build (an external sort
  // in temp files for unsorted input): memory is the filter plus fixed
  // buffers, whatever the list's length (artifact-bloom/server's buildCatalogSnapshot).
  const counts = { lines: 0, digests: 0 };
  const registryInput = fromRegistry ? await readRegistryDigests(values) : undefined;
  if (registryInput !== undefined)
    Object.assign(counts, { lines: registryInput.lines, digests: registryInput.packed.byteLength / 32 });
  const digests =
    registryInput !== undefined
      ? registryInput.packed.byteLength === 0
        ? []
        : [registryInput.packed]
      : values.binary
        ? binaryDigestChunks(stream, counts, (n) => reading(`${n} digests`))
        : hexDigestChunks(stream, counts, (n, line) => reading(`${n} digests, line ${line}`));
  const spec = { expectedItemCount, targetFalsePositiveRate };
  await loadLibrary({ server: true });
  let built;
  try {
    built = await buildCatalogSnapshot({ catalogVersion, digests, sorted: false }, spec);
  } catch (error) {
    if (error.code === "ENOENT" || error.code === "EISDIR" || error.code === "EACCES") {
      throw new UsageError(`cannot read --input ${values.input}: ${error.message}`);
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

  const onStaleRemoved = (name) => process.stderr.write(`publish: removed ${name}, left by a publish that was killed\n`);
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
    wantDelta === undefined
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
      `published ${out ?? wantLayout.dir}\n`
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

/** Whether PATH holds a snapshot with at least one digest (what an empty registry answer must not replace unasked). */
async function holdsDigests(out) {
  if (out === undefined) return false;
  const current = await readCurrentSnapshot(out);
  return current.kind === "snapshot" && current.header.insertedItemCount > 0;
}

/** Writes PATH.meta.json for a --from-registry publish → its path. */
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
