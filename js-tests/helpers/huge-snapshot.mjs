// The largest snapshot the format allows, written directly: a 2^30-bit filter
// (128 MiB payload; n = 56,002,939, p = 1e-4, k = 13) with a few set bits so
// the payload is not all zeros, and its SHA-256 from node:crypto. Written by
// hand (not by the package) so the browser tests and bench/browser.mjs load
// a file the code under test did not make.
import { createHash } from "node:crypto";

/** The filter's bit count: the format's cap. */
export const HUGE_BIT_COUNT = 2 ** 30;

/** The file's length: the 96-byte header and the bits. */
export const HUGE_TOTAL = 96 + HUGE_BIT_COUNT / 8;

/**
 * @param {number} catalogVersion
 * @returns {{ file: Buffer, checksum: string }} the ABF1 file and its payloadChecksum (hex)
 */
export function hugeSnapshotFile(catalogVersion) {
  const file = Buffer.alloc(HUGE_TOTAL);
  file.write("ABF1", 0, "latin1");
  file.writeUInt16LE(1, 4); // formatVersion
  file.writeUInt16LE(1, 6); // hashAlgorithm
  file.writeBigUInt64LE(BigInt(catalogVersion), 8);
  file.writeBigUInt64LE(BigInt(HUGE_BIT_COUNT), 16);
  file.writeUInt32LE(13, 24); // hashCount
  file.writeUInt32LE(0, 28); // reserved
  file.writeBigUInt64LE(56_002_939n, 32); // expectedItemCount
  file.writeBigUInt64LE(0n, 40); // insertedItemCount
  file.writeDoubleLE(1e-4, 48); // targetFalsePositiveRate
  file.writeBigUInt64LE(BigInt(HUGE_BIT_COUNT / 8), 56); // payloadLength
  for (let i = 0; i < 64; i += 1) file[96 + i * 2_000_003] = 0x81;
  // The checksum covers the header before it and the payload after it.
  const checksum = createHash("sha256").update(file.subarray(0, 64)).update(file.subarray(96)).digest();
  checksum.copy(file, 64);
  return { file, checksum: checksum.toString("hex") };
}
