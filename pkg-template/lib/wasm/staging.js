// How caller bytes enter a wasm module's linear memory, for each of the
// package's three modules (the main entry's, `artifact-bloom/variants`' and
// `artifact-bloom/delta`'s).
//
// wasm-bindgen's glue copies a Uint8Array argument into wasm memory with
// `__wbindgen_malloc`, which aborts the module (`RuntimeError: unreachable`)
// when the memory cannot grow. So no raw method takes caller bytes: the
// package stages them with `toWasm` (or `stageInput`) — wasm reserves room
// fallibly and answers an Error with code "outOfMemory" if there is none —
// and passes the raw method their length. Stage right before the call that
// reads the input: one input is staged at a time.

/**
 * @typedef {object} Staging
 * @property {(bytes: Uint8Array) => number} toWasm Stages `bytes` as the
 *   input of the next raw call and returns their length (the raw call's
 *   argument). Throws an Error with `code: "outOfMemory"` when wasm memory
 *   has no room for them.
 * @property {(length: number) => Uint8Array} stageInput Reserves `length`
 *   bytes of staged input and returns a view of them to fill (e.g. digests
 *   packed straight into wasm memory), valid until the next call into wasm.
 *   Throws an Error with `code: "outOfMemory"` when wasm memory has no room.
 * @property {() => number} stagingCount How many inputs were staged so far:
 *   a caller that fills a `stageInput` view while other code may run (a
 *   getter) checks that this has not changed, i.e. that the view is still
 *   the input of its next raw call.
 */

/**
 * The staging functions of one wasm module, from its glue's exports.
 *
 * @param {(length: number) => number} inputBuffer the module's fallible
 *   reservation of the staged-input region (its address)
 * @param {() => unknown} wasmMemory the module's `WebAssembly.Memory`
 * @returns {Staging}
 */
export function stagingFor(inputBuffer, wasmMemory) {
  /** @type {Uint8Array | null} */
  let memoryBytes = null;
  let stagings = 0;
  // A view over all of wasm memory, re-made after the memory grew (growing
  // detaches the old buffer, whose views then have length 0).
  const wasmBytes = () => {
    if (memoryBytes === null || memoryBytes.byteLength === 0) {
      memoryBytes = new Uint8Array(/** @type {WebAssembly.Memory} */ (wasmMemory()).buffer);
    }
    return memoryBytes;
  };
  return {
    toWasm(bytes) {
      const length = bytes.byteLength;
      // Asked first: reserving may grow (and so detach) the memory buffer.
      const address = inputBuffer(length);
      stagings += 1;
      wasmBytes().set(bytes, address);
      return length;
    },
    stageInput(length) {
      const address = inputBuffer(length);
      stagings += 1;
      return wasmBytes().subarray(address, address + length);
    },
    stagingCount() {
      return stagings;
    },
  };
}
