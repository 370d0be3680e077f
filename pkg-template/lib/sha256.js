// Streaming SHA-256 in wasm (the sha2 crate), for browsers and workers that
// hash files before asking the filter. In Node, node:crypto's createHash is
// faster for large inputs (it is native code): prefer it there.

import { RawSha256, sha256 as rawSha256 } from "../artifact_bloom.js";
import { freedError, isUint8Array, typeError } from "./errors.js";

export class Sha256 {
  #raw = new RawSha256();

  /** Feeds more bytes; returns `this` so calls can chain. */
  update(bytes) {
    if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array", bytes);
    if (this.#raw === undefined) throw freedError("Sha256");
    this.#raw.update(bytes);
    return this;
  }

  /** The 32-byte digest. The hasher is finished afterwards. */
  digest() {
    if (this.#raw === undefined) throw freedError("Sha256");
    return this.#raw.digest();
  }

  free() {
    const raw = this.#raw;
    this.#raw = undefined;
    raw?.free();
  }

  [Symbol.dispose]() {
    this.free();
  }
}

/** One-shot SHA-256 of `bytes` → 32-byte Uint8Array. */
export function sha256(bytes) {
  if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array", bytes);
  return rawSha256(bytes);
}
