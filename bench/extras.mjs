// The second table of bench/run.mjs: SHA-256 throughput (64 MiB in 1 MiB
// chunks) and the ABF1 load of the 1M / 0.001 snapshot against its floor
// (SHA-256 over the bytes + one copy — what any checksum-verifying loader
// must at least do).
//
// As in the main table, repetitions are interleaved: each repetition runs
// every variant once, in a rotating order, and the median is reported.

import { createHash, randomFillSync, webcrypto } from "node:crypto";
import { createSHA256 } from "hash-wasm";
import { gc, median, sink } from "./util.mjs";

const MiB = 1024 * 1024;

/** Rotates `items` by `rep` so no variant always runs first (or right after GC). */
function rotated(items, rep) {
  const shift = rep % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** Equal digests from every implementation, or the run is meaningless. */
function sameDigest(a, b) {
  return Buffer.from(a).equals(Buffer.from(b));
}

export async function benchSha256(api, { reps }) {
  const total = 64 * MiB;
  const data = new Uint8Array(total);
  // randomFillSync caps one call at 2^31 − 1 bytes; 64 MiB is well under.
  randomFillSync(data);
  const chunks = Array.from({ length: total / MiB }, (_, i) => data.subarray(i * MiB, (i + 1) * MiB));
  const expected = createHash("sha256").update(data).digest();

  const variants = [
    {
      name: "artifact-bloom `Sha256` (wasm, streaming)",
      async run() {
        const hasher = new api.Sha256();
        const started = process.hrtime.bigint();
        for (const chunk of chunks) hasher.update(chunk);
        const digest = hasher.digest();
        const ns = Number(process.hrtime.bigint() - started);
        hasher.free();
        return [ns, digest];
      },
    },
    {
      name: "hash-wasm `createSHA256()` (streaming)",
      async run() {
        // Instantiation is async and cached by hash-wasm; keep it off the clock.
        const hasher = await createSHA256();
        const started = process.hrtime.bigint();
        hasher.init();
        for (const chunk of chunks) hasher.update(chunk);
        const digest = hasher.digest("binary");
        return [Number(process.hrtime.bigint() - started), digest];
      },
    },
    {
      name: "node:crypto `createHash` (streaming)",
      async run() {
        const started = process.hrtime.bigint();
        const hasher = createHash("sha256");
        for (const chunk of chunks) hasher.update(chunk);
        const digest = hasher.digest();
        return [Number(process.hrtime.bigint() - started), digest];
      },
    },
    {
      name: "WebCrypto `crypto.subtle.digest` (one-shot)",
      async run() {
        const started = process.hrtime.bigint();
        const digest = new Uint8Array(await webcrypto.subtle.digest("SHA-256", data));
        return [Number(process.hrtime.bigint() - started), digest];
      },
    },
  ];

  const samples = new Map(variants.map((v) => [v.name, []]));
  // Repetition −1 is the warm-up (JIT, wasm tier-up, page faults); not recorded.
  for (let rep = -1; rep < reps; rep += 1) {
    for (const variant of rotated(variants, rep + 1)) {
      gc();
      const [ns, digest] = await variant.run();
      if (!sameDigest(digest, expected)) throw new Error(`${variant.name}: wrong digest`);
      sink.value += digest[0];
      if (rep >= 0) samples.get(variant.name).push(ns);
    }
  }
  return variants.map((v) => {
    const ns = median(samples.get(v.name));
    return { name: v.name, ns, mbPerSecond: total / 1e6 / (ns / 1e9) };
  });
}

/**
 * ABF1 `loadSnapshot` of the 1M / 0.001 snapshot vs its floor. The floor is
 * given with both SHA-256s: the package's own wasm `sha256` (what a wasm
 * loader can use everywhere) and node:crypto (native, Node only).
 */
export function benchSnapshotLoad(api, membersPacked, { reps }) {
  const built = api.ArtifactBloomFilter.createPacked(membersPacked, {
    expectedItemCount: 1_000_000,
    targetFalsePositiveRate: 0.001,
  });
  if (built.kind !== "success") throw new Error(`createPacked failed: ${built.error}`);
  const bytes = api.encodeSnapshot(built.value, { catalogVersion: 1 });
  const bitsLength = built.value.serializeBits().length;
  built.value.free();

  const variants = [
    {
      name: "ABF1 `loadSnapshot` (1M / 0.001)",
      run() {
        const started = process.hrtime.bigint();
        const loaded = api.loadSnapshot(bytes);
        const ns = Number(process.hrtime.bigint() - started);
        if (loaded.kind !== "success") throw new Error(`loadSnapshot failed: ${loaded.error}`);
        sink.value += loaded.value.filter.getHashCount();
        loaded.value.filter.free();
        return ns;
      },
    },
    {
      name: "floor: package `sha256(bytes)` + `bytes.slice()`",
      run() {
        const started = process.hrtime.bigint();
        const digest = api.sha256(bytes);
        const copy = bytes.slice();
        const ns = Number(process.hrtime.bigint() - started);
        sink.value += digest[0] + copy[copy.length - 1];
        return ns;
      },
    },
    {
      name: "floor: node:crypto SHA-256 + `bytes.slice()`",
      run() {
        const started = process.hrtime.bigint();
        const digest = createHash("sha256").update(bytes).digest();
        const copy = bytes.slice();
        const ns = Number(process.hrtime.bigint() - started);
        sink.value += digest[0] + copy[copy.length - 1];
        return ns;
      },
    },
  ];
  const samples = variants.map(() => []);
  for (let rep = -5; rep < reps; rep += 1) {
    rotated(
      variants.map((v, i) => [v, i]),
      rep + 5,
    ).forEach(([variant, index]) => {
      const ns = variant.run();
      if (rep >= 0) samples[index].push(ns);
    });
  }
  return {
    bytes: bytes.length,
    payload: bitsLength,
    rows: variants.map((v, i) => ({ name: v.name, ms: median(samples[i]) / 1e6 })),
  };
}
