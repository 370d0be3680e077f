// The blob phase of `push`: every missing blob uploaded with at most
// `concurrency` in flight, progress for the large ones, and every failure
// kept with the blob it belongs to, so the error names each failed blob, not
// just the first. A failure of one blob (its bytes, its answer) does not stop
// the others, which are independent; one that says the registry itself is
// unusable (unreachable, no answer in time, credentials refused, a Location
// elsewhere) stops starting new uploads, since each would fail the same way.
import { OciRegistryError } from "artifact-bloom/oci";
import { uploadBlob } from "./oci-upload.mjs";
import { describeFailure } from "./registry-common.mjs";

const MIB = 1024 * 1024;
/** Blobs larger than this get progress lines (unless chunks are smaller). */
const PROGRESS_MIN_BYTES = 8 * MIB;
const REGISTRY_WIDE = new Set([
  "networkError",
  "timeout",
  "unauthorized",
  "denied",
  "crossOrigin",
  "redirect",
  "tooManyRequests",
]);

/**
 * The error for a push whose blob phase failed: the first failure's code
 * and status; the message names every failed blob. `failedBlobs` lists them.
 * @param {{ digest: string, error: unknown }[]} failures
 */
function blobsFailedError(failures) {
  const described = failures.map(({ digest, error }) => ({ digest, ...describeFailure(error) }));
  const first = described[0];
  // One registry-wide answer (an unreachable or misaddressed registry) reads
  // once, with every blob it stopped named before it.
  const alike = described.every(({ code, message: why }) => code === first.code && why === first.message);
  const message =
    described.length === 1
      ? first.message
      : alike
        ? `${described.length} blobs failed alike (${described.map(({ digest }) => digest).join(", ")}): ${first.message}`
        : `${described.length} blobs failed: ${described
            .map(({ digest, code, message: why }) => `${digest} (${code}: ${why})`)
            .join("; ")}`;
  // The first failure is the cause, so what explains it (a TLS reason, say) is found through the chain.
  const tlsProblem = /** @type {{ tlsProblem?: import("../../lib/client-types.js").TlsProblemKind }} */ (failures[0].error)
    ?.tlsProblem;
  const error = new OciRegistryError(message, {
    code: /** @type {any} */ (first.code),
    cause: failures[0].error,
    ...(first.status === undefined ? {} : { status: first.status }),
    ...(tlsProblem === undefined ? {} : { tlsProblem }),
  });
  // A layout blob that is not what its digest says is the input's fault (exit 2).
  const inputFault = failures.some(({ error: cause }) => /** @type {{ inputFault?: boolean }} */ (cause)?.inputFault === true);
  return Object.assign(error, { failedBlobs: described, inputFault });
}

/**
 * @param {object} job
 * @param {import("../../lib/repositories/oci-client.js").RegistryClient} job.client
 * @param {{ digest: string, size: number }[]} job.blobs to upload
 * @param {(digest: string) => string} job.blobPath
 * @param {number} job.concurrency
 * @param {number | undefined} job.chunkSize undefined: one request per blob
 * @param {{ start: (digest: string, size: number) => import("./upload-progress.mjs").BlobProgress }} job.progress
 * @param {(blob: { digest: string, size: number }, readBacks: number) => void} job.onCommitted
 * @returns {Promise<void>} rejects with blobsFailedError when any blob failed
 */
export async function uploadBlobs({ client, blobs, blobPath, concurrency, chunkSize, progress, onCommitted }) {
  const threshold = Math.min(PROGRESS_MIN_BYTES, chunkSize ?? Infinity);
  /** @type {{ digest: string, error: unknown }[]} */
  const failures = [];
  let stopped = false;
  let next = 0;
  const worker = async () => {
    while (next < blobs.length && !stopped) {
      const blob = blobs[next];
      next += 1;
      const shown = blob.size > threshold ? progress.start(blob.digest, blob.size) : undefined;
      try {
        const { readBacks } = await uploadBlob(client, blobPath(blob.digest), blob, {
          ...(chunkSize === undefined ? {} : { chunkSize }),
          ...(shown ? { onProgress: shown.update } : {}),
        });
        // Only now is it stored under its digest (201 checked, or read back).
        shown?.committed();
        onCommitted(blob, readBacks);
      } catch (error) {
        const { code } = describeFailure(error);
        shown?.failed(code);
        failures.push({ digest: blob.digest, error });
        if (REGISTRY_WIDE.has(code)) stopped = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, blobs.length) }, worker));
  if (failures.length > 0) throw blobsFailedError(failures);
}
