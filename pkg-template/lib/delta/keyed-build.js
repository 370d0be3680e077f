// Internal, for a publisher of keyed snapshots (artifact-bloom/server's
// publishCatalog), in the delta module beside the sorted build: the digests'
// MACs, and the header rewrite between a protocol-1 file built from those
// MACs and the protocol-3 file those bits are (docs/ABF1.md "Keyed
// snapshots"). The sorted build knows nothing of keys: it sorts,
// de-duplicates and builds protocol 1 over whatever 32-byte records it gets
// — here MACs, as unique as the digests they come from.

import { RawCatalogKey } from "../../artifact_bloom_delta.js";
import { attempt } from "../core/errors.js";
import { stageInput } from "./delta-inputs.js";

/**
 * @param {Uint8Array} bytes
 * @returns {number} the staged length
 */
function staged(bytes) {
  stageInput(bytes.byteLength).set(bytes);
  return bytes.byteLength;
}

/**
 * The tools for one key; `free()` when done. `mac` throws a coded
 * `outOfMemory` only; `seal` and `unseal` answer results (`unseal`: step 9's
 * `wrongKey` / `notKeyed`, and a load failure of the file).
 *
 * @internal
 * @param {Uint8Array} key a key the caller checked (16 to 1024 bytes)
 */
export function _keyedBuild(key) {
  // Staging first instantiates the module (its first use).
  stageInput(0);
  const raw = new RawCatalogKey(key);
  return {
    /**
     * Each 32-byte record replaced by its HMAC-SHA-256 under the key.
     * @param {Uint8Array} packed whole 32-byte records
     * @returns {Uint8Array}
     */
    mac: (packed) => raw.macPacked(staged(packed)),
    /**
     * A valid protocol-1 file whose bits were built from MACs under the key, as protocol 3.
     * @param {Uint8Array} file
     */
    seal: (file) => attempt(() => raw.sealSnapshot(staged(file))),
    /**
     * A protocol-3 file under the key as the protocol-1 file of the same bits (a sorted build continues it).
     * @param {Uint8Array} file
     */
    unseal: (file) => attempt(() => raw.unsealSnapshot(staged(file))),
    free: () => raw.free(),
  };
}
