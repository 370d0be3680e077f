// Decodes the wasm module that scripts/build.mjs embeds in the generated
// `*_instance.js` modules as a hex string (why hex, not base64: see the build
// script's `instanceModule`).

/**
 * The bytes of a lowercase hex string of even length (the build writes
 * nothing else, so nothing else is checked). Native decoders first — the
 * decode runs once, at import, where a JavaScript loop is still cold and
 * costs milliseconds: `Uint8Array.fromHex` (current browsers), then Node's
 * `Buffer`, then the loop.
 *
 * @param {string} hex
 * @returns {Uint8Array}
 */
export function bytesFromHex(hex) {
  const native = /** @type {{ fromHex?: (text: string) => Uint8Array }} */ (/** @type {unknown} */ (Uint8Array));
  if (typeof native.fromHex === "function") return native.fromHex(hex);
  const nodeBuffer = /** @type {{ Buffer?: { from(text: string, encoding: string): Uint8Array } }} */ (globalThis).Buffer;
  if (typeof nodeBuffer?.from === "function") return nodeBuffer.from(hex, "hex");
  const bytes = new Uint8Array(hex.length >>> 1);
  for (let i = 0, j = 0; i < bytes.length; i += 1, j += 2) {
    const high = hex.charCodeAt(j);
    const low = hex.charCodeAt(j + 1);
    // "0"–"9" are 48–57, "a"–"f" are 97–102.
    bytes[i] = ((high <= 57 ? high - 48 : high - 87) << 4) | (low <= 57 ? low - 48 : low - 87);
  }
  return bytes;
}
