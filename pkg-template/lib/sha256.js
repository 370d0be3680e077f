// Streaming SHA-256 in wasm (the sha2 crate), for browsers and workers that
// hash files before asking the filter. In Node, node:crypto's createHash is
// faster for large inputs (it is native code): prefer it there.

import { RawSha256, sha256 as rawSha256 } from "../artifact_bloom.js";
import { isUint8Array, typeError } from "./errors.js";
import { toWasm } from "./memory.js";
import { WasmResource } from "./resource.js";

export class Sha256 extends WasmResource {
  constructor() {
    super(new RawSha256(), "Sha256");
  }

  /** Feeds more bytes; returns `this` so calls can chain. */
  update(bytes) {
    if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array", bytes);
    this._raw().update(toWasm(bytes));
    return this;
  }

  /** The 32-byte digest. The hasher is finished afterwards. */
  digest() {
    return this._raw().digest();
  }
}

/** One-shot SHA-256 of `bytes` → 32-byte Uint8Array. */
export function sha256(bytes) {
  if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array", bytes);
  return rawSha256(toWasm(bytes));
}
