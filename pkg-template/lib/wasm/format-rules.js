// Format constants the JavaScript layer checks before it crosses into wasm,
// asked of the main module once at import (src/wasm/format.rs), so each
// rule has one home, in Rust, and JS never restates a number.

import { digestLength, maximumExpectedItemCount } from "../../artifact_bloom.js";

/** Bytes in one SHA-256 digest. */
export const DIGEST_LENGTH = digestLength();
/** The largest `expectedItemCount` a filter or snapshot may state. */
export const MAXIMUM_EXPECTED_ITEM_COUNT = maximumExpectedItemCount();
