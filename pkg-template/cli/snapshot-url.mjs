// A snapshot given as an http(s) URL, for `check` and `inspect` (and push's
// --snapshot): fetched with the library's fetchSnapshot, so a layout's
// manifest.json is followed (docs/layout.md) and a direct snapshot URL is
// one GET; at most the CLI's snapshot size limit; TLS by --ca-file /
// --tls-verify like the registry commands. A URL that cannot be fetched is
// an input error (one line, exit 2, with how to fix a TLS or scheme
// mix-up); a snapshot that arrives but does not load is the failure itself,
// for the command to report as it reports a file that does not load.
import { fetchSnapshot } from "artifact-bloom";
import { UsageError } from "./common.mjs";
import { snapshotFileLimit } from "./bounded-file.mjs";
import { fetchForTlsOptions, tlsAdvice, urlSchemeHints } from "./registry/registry-tls.mjs";

/**
 * The failures of fetching itself (no snapshot arrived: exit 2, with TLS
 * advice where it helps). Any other failure is the snapshot's own (the
 * command's "does not load"): listing these few, not the load codes, keeps a
 * load code the library adds (keyRequired, wrongKey, …) a load failure.
 */
const FETCH_FAILURES = new Set(["networkError", "httpError", "timeout", "notModified", "versionConflict", "stale"]);

/**
 * Whether a snapshot argument names a URL rather than a file.
 * @param {string} source
 */
export function isSnapshotUrl(source) {
  return /^https?:\/\//i.test(source);
}

/**
 * The snapshot at `url` → the library's success or load failure (`{ kind:
 * "failure", error, message }`); throws a one-line UsageError when nothing
 * usable arrived (network, HTTP status, timeout).
 * @param {string} url
 * @param {{ label: string, values?: Record<string, unknown>, key?: Uint8Array }} context `label`
 *   names the argument in messages ("--snapshot", "PATH"); `key` loads a keyed snapshot
 */
export async function fetchSnapshotUrl(url, { label, values = {}, key }) {
  const fetchImpl = await fetchForTlsOptions(values);
  let result;
  try {
    result = await fetchSnapshot(url, {
      maxBytes: snapshotFileLimit(),
      ...(key === undefined ? {} : { key }),
      ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
    });
  } catch (error) {
    throw new UsageError(`cannot fetch ${label} ${url}: ${/** @type {Error} */ (error).message}`);
  }
  if (result.kind === "success" || !FETCH_FAILURES.has(result.error)) return result;
  const hints = label.startsWith("--")
    ? urlSchemeHints(label, url)
    : { url, plainHint: `try ${url.replace(/^https:/i, "http:")}`, tlsHint: `try ${url.replace(/^http:/i, "https:")}` };
  const advice = result.error === "networkError" || result.error === "httpError" ? await tlsAdvice(result, hints) : "";
  throw new UsageError(`${label} ${url}: ${result.error}: ${result.message}${advice ? `; ${advice}` : ""}`);
}
