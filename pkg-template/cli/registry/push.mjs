// `artifact-bloom push`: push an OCI image layout to a registry, prechecked
// against an ABF1 snapshot of the repository. A blob the snapshot says is
// definitely absent is uploaded with no HEAD; a "maybe" is HEADed and
// uploaded only on 404 (a false positive); then the manifests are PUT,
// children by digest and the tagged one by tag.
import { stat } from "node:fs/promises";
import { ArtifactExistenceService, loadLibrary, loadSnapshot, repositoryOverClient } from "../library.mjs";
import { EXIT_OK, EXIT_REGISTRY, EXIT_USAGE, UsageError, hexToBytes, integerOption, parseCommand } from "../common.mjs";
import { EXIT_CODES_HELP } from "../exit-codes.mjs";
import { resolvePushTarget } from "./push-target.mjs";
import { putManifest } from "./oci-upload.mjs";
import {
  STALENESS_HELP,
  STALENESS_OPTIONS,
  STALENESS_SUMMARY_HELP,
  checkSnapshotSidecar,
  precheckBlobs,
  verifyAbsentThreshold,
} from "./push-staleness.mjs";
import { fetchThroughCache } from "./snapshot-cache.mjs";
import { fetchSnapshotUrl, isSnapshotUrl } from "../snapshot-url.mjs";
import { readSidecar } from "../snapshot-sidecar.mjs";
import { uploadBlobs } from "./upload-blobs.mjs";
import { createUploadProgress } from "./upload-progress.mjs";
import {
  REGISTRY_HELP,
  REGISTRY_OPTIONS,
  checkReferenceName,
  clientFromOptions,
  describeFailure,
  failureLine,
  parseImageReference,
} from "./registry-common.mjs";
import { fetchForTlsOptions, tlsAdvice } from "./registry-tls.mjs";
import { readBoundedFile, snapshotFileLimit } from "../bounded-file.mjs";

const MIB = 1024 * 1024;

export const HELP = `Usage: artifact-bloom push LAYOUT_DIR[:ENTRY] HOST[:PORT]/NAME:TAG --snapshot PATH_OR_URL
       artifact-bloom push LAYOUT_DIR[:ENTRY] HOST[:PORT]/NAME@sha256:DIGEST --snapshot …
                          [--plain-http] [--json] [--chunk-size BYTES] [--concurrency N]
                          [--ca-file PEM | --tls-verify=false]
                          [--verify-absent-above BYTES|none] [--snapshot-cache FILE]

Pushes one image of the OCI image layout LAYOUT_DIR to NAME on the registry:
the index.json entry named ENTRY (org.opencontainers.image.ref.name) when
given, else the entry named TAG (or with that DIGEST), else the layout's
only entry. With :TAG the image is tagged TAG (ENTRY and TAG may differ);
with @sha256:DIGEST it is pushed by digest and no tag is written, and
DIGEST must be the entry's manifest digest (checked before any request).
HOST is required and never implied: it must hold "." or ":" or be
"localhost" (docker's rule), so team/app:v1 is refused.

Every config and layer blob is prechecked against the repository's
snapshot (from "artifact-bloom publish --from-registry"):

  definitely absent  uploaded at once, no HEAD request
  maybe              HEAD; uploaded only if the registry answers 404

Then every manifest is PUT (an index's children by digest, the root one
by TAG or DIGEST), each checked against the registry's Docker-Content-Digest.

  --snapshot P|URL     the repository's ABF1 snapshot (a file, or http(s) URL)
  --plain-http         talk http:// instead of https:// (to a registry that
                       speaks TLS this fails with "the server speaks TLS")
  --chunk-size BYTES   upload blobs larger than this in PATCH chunks of this
                       size (each streamed from disk). Default: every blob
                       streams from disk in ONE request (POST, then PUT)
  --concurrency N      blob uploads and HEADs in flight (default 4)
  --json               print the summary as JSON
${STALENESS_HELP}
${REGISTRY_HELP}

Summary: blobs (config + layers), headRequests, headsSkipped (definitely
absent: no HEAD), falsePositives (maybe, then 404, and not one of the
snapshot's digests), staleDeleted (maybe, then 404, one of its digests),
verifiedAbsent / absentButPresent (+Bytes: upload saved) for
--verify-absent-above, alreadyPresent, uploaded, uploadedBytes,
manifests, readBacks (a blob or manifest whose
201 named no Docker-Content-Digest is read back once by digest, HEAD or
GET; not there is a notStored failure), warnings, snapshotTransfer
(--snapshot-cache). A stale snapshot is safe: a blob pushed since it was
built is uploaded again (HEADed first when larger than --verify-absent-above),
one deleted since is HEADed (404) and uploaded. headRequests counts every
HEAD sent (one 401 retry included when the registry wants credentials);
failedBlobs names every blob that failed.

Progress of blobs over 8 MiB goes to standard error: a live line per blob on
a terminal, else a line every 5 s per blob (done/total, rate); "uploaded"
only once the registry committed the blob.

${STALENESS_SUMMARY_HELP}

${EXIT_CODES_HELP}
For push: 3 means the push failed (registry error, unreachable, credentials
refused, digest mismatch); the summary lists only what was really uploaded,
and the tag is not written. 2: bad arguments, reference, layout, snapshot or
credential configuration; nothing was sent.`;

/** Loads the snapshot from a file or URL (fetched with the --ca-file / --tls-verify policy); any failure is a UsageError. */
async function loadSnapshotFrom(source, values) {
  await loadLibrary();
  let result;
  if (isSnapshotUrl(source)) {
    result = await fetchSnapshotUrl(source, { label: "--snapshot", values });
  } else {
    let bytes;
    let info;
    try {
      [bytes, info] = await Promise.all([readBoundedFile(source, snapshotFileLimit(), "snapshot"), stat(source)]);
    } catch (error) {
      if (error instanceof UsageError) throw new UsageError(`--snapshot: ${error.message}`);
      throw new UsageError(`cannot read --snapshot ${source}: ${error.message}`);
    }
    result = loadSnapshot(bytes, { lastModified: info.mtime, source });
  }
  if (result.kind === "failure") throw new UsageError(`--snapshot ${source}: ${result.error}: ${result.message}`);
  return result.value;
}

export async function push(argv) {
  const parsed = parseCommand(argv, {
    help: HELP,
    allowPositionals: true,
    options: {
      snapshot: { type: "string" },
      "plain-http": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      "chunk-size": { type: "string" },
      concurrency: { type: "string" },
      ...STALENESS_OPTIONS,
      ...REGISTRY_OPTIONS,
    },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  if (positionals.length !== 2) {
    throw new UsageError(
      `expected LAYOUT_DIR[:ENTRY] and HOST:PORT/NAME:TAG (or @sha256:DIGEST), got ${positionals.length} arguments\n\n${HELP}`,
    );
  }
  const [layoutDir, referenceText] = positionals;
  const reference = parseImageReference(referenceText);
  if (values.snapshot === undefined) {
    throw new UsageError(
      "--snapshot is required" + " (publish one with: artifact-bloom publish --from-registry URL --repository NAME …)",
    );
  }
  const chunkSize = values["chunk-size"] === undefined ? undefined : integerOption(values, "chunk-size", 1, 1024 * MIB);
  const concurrency = values.concurrency === undefined ? 4 : integerOption(values, "concurrency", 1, 64);
  const registryUrl = `${values["plain-http"] ? "http" : "https"}://${reference.host}`;
  const verifyAbove = verifyAbsentThreshold(values);
  const cachePath = values["snapshot-cache"];
  if (cachePath !== undefined && !/^https?:\/\//i.test(values.snapshot)) {
    throw new UsageError("--snapshot-cache needs --snapshot URL (an http(s) URL)");
  }
  await loadLibrary();
  checkReferenceName(reference);

  const { display, image, remoteReference } = await resolvePushTarget(layoutDir, reference);
  const fetched = cachePath === undefined ? undefined : await fetchThroughCache(values.snapshot, cachePath);
  const snapshot = fetched?.snapshot ?? (await loadSnapshotFrom(values.snapshot, values));
  const client = await clientFromOptions(registryUrl, reference.name, values);
  // The sidecar of a URL snapshot comes through the same TLS policy as the snapshot.
  const tlsFetch = await fetchForTlsOptions(values);
  const sidecarFile = await readSidecar(values.snapshot, tlsFetch === undefined ? {} : { fetch: tlsFetch });
  const sidecar = await checkSnapshotSidecar(sidecarFile, snapshot, `${reference.host}/${reference.name}`, client);
  for (const note of [...(fetched?.notes ?? []), ...sidecar.notes]) process.stderr.write(`push: note: ${note}\n`);
  for (const warning of sidecar.warnings) process.stderr.write(`push: warning: ${warning}\n`);
  // HEADs go through the uploads' client: one auth state, one request count.
  // The service hands all maybes to one existsManyAtVersionAsync call, which
  // keeps at most `concurrency` HEADs in flight.
  const existence = new ArtifactExistenceService(snapshot, repositoryOverClient(client, { concurrency }), { concurrency: 1 });

  const summary = {
    ok: false,
    reference: display,
    digest: image.root.descriptor.digest,
    snapshotCatalogVersion: snapshot.catalogVersion,
    blobs: image.blobs.length,
    headRequests: 0,
    headsSkipped: 0,
    falsePositives: 0,
    staleDeleted: 0,
    verifyAbsentAbove: Number.isFinite(verifyAbove) ? verifyAbove : null,
    verifiedAbsent: 0,
    absentButPresent: 0,
    absentButPresentBytes: 0,
    alreadyPresent: 0,
    uploaded: 0,
    uploadedBytes: 0,
    manifests: 0,
    readBacks: 0,
    tagged: false,
    uploadedDigests: [],
    requests: client.requests,
    ...sidecar.facts,
    snapshotTransfer: fetched?.transfer ?? null,
    warnings: sidecar.warnings,
  };
  /** @type {ReturnType<typeof describeFailure> & { advice?: string } | undefined} */
  let failure;
  // A failure the input caused (a layout blob that is not what its digest says) exits 2, not 3.
  let inputFault = false;
  try {
    const digests = image.blobs.map((blob) => hexToBytes(blob.digest.slice("sha256:".length)));
    const { toUpload, counts } = await precheckBlobs({
      blobs: image.blobs,
      digests,
      snapshot,
      existence,
      client,
      concurrency,
      threshold: verifyAbove,
      keys: sidecar.keys,
    });
    const { definitelyAbsent, ...staleness } = counts;
    Object.assign(summary, staleness);
    summary.headsSkipped = definitelyAbsent - counts.verifiedAbsent;
    summary.alreadyPresent = image.blobs.length - toUpload.length;
    const progress = createUploadProgress(process.stderr);
    await uploadBlobs({
      client,
      blobs: toUpload,
      blobPath: image.blobPath,
      concurrency,
      chunkSize,
      progress,
      onCommitted: (blob, readBacks) => {
        summary.readBacks += readBacks;
        // Counted only once the registry committed it under the right digest.
        summary.uploaded += 1;
        summary.uploadedBytes += blob.size;
        summary.uploadedDigests.push(blob.digest);
      },
    });
    for (const manifest of image.manifests) {
      const isRoot = manifest === image.root;
      summary.readBacks += await putManifest(client, isRoot ? remoteReference : manifest.descriptor.digest, manifest);
      summary.manifests += 1;
      if (isRoot && reference.tag !== undefined) summary.tagged = true;
    }
    summary.ok = true;
  } catch (error) {
    failure = describeFailure(error, client);
    inputFault = error?.inputFault === true;
    const advice = await tlsAdvice(error, { url: registryUrl, plainHint: "use --plain-http", tlsHint: "drop --plain-http" });
    if (advice) failure.advice = advice;
    if (error?.failedBlobs !== undefined) Object.assign(summary, { failedBlobs: error.failedBlobs });
  }
  summary.requests = client.requests;
  // Exact also after a failure: every HEAD sent, retries included.
  summary.headRequests = summary.requests.head;
  report(summary, failure, values.json);
  if (failure === undefined) return EXIT_OK;
  return inputFault ? EXIT_USAGE : EXIT_REGISTRY;
}

function report(summary, failure, json) {
  if (json) {
    process.stdout.write(`${JSON.stringify(failure === undefined ? summary : { ...summary, error: failure }, null, 2)}\n`);
  } else {
    const byDigest = summary.reference.includes("@");
    const head = summary.ok
      ? `pushed ${summary.reference} (${summary.digest})${byDigest ? ", no tag written" : ""}`
      : `push of ${summary.reference} FAILED; ${byDigest ? "the manifest" : "the tag"} was not written`;
    process.stdout.write(
      `${head}\n`
        + `  blobs ${summary.blobs}: ${summary.headsSkipped} definitely absent (no HEAD), ${summary.headRequests} HEAD requests`
        + ` (${summary.falsePositives} false positives, ${summary.alreadyPresent} already present)\n`
        + `  stale snapshot: ${summary.staleDeleted} deleted since (maybe, then 404), ${summary.absentButPresent} of`
        + ` ${summary.verifiedAbsent} absent blobs above ${summary.verifyAbsentAbove ?? "none"} bytes already present`
        + ` (${summary.absentButPresentBytes} bytes not uploaded)`
        + `${summary.keySetKnown ? "" : "; no sidecar: false positives include stale entries"}\n`
        + `  uploaded ${summary.uploaded} blobs, ${summary.uploadedBytes} bytes; ${summary.manifests} manifests PUT\n`
        + (summary.failedBlobs ?? []).map(({ digest, code }) => `  failed ${digest}: ${code}\n`).join(""),
    );
  }
  if (failure !== undefined) {
    const advice = failure.advice === undefined ? "" : `; ${failure.advice}`;
    process.stderr.write(`push: ${failureLine(failure)}${advice}\n`);
  }
}
