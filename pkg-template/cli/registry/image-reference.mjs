// Image references for `push`: HOST[:PORT]/NAME:TAG or HOST[:PORT]/NAME@sha256:HEX.
// The registry host is never implied: docker's rule decides whether the
// first component is a host (it holds "." or ":" or is "localhost"), and a
// reference without one is refused before any request — "team/app:b" would
// otherwise send the push (and credentials) to a host called "team".
import { checkRepositoryName } from "artifact-bloom/oci";
import { UsageError, errorMessage } from "../common.mjs";
import { OCI_DIGEST } from "./oci-layout.mjs";

const TAG_PATTERN = /^[\w][\w.-]{0,127}$/;
const HOST_PATTERN = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:.]+\](:\d{1,5})?$/;
const EXPECTED = "HOST[:PORT]/NAME:TAG or HOST[:PORT]/NAME@sha256:DIGEST, e.g. registry.example:5000/team/app:v1";

/**
 * @typedef {{ host: string, name: string, tag?: string, digest?: string }} ImageReference
 * exactly one of tag and digest is set
 */

/**
 * Whether a reference's first component names a registry host (docker's rule).
 * @param {string} component
 */
function isRegistryHost(component) {
  return component.includes(".") || component.includes(":") || component === "localhost";
}

/**
 * Parses a push reference. The repository name's grammar is the registry
 * client's, checked by checkReferenceName once the library is loaded (so a
 * malformed reference is refused without it).
 * @param {string} text
 * @returns {ImageReference}
 */
export function parseImageReference(text) {
  const slash = text.indexOf("/");
  const first = slash < 0 ? text : text.slice(0, slash);
  if (slash <= 0 || !isRegistryHost(first)) {
    throw new UsageError(
      `expected ${EXPECTED}, got "${text}": it names no registry host `
        + `(${slash <= 0 ? "no HOST/ before the name" : `"${first}" holds no "." or ":" and is not "localhost"`}); `
        + "the host is never implied, write it out (Docker Hub: registry-1.docker.io/library/NAME)",
    );
  }
  const host = first;
  let rest = text.slice(slash + 1);
  let digest;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!OCI_DIGEST.test(digest)) {
      throw new UsageError(`bad digest "${digest}" in "${text}": expected sha256: and 64 lowercase hex digits`);
    }
  }
  const colon = rest.lastIndexOf(":");
  if (digest !== undefined && colon >= 0) {
    throw new UsageError(`expected ${EXPECTED}, got "${text}": give :TAG or @sha256:DIGEST, not both`);
  }
  if (digest === undefined && colon <= 0) throw new UsageError(`expected ${EXPECTED}, got "${text}" (no :TAG or @sha256:DIGEST)`);
  const name = digest === undefined ? rest.slice(0, colon) : rest;
  if (!HOST_PATTERN.test(host)) throw new UsageError(`bad registry host "${host}": expected HOST or HOST:PORT`);
  if (digest !== undefined) return { host, name, digest };
  const tag = rest.slice(colon + 1);
  if (!TAG_PATTERN.test(tag)) throw new UsageError(`bad tag "${tag}": expected [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`);
  return { host, name, tag };
}

/**
 * Refuses a reference whose repository name breaks the distribution spec's
 * grammar (a UsageError).
 * @param {ImageReference} reference
 */
export function checkReferenceName({ name }) {
  try {
    checkRepositoryName(name);
  } catch (error) {
    throw new UsageError(`bad repository name "${name}": ${errorMessage(error)}`);
  }
}

/**
 * HOST/NAME:TAG or HOST/NAME@DIGEST.
 * @param {ImageReference} reference
 */
export function formatReference({ host, name, tag, digest }) {
  return `${host}/${name}${digest === undefined ? `:${tag}` : `@${digest}`}`;
}
