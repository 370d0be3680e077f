// Streaming SHA-256 in wasm (the sha2 crate), for browsers and workers that
// hash files before asking the filter. In Node, node:crypto's createHash is
// faster for large inputs (it is native code): prefer it there.

import { RawSha256, sha256 as rawSha256 } from "../../artifact_bloom.js";
import { isUint8Array, typeError } from "../core/errors.js";
import { toWasm } from "../wasm/main-memory.js";
import { WasmResource } from "../wasm/resource.js";

/**
 * Streaming SHA-256 in WebAssembly. In Node, `node:crypto` is faster for
 * large inputs; this class is for browsers and workers.
 *
 * @example
 * ```ts
 * const hasher = new Sha256();
 * for await (const chunk of file.stream()) hasher.update(chunk);
 * const digest = hasher.digest(); // 32 bytes
 * ```
 *
 * @extends {WasmResource<"Sha256">}
 */
export class Sha256 extends WasmResource {
  /** A fresh hasher (its state lives in wasm memory until `free()`). */
  constructor() {
    super(new RawSha256(), "Sha256");
  }

  /**
   * Feeds more bytes; returns `this` so calls can chain.
   *
   * @param {Uint8Array} bytes
   * @returns {this}
   * @throws {TypeError} when `bytes` is not a `Uint8Array`.
   */
  update(bytes) {
    if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array", bytes);
    this._raw().update(toWasm(bytes));
    return this;
  }

  /**
   * The 32-byte digest; the hasher is finished afterwards.
   *
   * @returns {Uint8Array<ArrayBuffer>}
   */
  digest() {
    // wasm-bindgen copies the bytes out into a fresh ArrayBuffer.
    return /** @type {Uint8Array<ArrayBuffer>} */ (this._raw().digest());
  }
}

/**
 * One-shot SHA-256 of `bytes` → 32-byte Uint8Array.
 *
 * @param {Uint8Array} bytes
 * @returns {Uint8Array<ArrayBuffer>}
 * @throws {TypeError} when `bytes` is not a `Uint8Array`.
 */
export function sha256(bytes) {
  if (!isUint8Array(bytes)) throw typeError("bytes", "a Uint8Array", bytes);
  return /** @type {Uint8Array<ArrayBuffer>} */ (rawSha256(toWasm(bytes)));
}
