// Bytes as text: lowercase hex (digests in URLs and names), and UTF-8 for
// hosts without TextEncoder/TextDecoder.
//
// jsdom (Jest's `testEnvironment: "jsdom"`, a common React setup) has
// neither, and wasm-bindgen's glue made its TextDecoder at import, so the
// package threw `ReferenceError: TextDecoder is not defined` before any user
// code ran. Nothing here touches the globals until a string is encoded or
// decoded; where they are missing, a small decoder and encoder of our own
// give the same strings and bytes (the WHATWG UTF-8 algorithms: U+FFFD for
// each maximal invalid subsequence, lone surrogates encoded as U+FFFD).
// scripts/build.mjs points the glue's `new TextDecoder(…)` at
// `wasmTextDecoder()`.

/**
 * What wasm-bindgen's glue needs of a TextDecoder: `decode(bytes)`, and
 * `decode()` with no bytes (it primes a fresh decoder; a no-op here until
 * the first real decode makes the host's one).
 * @returns {{ decode(bytes?: Uint8Array): string }}
 */
export function wasmTextDecoder() {
  /** @type {{ decode(bytes?: Uint8Array): string } | undefined} */
  let decoder;
  return {
    decode(bytes) {
      if (bytes === undefined) return "";
      decoder ??=
        typeof globalThis.TextDecoder === "function"
          ? new globalThis.TextDecoder("utf-8", { ignoreBOM: true })
          : { decode: (/** @type {Uint8Array} */ input) => fallbackDecode(input, false) };
      return decoder.decode(bytes);
    },
  };
}

/** @type {{ encode(text: string): Uint8Array } | undefined} */
let encoder;

/**
 * `new TextEncoder().encode(text)`.
 * @param {string} text
 * @returns {Uint8Array}
 */
export function encodeUtf8(text) {
  encoder ??= typeof globalThis.TextEncoder === "function" ? new globalThis.TextEncoder() : { encode: fallbackEncode };
  return encoder.encode(text);
}

const REPLACEMENT = 0xfffd;

/**
 * The WHATWG UTF-8 decoder, with replacement.
 * @param {Uint8Array} bytes
 * @param {boolean} dropBom
 * @returns {string}
 */
export function fallbackDecode(bytes, dropBom) {
  /** @type {number[]} */
  const points = [];
  let codePoint = 0;
  let needed = 0;
  let seen = 0;
  let lower = 0x80;
  let upper = 0xbf;
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i];
    if (needed === 0) {
      if (byte <= 0x7f) points.push(byte);
      else if (byte >= 0xc2 && byte <= 0xdf) [needed, codePoint] = [1, byte & 0x1f];
      else if (byte >= 0xe0 && byte <= 0xef) {
        if (byte === 0xe0) lower = 0xa0;
        if (byte === 0xed) upper = 0x9f; // no surrogates
        [needed, codePoint] = [2, byte & 0x0f];
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        if (byte === 0xf0) lower = 0x90;
        if (byte === 0xf4) upper = 0x8f; // nothing above U+10FFFF
        [needed, codePoint] = [3, byte & 0x07];
      } else points.push(REPLACEMENT);
      continue;
    }
    if (byte < lower || byte > upper) {
      // The sequence so far is one error; this byte starts over.
      [codePoint, needed, seen, lower, upper] = [0, 0, 0, 0x80, 0xbf];
      points.push(REPLACEMENT);
      i -= 1;
      continue;
    }
    [lower, upper] = [0x80, 0xbf];
    codePoint = (codePoint << 6) | (byte & 0x3f);
    seen += 1;
    if (seen === needed) {
      points.push(codePoint);
      [codePoint, needed, seen] = [0, 0, 0];
    }
  }
  if (needed !== 0) points.push(REPLACEMENT);
  const start = dropBom && points[0] === 0xfeff ? 1 : 0;
  let text = "";
  // In slices: String.fromCodePoint's arguments go on the stack.
  for (let from = start; from < points.length; from += 8192) text += String.fromCodePoint(...points.slice(from, from + 8192));
  return text;
}

/**
 * The WHATWG UTF-8 encoder (a lone surrogate becomes U+FFFD).
 * @param {string} text
 * @returns {Uint8Array}
 */
export function fallbackEncode(text) {
  /** @type {number[]} */
  const bytes = [];
  for (const character of text) {
    let point = /** @type {number} */ (character.codePointAt(0));
    if (point >= 0xd800 && point <= 0xdfff) point = REPLACEMENT;
    if (point < 0x80) bytes.push(point);
    else if (point < 0x800) bytes.push(0xc0 | (point >> 6), 0x80 | (point & 0x3f));
    else if (point < 0x10000) bytes.push(0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
    else bytes.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 0x3f), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
  }
  return Uint8Array.from(bytes);
}

/**
 * Lowercase hex of `bytes` (a digest's name in the HTTP API and in OCI
 * `sha256:<hex>` references).
 *
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function toHex(bytes) {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
