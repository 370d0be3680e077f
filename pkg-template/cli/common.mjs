// Shared pieces of the CLI: argument parsing with --help, reading
// input files, and reading digest lists as streams.
import { parseArgs } from "node:util";
import { helpText, parseArgsOptions } from "./option-table.mjs";

// The exit codes live in one table (exit-codes.mjs); re-exported for the commands.
export { EXIT_OK, EXIT_PROBLEMS, EXIT_REGISTRY, EXIT_USAGE } from "./exit-codes.mjs";

/** @typedef {NonNullable<import("node:util").ParseArgsConfig["options"]>} OptionsConfig */
/**
 * What parseCommand gives a command: parseArgs's result for these options.
 * @template {OptionsConfig} O
 * @typedef {ReturnType<typeof parseArgs<{ options: O, allowPositionals: boolean, strict: true }>>} ParsedCommand
 */

/** An error that ends the command with exit code 2 and a one-line message. */
export class UsageError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * parseArgs over a command's option table (option-table.mjs), with `--help`
 * on every command: returns undefined (after printing the help generated
 * from the table) when help was asked for. A bad flag is a UsageError
 * followed by the help.
 * @param {string[]} argv
 * @param {import("./option-table.mjs").CommandSpec} spec
 * @returns {{ values: Record<string, any>, positionals: string[] } | undefined}
 */
export function parseCommand(argv, spec) {
  const help = helpText(spec);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...parseArgsOptions(spec.options), help: { type: "boolean", short: "h" } },
      allowPositionals: spec.allowPositionals ?? false,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${usageLine(/** @type {Error & { code?: string }} */ (error))}\n\n${help}`);
  }
  if (parsed.values.help) {
    process.stdout.write(`${help}\n`);
    return undefined;
  }
  return parsed;
}

/**
 * parseArgs's message, made one clear line: its unknown-option advice
 * (`… as in '-- "--jsn"`) has an unbalanced quote, and following it would
 * make the typo a file name.
 * @param {Error & { code?: string }} error
 */
function usageLine(error) {
  const unknown = error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && /^Unknown option '([^']*)'/.exec(error.message);
  if (unknown) return `unknown option ${unknown[1]}`;
  return error.message.split("\n")[0];
}

/**
 * `await read(path)`, with any failure (missing, a directory, no permission)
 * turned into a UsageError (exit code 2) naming the path; a UsageError of
 * its own (a file over its limit) already names it and passes as it is.
 * @template T
 * @param {string} path
 * @param {(path: string) => Promise<T>} read
 * @returns {Promise<T>}
 */
export async function readingInput(path, read) {
  try {
    return await read(path);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${path}: ${errorMessage(error)}`);
  }
}

/**
 * A thrown value's message: an Error's, else the value as text (a library
 * or a callback may throw anything).
 * @param {unknown} error
 */
export function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A thrown value's string `code` (Node's "ENOENT", the package's error codes), else undefined.
 * @param {unknown} error
 * @returns {string | undefined}
 */
export function errorCode(error) {
  const code = typeof error === "object" && error !== null ? /** @type {{ code?: unknown }} */ (error).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/**
 * A required option as a safe integer within [min, max].
 * @param {Record<string, unknown>} values parseArgs's values
 * @param {string} name
 * @param {number} min
 * @param {number} max
 */
export function integerOption(values, name, min, max) {
  const text = values[name];
  if (text === undefined) throw new UsageError(`--${name} is required`);
  if (typeof text !== "string") throw new TypeError(`--${name} is not a string option`);
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

/**
 * A required option as a finite number.
 * @param {Record<string, unknown>} values parseArgs's values
 * @param {string} name
 */
export function numberOption(values, name) {
  const text = values[name];
  if (text === undefined) throw new UsageError(`--${name} is required`);
  if (typeof text !== "string") throw new TypeError(`--${name} is not a string option`);
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value)) {
    throw new UsageError(`--${name} must be a number, got "${text}"`);
  }
  return value;
}

const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;

/** @param {string} text */
export function isHexDigest(text) {
  return HEX_DIGEST.test(text);
}

/** @param {string} hex */
export function hexToBytes(hex) {
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** @param {Uint8Array} bytes */
export function bytesToHex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** A growable byte buffer for packed 32-byte digests. */
class PackedDigests {
  #bytes = new Uint8Array(32 * 1024);
  #length = 0;

  /** @param {Uint8Array} digest */
  push(digest) {
    if (this.#length + digest.byteLength > this.#bytes.byteLength) {
      const bigger = new Uint8Array(Math.max(this.#bytes.byteLength * 2, this.#length + digest.byteLength));
      bigger.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = bigger;
    }
    this.#bytes.set(digest, this.#length);
    this.#length += digest.byteLength;
  }

  get count() {
    return this.#length / 32;
  }

  bytes() {
    return this.#bytes.subarray(0, this.#length);
  }
}

/**
 * The longest line a digest list may hold, in characters (a digest is 64,
 * plus a "\r"; comments get the rest). A longer line is refused as soon as
 * it passes the limit, so no input makes the reader hold more than one chunk
 * and one bounded line, or rescan what it already read.
 */
export const MAX_LINE_LENGTH = 4096;

/** Bytes of one packed chunk the streaming readers yield (32,768 digests). */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Collects digests into packed chunks of READ_CHUNK_BYTES. */
class ChunkFiller {
  #chunk = new Uint8Array(READ_CHUNK_BYTES);
  #used = 0;

  /** @param {Uint8Array} digest 32 bytes → a full chunk to hand on, or undefined */
  push(digest) {
    this.#chunk.set(digest, this.#used);
    this.#used += 32;
    if (this.#used < READ_CHUNK_BYTES) return undefined;
    const full = this.#chunk;
    this.#chunk = new Uint8Array(READ_CHUNK_BYTES);
    this.#used = 0;
    return full;
  }

  /** The partial last chunk, or undefined. */
  rest() {
    return this.#used === 0 ? undefined : this.#chunk.subarray(0, this.#used);
  }
}

/**
 * Reads 64-hex-digit lines from a byte stream, as packed chunks (memory:
 * one chunk and one bounded line, however long the input). Blank lines and
 * `#` comments are skipped; any other line that is not a digest is an error
 * naming its line number — nothing is silently dropped. A line longer than
 * MAX_LINE_LENGTH is an error too. `counts` ({ lines, digests }) follows
 * the reading.
 * @param {AsyncIterable<Uint8Array>} stream
 * @param {{ lines: number, digests: number }} counts
 * @param {(digests: number, line: number) => void} [onProgress]
 */
export async function* hexDigestChunks(stream, counts, onProgress) {
  const filler = new ChunkFiller();
  // Lines are parsed as bytes (a digest line is ASCII): no string per line,
  // so a 10M-line list costs what reading it does. `pending` holds the
  // unfinished last line, at most MAX_LINE_LENGTH bytes.
  let pending = new Uint8Array(0);
  let first = true;
  const tooLong = () =>
    new UsageError(
      `line ${counts.lines + 1}: longer than ${MAX_LINE_LENGTH} characters; expected one 64-hex-digit SHA-256 digest per line`
        + " (use --binary for packed 32-byte records)",
    );
  /**
   * One line (without its "\n") → a full chunk to hand on, or undefined.
   * @param {Uint8Array} line
   */
  const take = (line) => {
    if (line.length > MAX_LINE_LENGTH) throw tooLong();
    counts.lines += 1;
    let start = 0;
    let end = line.length;
    while (start < end && isBlank(line[start])) start += 1;
    while (end > start && isBlank(line[end - 1])) end -= 1;
    if (start === end) return undefined;
    if (end - start === 64) {
      const digest = new Uint8Array(32);
      let valid = true;
      for (let i = 0; i < 32; i += 1) {
        const high = HEX_VALUE[line[start + 2 * i]];
        const low = HEX_VALUE[line[start + 2 * i + 1]];
        if (high > 15 || low > 15) {
          valid = false;
          break;
        }
        digest[i] = (high << 4) | low;
      }
      if (valid) {
        counts.digests += 1;
        return filler.push(digest);
      }
    }
    // Not a digest: a comment, or an error naming the line (text must be UTF-8).
    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(line.subarray(start, end));
    } catch {
      throw new UsageError(`the input is not UTF-8 text near line ${counts.lines}; use --binary for packed 32-byte records`);
    }
    if (text.startsWith("#")) return undefined;
    const trimmed = text.trim();
    if (trimmed === "") return undefined;
    const shown = trimmed.length > 80 ? `${trimmed.slice(0, 77)}...` : trimmed;
    throw new UsageError(`line ${counts.lines}: expected 64 hex digits (a SHA-256 digest), got "${shown}"`);
  };
  for await (const received of stream) {
    let chunk = received instanceof Uint8Array ? received : new TextEncoder().encode(String(received));
    // A UTF-8 byte order mark at the very start is no part of the first line.
    if (first && chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    first = false;
    let lineStart = 0;
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, lineStart)) {
      let line = chunk.subarray(lineStart, index);
      if (pending.length > 0) {
        const joined = new Uint8Array(pending.length + line.length);
        joined.set(pending);
        joined.set(line, pending.length);
        line = joined;
        pending = new Uint8Array(0);
      }
      const full = take(line);
      if (full !== undefined) yield full;
      lineStart = index + 1;
    }
    const rest = chunk.subarray(lineStart);
    if (pending.length + rest.length > MAX_LINE_LENGTH) throw tooLong();
    const joined = new Uint8Array(pending.length + rest.length);
    joined.set(pending);
    joined.set(rest, pending.length);
    pending = joined;
    onProgress?.(counts.digests, counts.lines);
  }
  if (pending.length > 0) {
    const full = take(pending);
    if (full !== undefined) yield full;
  }
  const rest = filler.rest();
  if (rest !== undefined) yield rest;
}

/**
 * Space, tab, CR, vertical tab, form feed: what trims from a line's ends.
 * @param {number} byte
 */
function isBlank(byte) {
  return byte === 32 || byte === 9 || byte === 13 || byte === 11 || byte === 12;
}

/** Each byte's hex value, 255 for a byte that is not a hex digit. */
const HEX_VALUE = (() => {
  const table = new Uint8Array(256).fill(255);
  for (let digit = 0; digit < 10; digit += 1) table[48 + digit] = digit;
  for (let letter = 0; letter < 6; letter += 1) {
    table[65 + letter] = 10 + letter;
    table[97 + letter] = 10 + letter;
  }
  return table;
})();

/**
 * readHexDigests's whole result: `{ packed, lines }` (small inputs: check's standard input, serve's list).
 * @param {AsyncIterable<Uint8Array>} stream
 * @param {(digests: number, line: number) => void} [onProgress]
 */
export async function readHexDigests(stream, onProgress) {
  const packed = new PackedDigests();
  const counts = { lines: 0, digests: 0 };
  for await (const chunk of hexDigestChunks(stream, counts, onProgress)) packed.push(chunk);
  return { packed: packed.bytes(), lines: counts.lines };
}

/**
 * Reads packed 32-byte records as chunks; a trailing partial record is an
 * error. `counts` ({ lines, digests }: one record a "line") follows the reading.
 * @param {AsyncIterable<Uint8Array>} stream
 * @param {{ lines: number, digests: number }} counts
 * @param {(digests: number) => void} [onProgress]
 */
export async function* binaryDigestChunks(stream, counts, onProgress) {
  let carry = new Uint8Array(0);
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.byteLength;
    let bytes = chunk;
    if (carry.byteLength > 0) {
      bytes = new Uint8Array(carry.byteLength + chunk.byteLength);
      bytes.set(carry);
      bytes.set(chunk, carry.byteLength);
    }
    const whole = bytes.byteLength - (bytes.byteLength % 32);
    counts.digests += whole / 32;
    counts.lines = counts.digests;
    // A copy: the stream may reuse its buffer.
    if (whole > 0) yield bytes.slice(0, whole);
    carry = bytes.slice(whole);
    onProgress?.(counts.digests);
  }
  if (carry.byteLength !== 0) {
    throw new UsageError(`the binary input is ${total} bytes, not a multiple of 32: the last record is incomplete`);
  }
}
