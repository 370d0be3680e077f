// Seeded randomness for the suites: a seed gives the same sequence on every
// run, so "random" choices (items, kill delays, probe digests, fuzz inputs)
// repeat exactly and a failure names a reproducible case.

/** Mulberry32: a tiny seeded PRNG; the returned function is uniform in [0, 1). */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 32 bytes from a seeded PRNG (not a hash of anything: a "random" digest). */
export function randomDigest(random) {
  const digest = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) digest[i] = Math.floor(random() * 256);
  return digest;
}
