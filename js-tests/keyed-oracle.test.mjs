// The oracle closed (issue 35 §4 "Measure"): a keyed snapshot of 10,000
// known members, probed by someone without the key, answers "maybe" for the
// members no more often than for any digest — at the filter's false-positive
// rate — while the key holder gets 100 %. Two probers: protocol-1 hashing on
// the same bits (the file rewritten as protocol 1, which anyone can do:
// the checksum is public), and a random key of the prober's own.
//
// Bound: without the key, a member's MAC is independent of the prober's
// probe positions, so each member is a Bernoulli trial with success
// probability q = the filter's false-positive rate for a random digest,
// estimated from its own bits as fillRatio^k (k distinct positions, each set
// with probability fill). The count of "maybe" over N = 10,000 members is
// Binomial(N, q): the test fails only above N·q + 6σ, σ = √(N·q·(1−q)) — a
// chance below 10⁻⁹ for an honest filter, while an open oracle gives N.
// (The inputs are fixed, so the run is deterministic; the bound says why
// the fixed outcome must hold.)

import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { sha256 } from "./helpers/digests.mjs";

const N = 10_000;
const key = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 255);
const members = Array.from({ length: N }, (_, i) => sha256(`oracle:member:${i}`));
const packedMembers = Buffer.concat(members);
const KEY_CHECK_LABEL = "artifact-bloom ABF1 hashProtocolVersion 2 key check";

/**
 * `file` with another hashProtocolVersion and reserved field, checksum
 * recomputed: what a prober can make of a public file.
 */
function rewritten(file, protocol, reserved) {
  const bytes = Buffer.from(file);
  bytes.writeUInt16LE(protocol, 6);
  bytes.writeUInt32LE(reserved, 28);
  createHash("sha256").update(bytes.subarray(0, 64)).update(bytes.subarray(96)).digest().copy(bytes, 64);
  return new Uint8Array(bytes);
}

/** Binomial bound: N·q + 6σ. */
function bound(q) {
  return N * q + 6 * Math.sqrt(N * q * (1 - q));
}

test("without the key, members answer 'maybe' at no more than the false-positive rate; with it, 100 %", (t) => {
  const built = ArtifactBloomFilter.create(members, { expectedItemCount: N, targetFalsePositiveRate: 0.01 }, { key });
  const file = encodeSnapshot(built.value, { catalogVersion: 1 });
  built.value.free();

  const keyed = loadSnapshot(file, { key }).value;
  const k = keyed.filter.getHashCount();
  const q = keyed.filter.getFillRatio() ** k;
  assert.equal(keyed.filter.countMaybe(packedMembers), N, "the key holder: every member maybe");
  keyed.filter.free();

  // Prober 1: protocol 1 on the very bits.
  const asProtocol1 = loadSnapshot(rewritten(file, 1, 0)).value;
  const byProtocol1 = asProtocol1.filter.countMaybe(packedMembers);
  asProtocol1.filter.free();

  // Prober 2: a random key of its own (the key check it needs is its own key's).
  const guess = new Uint8Array(32).fill(0x5a);
  const guessCheck = createHmac("sha256", guess).update(KEY_CHECK_LABEL).digest().readUInt32LE(0);
  const asGuess = loadSnapshot(rewritten(file, 2, guessCheck), { key: guess }).value;
  const byGuess = asGuess.filter.countMaybe(packedMembers);
  asGuess.filter.free();

  const limit = bound(q);
  t.diagnostic(`N = ${N}, k = ${k}, q = fill^k = ${q.toFixed(5)}, bound N·q + 6σ = ${limit.toFixed(1)}`);
  t.diagnostic(
    `maybe without the key: protocol-1 prober ${byProtocol1} (${((100 * byProtocol1) / N).toFixed(2)} %), random-key prober ${byGuess} (${((100 * byGuess) / N).toFixed(2)} %); with it: ${N} (100 %)`,
  );
  assert.ok(byProtocol1 <= limit, `protocol-1 prober: ${byProtocol1} > ${limit}`);
  assert.ok(byGuess <= limit, `random-key prober: ${byGuess} > ${limit}`);
  assert.ok(q < 0.02, `q = ${q}: the filter meets its rate`);
});

test("for contrast, an unkeyed snapshot is an open oracle: every member 'maybe' to anyone", () => {
  const built = ArtifactBloomFilter.create(members, { expectedItemCount: N, targetFalsePositiveRate: 0.01 });
  const loaded = loadSnapshot(encodeSnapshot(built.value, { catalogVersion: 1 })).value;
  assert.equal(loaded.filter.countMaybe(packedMembers), N);
  built.value.free();
  loaded.filter.free();
});
