// What `push` sends and where: LAYOUT[:ENTRY] picks the layout and its
// index.json entry, HOST/NAME:TAG or HOST/NAME@sha256:DIGEST the remote
// reference — independently, so an entry can go up under another tag, or
// by digest with no tag at all. Everything here is decided and checked
// locally, before any request: a digest reference must be the digest of the
// manifest that would be PUT.
import { stat } from "node:fs/promises";
import { UsageError } from "../common.mjs";
import { formatReference } from "./image-reference.mjs";
import { readLayoutImage } from "./oci-layout.mjs";

// An OCI ref.name as skopeo's oci: transport and the image-layout spec use it.
const ENTRY_PATTERN = /^[A-Za-z0-9._-]+$/;

/**
 * LAYOUT or LAYOUT:ENTRY → { dir, entry? }. A directory whose own name holds
 * ":" is taken whole when it exists.
 * @param {string} text
 * @returns {Promise<{ dir: string, entry?: string }>}
 */
async function splitLayoutArgument(text) {
  const colon = text.lastIndexOf(":");
  if (colon <= 0) return { dir: text };
  const whole = await stat(text).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (whole) return { dir: text };
  const entry = text.slice(colon + 1);
  if (!ENTRY_PATTERN.test(entry)) {
    throw new UsageError(
      `expected LAYOUT_DIR or LAYOUT_DIR:ENTRY (ENTRY an index.json org.opencontainers.image.ref.name), got "${text}"`,
    );
  }
  return { dir: text.slice(0, colon), entry };
}

/**
 * Reads the image to push for an already parsed reference (parse it first
 * with parseImageReference: a host-less one is refused before anything).
 * @param {string} layoutText LAYOUT or LAYOUT:ENTRY
 * @param {import("./image-reference.mjs").ImageReference} reference
 * @returns {Promise<{ display: string, image: import("./oci-layout.mjs").ImageToPush, remoteReference: string }>}
 */
export async function resolvePushTarget(layoutText, reference) {
  const { dir, entry } = await splitLayoutArgument(layoutText);
  const select =
    entry !== undefined
      ? { name: entry, exact: true }
      : reference.digest !== undefined
        ? { digest: reference.digest }
        : { name: reference.tag };
  const image = await readLayoutImage(dir, select);
  const actual = image.root.descriptor.digest;
  if (reference.digest !== undefined && actual !== reference.digest) {
    throw new UsageError(
      `${formatReference(reference)} names ${reference.digest}, but the layout's entry `
        + `${entry === undefined ? "" : `"${entry}" `}is ${actual}; nothing was pushed (use @${actual}, or :TAG)`,
    );
  }
  return {
    display: formatReference(reference),
    image,
    // The root manifest's PUT: by tag, or by its digest (no tag written).
    remoteReference: reference.digest ?? /** @type {string} */ (reference.tag),
  };
}
