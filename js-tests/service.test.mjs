// ArtifactExistenceService through the published package: the seed's
// absence-first lookup. Fake repositories record every call, so each test can
// prove what was (and was not) asked of the authoritative store, and at which
// catalogVersion.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { ArtifactBloomFilter, ArtifactExistenceService, SnapshotHolder } from "artifact-bloom";

const digestOf = (text) => new Uint8Array(createHash("sha256").update(text, "utf8").digest());
const hex = (digest) => Buffer.from(digest).toString("hex");

/** A snapshot over sha256("member:0..count-1"). */
function snapshotOf(catalogVersion, count = 200) {
  const members = Array.from({ length: count }, (_, index) => digestOf(`member:${index}`));
  const result = ArtifactBloomFilter.create(members, { expectedItemCount: count, targetFalsePositiveRate: 0.01 });
  assert.equal(result.kind, "success");
  return { snapshot: { catalogVersion, filter: result.value }, members };
}

/** Digests the filter definitely rejects: only these may skip the repository. */
function definiteNegatives(filter, count, prefix = "absent") {
  const found = [];
  for (let index = 0; found.length < count; index += 1) {
    const digest = digestOf(`${prefix}:${index}`);
    if (!filter.mightContain(digest)) found.push(digest);
  }
  return found;
}

/** A repository that records calls and answers from `exists(digest)`. */
function recordingRepository(exists = () => true) {
  const calls = [];
  return {
    calls,
    async existsAtVersionAsync(digest, catalogVersion, signal) {
      calls.push({ digest, catalogVersion, signal });
      return exists(digest);
    },
  };
}

/** A promise with its resolve/reject exposed, to hold a repository call open. */
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe("existsAsync", () => {
  const { snapshot, members } = snapshotOf(42);
  const negatives = definiteNegatives(snapshot.filter, 50);

  test("definite negatives answer false with zero repository calls", async () => {
    const repository = recordingRepository();
    const service = new ArtifactExistenceService(snapshot, repository);
    for (const digest of negatives) assert.equal(await service.existsAsync(digest), false);
    assert.equal(repository.calls.length, 0);
  });

  test("a maybe is confirmed by the repository at the snapshot's catalogVersion, whose answer is returned", async () => {
    // member:1 was deleted since the build: the repository, not the filter, is the truth.
    const repository = recordingRepository((digest) => hex(digest) !== hex(members[1]));
    const service = new ArtifactExistenceService(snapshot, repository);
    assert.equal(await service.existsAsync(members[0]), true);
    assert.equal(await service.existsAsync(members[1]), false);
    assert.deepEqual(
      repository.calls.map((call) => [hex(call.digest), call.catalogVersion]),
      [
        [hex(members[0]), 42],
        [hex(members[1]), 42],
      ],
    );
  });

  test("a repository error propagates; it is never turned into absent", async () => {
    const failure = new Error("metadata DB unavailable");
    const service = new ArtifactExistenceService(snapshot, {
      async existsAtVersionAsync() {
        throw failure;
      },
    });
    await assert.rejects(service.existsAsync(members[0]), (error) => error === failure);
  });

  test("a non-boolean repository answer is a TypeError, not false", async () => {
    const service = new ArtifactExistenceService(snapshot, { existsAtVersionAsync: async () => undefined });
    await assert.rejects(service.existsAsync(members[0]), TypeError);
  });

  test("a digest that is not 32 bytes is a RangeError — never false — and makes no repository call", async () => {
    const repository = recordingRepository();
    const service = new ArtifactExistenceService(snapshot, repository);
    const bad = [
      new Uint8Array(31),
      new Uint8Array(33),
      new Uint8Array(0),
      hex(members[0]),
      [...members[0]],
      members[0].buffer,
      new Uint16Array(16),
      undefined,
      null,
    ];
    for (const digest of bad) await assert.rejects(service.existsAsync(digest), RangeError);
    assert.equal(repository.calls.length, 0);
  });

  test("the catalogVersion passed is the answering snapshot's even when replace happens mid-call", async () => {
    const next = snapshotOf(43).snapshot;
    const holder = new SnapshotHolder(snapshot);
    const pending = deferred();
    const versions = [];
    const service = new ArtifactExistenceService(holder, {
      existsAtVersionAsync(_digest, catalogVersion) {
        versions.push(catalogVersion);
        return versions.length === 1 ? pending.promise : Promise.resolve(true);
      },
    });
    // Reader A starts on 42 and is still waiting when the publisher swaps in 43.
    const readerA = service.existsAsync(members[0]);
    holder.replace(next);
    pending.resolve(true);
    assert.equal(await readerA, true);
    // Reader B starts after the swap and uses 43.
    assert.equal(await service.existsAsync(members[0]), true);
    assert.deepEqual(versions, [42, 43]);
  });

  test("the AbortSignal is passed to the repository", async () => {
    const repository = recordingRepository();
    const service = new ArtifactExistenceService(snapshot, repository);
    const controller = new AbortController();
    await service.existsAsync(members[0], controller.signal);
    assert.equal(repository.calls[0].signal, controller.signal);
  });

  test("a pre-aborted signal rejects with its reason (AbortError) before any repository call", async () => {
    const repository = recordingRepository();
    const service = new ArtifactExistenceService(snapshot, repository);
    await assert.rejects(service.existsAsync(members[0], AbortSignal.abort()), { name: "AbortError" });
    const reason = new Error("client went away");
    await assert.rejects(service.existsAsync(members[0], AbortSignal.abort(reason)), (error) => error === reason);
    assert.equal(repository.calls.length, 0);
  });
});

describe("findMissingAsync", () => {
  const { snapshot, members } = snapshotOf(7, 2500);
  const negatives = definiteNegatives(snapshot.filter, 300);

  test("the result is the exact set difference, same objects, input order", async () => {
    // The repository knows every even member; odd members were deleted after the build.
    const present = new Set(members.filter((_, index) => index % 2 === 0).map(hex));
    // Non-members the filter answers "maybe" for (false positives) must come back as missing too.
    const falsePositives = [];
    for (let index = 0; falsePositives.length < 5; index += 1) {
      const digest = digestOf(`probe:${index}`);
      if (snapshot.filter.mightContain(digest)) falsePositives.push(digest);
    }
    const input = [...members.slice(0, 40), ...negatives.slice(0, 40), ...falsePositives]
      .map((digest, index) => ({ digest, key: (index * 7919) % 85 }))
      .sort((a, b) => a.key - b.key)
      .map(({ digest }) => digest);
    const service = new ArtifactExistenceService(
      snapshot,
      recordingRepository((digest) => present.has(hex(digest))),
    );
    const missing = await service.findMissingAsync(input);
    const expected = input.filter((digest) => !present.has(hex(digest)));
    assert.equal(missing.length, expected.length);
    missing.forEach((digest, index) => {
      assert.equal(digest, expected[index], `same object at ${index}`);
    });
  });

  test("definite negatives need no I/O: only the maybes reach the repository", async () => {
    const repository = recordingRepository();
    const service = new ArtifactExistenceService(snapshot, repository);
    assert.deepEqual(await service.findMissingAsync(negatives), negatives);
    assert.equal(repository.calls.length, 0);
    await service.findMissingAsync([...negatives.slice(0, 10), members[3], negatives[10]]);
    assert.deepEqual(
      repository.calls.map((call) => hex(call.digest)),
      [hex(members[3])],
    );
  });

  test("2,500 maybes with batchSize 1000 go to existsManyAtVersionAsync as batches of 1000, 1000, 500", async () => {
    const batches = [];
    const repository = {
      existsAtVersionAsync: async () => assert.fail("the batch method must be used"),
      async existsManyAtVersionAsync(digests, catalogVersion) {
        batches.push({ digests, catalogVersion });
        return digests.map(() => true);
      },
    };
    const service = new ArtifactExistenceService(snapshot, repository, { batchSize: 1000 });
    assert.deepEqual(await service.findMissingAsync([...members, ...negatives]), negatives);
    assert.deepEqual(
      batches.map((batch) => batch.digests.length),
      [1000, 1000, 500],
    );
    assert.ok(batches.every((batch) => batch.catalogVersion === 7));
    // Every maybe was asked about exactly once, none of the negatives.
    assert.deepEqual(
      batches.flatMap((batch) => batch.digests.map(hex)),
      members.map(hex),
    );
  });

  test("without existsManyAtVersionAsync, in-flight calls never exceed concurrency", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let calls = 0;
    const service = new ArtifactExistenceService(
      snapshot,
      {
        async existsAtVersionAsync() {
          calls += 1;
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 1));
          inFlight -= 1;
          return true;
        },
      },
      { concurrency: 4 },
    );
    await service.findMissingAsync(members.slice(0, 40));
    assert.equal(calls, 40);
    // Exactly 4: bounded, yet really concurrent.
    assert.equal(maxInFlight, 4);
  });

  test("a repository error rejects the batch and stops launching further calls", async () => {
    const failure = new Error("HEAD 503");
    let calls = 0;
    const service = new ArtifactExistenceService(
      snapshot,
      {
        async existsAtVersionAsync() {
          calls += 1;
          if (calls === 3) throw failure;
          return true;
        },
      },
      { concurrency: 1 },
    );
    await assert.rejects(service.findMissingAsync(members.slice(0, 10)), (error) => error === failure);
    assert.equal(calls, 3);
    const batchService = new ArtifactExistenceService(snapshot, {
      existsAtVersionAsync: async () => true,
      existsManyAtVersionAsync: async () => {
        throw failure;
      },
    });
    await assert.rejects(batchService.findMissingAsync(members.slice(0, 10)), (error) => error === failure);
  });

  test("a batch answer of the wrong length is a TypeError, not a guess", async () => {
    const service = new ArtifactExistenceService(snapshot, {
      existsAtVersionAsync: async () => true,
      existsManyAtVersionAsync: async (digests) => digests.slice(1).map(() => true),
    });
    await assert.rejects(service.findMissingAsync(members.slice(0, 5)), TypeError);
  });

  test("one snapshot serves the whole batch even when replace happens between batches", async () => {
    const holder = new SnapshotHolder(snapshot);
    const firstBatch = deferred();
    const versions = [];
    const service = new ArtifactExistenceService(
      holder,
      {
        existsAtVersionAsync: async () => true,
        existsManyAtVersionAsync(digests, catalogVersion) {
          versions.push(catalogVersion);
          return versions.length === 1 ? firstBatch.promise.then(() => digests.map(() => true)) : digests.map(() => true);
        },
      },
      { batchSize: 10, concurrency: 1 },
    );
    const pending = service.findMissingAsync(members.slice(0, 30));
    holder.replace(snapshotOf(8).snapshot);
    firstBatch.resolve();
    assert.deepEqual(await pending, []);
    assert.deepEqual(versions, [7, 7, 7]);
  });

  test("a bad digest is a RangeError naming its index, with no repository call", async () => {
    const repository = recordingRepository();
    const service = new ArtifactExistenceService(snapshot, repository);
    await assert.rejects(service.findMissingAsync([members[0], members[1], new Uint8Array(31)]), (error) => {
      assert.ok(error instanceof RangeError);
      assert.match(error.message, /digests\[2\]/);
      return true;
    });
    await assert.rejects(service.findMissingAsync("not an array"), TypeError);
    assert.equal(repository.calls.length, 0);
  });

  test("an empty input answers [] without touching the repository", async () => {
    const repository = recordingRepository();
    assert.deepEqual(await new ArtifactExistenceService(snapshot, repository).findMissingAsync([]), []);
    assert.equal(repository.calls.length, 0);
  });

  test("a pre-aborted signal rejects with AbortError and makes no call", async () => {
    const repository = recordingRepository();
    const service = new ArtifactExistenceService(snapshot, repository);
    await assert.rejects(service.findMissingAsync(members.slice(0, 5), AbortSignal.abort()), { name: "AbortError" });
    assert.equal(repository.calls.length, 0);
  });

  test("aborting mid-batch aborts the signal the repository sees and launches nothing more", async () => {
    const controller = new AbortController();
    const seen = [];
    const service = new ArtifactExistenceService(
      snapshot,
      {
        existsAtVersionAsync(_digest, _catalogVersion, signal) {
          seen.push(signal);
          if (seen.length === 2) controller.abort();
          return Promise.resolve(true);
        },
      },
      { concurrency: 1 },
    );
    await assert.rejects(service.findMissingAsync(members.slice(0, 10), controller.signal), { name: "AbortError" });
    assert.equal(seen.length, 2);
    assert.ok(
      seen.every((signal) => signal.aborted),
      "the repository's signal follows the caller's",
    );
  });
});

describe("constructor", () => {
  const { snapshot } = snapshotOf(1, 10);

  test("rejects a repository without existsAtVersionAsync, and bad options", () => {
    assert.throws(() => new ArtifactExistenceService(snapshot, {}), TypeError);
    assert.throws(() => new ArtifactExistenceService(snapshot, null), TypeError);
    const repository = recordingRepository();
    assert.throws(() => new ArtifactExistenceService(snapshot, repository, { batchSize: 0 }), RangeError);
    assert.throws(() => new ArtifactExistenceService(snapshot, repository, { concurrency: 1.5 }), RangeError);
  });

  test("rejects a snapshot that is not { catalogVersion, filter } with a live filter", () => {
    const repository = recordingRepository();
    assert.throws(() => new ArtifactExistenceService({ catalogVersion: -1, filter: snapshot.filter }, repository), RangeError);
    assert.throws(() => new ArtifactExistenceService({ catalogVersion: 1, filter: {} }, repository), TypeError);
    const freed = snapshotOf(2, 10).snapshot;
    freed.filter.free();
    assert.throws(() => new ArtifactExistenceService(freed, repository), RangeError);
  });
});
