// What push tells a CI log when blobs fail, and how many requests it sent
// (issue 23 §4), against the real registry:
//   - a corrupted blob uploaded in chunks is never said to be "uploaded"
//     (that line waits for the registry's commit), and is never stored;
//   - with two corrupted blobs, the error and the summary name BOTH;
//   - with Basic auth the first request goes alone and learns the
//     challenge, so a push costs ONE 401, not one per concurrent HEAD, and
//     headRequests equals the HEADs the registry saw — in --json and in the
//     text summary, also after a failure.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { runCli } from "./helpers/cli.mjs";
import { blobStatus, getManifest, hexOf, proxyPool, pushLayout, seededRegistry } from "./helpers/oci-steps.mjs";

let registry;
let dir;
let images;
let layout;
let snapshotA;
const proxies = proxyPool(() => registry.url);
const CREDENTIALS = { ARTIFACT_BLOOM_REGISTRY_PASSWORD: "s3cret" };

before(async () => {
  ({ registry, dir, images, layout, snapshotA } = await seededRegistry("oci-upload-failures", {
    label: "failures",
    freshSizes: [20 * 1024, 5000, 6000],
  }));
});
after(async () => {
  await proxies.stopAll();
  await registry?.stop();
  await dir?.remove();
});

/** A copy of the layout with `victims` overwritten by other bytes of the same size. */
async function corruptedCopy(name, victims) {
  const copy = await images.builder.write(join(dir.path, name));
  for (const victim of victims)
    await writeFile(join(copy, "blobs", "sha256", hexOf(victim.digest)), new Uint8Array(victim.size).fill(7));
  return copy;
}

describe("corrupted blobs", () => {
  test("chunked: a corrupted blob is never 'uploaded' on stderr, is cancelled and not stored", async () => {
    const victim = images.fresh[0].descriptor; // 20 KiB: 5 chunks of 4096
    const copy = await corruptedCopy("corrupt-chunked", [victim]);
    const { run, summary } = await pushLayout(copy, `${registry.host}/corrupt-chunked:b`, snapshotA, {
      extra: ["--chunk-size", "4096"],
    });
    // The layout's fault, not the registry's: exit 2 (issue 32 §3.5; it was 3, "retry").
    assert.equal(run.code, 2, run.stderr);
    assert.equal(summary.error.code, "digestMismatch");
    const short = victim.digest.slice(0, 19);
    assert.doesNotMatch(run.stderr, new RegExp(`uploaded ${short}`), "no 'uploaded' line for a blob the registry did not commit");
    assert.match(run.stderr, new RegExp(`failed ${short}… after [0-9.]+/0\\.0 MiB: digestMismatch`));
    assert.equal(await blobStatus(registry.url, "corrupt-chunked", victim.digest), 404);
    assert.deepEqual(
      summary.failedBlobs.map((blob) => blob.digest),
      [victim.digest],
    );
  });

  for (const [label, extra] of [
    ["one request", []],
    ["chunked", ["--chunk-size", "4096"]],
  ]) {
    test(`two corrupted blobs (${label}): the error and the summary name both; the other blobs are uploaded; no tag`, async () => {
      const victims = [images.fresh[1].descriptor, images.fresh[2].descriptor];
      const repository = `two-corrupt-${extra.length}`;
      const copy = await corruptedCopy(repository, victims);
      const { run, summary } = await pushLayout(copy, `${registry.host}/${repository}:b`, snapshotA, {
        extra: ["--concurrency", "1", ...extra],
      });
      assert.equal(run.code, 2, run.stderr);
      assert.equal(summary.error.code, "digestMismatch");
      assert.match(summary.error.message, /^2 blobs failed: /);
      for (const victim of victims) {
        assert.ok(summary.error.message.includes(victim.digest), `the error names ${victim.digest}`);
        assert.ok(run.stderr.includes(victim.digest), `stderr names ${victim.digest}`);
        assert.equal(await blobStatus(registry.url, repository, victim.digest), 404);
      }
      assert.deepEqual(summary.failedBlobs.map((blob) => blob.digest).sort(), victims.map((victim) => victim.digest).sort());
      assert.ok(summary.failedBlobs.every((blob) => blob.code === "digestMismatch"));
      // The rest of B (config, the uncorrupted fresh layer, false positives) went up.
      assert.ok(summary.uploadedDigests.includes(images.fresh[0].descriptor.digest));
      for (const digest of summary.uploadedDigests) assert.equal(await blobStatus(registry.url, repository, digest), 200);
      assert.equal(summary.tagged, false);
      assert.equal((await getManifest(registry.url, repository, "b")).status, 404);
    });
  }
});

describe("Basic auth: request counts", () => {
  test("one 401 per push (the first HEAD, alone), and headRequests = the HEADs the registry saw", async () => {
    const basic = await proxies.start({ auth: "basic", users: { ci: "s3cret" } });
    const { run, summary } = await pushLayout(layout, `${basic.host}/basic-count:b`, snapshotA, {
      extra: ["--username", "ci"],
      env: CREDENTIALS,
    });
    assert.equal(run.code, 0, run.stderr);
    const heads = basic.stats.log.filter((entry) => entry.method === "HEAD");
    const headed = summary.blobs - summary.headsSkipped;
    assert.ok(headed >= images.base.length, "every shared layer is a maybe");
    assert.equal(basic.stats.challenges, 1, "one 401 in the whole push");
    assert.equal(
      heads.filter((entry) => entry.authorization === undefined).length,
      1,
      "only the first HEAD went without credentials",
    );
    assert.equal(heads.length, headed + 1, "each maybe HEADed once, plus the one retried after the 401");
    assert.equal(summary.headRequests, heads.length);
    assert.equal(summary.requests.head, heads.length);
    for (const method of ["POST", "PUT"]) {
      assert.equal(
        summary.requests[method.toLowerCase()],
        basic.stats.log.filter((entry) => entry.method === method).length,
        `${method} counted exactly`,
      );
    }
  });

  test("after a failure the text summary still gives the exact HEAD count", async () => {
    const victim = images.fresh[1].descriptor.digest;
    const basic = await proxies.start({
      auth: "basic",
      users: { ci: "s3cret" },
      fault: (req) => (req.method === "PUT" && req.url.includes(encodeURIComponent(victim)) ? { status: 500 } : undefined),
    });
    const run = await runCli(
      ["push", layout, `${basic.host}/basic-fail:b`, "--snapshot", snapshotA, "--plain-http", "--username", "ci"],
      { env: CREDENTIALS, timeoutMs: 120_000 },
    );
    assert.equal(run.code, 3, run.stderr);
    const heads = basic.stats.log.filter((entry) => entry.method === "HEAD").length;
    assert.ok(heads > 1);
    assert.match(run.stdout, /FAILED; the tag was not written/);
    assert.match(run.stdout, new RegExp(`, ${heads} HEAD requests \\(`), run.stdout);
    assert.match(run.stdout, new RegExp(`failed ${victim}: serverError`));
    assert.match(run.stderr, /^push: serverError \(HTTP 500\)/m);
  });
});
