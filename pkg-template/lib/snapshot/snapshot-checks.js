// What a snapshot argument must be, checked one way wherever a caller hands
// one in: SnapshotHolder and ArtifactExistenceService, fetchSnapshot's
// `base`, and artifact-bloom/delta's apply and encode (which take this
// module through delta-main.js, so that in the Node build the filter class
// checked is the main bundle's, the one callers' filters are made with).

import { rangeError, typeError } from "../core/errors.js";
import { ArtifactBloomFilter } from "../filter/filter.js";
import { checkCatalogVersion } from "../wasm/format-rules.js";

/** @import { ArtifactIndexSnapshot } from "../types.js" */

/**
 * Throws unless `snapshot` is `{ catalogVersion, filter }` with a
 * catalogVersion in range (format-rules.js) and a live (not freed)
 * ArtifactBloomFilter: a TypeError or RangeError naming `parameter`.
 *
 * @param {string} parameter the argument's name, for the error
 * @param {unknown} snapshot
 * @returns {asserts snapshot is ArtifactIndexSnapshot}
 */
export function checkSnapshot(parameter, snapshot) {
  if (snapshot === null || typeof snapshot !== "object") {
    throw typeError(parameter, "a snapshot { catalogVersion, filter }", snapshot);
  }
  const { catalogVersion, filter } = /** @type {{ catalogVersion?: unknown, filter?: unknown }} */ (snapshot);
  checkCatalogVersion(`${parameter}.catalogVersion`, catalogVersion);
  if (!(filter instanceof ArtifactBloomFilter)) {
    throw typeError(`${parameter}.filter`, "an ArtifactBloomFilter", filter);
  }
  if (filter.freed) throw rangeError(`${parameter}.filter`, "an ArtifactBloomFilter that is not freed", filter);
}
