// `artifact-bloom/delta`'s fetchSnapshot: the main entry's, asking for ABD1
// deltas (RFC 3229 `A-IM: abd1`; docs/ABD1.md "HTTP") and applying them
// with ./delta-apply.js. SnapshotHolder.startPolling uses it too. Made with the
// main entry's own `_fetchSnapshotWith` (through ./delta-main.js, which the
// Node build shares), so both entries run one fetch implementation and the
// main entry's modules never import the delta module.

import { _fetchSnapshotWith } from "./delta-main.js";
import { applySnapshotDelta } from "./delta-apply.js";

/**
 * @import { FetchSnapshotDeltaOptions, FetchSnapshotResult } from "../delta-types.js"
 */

const fetchWithDeltas = _fetchSnapshotWith(applySnapshotDelta);

/**
 * Fetches and loads a snapshot, like the main entry's `fetchSnapshot` (same
 * options and results), and with `base` (a loaded snapshot) asks for an
 * ABD1 delta from it (`A-IM: abd1`): a `226 IM Used` answer is applied to
 * `base` with `applySnapshotDelta` and checked against the target checksum,
 * and anything unexpected (another instance manipulation, a delta that does
 * not apply) falls back to the full snapshot. A success's `transfer` says
 * how many bytes came and whether a delta was used (`deltaFailure` names
 * why one was not).
 *
 * @example
 * ```ts
 * import { fetchSnapshot } from "artifact-bloom/delta";
 * const loaded = await fetchSnapshot("/snapshot", { base: current });
 * if (loaded.kind === "success") console.log(loaded.transfer.delta, loaded.transfer.bytes);
 * ```
 *
 * @param {string | URL} url
 * @param {FetchSnapshotDeltaOptions} [options]
 * @returns {Promise<FetchSnapshotResult>}
 */
export function fetchSnapshot(url, options) {
  return fetchWithDeltas(url, options);
}
