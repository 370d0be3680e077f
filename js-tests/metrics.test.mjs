// The seed's operational metrics through the published package: exact keys,
// exact counts and ratios for a scripted query sequence (expected numbers
// worked out by hand below), snapshot age, load failures, the per-snapshot
// cache, and the Prometheus text exposition.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { ArtifactBloomFilter, ArtifactExistenceService, SnapshotHolder, renderPrometheus } from "artifact-bloom";

const digestOf = (text) => new Uint8Array(createHash("sha256").update(text, "utf8").digest());
const hex = (digest) => Buffer.from(digest).toString("hex");
const members = Array.from({ length: 1000 }, (_, index) => digestOf(`member:${index}`));

function snapshotOf(catalogVersion, count = 1000, extra = {}) {
  const result = ArtifactBloomFilter.create(members.slice(0, count), { expectedItemCount: count, targetFalsePositiveRate: 0.01 });
  assert.equal(result.kind, "success");
  return { catalogVersion, filter: result.value, ...extra };
}

function definiteNegatives(filter, count) {
  const found = [];
  for (let index = 0; found.length < count; index += 1) {
    const digest = digestOf(`absent:${index}`);
    if (!filter.mightContain(digest)) found.push(digest);
  }
  return found;
}

const trueRepository = { existsAtVersionAsync: async () => true };

const SEED_KEYS = [
  "artifact_bloom.bit_count",
  "artifact_bloom.hash_count",
  "artifact_bloom.expected_item_count",
  "artifact_bloom.inserted_item_count",
  "artifact_bloom.fill_ratio",
  "artifact_bloom.estimated_fpp",
  "artifact_bloom.negative.count",
  "artifact_bloom.maybe.count",
  "artifact_bloom.false_positive.count",
  "artifact_bloom.catalog_version",
  "artifact_bloom.snapshot.age_seconds",
  "artifact_bloom.snapshot.load_failure.count",
];
const RATIO_KEYS = ["negativeBypassRatio", "observedFalsePositiveRate", "falseDiscoveryRatio"];

describe("metrics()", () => {
  test("is keyed by exactly the seed's metric names plus the three ratios", () => {
    const service = new ArtifactExistenceService(snapshotOf(1, 100), trueRepository);
    assert.deepEqual(Object.keys(service.metrics()).sort(), [...SEED_KEYS, ...RATIO_KEYS].sort());
  });

  test("the filter's shape comes from the snapshot in service, and follows a replace", () => {
    const first = snapshotOf(42, 1000);
    const holder = new SnapshotHolder(first);
    const service = new ArtifactExistenceService(holder, trueRepository);
    const check = ({ catalogVersion, filter }) => {
      const metrics = service.metrics();
      assert.equal(metrics["artifact_bloom.bit_count"], filter.getBitCount());
      assert.equal(metrics["artifact_bloom.hash_count"], filter.getHashCount());
      assert.equal(metrics["artifact_bloom.expected_item_count"], filter.getExpectedItemCount());
      assert.equal(metrics["artifact_bloom.inserted_item_count"], filter.getInsertedItemCount());
      assert.equal(metrics["artifact_bloom.fill_ratio"], filter.getFillRatio());
      assert.equal(metrics["artifact_bloom.estimated_fpp"], filter.estimateFalsePositiveRate());
      assert.equal(metrics["artifact_bloom.catalog_version"], catalogVersion);
    };
    check(first);
    const second = snapshotOf(43, 10);
    holder.replace(second);
    check(second);
  });

  test("counts and ratios are exact for a scripted sequence", async () => {
    const snapshot = snapshotOf(42);
    const negatives = definiteNegatives(snapshot.filter, 8);
    // The repository is the truth: member:3 and member:7 were deleted after
    // the build (a Bloom "maybe" the repository answers absent is a false
    // positive), and member:9's lookup fails.
    const deleted = new Set([members[3], members[7]].map(hex));
    const service = new ArtifactExistenceService(snapshot, {
      async existsAtVersionAsync(digest) {
        if (hex(digest) === hex(members[9])) throw new Error("lookup failed");
        return !deleted.has(hex(digest));
      },
    });
    // 6 definite negatives → negative 6.
    for (const digest of negatives.slice(0, 6)) assert.equal(await service.existsAsync(digest), false);
    // 4 maybes, member:3 absent → maybe 4, false positive 1.
    for (const index of [0, 1, 2, 3]) assert.equal(await service.existsAsync(members[index]), index !== 3);
    // A query that threw on validation counts nothing.
    await assert.rejects(service.existsAsync(new Uint8Array(31)), RangeError);
    // A repository error counts the maybe but no false positive → maybe 5.
    await assert.rejects(service.existsAsync(members[9]), /lookup failed/);
    // Batch, per digest: 2 negatives, 3 maybes with member:7 absent → negative 8, maybe 8, false positive 2.
    const batch = [negatives[6], members[4], negatives[7], members[7], members[5]];
    assert.deepEqual(await service.findMissingAsync(batch), [negatives[6], negatives[7], members[7]]);
    // A rejected batch and an aborted query count nothing.
    await assert.rejects(service.findMissingAsync([members[0], "x"]), RangeError);
    await assert.rejects(service.existsAsync(members[0], AbortSignal.abort()), { name: "AbortError" });

    const metrics = service.metrics();
    assert.equal(metrics["artifact_bloom.negative.count"], 8);
    assert.equal(metrics["artifact_bloom.maybe.count"], 8);
    assert.equal(metrics["artifact_bloom.false_positive.count"], 2);
    assert.equal(metrics.negativeBypassRatio, 8 / 16); // negative / (negative + maybe)
    assert.equal(metrics.observedFalsePositiveRate, 2 / 10); // fp / (negative + fp)
    assert.equal(metrics.falseDiscoveryRatio, 2 / 8); // fp / maybe
  });

  test("ratios are 0, not NaN, before any query", () => {
    const metrics = new ArtifactExistenceService(snapshotOf(1, 100), trueRepository).metrics();
    for (const key of RATIO_KEYS) assert.equal(metrics[key], 0, key);
  });

  test("snapshot age is measured from lastModified when known", () => {
    let now = 1_700_000_000_000;
    const snapshot = snapshotOf(1, 100, { lastModified: new Date(now - 60_000) });
    const service = new ArtifactExistenceService(snapshot, trueRepository, { now: () => now });
    assert.equal(service.metrics()["artifact_bloom.snapshot.age_seconds"], 60);
    now += 1_500;
    assert.equal(service.metrics()["artifact_bloom.snapshot.age_seconds"], 61.5);
  });

  test("without lastModified, age runs from when the service or holder first saw the snapshot", () => {
    let now = 1_000_000;
    const clock = () => now;
    const plain = new ArtifactExistenceService(snapshotOf(1, 100), trueRepository, { now: clock });
    const holder = new SnapshotHolder(snapshotOf(1, 100), { now: clock });
    const held = new ArtifactExistenceService(holder, trueRepository, { now: clock });
    now += 30_500;
    assert.equal(plain.metrics()["artifact_bloom.snapshot.age_seconds"], 30.5);
    holder.replace(snapshotOf(2, 100)); // seen at 1,030,500
    now += 2_000;
    assert.equal(held.metrics()["artifact_bloom.snapshot.age_seconds"], 2);
  });

  test("a lastModified in the future (clock skew) reads as age 0", () => {
    const snapshot = snapshotOf(1, 100, { lastModified: new Date(Date.now() + 3_600_000) });
    assert.equal(new ArtifactExistenceService(snapshot, trueRepository).metrics()["artifact_bloom.snapshot.age_seconds"], 0);
  });

  test("load failures come from the holder, and are 0 for a plain snapshot", async () => {
    const holder = new SnapshotHolder(snapshotOf(1, 100));
    const service = new ArtifactExistenceService(holder, trueRepository);
    await holder.refreshFrom(async () => ({ kind: "failure", error: "truncated", message: "short read" }));
    await holder.refreshFrom(async () => {
      throw new Error("network down");
    });
    assert.equal(service.metrics()["artifact_bloom.snapshot.load_failure.count"], 2);
    const plain = new ArtifactExistenceService(snapshotOf(1, 100), trueRepository);
    assert.equal(plain.metrics()["artifact_bloom.snapshot.load_failure.count"], 0);
  });

  test("the fill ratio (a popcount over the whole filter) is computed once per snapshot", () => {
    const snapshot = snapshotOf(1, 100);
    const original = snapshot.filter.getFillRatio.bind(snapshot.filter);
    let popcounts = 0;
    snapshot.filter.getFillRatio = () => {
      popcounts += 1;
      return original();
    };
    const service = new ArtifactExistenceService(snapshot, trueRepository);
    for (let round = 0; round < 5; round += 1) service.metrics();
    assert.equal(popcounts, 1);
  });
});

describe("Prometheus exposition", () => {
  const COUNTERS = new Set([
    "artifact_bloom_negative_count",
    "artifact_bloom_maybe_count",
    "artifact_bloom_false_positive_count",
    "artifact_bloom_snapshot_load_failure_count",
  ]);
  const NAMES = {
    ...Object.fromEntries(SEED_KEYS.map((key) => [key, key.replaceAll(".", "_")])),
    negativeBypassRatio: "artifact_bloom_negative_bypass_ratio",
    observedFalsePositiveRate: "artifact_bloom_observed_false_positive_rate",
    falseDiscoveryRatio: "artifact_bloom_false_discovery_ratio",
  };

  test("contains every metric with # HELP, # TYPE (counter for counts, gauge otherwise) and its value", async () => {
    const snapshot = snapshotOf(42);
    const service = new ArtifactExistenceService(snapshot, trueRepository, { now: () => 1_000 });
    await service.findMissingAsync([members[0], ...definiteNegatives(snapshot.filter, 3)]);
    const metrics = service.metrics();
    const text = service.prometheus();
    assert.equal(text, renderPrometheus(metrics));
    assert.ok(text.endsWith("\n"));
    const lines = text.trimEnd().split("\n");
    for (const [key, name] of Object.entries(NAMES)) {
      assert.ok(
        lines.some((line) => line.startsWith(`# HELP ${name} `)),
        `HELP ${name}`,
      );
      assert.ok(lines.includes(`# TYPE ${name} ${COUNTERS.has(name) ? "counter" : "gauge"}`), `TYPE ${name}`);
      const sample = lines.find((line) => line.startsWith(`${name} `));
      assert.ok(sample, `sample ${name}`);
      assert.equal(Number(sample.slice(name.length + 1)), metrics[key], name);
    }
    // Only the 15 metrics, 3 lines each; no dotted names reach Prometheus.
    assert.equal(lines.length, 15 * 3);
    assert.ok(lines.filter((line) => !line.startsWith("#")).every((line) => /^[a-z_]+ \S+$/.test(line)));
  });

  test("renderPrometheus rejects something that is not a metrics object", () => {
    assert.throws(() => renderPrometheus(null), TypeError);
    const metrics = new ArtifactExistenceService(snapshotOf(1, 100), trueRepository).metrics();
    delete metrics["artifact_bloom.fill_ratio"];
    assert.throws(() => renderPrometheus(metrics), /fill_ratio/);
  });
});
