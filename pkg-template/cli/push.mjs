// `artifact-bloom push`: push an OCI image layout to a registry, prechecked
// against an ABF1 snapshot of the repository. A blob the snapshot says is
// definitely absent is uploaded with no HEAD; a "maybe" is HEADed and
// uploaded only on 404 (a false positive); then the manifests are PUT,
// children by digest and the tagged one by tag.
import { readFile, stat } from "node:fs/promises";
import { ArtifactExistenceService, fetchSnapshot, loadLibrary, loadSnapshot } from "./library.mjs";
import { repositoryOverClient } from "../lib/oci-repository.js";
import { EXIT_OK, EXIT_PROBLEMS, UsageError, hexToBytes, integerOption, parseCommand } from "./common.mjs";
import { readLayoutImage } from "./oci-layout.mjs";
import { putManifest, uploadBlob } from "./oci-upload.mjs";
import { REGISTRY_HELP, REGISTRY_OPTIONS, clientFromOptions, describeFailure, parseImageReference } from "./registry-common.mjs";

const MIB = 1024 * 1024;

export const HELP = `Usage: artifact-bloom push LAYOUT_DIR HOST[:PORT]/NAME:TAG --snapshot PATH_OR_URL
                          [--plain-http] [--json] [--chunk-size BYTES] [--concurrency N]

Pushes the image tagged TAG in the OCI image layout LAYOUT_DIR (its
index.json entry named TAG, or its only entry) to NAME on the registry,
prechecking every config and layer blob against the repository's snapshot
(from "artifact-bloom publish --from-registry"):

  definitely absent  uploaded at once, no HEAD request
  maybe              HEAD; uploaded only if the registry answers 404

Then every manifest is PUT (an index's children by digest, the tagged one
by TAG), each checked against the registry's Docker-Content-Digest.

  --snapshot P|URL     the repository's ABF1 snapshot (a file, or http(s) URL)
  --plain-http         talk http:// instead of https://
  --chunk-size BYTES   blobs larger than this go up in PATCH chunks of this
                       size (default ${8 * MIB}); smaller ones in one PUT
  --concurrency N      blob uploads and HEADs in flight (default 4)
  --json               print the summary as JSON
${REGISTRY_HELP}

Summary: blobs (config + layers), headRequests, headsSkipped (definitely
absent: no HEAD), falsePositives (maybe, then 404), alreadyPresent,
uploaded, uploadedBytes, manifests, readBacks (a blob or manifest whose
201 named no Docker-Content-Digest is read back once by digest, HEAD or
GET; not there is a notStored failure). A stale snapshot is safe: a blob pushed
since it was built is uploaded again, one deleted since is HEADed (404) and
uploaded. Progress of large blobs goes to standard error.

Exit codes: 0 pushed, 1 the push failed (registry error, unreachable,
digest mismatch; the summary lists only what was really uploaded, and the
tag is not written), 2 bad arguments, layout or snapshot.`;

/** Loads the snapshot from a file or URL; any failure is a UsageError. */
async function loadSnapshotFrom(source) {
  await loadLibrary();
  let result;
  if (/^https?:\/\//i.test(source)) {
    try {
      result = await fetchSnapshot(source);
    } catch (error) {
      throw new UsageError(`cannot fetch --snapshot ${source}: ${error.message}`);
    }
  } else {
    let bytes;
    let info;
    try {
      [bytes, info] = await Promise.all([readFile(source), stat(source)]);
    } catch (error) {
      throw new UsageError(`cannot read --snapshot ${source}: ${error.message}`);
    }
    result = loadSnapshot(new Uint8Array(bytes), { lastModified: info.mtime, source });
  }
  if (result.kind === "failure") throw new UsageError(`--snapshot ${source}: ${result.error}: ${result.message}`);
  return result.value;
}

/** Progress of large blobs on stderr: a live line on a terminal, one line per blob otherwise. */
function largeBlobProgress(digest, size) {
  const short = digest.slice(0, 19);
  const total = (size / MIB).toFixed(1);
  let last = 0;
  return (sent) => {
    if (process.stderr.isTTY) {
      const now = Date.now();
      if (sent < size && now - last < 100) return;
      last = now;
      process.stderr.write(`\ruploading ${short}… ${(sent / MIB).toFixed(1)}/${total} MiB\x1b[K${sent === size ? "\n" : ""}`);
    } else if (sent === size) {
      process.stderr.write(`uploaded ${short}… ${total} MiB\n`);
    }
  };
}

/** Runs `task` over `items` with at most `limit` in flight; stops starting new ones after a failure. */
async function pool(items, limit, task) {
  let next = 0;
  let failure;
  const worker = async () => {
    while (next < items.length && failure === undefined) {
      const item = items[next];
      next += 1;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
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
      ...REGISTRY_OPTIONS,
    },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  if (positionals.length !== 2) throw new UsageError(`expected LAYOUT_DIR and HOST:PORT/NAME:TAG, got ${positionals.length} arguments\n\n${HELP}`);
  const [layoutDir, referenceText] = positionals;
  const reference = parseImageReference(referenceText);
  if (values.snapshot === undefined) throw new UsageError("--snapshot is required (publish one with: artifact-bloom publish --from-registry URL --repository NAME …)");
  const chunkSize = values["chunk-size"] === undefined ? 8 * MIB : integerOption(values, "chunk-size", 1, 1024 * MIB);
  const concurrency = values.concurrency === undefined ? 4 : integerOption(values, "concurrency", 1, 64);
  const registryUrl = `${values["plain-http"] ? "http" : "https"}://${reference.host}`;

  const image = await readLayoutImage(layoutDir, reference.tag);
  const snapshot = await loadSnapshotFrom(values.snapshot);
  const client = await clientFromOptions(registryUrl, reference.name, values);
  // HEADs go through the uploads' client: one auth state, one request count.
  // The service hands all maybes to one existsManyAtVersionAsync call, which
  // keeps at most `concurrency` HEADs in flight.
  const existence = new ArtifactExistenceService(snapshot, repositoryOverClient(client, { concurrency }), { concurrency: 1 });

  const summary = {
    ok: false,
    reference: `${reference.host}/${reference.name}:${reference.tag}`,
    digest: image.root.descriptor.digest,
    snapshotCatalogVersion: snapshot.catalogVersion,
    blobs: image.blobs.length,
    headRequests: 0,
    headsSkipped: 0,
    falsePositives: 0,
    alreadyPresent: 0,
    uploaded: 0,
    uploadedBytes: 0,
    manifests: 0,
    readBacks: 0,
    tagged: false,
    uploadedDigests: [],
    requests: client.requests,
  };
  let failure;
  try {
    const digests = image.blobs.map((blob) => hexToBytes(blob.digest.slice("sha256:".length)));
    const missing = new Set(await existence.findMissingAsync(digests));
    const metrics = existence.metrics();
    summary.headsSkipped = metrics["artifact_bloom.negative.count"];
    summary.falsePositives = metrics["artifact_bloom.false_positive.count"];
    summary.headRequests = client.requests.head;
    summary.alreadyPresent = image.blobs.length - missing.size;
    const toUpload = image.blobs.filter((_, index) => missing.has(digests[index]));
    await pool(toUpload, concurrency, async (blob) => {
      const onProgress = blob.size > chunkSize ? largeBlobProgress(blob.digest, blob.size) : undefined;
      const { readBacks } = await uploadBlob(client, image.blobPath(blob.digest), blob, { chunkSize, ...(onProgress ? { onProgress } : {}) });
      summary.readBacks += readBacks;
      // Counted only once the registry committed it under the right digest.
      summary.uploaded += 1;
      summary.uploadedBytes += blob.size;
      summary.uploadedDigests.push(blob.digest);
    });
    for (const manifest of image.manifests) {
      const isRoot = manifest === image.root;
      summary.readBacks += await putManifest(client, isRoot ? reference.tag : manifest.descriptor.digest, manifest);
      summary.manifests += 1;
      if (isRoot) summary.tagged = true;
    }
    summary.ok = true;
  } catch (error) {
    failure = describeFailure(error);
  }
  summary.requests = client.requests;
  report(summary, failure, values.json);
  return failure === undefined ? EXIT_OK : EXIT_PROBLEMS;
}

function report(summary, failure, json) {
  if (json) {
    process.stdout.write(`${JSON.stringify(failure === undefined ? summary : { ...summary, error: failure }, null, 2)}\n`);
  } else {
    const head = summary.ok ? `pushed ${summary.reference} (${summary.digest})` : `push of ${summary.reference} FAILED; the tag was not written`;
    process.stdout.write(
      `${head}\n`
        + `  blobs ${summary.blobs}: ${summary.headsSkipped} definitely absent (no HEAD), ${summary.headRequests} HEAD requests`
        + ` (${summary.falsePositives} false positives, ${summary.alreadyPresent} already present)\n`
        + `  uploaded ${summary.uploaded} blobs, ${summary.uploadedBytes} bytes; ${summary.manifests} manifests PUT\n`,
    );
  }
  if (failure !== undefined) process.stderr.write(`push: ${failure.code}${failure.status === undefined ? "" : ` (HTTP ${failure.status})`}: ${failure.message}\n`);
}
