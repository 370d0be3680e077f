// `artifact-bloom push`: push an OCI image layout to a registry, prechecked
// against an ABF1 snapshot of the repository. A blob the snapshot says is
// definitely absent is uploaded with no HEAD; a "maybe" is HEADed and
// uploaded only on 404 (a false positive); then the manifests are PUT,
// children by digest and the tagged one by tag. This module is its usage;
// ./push-run.mjs does it.
import { EXIT_OK, UsageError, parseCommand } from "../common.mjs";
import { EXIT_CODES_HELP } from "../exit-codes.mjs";
import { CREDENTIALS_NOTE, REGISTRY_OPTIONS, STALENESS_NOTE, STALENESS_OPTIONS } from "../option-groups.mjs";
import { helpText } from "../option-table.mjs";

/** @type {import("../option-table.mjs").CommandSpec} */
export const COMMAND = {
  name: "push",
  usage: ["LAYOUT_DIR[:ENTRY] HOST[:PORT]/NAME:TAG", "LAYOUT_DIR[:ENTRY] HOST[:PORT]/NAME@sha256:DIGEST --snapshot …"],
  allowPositionals: true,
  about: `Pushes one image of the OCI image layout LAYOUT_DIR to NAME on the registry:
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
by TAG or DIGEST), each checked against the registry's Docker-Content-Digest.`,
  options: {
    snapshot: {
      type: "string",
      arg: "P|URL",
      required: true,
      help: "the repository's ABF1 snapshot (a file, or an http(s) URL: a layout's manifest.json or the snapshot itself)",
    },
    "plain-http": {
      type: "boolean",
      default: false,
      help: 'talk http:// instead of https:// (to a registry that speaks TLS this fails with "the server speaks TLS")',
    },
    json: { type: "boolean", default: false, help: "print the summary as JSON" },
    "chunk-size": {
      type: "string",
      arg: "BYTES",
      help:
        "upload blobs larger than this in PATCH chunks of this size (each streamed from disk). Default: every blob "
        + "streams from disk in ONE request (POST, then PUT)",
    },
    concurrency: { type: "string", arg: "N", help: "blob uploads and HEADs in flight (default 4)" },
    ...STALENESS_OPTIONS,
    ...REGISTRY_OPTIONS,
  },
  notes: [
    `Summary: blobs (config + layers), headRequests, headsSkipped (definitely
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
only once the registry committed the blob.`,
    STALENESS_NOTE,
    CREDENTIALS_NOTE,
    `${EXIT_CODES_HELP}
For push: 3 means the push failed (registry error, unreachable, credentials
refused, digest mismatch); the summary lists only what was really uploaded,
and the tag is not written. 2: bad arguments, reference, layout, snapshot or
credential configuration; nothing was sent.`,
  ],
};

const HELP = helpText(COMMAND);

/** @param {string[]} argv the arguments after the command's name */
export async function push(argv) {
  const parsed = parseCommand(argv, COMMAND);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  if (positionals.length !== 2) {
    throw new UsageError(
      `expected LAYOUT_DIR[:ENTRY] and HOST:PORT/NAME:TAG (or @sha256:DIGEST), got ${positionals.length} arguments\n\n${HELP}`,
    );
  }
  const [layoutDir, referenceText] = positionals;
  if (values.snapshot === undefined) {
    throw new UsageError(
      "--snapshot is required" + " (publish one with: artifact-bloom publish --from-registry URL --repository NAME …)",
    );
  }
  // The library loads only now: a usage or a refused argument costs none of it.
  const { runPush } = await import("./push-run.mjs");
  return runPush(layoutDir, referenceText, values);
}
