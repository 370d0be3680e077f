// What `artifact-bloom/server` uses of the main entry: its ABF1 encoder,
// loader and header reader. One module, so the Node build
// (scripts/build.mjs) replaces it with the main entry's own bundle
// (../node.cjs): a filter the caller made with `artifact-bloom` is the same
// class, in the same wasm instance, as the one the publisher encodes.
// Browsers and bundlers load these very modules from the main entry.
//
// The main module's instantiation handed to its glue (see ../../web.js),
// since a program may import only the server entry.
import "../../artifact_bloom_instance.js";

export { encodeSnapshot, loadSnapshot, readSnapshotHeader } from "../snapshot/snapshot.js";
// Internal: the key option's checks (keyed snapshots).
export { assertKeyOf as _assertKeyOf, checkKey as _checkKey } from "../snapshot/snapshot-key.js";
