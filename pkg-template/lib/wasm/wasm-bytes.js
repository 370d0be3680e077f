// Unpacks the wasm modules that scripts/build.mjs embeds in the generated
// `*_embedded.js` modules: base64 text of an LZMA stream (the ".lzma" format
// of the LZMA SDK). Why LZMA: the embedded module is most of what a page
// downloads, and LZMA makes it ≈ 20 % smaller than gzip or deflate can (the
// build prints the sizes). The decoder is a wasm module of ≈ 2.7 KiB
// (tools/lzma-unpack, Rust without std), embedded below by the build and
// instantiated synchronously, so the package instantiates with no fetch:
// decoding the main module takes 12–20 ms in a fresh Node process on a
// loaded machine, where the same decoder in JavaScript took 36–200 ms (V8's
// interpreter; the numbers are in tools/lzma-unpack). The build unpacks
// every embedding with this code and compares it with the `.wasm` before
// it writes the package.

/** Replaced by scripts/build.mjs with the base64 of tools/lzma-unpack's wasm. */
const LZMA_UNPACK_WASM = "@LZMA_UNPACK_WASM@";
/** Properties (1), dictionary size (4), decoded size (8, little-endian). */
const HEADER_LENGTH = 13;
const PAGE = 65536;
/** The decoder's error codes (`Error` in tools/lzma-unpack/src/lib.rs). */
const REASONS = [
  "",
  "the stream ends early",
  "its properties are not ones the decoder takes",
  "its stated size is not the output's",
  "the range coder's first byte is not 0",
  "a match reaches back before the first byte",
  "a match runs past the stated size",
  "the end marker came before the stated size",
];

/** @type {WebAssembly.Module | undefined} */
let compiled;

/**
 * The embedded decoder, compiled once for every module that unpacks.
 * @returns {WebAssembly.Module}
 */
function embeddedDecoder() {
  compiled ??= new WebAssembly.Module(bytesFromBase64(LZMA_UNPACK_WASM));
  return compiled;
}

/**
 * The wasm bytes of one of the build's embeddings.
 *
 * @param {string} base64 the `.lzma` stream, base64-encoded
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function unpackWasm(base64) {
  return lzmaDecode(bytesFromBase64(base64));
}

/**
 * Decodes one `.lzma` stream whose header states its decoded size (under
 * 4 GiB), with the decoder module `decoder` (the embedded one by default; the
 * build passes the one it just compiled). A new instance each time, so its
 * memory is released once the bytes are out.
 *
 * @param {Uint8Array} input
 * @param {WebAssembly.Module | Uint8Array<ArrayBuffer>} [decoder]
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function lzmaDecode(input, decoder) {
  const module =
    decoder === undefined ? embeddedDecoder() : decoder instanceof WebAssembly.Module ? decoder : new WebAssembly.Module(decoder);
  if (input.length < HEADER_LENGTH) throw corrupt("the stream is shorter than its header");
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  // The build always writes the size; "unknown" (all ones) or ≥ 4 GiB is not ours.
  if (view.getUint32(9, true) !== 0) throw corrupt("its stated size is unknown or 4 GiB or more");
  const size = view.getUint32(5, true);
  const exports = /**
   * @type {{ memory: WebAssembly.Memory, __heap_base: WebAssembly.Global,
   *   unpack: (input: number, inputLength: number, out: number, outLength: number) => number }}
   */ (/** @type {unknown} */ (new WebAssembly.Instance(module).exports));
  const memory = exports.memory;
  const inputAt = Number(exports.__heap_base.value);
  const outAt = inputAt + input.length;
  const needed = outAt + size;
  if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
  new Uint8Array(memory.buffer, inputAt, input.length).set(input);
  let code;
  try {
    code = exports.unpack(inputAt, input.length, outAt, size);
  } catch (error) {
    // A trap would be a decoder bug; say so rather than pass it on raw.
    throw corrupt(`the decoder trapped: ${String(error)}`);
  }
  if (code !== 0) throw corrupt(REASONS[code] ?? `decoder code ${code}`);
  return new Uint8Array(memory.buffer, outAt, size).slice();
}

/**
 * Also the Node bundles' whole decoding: they embed plain base64 (scripts/node-embedding.mjs).
 * @param {string} text standard base64 (the build writes no line breaks)
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function bytesFromBase64(text) {
  const native = /** @type {{ fromBase64?: (text: string) => Uint8Array<ArrayBuffer> }} */ (/** @type {unknown} */ (Uint8Array));
  if (typeof native.fromBase64 === "function") return native.fromBase64(text);
  // Node before 25 has no fromBase64; its Buffer decodes natively, where
  // atob and the loop below took 1–2 ms of a fresh process's start.
  const buffer = /** @type {{ Buffer?: { from(text: string, encoding: string): Uint8Array<ArrayBuffer> } }} */ (
    /** @type {unknown} */ (globalThis)
  ).Buffer;
  if (typeof buffer?.from === "function") {
    const decoded = buffer.from(text, "base64");
    return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength);
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** @param {string} why @returns {Error} */
function corrupt(why) {
  return new Error(`artifact-bloom: the embedded wasm module is corrupt (${why}); reinstall the package`);
}
