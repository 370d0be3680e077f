// A layout blob streamed from disk into upload request bodies, hashed as it
// goes, so a blob of any size costs a few pieces of memory and one pass over
// the file. The digest check happens before the blob's LAST piece is handed
// over: bytes that do not hash to the blob's name (a corrupt layout, a file
// changed on disk meanwhile) never reach the registry in full, so the
// request fails and the upload is never committed under that name. (The
// registry checks ?digest= against what it received too; this is the check
// that names the file and needs no trust in the registry.)
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { OciRegistryError } from "artifact-bloom/oci";
import { errorMessage } from "../common.mjs";

/** Bytes read from disk per piece: few syscalls, little memory per piece. */
export const PIECE_BYTES = 256 * 1024;

// Every piece is a fresh buffer (the transport may hold it until the socket
// took it, so none can be reused), and V8 collects dead buffers only once
// ~64 MB of them piled up: measured, a 1 GiB upload then peaks ~40 MiB
// above an idle fetch client. A young-generation collection every
// COLLECT_EVERY bytes read (well under a millisecond: only the pieces are
// young) keeps that near 15 MiB. `gc` comes from a fresh context after
// --expose-gc is set at run time; where that is refused, nothing is forced.
const COLLECT_EVERY = 8 * 1024 * 1024;
/** @type {((options: { type: "minor" }) => void) | null | undefined} V8's gc; null where it is refused, undefined before the first try */
let collect;
let readSinceCollect = 0;
/** @param {number} bytes read since the last call */
function collectPieces(bytes) {
  readSinceCollect += bytes;
  if (readSinceCollect < COLLECT_EVERY) return;
  readSinceCollect = 0;
  if (collect === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      collect = runInNewContext("gc");
    } catch {
      collect = null;
    }
  }
  collect?.({ type: "minor" });
}

/**
 * @param {string} path
 * @param {string} digest
 * @param {string} came what the file turned out to be
 */
function mismatch(path, digest, came) {
  // The layout's fault, not the registry's: `inputFault` makes push exit 2
  // (fix the input), not 3 (which tells a CI retry loop to retry).
  const error = new OciRegistryError(`layout blob ${path} ${came}, not ${digest}: not uploaded`, { code: "digestMismatch" });
  return Object.assign(error, { inputFault: true });
}

/**
 * An open layout blob. `body(start, end)` is a StreamedBody (see
 * oci-client.js) of bytes [start, end); ranges must be asked in order, each
 * may be asked again (a 401 retry): bytes are hashed once, the first time.
 * `failure` is the digestMismatch that stopped a stream, if one did.
 */
export class BlobSource {
  /** @type {import("node:fs/promises").FileHandle} */
  #handle;
  #path;
  #digest;
  #size;
  #hash = createHash("sha256");
  /** Bytes [0, #hashed) went into #hash. */
  #hashed = 0;
  /**
   * @type {import("../../index.d.ts").OciRegistryError | null | undefined} the verdict once the last byte was read:
   *   null = the digest matched
   */
  #verdict;
  /** @type {import("../../index.d.ts").OciRegistryError | undefined} */
  failure;

  /**
   * @param {import("node:fs/promises").FileHandle} handle
   * @param {string} path
   * @param {{ digest: string, size: number }} descriptor
   */
  constructor(handle, path, { digest, size }) {
    this.#handle = handle;
    this.#path = path;
    this.#digest = digest;
    this.#size = size;
  }

  /**
   * @param {string} path
   * @param {{ digest: string, size: number }} descriptor
   * @returns {Promise<BlobSource>}
   */
  static async open(path, descriptor) {
    let handle;
    try {
      handle = await open(path, "r");
    } catch (error) {
      throw new OciRegistryError(`cannot read layout blob ${path}: ${errorMessage(error)}`, { code: "digestMismatch" });
    }
    return new BlobSource(handle, path, descriptor);
  }

  close() {
    return this.#handle.close();
  }

  /**
   * A stream of bytes [start, end) in pieces of at most PIECE_BYTES, each
   * read when the transport asks for it (pull), so at most a piece or two
   * wait in memory.
   * @param {number} start
   * @param {number} end
   * @param {(sent: number) => void} [onSent] bytes of the blob handed over so far (end of the last piece)
   * @returns {import("../../lib/repositories/oci-client.js").StreamedBody}
   */
  body(start, end, onSent) {
    return (progress) => {
      let offset = start;
      return new ReadableStream(
        {
          pull: async (controller) => {
            try {
              if (offset >= end) {
                if (end === this.#size) await this.#verify();
                controller.close();
                return;
              }
              const piece = await this.#read(offset, Math.min(PIECE_BYTES, end - offset));
              offset += piece.byteLength;
              // Withheld until verified: the piece that completes the blob.
              if (offset === this.#size) await this.#verify();
              controller.enqueue(piece);
              progress();
              onSent?.(offset);
            } catch (error) {
              this.failure ??= error instanceof OciRegistryError ? error : undefined;
              controller.error(error);
            }
          },
        },
        { highWaterMark: 0 },
      );
    };
  }

  /** @param {number} offset @param {number} length */
  async #read(offset, length) {
    collectPieces(length);
    const piece = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.#handle.read(piece, filled, length - filled, offset + filled);
      if (bytesRead === 0) {
        throw mismatch(this.#path, this.#digest, `ends at ${offset + filled} bytes; its descriptor says ${this.#size}`);
      }
      filled += bytesRead;
    }
    if (offset + length > this.#hashed) {
      this.#hash.update(piece.subarray(Math.max(0, this.#hashed - offset)));
      this.#hashed = offset + length;
    }
    return piece;
  }

  /** Throws the digestMismatch unless the whole file hashes to the digest (and has no bytes beyond the size). */
  async #verify() {
    if (this.#verdict === undefined) {
      const { bytesRead } = await this.#handle.read(new Uint8Array(1), 0, 1, this.#size);
      const actual = `sha256:${this.#hash.digest("hex")}`;
      this.#verdict =
        bytesRead !== 0
          ? mismatch(this.#path, this.#digest, `is longer than its descriptor's ${this.#size} bytes`)
          : actual !== this.#digest
            ? mismatch(this.#path, this.#digest, `hashes to ${actual}`)
            : null;
    }
    if (this.#verdict !== null) throw this.#verdict;
  }
}
