// What `artifact-bloom/delta` uses of the main entry: its filter class, its
// ABF1 encoder and loader, the raw-bits handover of a delta apply, and its
// fetchSnapshot's maker. One module, so the Node build (scripts/build.mjs) can
// replace it with the main entry's own bundle (../node.cjs): a filter made
// with `artifact-bloom` must be the same class, in the same wasm instance,
// as the one the delta module checks. Browsers and bundlers load these very
// modules from the main entry, so they share its instance as they are.
//
// The main module's instantiation handed to its glue (see ../../web.js),
// since a page may import only the delta entry.
import "../../artifact_bloom_instance.js";

export { ArtifactBloomFilter } from "../filter/filter.js";
export { encodeSnapshot, loadSnapshot } from "../snapshot/snapshot.js";
// Internal (node-entry.js exports them for the Node build's sharing).
export { _encodeSnapshotUnsealed } from "../snapshot/snapshot.js";
export { _filterPayload, _loadSnapshotOfBits, _nativeDigest } from "../snapshot/snapshot-of-bits.js";
export { _fetchSnapshotWith } from "../snapshot/snapshot-fetch.js";
export { checkSnapshot as _checkSnapshot } from "../snapshot/snapshot-checks.js";
