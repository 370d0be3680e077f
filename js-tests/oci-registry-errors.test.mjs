// push and publish --from-registry when things go wrong: the registry is
// down, it wants credentials (Basic, or the Bearer token flow), one blob
// answers 500, the registry stores another digest than we sent, the layout's
// own bytes do not match their name, or nothing answers in time. Each is a
// clear error with its code and status, exit 3 (push and publish alike), no tag
// written, and the summary reports only blobs the registry really has.
import assert from "node:assert/strict";
import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { tempDir } from "./helpers/cli.mjs";
import {
  blobStatus,
  getManifest,
  hexOf,
  proxyPool,
  publishFromRegistry,
  pushLayout,
  seededRegistry,
} from "./helpers/oci-steps.mjs";
import { startDeadRegistry } from "./helpers/registry-proxy.mjs";

let registry;
let dir;
let images;
let layout;
let snapshotA; // the snapshot of a repository holding image A
const proxies = proxyPool(() => registry.url);

before(async () => {
  ({ registry, dir, images, layout, snapshotA } = await seededRegistry("oci-errors", { freshSizes: [4096, 4200, 4300] }));
});
after(async () => {
  await proxies.stopAll();
  await registry?.stop();
  await dir?.remove();
});

const proxy = (options) => proxies.start(options);

/** Pushes A then B into `repository` on `host` (A directly, so B starts from the shared base). */
async function seedA(repository) {
  const { run } = await pushLayout(layout, `${registry.host}/${repository}:a`, join(dir.path, "empty.abf1"));
  assert.equal(run.code, 0, run.stderr);
}

/**
 * The push failed cleanly: exit 3 (2 for `exit`: the input's fault), the code
 * on stderr and in JSON, no tag, reported uploads really there.
 */
async function assertCleanFailure(result, repository, code, status, exit = 3) {
  const { run, summary } = result;
  assert.equal(run.code, exit, `exit ${exit} expected; stderr: ${run.stderr}`);
  assert.equal(summary.ok, false);
  assert.equal(summary.tagged, false);
  assert.equal(summary.error.code, code, summary.error.message);
  if (status !== undefined) assert.equal(summary.error.status, status);
  assert.match(run.stderr, new RegExp(`^push: ${code}`, "m"));
  assert.equal((await getManifest(registry.url, repository, "b")).status, 404, "the tag was not written");
  for (const digest of summary.uploadedDigests)
    assert.equal(await blobStatus(registry.url, repository, digest), 200, `${digest} reported uploaded: it is there`);
  assert.equal(summary.uploaded, summary.uploadedDigests.length);
}

describe("the registry is down", () => {
  test("push: networkError, exit 3, nothing reported uploaded; publish --from-registry: exit 3 too", async () => {
    const dead = await startDeadRegistry();
    try {
      const { run, summary } = await pushLayout(layout, `${dead.host}/app:b`, snapshotA);
      assert.equal(run.code, 3, run.stderr);
      assert.equal(summary.error.code, "networkError");
      assert.match(summary.error.message, /could not be reached/);
      assert.equal(summary.uploaded, 0);
      assert.deepEqual(summary.uploadedDigests, []);
      assert.equal(summary.tagged, false);
      const published = await publishFromRegistry(dead.url, "app", join(dir.path, "dead.abf1"));
      assert.equal(published.run.code, 3, "the same failure, the same exit code as push");
      assert.match(published.run.stderr, /networkError: .*could not be reached/);
    } finally {
      await dead.stop();
    }
  });

  // A reset at the instant of connecting: Node 20's fetch sometimes misses
  // it (about 1 run in 60 here) and would wait forever; the request time
  // limit is what ends it. Either ending is a clear error, nothing written.
  test("a connection reset as it opens still ends, within --timeout-ms, with exit 3 and no snapshot", async () => {
    const dead = await startDeadRegistry({ resetOn: "accept" });
    try {
      const out = join(dir.path, "reset-at-accept.abf1");
      const published = await publishFromRegistry(dead.url, "app", out, { extra: ["--timeout-ms", "2000"] });
      assert.equal(published.run.code, 3, published.run.stderr);
      assert.match(published.run.stderr, /networkError: .*could not be reached|timeout: .*no complete answer within 2000 ms/);
      await assert.rejects(stat(out), { code: "ENOENT" });
    } finally {
      await dead.stop();
    }
  });
});

describe("credentials", () => {
  test("Basic: 401 without credentials is 'unauthorized' (exit 3); with them the push succeeds", async () => {
    const basic = await proxy({ auth: "basic", users: { ci: "s3cret" } });
    await seedA("basic");
    const refused = await pushLayout(layout, `${basic.host}/basic:b`, snapshotA);
    await assertCleanFailure(refused, "basic", "unauthorized", 401);
    assert.match(refused.summary.error.message, /needs credentials/);
    const wrong = await pushLayout(layout, `${basic.host}/basic:b`, snapshotA, {
      extra: ["--username", "ci"],
      env: { ARTIFACT_BLOOM_REGISTRY_PASSWORD: "nope" },
    });
    await assertCleanFailure(wrong, "basic", "unauthorized", 401);
    const { run, summary } = await pushLayout(layout, `${basic.host}/basic:b`, snapshotA, {
      extra: ["--username", "ci", "--password-stdin"],
      input: "s3cret\n",
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.tagged, true);
    assert.equal((await getManifest(registry.url, "basic", "b")).status, 200);
  });

  test("Bearer: the challenge's realm gives a token, cached per scope; a wrong password is 'unauthorized'", async () => {
    const bearer = await proxy({ auth: "bearer", users: { ci: "s3cret" } });
    await seedA("bearer");
    const wrong = await pushLayout(layout, `${bearer.host}/bearer:b`, snapshotA, {
      extra: ["--username", "ci"],
      env: { ARTIFACT_BLOOM_REGISTRY_PASSWORD: "nope" },
    });
    await assertCleanFailure(wrong, "bearer", "unauthorized", 401);
    const tokensBefore = bearer.stats.tokens;
    const { run, summary } = await pushLayout(layout, `${bearer.host}/bearer:b`, snapshotA, {
      extra: ["--username", "ci"],
      env: { ARTIFACT_BLOOM_REGISTRY_PASSWORD: "s3cret" },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.tagged, true);
    // One token for the HEADs (pull), one when the first upload asks for
    // push; every other request reuses the cached token.
    assert.equal(bearer.stats.tokens - tokensBefore, 2);
    assert.equal(summary.requests.token, 2);
  });
});

describe("one blob fails", () => {
  test("a 500 on one shared blob's HEAD: serverError 500, nothing uploaded, no tag", async () => {
    const victim = images.base[2].descriptor.digest;
    const faulty = await proxy({
      fault: (req) => (req.method === "HEAD" && req.url.endsWith(victim) ? { status: 500 } : undefined),
    });
    await seedA("head-500");
    const result = await pushLayout(layout, `${faulty.host}/head-500:b`, snapshotA);
    await assertCleanFailure(result, "head-500", "serverError", 500);
    assert.match(result.summary.error.message, new RegExp(`HEAD .*${hexOf(victim)} answered 500`));
    assert.equal(result.summary.uploaded, 0, "existence is settled before any upload");
  });

  test("a 500 on one blob's upload: the others are reported, that one is not, no tag", async () => {
    const victim = images.fresh[1].descriptor.digest;
    const faulty = await proxy({
      fault: (req) => (req.method === "PUT" && req.url.includes(encodeURIComponent(victim)) ? { status: 500 } : undefined),
    });
    await seedA("put-500");
    const result = await pushLayout(layout, `${faulty.host}/put-500:b`, snapshotA, { extra: ["--concurrency", "1"] });
    await assertCleanFailure(result, "put-500", "serverError", 500);
    assert.equal(result.summary.uploadedDigests.includes(victim), false);
    assert.equal(await blobStatus(registry.url, "put-500", victim), 404);
  });

  test("the registry names another digest than the one sent: digestMismatch, not reported uploaded", async () => {
    const victim = images.fresh[2].descriptor.digest;
    const lying = `sha256:${"0".repeat(64)}`;
    const faulty = await proxy({
      fault: (req) =>
        req.method === "PUT" && req.url.includes(encodeURIComponent(victim)) ? { digestHeader: lying } : undefined,
    });
    await seedA("mismatch");
    const result = await pushLayout(layout, `${faulty.host}/mismatch:b`, snapshotA, { extra: ["--concurrency", "1"] });
    await assertCleanFailure(result, "mismatch", "digestMismatch");
    assert.match(result.summary.error.message, new RegExp(`stored ${lying}, not ${victim}`));
    assert.equal(result.summary.uploadedDigests.includes(victim), false);
  });

  for (const [label, chunk] of [
    ["monolithic", []],
    ["chunked", ["--chunk-size", "1024"]],
  ]) {
    test(`a layout blob whose bytes do not hash to its name (${label}): digestMismatch, never committed`, async () => {
      const corrupt = await tempDir("oci-corrupt");
      try {
        const copy = await images.builder.write(join(corrupt.path, "layout"));
        const victim = images.fresh[0].descriptor;
        await writeFile(join(copy, "blobs", "sha256", hexOf(victim.digest)), new Uint8Array(victim.size).fill(7));
        await seedA(`corrupt-${label}`);
        await registry.settle();
        const mark = registry.mark();
        const result = await pushLayout(copy, `${registry.host}/corrupt-${label}:b`, snapshotA, {
          extra: ["--concurrency", "1", ...chunk],
        });
        // The layout's fault, not the registry's: exit 2 (issue 32 §3.5).
        await assertCleanFailure(result, `corrupt-${label}`, "digestMismatch", undefined, 2);
        assert.match(result.summary.error.message, /hashes to sha256:[0-9a-f]{64}, not/);
        assert.equal(await blobStatus(registry.url, `corrupt-${label}`, victim.digest), 404);
        await registry.settle();
        const log = registry.since(mark);
        if (label === "chunked")
          assert.ok(
            log.some((entry) => entry.method === "DELETE"),
            "the upload session was cancelled",
          );
        else assert.equal(log.filter((entry) => entry.method === "PUT" && entry.path.includes(hexOf(victim.digest))).length, 0);
      } finally {
        await corrupt.remove();
      }
    });
  }

  test("no answer within --timeout-ms: timeout, no status", async () => {
    const hanging = await proxy({ fault: (req) => (req.method === "HEAD" ? { hang: true } : undefined) });
    await seedA("hang");
    const result = await pushLayout(layout, `${hanging.host}/hang:b`, snapshotA, { extra: ["--timeout-ms", "500"] });
    await assertCleanFailure(result, "hang", "timeout");
    assert.equal(result.summary.error.status, undefined);
    assert.match(result.summary.error.message, /no complete answer within 500 ms/);
  });
});
