// The wasm module's linear memory: its size (for leak checks), and the one
// way caller bytes enter it.
//
// wasm-bindgen's glue copies a Uint8Array argument into wasm memory with
// `__wbindgen_malloc`, which aborts the module (`RuntimeError: unreachable`)
// when the memory cannot grow. So no raw method takes caller bytes: the
// package stages them with `toWasm` (or `stageInput`) — wasm reserves room
// fallibly and answers an Error with code "outOfMemory" if there is none —
// and passes the raw method their length. Stage right before the call that
// reads the input: one input is staged at a time.

import { inputBuffer, wasmMemory } from "../artifact_bloom.js";

/** Current size of the wasm linear memory in bytes (tests watch it). It never shrinks. */
export function wasmMemoryBytes() {
  return wasmMemory().buffer.byteLength;
}

/** @type {Uint8Array | null} */
let memoryBytes = null;

/** How many inputs were staged so far (see `stagingCount`). */
let stagings = 0;

/**
 * How many inputs were staged so far: a caller that fills a `stageInput`
 * view while other code may run (a getter) checks that this has not
 * changed, i.e. that the view is still the input of its next raw call.
 * @returns {number}
 */
export function stagingCount() {
  return stagings;
}

/**
 * A Uint8Array over all of wasm memory, re-made after the memory grew
 * (growing detaches the old buffer, whose views then have length 0).
 * @returns {Uint8Array}
 */
function wasmBytes() {
  if (memoryBytes === null || memoryBytes.byteLength === 0) memoryBytes = new Uint8Array(wasmMemory().buffer);
  return memoryBytes;
}

/**
 * Stages `bytes` as the input of the next raw call and returns their length
 * (the raw call's argument).
 * @param {Uint8Array} bytes
 * @returns {number}
 * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room for them.
 */
export function toWasm(bytes) {
  const length = bytes.byteLength;
  // Asked first: reserving may grow (and so detach) the memory buffer.
  const address = inputBuffer(length);
  stagings += 1;
  wasmBytes().set(bytes, address);
  return length;
}

/**
 * Reserves `length` bytes of staged input and returns a view of them to fill
 * (e.g. digests packed straight into wasm memory). Valid until the next call
 * into wasm.
 * @param {number} length
 * @returns {Uint8Array}
 * @throws {Error} with `code: "outOfMemory"` when wasm memory has no room.
 */
export function stageInput(length) {
  const address = inputBuffer(length);
  stagings += 1;
  return wasmBytes().subarray(address, address + length);
}
