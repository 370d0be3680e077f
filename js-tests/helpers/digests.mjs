// Small SHA-256 and hex helpers shared by the suites (node:crypto, not the
// package under test, so a bug in the package cannot hide in its own checks).
import { createHash } from "node:crypto";

/** SHA-256 of a UTF-8 string as a 32-byte Uint8Array. */
export function sha256(text) {
  return new Uint8Array(createHash("sha256").update(text, "utf8").digest());
}

/** `content` followed by its SHA-256: the seal that ends MBLF and SBLF encodings. */
export function sealed(content) {
  return new Uint8Array([...content, ...createHash("sha256").update(content).digest()]);
}

/** Lower-case hex of exactly the bytes a view covers. */
export function hex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** The bytes of a hex string; white space in it is ignored. */
export function fromHex(text) {
  return new Uint8Array(Buffer.from(text.replace(/\s+/g, ""), "hex"));
}
