// Format constants the JavaScript layer checks before it crosses into wasm,
// asked of the main module (src/wasm/format.rs), so each rule has one home,
// in Rust, and JS never restates a number. The build asks them once
// (scripts/wasm-glue.mjs) and writes the numbers into the package's copy of
// this file: reading them at import compiles no wasm (the module is
// instantiated on first use). Each must stay `export const NAME = rule();`.

import { abf1HeaderLength, digestLength, maximumExpectedItemCount } from "../../artifact_bloom.js";

/** Size of the fixed ABF1 header in bytes (96), as the Rust format code defines it. */
export const ABF1_HEADER_LENGTH = abf1HeaderLength();
/** Bytes in one SHA-256 digest. */
export const DIGEST_LENGTH = digestLength();
/** The largest `expectedItemCount` a filter or snapshot may state. */
export const MAXIMUM_EXPECTED_ITEM_COUNT = maximumExpectedItemCount();
