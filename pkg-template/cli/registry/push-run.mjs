// `artifact-bloom push`, once its arguments are parsed (./push.mjs): load the
// snapshot, precheck every blob, upload what is absent, PUT the manifests.
import { stat } from "node:fs/promises";
import { ArtifactExistenceService, loadSnapshot } from "artifact-bloom";
import { repositoryOverClient } from "artifact-bloom/oci";
import { EXIT_OK, EXIT_REGISTRY, EXIT_USAGE, UsageError, hexToBytes, integerOption, errorMessage } from "../common.mjs";
import { readBoundedFile, snapshotFileLimit } from "../bounded-file.mjs";
import { readSidecar } from "../snapshot-sidecar.mjs";
import { fetchSnapshotUrl, isSnapshotUrl } from "../snapshot-url.mjs";
import { putManifest } from "./oci-upload.mjs";
import { checkSnapshotSidecar, precheckBlobs, verifyAbsentThreshold } from "./push-staleness.mjs";
import { resolvePushTarget } from "./push-target.mjs";
import { checkReferenceName, clientFromOptions, describeFailure, failureLine, parseImageReference } from "./registry-common.mjs";
import { fetchForTlsOptions, tlsAdvice } from "./registry-tls.mjs";
import { fetchThroughCache } from "./snapshot-cache.mjs";
import { uploadBlobs } from "./upload-blobs.mjs";
import { createUploadProgress } from "./upload-progress.mjs";

const MIB = 1024 * 1024;

/**
 * Loads the snapshot from a file or URL (fetched with the --ca-file / --tls-verify policy); any failure is a UsageError.
 * @param {string} source the --snapshot argument
 * @param {Record<string, any>} values the parsed options
 */
async function loadSnapshotFrom(source, values) {
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
      throw new UsageError(`cannot read --snapshot ${source}: ${errorMessage(error)}`);
    }
    result = loadSnapshot(bytes, { lastModified: info.mtime, source });
  }
  if (result.kind === "failure") throw new UsageError(`--snapshot ${source}: ${result.error}: ${result.message}`);
  return result.value;
}

/**
 * @param {string} layoutDir LAYOUT_DIR[:ENTRY]
 * @param {string} referenceText HOST[:PORT]/NAME:TAG or @sha256:DIGEST
 * @param {Record<string, any>} values the parsed options
 * @returns {Promise<number>} the exit code
 */
export async function runPush(layoutDir, referenceText, values) {
  const reference = parseImageReference(referenceText);
  const chunkSize = values["chunk-size"] === undefined ? undefined : integerOption(values, "chunk-size", 1, 1024 * MIB);
  const concurrency = values.concurrency === undefined ? 4 : integerOption(values, "concurrency", 1, 64);
  const registryUrl = `${values["plain-http"] ? "http" : "https"}://${reference.host}`;
  const verifyAbove = verifyAbsentThreshold(values);
  const cachePath = values["snapshot-cache"];
  if (cachePath !== undefined && !/^https?:\/\//i.test(values.snapshot)) {
    throw new UsageError("--snapshot-cache needs --snapshot URL (an http(s) URL)");
  }
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
    uploadedDigests: /** @type {string[]} */ ([]),
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
    // What uploadBlobs adds to the errors it throws.
    const detail =
      typeof error === "object" && error !== null ? /** @type {{ inputFault?: unknown, failedBlobs?: unknown }} */ (error) : {};
    inputFault = detail.inputFault === true;
    const advice = await tlsAdvice(error, { url: registryUrl, plainHint: "use --plain-http", tlsHint: "drop --plain-http" });
    if (advice) failure.advice = advice;
    if (detail.failedBlobs !== undefined) Object.assign(summary, { failedBlobs: detail.failedBlobs });
  }
  summary.requests = client.requests;
  // Exact also after a failure: every HEAD sent, retries included.
  summary.headRequests = summary.requests.head;
  report(summary, failure, values.json);
  if (failure === undefined) return EXIT_OK;
  return inputFault ? EXIT_USAGE : EXIT_REGISTRY;
}

/**
 * Prints the summary (JSON, or the human lines) and the failure's one line.
 * @param {Record<string, any>} summary runPush's, with failedBlobs after a failed upload
 * @param {(ReturnType<typeof describeFailure> & { advice?: string }) | undefined} failure
 * @param {boolean | undefined} json
 */
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
        + (summary.failedBlobs ?? [])
          .map((/** @type {{ digest: string, code: string }} */ { digest, code }) => `  failed ${digest}: ${code}\n`)
          .join(""),
    );
  }
  if (failure !== undefined) {
    const advice = failure.advice === undefined ? "" : `; ${failure.advice}`;
    process.stderr.write(`push: ${failureLine(failure)}${advice}\n`);
  }
}
