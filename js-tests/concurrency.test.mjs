// Concurrency: 10,000 existsAsync calls in flight while SnapshotHolder.replace
// swaps in a new catalog version every 1–4 ms. Every version has its own
// digest set (a random half of one 2,000-digest universe, so consecutive
// versions disagree about ~half the digests), its own filter (p = 0.05, so
// "maybe" answers include false positives), and a fake repository that
// answers from that version's exact set after a random 0–3 ms delay and
// records, per call, which (digest, catalogVersion) it was asked.
//
// The invariant (the seed's "every answer comes from exactly one snapshot"):
//   - if the repository was asked, it was asked exactly once, with a
//     catalogVersion that was in service at some point during the call and
//     whose filter says "maybe" for that digest, and the call's answer is
//     that version's exact answer;
//   - if it was not asked, the answer is false and the digest is absent from
//     the filter of a version that was in service during the call.
// Calls are tied to repository requests with AsyncLocalStorage.
import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { ArtifactBloomFilter, ArtifactExistenceService, SnapshotHolder } from "artifact-bloom";
import { seededRandom } from "./helpers/random.mjs";

const UNIVERSE = 2000;
const CALLS = 10_000;
const WAVES = 100; // staggered: CALLS / WAVES calls launched per millisecond tick
const VERSIONS = 400;
const BASE_VERSION = 1000;

const hexOf = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

describe("existsAsync under SnapshotHolder.replace every few milliseconds", () => {
  // staggered: 100 calls per millisecond for 100 ms, repository delay 0–9 ms,
  //   so calls start under many different versions and overlap;
  // burst: all 10,000 calls started in one tick (all take the same snapshot);
  //   each repository answer waits for 0–20 further swaps, so versions keep
  //   changing under calls that are still in flight.
  for (const scenario of [
    { name: "staggered", waves: WAVES, maxDelayMs: 10, maxSwapWait: 0, seed: 0x5eed, minSwaps: 20 },
    { name: "burst", waves: 1, maxDelayMs: 1, maxSwapWait: 20, seed: 0xb0057, minSwaps: 10 },
  ]) {
    test(`${CALLS.toLocaleString("en")} concurrent calls (${scenario.name}): each answer comes from exactly one snapshot`, async (t) => {
      await runScenario(t, scenario);
    });
  }
});

async function runScenario(t, { waves, maxDelayMs, maxSwapWait, seed, minSwaps }) {
  {
    const random = seededRandom(seed);
    const universe = Array.from(
      { length: UNIVERSE },
      (_, i) => new Uint8Array(createHash("sha256").update(`artifact:${i}`).digest()),
    );
    const universeHex = universe.map(hexOf);
    const spec = { expectedItemCount: UNIVERSE, targetFalsePositiveRate: 0.05 };

    // versions[i]: catalogVersion BASE_VERSION + i, its exact set and filter.
    const versions = [];
    for (let i = 0; i < VERSIONS; i += 1) {
      const members = universe.filter(() => random() < 0.5);
      const built = ArtifactBloomFilter.create(members, spec);
      assert.equal(built.kind, "success");
      versions.push({
        catalogVersion: BASE_VERSION + i,
        exact: new Set(members.map(hexOf)),
        snapshot: Object.freeze({ catalogVersion: BASE_VERSION + i, filter: built.value }),
      });
    }
    const byVersion = new Map(versions.map((v, index) => [v.catalogVersion, { ...v, index }]));

    const context = new AsyncLocalStorage();
    const asked = new Map(); // call id → [{ hex, catalogVersion }]
    let inFlight = 0;
    let maxInFlight = 0;
    const repository = {
      async existsAtVersionAsync(digest, catalogVersion) {
        const id = context.getStore();
        const hex = hexOf(digest);
        if (!asked.has(id)) asked.set(id, []);
        asked.get(id).push({ hex, catalogVersion });
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(Math.floor(random() * maxDelayMs));
        for (let k = Math.floor(random() * (maxSwapWait + 1)); k > 0; k -= 1) await nextSwap;
        inFlight -= 1;
        const version = byVersion.get(catalogVersion);
        if (version === undefined) throw new Error(`asked for unknown catalogVersion ${catalogVersion}`);
        return version.exact.has(hex);
      },
    };

    const holder = new SnapshotHolder(versions[0].snapshot);
    const service = new ArtifactExistenceService(holder, repository);
    let current = 0; // index of the version in service, updated with each replace
    let swapped;
    let nextSwap = new Promise((resolve) => {
      swapped = resolve;
    }); // resolves at the next replace

    let launching = true;
    const swapper = (async () => {
      while (launching || inFlight > 0) {
        await sleep(1 + Math.floor(random() * 4)); // every 1–4 ms
        if (current + 1 >= versions.length) break;
        holder.replace(versions[current + 1].snapshot);
        current += 1;
        const resolveSwap = swapped;
        nextSwap = new Promise((resolve) => {
          swapped = resolve;
        });
        resolveSwap();
      }
    })();

    const calls = [];
    for (let wave = 0; wave < waves; wave += 1) {
      for (let j = 0; j < CALLS / waves; j += 1) {
        const id = calls.length;
        const index = Math.floor(random() * UNIVERSE);
        const call = { id, index, start: current, end: undefined, answer: undefined, error: undefined };
        call.done = context
          .run(id, () => service.existsAsync(universe[index]))
          .then(
            (answer) => {
              call.answer = answer;
              call.end = current;
            },
            (error) => {
              call.error = error;
              call.end = current;
            },
          );
        calls.push(call);
      }
      await sleep(1);
    }
    await Promise.all(calls.map((c) => c.done));
    launching = false;
    await swapper;

    const problems = [];
    let negatives = 0;
    let maybes = 0;
    let falsePositives = 0;
    let spannedSwap = 0;
    let answeredFromOlder = 0; // repository version older than the one in service when the call ended
    for (const call of calls) {
      const hex = universeHex[call.index];
      const digest = universe[call.index];
      if (call.error !== undefined) {
        problems.push(`call ${call.id} rejected: ${call.error.message}`);
        continue;
      }
      if (call.end > call.start) spannedSwap += 1;
      const during = versions.slice(call.start, call.end + 1); // every version in service during the call
      const requests = asked.get(call.id) ?? [];
      if (requests.length > 1) problems.push(`call ${call.id}: the repository was asked ${requests.length} times`);
      if (requests.length >= 1) {
        maybes += 1;
        const [{ hex: askedHex, catalogVersion }] = requests;
        const version = byVersion.get(catalogVersion);
        if (askedHex !== hex) problems.push(`call ${call.id}: asked about another digest`);
        if (version === undefined || version.index < call.start || version.index > call.end) {
          problems.push(
            `call ${call.id}: catalogVersion ${catalogVersion} was not in service during the call (${versions[call.start].catalogVersion}..${versions[call.end].catalogVersion})`,
          );
          continue;
        }
        if (!version.snapshot.filter.mightContain(digest)) {
          problems.push(`call ${call.id}: asked at ${catalogVersion}, whose filter says definitely absent`);
        }
        if (call.answer !== version.exact.has(hex)) {
          problems.push(
            `call ${call.id}: answered ${call.answer}, but version ${catalogVersion}'s exact answer is ${version.exact.has(hex)}`,
          );
        }
        if (!call.answer) falsePositives += 1;
        if (version.index < call.end) answeredFromOlder += 1;
      } else {
        negatives += 1;
        if (call.answer !== false) problems.push(`call ${call.id}: answered ${call.answer} without asking the repository`);
        if (!during.some((v) => !v.snapshot.filter.mightContain(digest))) {
          problems.push(`call ${call.id}: answered absent, but every filter in service during the call says maybe`);
        }
      }
    }

    t.diagnostic(
      `${CALLS} calls, ${current} swaps (catalogVersion ${BASE_VERSION} → ${BASE_VERSION + current}); max ${maxInFlight} repository calls in flight`,
    );
    t.diagnostic(
      `${negatives} definite negatives, ${maybes} maybes (${falsePositives} false positives); ${spannedSwap} calls spanned a swap, ${answeredFromOlder} were answered at a version already replaced`,
    );
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} violations`);
    assert.equal(negatives + maybes, CALLS);
    // The run really exercised the race: swaps, in-flight overlap, and calls
    // answered by a version that had been replaced meanwhile.
    assert.ok(current >= minSwaps, `only ${current} swaps`);
    assert.ok(maxInFlight >= 20, `only ${maxInFlight} concurrent repository calls`);
    assert.ok(
      spannedSwap >= 100 && answeredFromOlder >= 100,
      `${spannedSwap} calls spanned a swap, ${answeredFromOlder} answered from an older version`,
    );
    assert.ok(falsePositives > 0 && negatives > 0);
    for (const version of versions) version.snapshot.filter.free();
  }
}
