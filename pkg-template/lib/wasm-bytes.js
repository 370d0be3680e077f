// Decodes the wasm module that scripts/build.mjs embeds in the generated
// `*_instance.js` modules as a hex string (why hex, not base64: see the build
// script's `instanceModule`).

/**
 * The bytes of a lowercase hex string of even length (the build writes
 * nothing else, so nothing else is checked).
 *
 * @param {string} hex
 * @returns {Uint8Array}
 */
export function bytesFromHex(hex) {
  const bytes = new Uint8Array(hex.length >>> 1);
  for (let i = 0, j = 0; i < bytes.length; i += 1, j += 2) {
    bytes[i] = (nibble(hex.charCodeAt(j)) << 4) | nibble(hex.charCodeAt(j + 1));
  }
  return bytes;
}

/**
 * "0"–"9" → 0–9, "a"–"f" → 10–15.
 *
 * @param {number} code a character code
 * @returns {number}
 */
function nibble(code) {
  return code <= 57 ? code - 48 : code - 87;
}
