// SnapshotHolder: the seed's atomically replaced "currentSnapshot reference".
// The rules proven here: only validated, newer snapshots are swapped in; a
// failed or stale refresh keeps the snapshot in service (never an empty
// filter); polling uses ETags and never keeps a Node process alive.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, test } from "node:test";
import { ArtifactBloomFilter, ArtifactExistenceService, SnapshotHolder, encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { withTimeout } from "./helpers/abf1.mjs";

const digestOf = (text) => new Uint8Array(createHash("sha256").update(text, "utf8").digest());
const members = Array.from({ length: 100 }, (_, index) => digestOf(`member:${index}`));

function snapshotOf(catalogVersion, digests = members) {
  const result = ArtifactBloomFilter.create(digests, { expectedItemCount: 100, targetFalsePositiveRate: 0.01 });
  assert.equal(result.kind, "success");
  return { catalogVersion, filter: result.value };
}

/** Answers of a service over `holder` for members and non-members, plus the versions asked. */
async function answersOf(holder) {
  const versions = [];
  const service = new ArtifactExistenceService(holder, {
    async existsAtVersionAsync(_digest, catalogVersion) {
      versions.push(catalogVersion);
      return true;
    },
  });
  const probes = [...members.slice(0, 20), ...Array.from({ length: 20 }, (_, index) => digestOf(`absent:${index}`))];
  const answers = [];
  for (const digest of probes) answers.push(await service.existsAsync(digest));
  return { answers, versions: [...new Set(versions)] };
}

describe("replace", () => {
  test("swaps in a newer snapshot and returns the previous one, not freed", () => {
    const first = snapshotOf(42);
    const holder = new SnapshotHolder(first);
    assert.equal(holder.current(), first);
    const second = snapshotOf(43);
    assert.equal(holder.replace(second), first);
    assert.equal(holder.current(), second);
    // Readers may still hold snapshot 42: the holder must not free it.
    assert.equal(first.filter.freed, false);
    assert.equal(holder.replaceCount, 1);
  });

  test("an older or equal catalogVersion throws RangeError and keeps the old snapshot", () => {
    const current = snapshotOf(42);
    const holder = new SnapshotHolder(current);
    assert.throws(() => holder.replace(snapshotOf(41)), RangeError);
    assert.throws(() => holder.replace(snapshotOf(42)), RangeError);
    assert.equal(holder.current(), current);
  });

  test("allowSameOrOlder permits a rollback to an older snapshot", () => {
    const holder = new SnapshotHolder(snapshotOf(42), { allowSameOrOlder: true });
    const older = snapshotOf(41);
    holder.replace(older);
    assert.equal(holder.current(), older);
  });

  test("an invalid snapshot is rejected and the old one stays in service", () => {
    const current = snapshotOf(42);
    const holder = new SnapshotHolder(current);
    const freed = snapshotOf(50);
    freed.filter.free();
    assert.throws(() => holder.replace(freed), RangeError);
    assert.throws(() => holder.replace({ catalogVersion: 43.5, filter: current.filter }), RangeError);
    assert.throws(() => holder.replace({ catalogVersion: 43 }), TypeError);
    assert.throws(() => holder.replace(null), TypeError);
    assert.equal(holder.current(), current);
  });

  test("onReplace hears every swap; a throwing listener neither undoes it nor stops the others", () => {
    const errors = [];
    const holder = new SnapshotHolder(snapshotOf(1), { onError: (error) => errors.push(error) });
    const heard = [];
    holder.onReplace(() => {
      throw new Error("listener bug");
    });
    const unsubscribe = holder.onReplace((next, previous) => heard.push([previous.catalogVersion, next.catalogVersion]));
    holder.replace(snapshotOf(2));
    unsubscribe();
    holder.replace(snapshotOf(3));
    assert.deepEqual(heard, [[1, 2]]);
    assert.equal(holder.current().catalogVersion, 3);
    assert.equal(errors.length, 2);
  });
});

describe("refreshFrom", () => {
  test("a newer snapshot from the loader is swapped in; the loader receives the current snapshot", async () => {
    const first = snapshotOf(1);
    const holder = new SnapshotHolder(first);
    let received;
    const outcome = await holder.refreshFrom(async (current) => {
      received = current;
      return { kind: "success", value: snapshotOf(2) };
    });
    assert.deepEqual(outcome, { replaced: true, outcome: "replaced" });
    assert.equal(received, first);
    assert.equal(holder.current().catalogVersion, 2);
  });

  test("a failure result keeps answers unchanged and counts a load failure", async () => {
    const holder = new SnapshotHolder(snapshotOf(42));
    const before = await answersOf(holder);
    const outcome = await holder.refreshFrom(async () => ({ kind: "failure", error: "checksumMismatch", message: "bad CRC" }));
    assert.equal(outcome.replaced, false);
    assert.equal(outcome.error, "checksumMismatch");
    assert.equal(holder.loadFailureCount, 1);
    assert.deepEqual(await answersOf(holder), before);
    assert.equal(holder.lastFailure.error, "checksumMismatch");
  });

  test("a throwing loader keeps answers unchanged and counts a load failure", async () => {
    const holder = new SnapshotHolder(snapshotOf(42));
    const before = await answersOf(holder);
    const outcome = await holder.refreshFrom(async () => {
      throw new Error("object storage timeout");
    });
    assert.equal(outcome.replaced, false);
    assert.equal(outcome.error, "loaderThrew");
    assert.match(outcome.message, /object storage timeout/);
    assert.equal(holder.loadFailureCount, 1);
    assert.deepEqual(await answersOf(holder), before);
  });

  test("a corrupted ABF1 file is a failure, never an empty filter in service", async () => {
    const current = snapshotOf(42);
    const holder = new SnapshotHolder(current);
    const bytes = encodeSnapshot(snapshotOf(43).filter, { catalogVersion: 43 });
    bytes[bytes.length - 1] ^= 0xff; // flip payload bits: the checksum must catch it
    const outcome = await holder.refreshFrom(async () => loadSnapshot(bytes));
    assert.equal(outcome.replaced, false);
    assert.equal(outcome.outcome, "failure");
    assert.equal(holder.current(), current);
    assert.equal(holder.loadFailureCount, 1);
  });

  test("a result that is not a load result, or an invalid snapshot, counts as a failure", async () => {
    const holder = new SnapshotHolder(snapshotOf(1));
    assert.equal((await holder.refreshFrom(async () => undefined)).error, "invalidLoadResult");
    const freed = snapshotOf(2);
    freed.filter.free();
    assert.equal((await holder.refreshFrom(async () => ({ kind: "success", value: freed }))).error, "invalidSnapshot");
    assert.equal(holder.loadFailureCount, 2);
    assert.equal(holder.current().catalogVersion, 1);
  });

  test("notModified is not a failure", async () => {
    const holder = new SnapshotHolder(snapshotOf(1));
    const outcome = await holder.refreshFrom(async () => ({ kind: "failure", error: "notModified", message: "304" }));
    assert.deepEqual(outcome, { replaced: false, outcome: "notModified" });
    assert.equal(holder.loadFailureCount, 0);
    assert.equal(holder.notModifiedCount, 1);
  });

  test("an older or equal version from the loader is not swapped and is counted as stale, not failed", async () => {
    const current = snapshotOf(5);
    const holder = new SnapshotHolder(current);
    for (const version of [4, 5]) {
      const outcome = await holder.refreshFrom(async () => ({ kind: "success", value: snapshotOf(version) }));
      assert.deepEqual(outcome, { replaced: false, outcome: "stale" });
    }
    assert.equal(holder.current(), current);
    assert.equal(holder.staleCount, 2);
    assert.equal(holder.loadFailureCount, 0);
  });
});

describe("polling", () => {
  const url = "https://catalog.example/artifacts.abf1";
  // The holder's timers are unref()ed and the fake fetches do no real I/O, so
  // without a ref'ed timer of our own the test runner's event loop would run
  // dry while a test awaits the next poll.
  let keepAlive;
  beforeEach(() => {
    keepAlive = setInterval(() => {}, 1000);
  });
  afterEach(() => clearInterval(keepAlive));

  test("polls with fetchSnapshot: a 500 fails, a 200 swaps, then If-None-Match gets a 304", async () => {
    const holder = new SnapshotHolder(snapshotOf(1));
    const sent = [];
    const responses = [
      () => new Response("down", { status: 500 }),
      () => new Response(encodeSnapshot(snapshotOf(2).filter, { catalogVersion: 2 }), { headers: { ETag: '"v2"' } }),
      () => new Response(null, { status: 304 }),
    ];
    const fetch = async (_requestUrl, init) => {
      sent.push(init.headers["If-None-Match"]);
      return responses[sent.length - 1]();
    };
    const outcomes = [];
    await new Promise((resolve) => {
      holder.startPolling(url, {
        intervalMs: 5,
        immediate: true,
        fetch,
        onRefresh: (outcome) => {
          outcomes.push(outcome.outcome);
          if (outcomes.length === 3) resolve();
        },
      });
    });
    holder.stopPolling();
    assert.deepEqual(outcomes, ["failure", "replaced", "notModified"]);
    // No ETag before the first 200; the server's ETag afterwards.
    assert.deepEqual(sent, [undefined, undefined, '"v2"']);
    assert.equal(holder.current().catalogVersion, 2);
    assert.equal(holder.current().etag, '"v2"');
    assert.equal(holder.loadFailureCount, 1);
    assert.equal(holder.polling, false);
  });

  test("stopPolling (or the polling signal) aborts a fetch in flight without counting a failure", async () => {
    for (const stop of ["stopPolling", "signal"]) {
      const holder = new SnapshotHolder(snapshotOf(1));
      const controller = new AbortController();
      let fetchStarted;
      const started = new Promise((resolve) => {
        fetchStarted = resolve;
      });
      let fetchSignal;
      const fetch = (_requestUrl, init) =>
        new Promise((_resolve, reject) => {
          fetchSignal = init.signal;
          init.signal.addEventListener("abort", () => reject(init.signal.reason));
          fetchStarted();
        });
      holder.startPolling(url, { intervalMs: 5, immediate: true, fetch, signal: controller.signal });
      await started;
      if (stop === "stopPolling") holder.stopPolling();
      else controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(fetchSignal.aborted, true, stop);
      assert.equal(holder.polling, false, stop);
      assert.equal(holder.loadFailureCount, 0, stop);
    }
  });

  test('a poll that never answers (headers or body) is a counted "timeout" failure; polling goes on', async () => {
    const initial = snapshotOf(1);
    const holder = new SnapshotHolder(initial);
    const v2 = encodeSnapshot(snapshotOf(2).filter, { catalogVersion: 2 });
    // Poll 1: no headers ever. Poll 2: headers and 50 bytes, then nothing.
    // Poll 3: the snapshot. A hang is certain, so the outcomes are too.
    const answers = [
      (init) => new Promise((_resolve, reject) => init.signal.addEventListener("abort", () => reject(init.signal.reason))),
      async () => new Response(new ReadableStream({ start: (c) => c.enqueue(v2.slice(0, 50)) })),
      async () => new Response(v2),
    ];
    let calls = 0;
    const fetch = (_requestUrl, init) => answers[Math.min(calls++, answers.length - 1)](init);
    const seen = [];
    const done = new Promise((resolve) => {
      holder.startPolling(url, {
        intervalMs: 1,
        immediate: true,
        timeoutMs: 5,
        fetch,
        onRefresh: (outcome) => {
          seen.push({ ...outcome, version: holder.current().catalogVersion, polling: holder.polling });
          if (seen.length === 3) resolve();
        },
      });
    });
    try {
      await withTimeout(done, 30_000, "three polls, two of them hung");
    } finally {
      holder.stopPolling();
    }
    assert.deepEqual(
      seen.map((s) => [s.outcome, s.error, s.version, s.polling]),
      [
        ["failure", "timeout", 1, true],
        ["failure", "timeout", 1, true],
        ["replaced", undefined, 2, true],
      ],
    );
    assert.equal(holder.loadFailureCount, 2);
    assert.equal(holder.lastFailure.error, "timeout");
    assert.equal(initial.filter.freed, false, "the snapshot kept in service during the hangs is intact");
  });

  test("rejects a bad timeoutMs before polling starts", () => {
    const holder = new SnapshotHolder(snapshotOf(1));
    for (const timeoutMs of [0, -1, Number.NaN, "5"]) {
      assert.throws(() => holder.startPolling(url, { intervalMs: 1000, timeoutMs, fetch: async () => {} }), RangeError);
    }
    assert.equal(holder.polling, false);
  });

  test("rejects a bad interval", () => {
    const holder = new SnapshotHolder(snapshotOf(1));
    assert.throws(() => holder.startPolling(url, { intervalMs: 0, fetch: async () => {} }), RangeError);
    assert.equal(holder.polling, false);
  });

  test("polling timers are unref()ed: a Node process with polling active exits on its own", () => {
    // A child process with an hour-long poll interval must still exit promptly.
    const script = `
      import { ArtifactBloomFilter, SnapshotHolder } from "artifact-bloom";
      const digest = new Uint8Array(32).fill(7);
      const filter = ArtifactBloomFilter.create([digest], { expectedItemCount: 1, targetFalsePositiveRate: 0.01 }).value;
      const holder = new SnapshotHolder({ catalogVersion: 1, filter });
      holder.startPolling("${url}", { intervalMs: 3600000, fetch: async () => new Response(null, { status: 304 }) });
      console.log("polling", holder.polling);
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL(".", import.meta.url)),
      encoding: "utf8",
      timeout: 20_000,
    });
    assert.equal(child.signal, null, "the child had to be killed: a timer kept it alive");
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), "polling true");
  });
});
