// Writes tests/vectors/abf1-keyed.json: test vectors for ABF1 hash protocol 2
// (keyed snapshots, docs/ABF1.md "Keyed snapshots"), computed here from the
// spec alone — node:crypto's HMAC-SHA-256 and SHA-256, the layout rule, the
// probe walk and the header written out in BigInt — and not by the package,
// whose Rust and JS tests then check it against these (tests/abf1_keyed_vectors.rs,
// js-tests/keyed-vectors.test.mjs).
//
//   node scripts/keyed-vectors.mjs            # writes the file
//   node scripts/keyed-vectors.mjs --check    # exits 1 if the file differs

import { createHash, createHmac } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";

const OUT = new URL("../tests/vectors/abf1-keyed.json", import.meta.url);
const KEY_CHECK_LABEL = "artifact-bloom ABF1 hashProtocolVersion 2 key check";

const sha256 = (bytes) => createHash("sha256").update(bytes).digest();
const hmac = (key, message) => createHmac("sha256", key).update(message).digest();
const hex = (bytes) => Buffer.from(bytes).toString("hex");

/** The layout rule of docs/ABF1.md: smallest bitCount, then smallest k. */
function layout(n, p) {
  let best;
  for (let k = 1; k <= 32; k += 1) {
    let m = Math.ceil((k * n) / -Math.log1p(-(p ** (1 / k))));
    m = Math.max(64, Math.ceil(m / 64) * 64);
    const rate = (m) => (-Math.expm1((-k * n) / m)) ** k;
    if (rate(m) > p) m += 64;
    if (m > 2 ** 30 || rate(m) > p) continue;
    if (best === undefined || m < best.m) best = { m, k };
  }
  return best;
}

/** The k positions of protocol 1 for a 32-byte input (protocol 2 passes the MAC). */
function positions(input, m, k) {
  const big = BigInt(m);
  let index = input.readBigUInt64BE(0) % big;
  const step = (input.readBigUInt64BE(8) | 1n) % big;
  const out = [];
  for (let i = 0; i < k; i += 1) {
    out.push(Number(index));
    index = (index + step) % big;
  }
  return out;
}

/** A whole protocol-2 ABF1 file. */
function keyedFile(key, digests, n, p, catalogVersion) {
  const { m, k } = layout(n, p);
  const payload = Buffer.alloc(m / 8);
  for (const digest of digests) {
    for (const bit of positions(hmac(key, digest), m, k)) payload[bit >> 3] |= 1 << (bit & 7);
  }
  const header = Buffer.alloc(96);
  header.write("ABF1", 0, "latin1");
  header.writeUInt16LE(1, 4);
  header.writeUInt16LE(2, 6);
  header.writeBigUInt64LE(BigInt(catalogVersion), 8);
  header.writeBigUInt64LE(BigInt(m), 16);
  header.writeUInt32LE(k, 24);
  header.writeUInt32LE(hmac(key, KEY_CHECK_LABEL).readUInt32LE(0), 28);
  header.writeBigUInt64LE(BigInt(n), 32);
  header.writeBigUInt64LE(BigInt(digests.length), 40);
  header.writeDoubleLE(p, 48);
  header.writeBigUInt64LE(BigInt(payload.length), 56);
  sha256(Buffer.concat([header.subarray(0, 64), payload])).copy(header, 64);
  return { file: Buffer.concat([header, payload]), m, k, payload };
}

/** The answer protocol 2 gives for `digest` on `payload`. */
const answer = (key, payload, m, k, digest) =>
  positions(hmac(key, digest), m, k).every((bit) => (payload[bit >> 3] >> (bit & 7)) & 1);

const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
const otherKey = Buffer.alloc(32, 0xa5);
const digestOf = (tag) => sha256(Buffer.from(tag, "utf8"));

function vectorCase(name, n, p, count, catalogVersion) {
  const digests = Array.from({ length: count }, (_, i) => digestOf(`${name}:member:${i}`));
  const { file, m, k, payload } = keyedFile(key, digests, n, p, catalogVersion);
  const others = Array.from({ length: 64 }, (_, i) => digestOf(`${name}:other:${i}`));
  const queries = [...digests.slice(0, 8), ...others].map((d) => ({ digest: hex(d), maybe: answer(key, payload, m, k, d) }));
  return {
    name,
    expectedItemCount: n,
    targetFalsePositiveRate: p,
    catalogVersion,
    bitCount: m,
    hashCount: k,
    digests: digests.map(hex),
    macsOfFirstDigests: digests.slice(0, 3).map((d) => hex(hmac(key, d))),
    fileSha256: hex(sha256(file)),
    file: hex(file),
    queries,
  };
}

const vectors = {
  about:
    "ABF1 hashProtocolVersion 2 (keyed) vectors, written by scripts/keyed-vectors.mjs from docs/ABF1.md alone. Load every file with `key`: it loads; without a key: keyRequired; with `wrongKey`: wrongKey. `queries[].maybe` is the keyed filter's answer.",
  key: hex(key),
  keyCheckLabel: KEY_CHECK_LABEL,
  keyCheck: hmac(key, KEY_CHECK_LABEL).readUInt32LE(0),
  wrongKey: hex(otherKey),
  wrongKeyCheck: hmac(otherKey, KEY_CHECK_LABEL).readUInt32LE(0),
  cases: [vectorCase("small", 4, 0.1, 3, 42), vectorCase("thousand", 1000, 0.01, 1000, 43)],
};

const text = `${JSON.stringify(vectors, null, 1)}\n`;
if (process.argv.includes("--check")) {
  const same = readFileSync(OUT, "utf8") === text;
  console.log(same ? "tests/vectors/abf1-keyed.json is up to date" : "tests/vectors/abf1-keyed.json differs");
  process.exit(same ? 0 : 1);
}
writeFileSync(OUT, text);
console.log(`wrote ${OUT.pathname}`);
