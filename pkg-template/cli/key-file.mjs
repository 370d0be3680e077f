// --key-file FILE: the secret of keyed snapshots (ABF1 hashProtocolVersion 3,
// docs/ABF1.md "Keyed snapshots"). The key comes from a file, never from the
// command line (argv is visible to every user of the machine) and is never
// printed: the messages here name the file and what was wrong with its
// length, never its bytes.
import { UsageError } from "./common.mjs";
import { readBoundedFile } from "./bounded-file.mjs";

/** The library's bounds on a key, in bytes (its RangeError names them too). */
const KEY_BYTES = { min: 16, max: 1024 };
/** A key file is at most this long: 1024 bytes as hex, plus a newline or two. */
const KEY_FILE_LIMIT = 4096;

/**
 * The key --key-file names, or undefined without the flag. The file holds
 * the key's bytes as they are (`openssl rand 32 > FILE`) or as hex digits
 * (`openssl rand -hex 32 > FILE`; surrounding whitespace ignored).
 * @param {Record<string, unknown>} values the parsed options
 * @returns {Promise<Uint8Array | undefined>}
 */
export async function readKeyFile(values) {
  const path = values["key-file"];
  if (path === undefined) return undefined;
  if (typeof path !== "string") throw new TypeError("--key-file: expected a path");
  const bytes = await readBoundedFile(path, KEY_FILE_LIMIT, "key file");
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes).trim();
  const key = /^(?:[0-9a-fA-F]{2})+$/.test(text) ? Uint8Array.from(Buffer.from(text, "hex")) : bytes;
  if (key.byteLength < KEY_BYTES.min || key.byteLength > KEY_BYTES.max) {
    throw new UsageError(
      `--key-file ${path}: a key is ${KEY_BYTES.min} to ${KEY_BYTES.max} bytes (or twice as many hex digits), this one is ${key.byteLength} bytes`,
    );
  }
  return key;
}

/** `{ key }` for a library call's options, or nothing. @param {Uint8Array | undefined} key */
export const withKey = (key) => (key === undefined ? {} : { key });
