// `artifact-bloom serve` never answers for catalogVersion N from a list that
// cannot be version N's (issue 32 §1.1, §1.2): an empty or half-written
// catalog list, read by a reload between an operator's `: > list` and the
// write that fills it, used to be swapped in with snapshot N and answered
// "absent" (404) for every member until N+1. Now a list is used for N only
// when it is complete — exactly the snapshot's insertedItemCount unique
// digests, each "maybe" — and serve keeps answering from the last complete
// unit meanwhile, saying why in /stats `pending`. With --catalog-version, a
// replacement snapshot with other content is refused as without the flag.
//
// The real CLI as a child process; files written in place as the issue's
// repro does; every wait bounded (SERVE_WAIT_MS), no timing assertion: a
// GET /snapshot waits for the reload a change starts.
import assert from "node:assert/strict";
import { rename, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, encodeSnapshot, readSnapshotHeader } from "artifact-bloom";
import { hex, sha256 } from "./helpers/digests.mjs";
import { publishSizing, runCli, tempDir } from "./helpers/cli.mjs";
import { SERVE_WAIT_MS, startServe, stopServe } from "./helpers/serve-process.mjs";

const EXPECTED = 10_000;
const FPP = 0.001;
const digestsOf = (label, count) => Array.from({ length: count }, (_, i) => hex(sha256(`${label}:${i}`)));
const listText = (digests) => `${digests.join("\n")}\n`;

let dir;
const at = (name) => join(dir.path, name);
before(async () => {
  dir = await tempDir("serve-unit-completeness");
});
after(async () => {
  await dir?.remove();
});

const signal = () => AbortSignal.timeout(SERVE_WAIT_MS);
const head = (base, digest, version) =>
  fetch(`${base}/blobs/sha256/${digest}?catalogVersion=${version}`, { method: "HEAD", signal: signal() });
const stats = async (base) => (await fetch(`${base}/stats`, { signal: signal() })).json();
/** GET /snapshot (which waits for the reload a file change starts) → the served catalogVersion and ETag. */
async function served(base) {
  const response = await fetch(`${base}/snapshot`, { signal: signal() });
  assert.equal(response.status, 200);
  const header = readSnapshotHeader(new Uint8Array(await response.arrayBuffer()));
  assert.equal(header.kind, "success");
  return { version: header.value.catalogVersion, etag: response.headers.get("etag") };
}

async function publish(list, out, version, extra = []) {
  const run = await runCli(["publish", ...publishSizing(version, EXPECTED, FPP), "--input", list, "--out", out, ...extra]);
  assert.equal(run.code, 0, run.stderr);
}

/** Every sampled member of `version` must answer 200; a 404 is a false "absent". */
async function falseAbsents(base, version, members) {
  const wrong = [];
  for (const digest of members) {
    const { status } = await head(base, digest, version);
    if (status === 404) wrong.push(digest.slice(0, 12));
  }
  return wrong;
}

describe("§1.1: a half-written catalog list is never used to answer for its version", () => {
  const v1 = digestsOf("v1", 1000);
  const v2 = [...v1, ...digestsOf("v2", 1000)];
  const sample = v2.filter((_, i) => i % 10 === 0).slice(0, 200);
  let server;
  before(async () => {
    await writeFile(at("list1.txt"), listText(v1));
    await writeFile(at("list2.txt"), listText(v2));
    await publish(at("list1.txt"), at("snap.abf1"), 1);
    await writeFile(at("cat.txt"), listText(v1));
    server = await startServe(at("snap.abf1"), at("cat.txt"));
  });
  after(async () => {
    await stopServe(server);
  });

  test("snapshot v2 first, the list emptied (`: > list`), then filled: v2 members are never 404", async () => {
    await publish(at("list2.txt"), at("snap.abf1"), 2);
    await truncate(at("cat.txt"), 0);
    // The reload reads the empty list: before, v2 was swapped in with it.
    assert.equal((await served(server.base)).version, 1, "v1 keeps serving while v2's list is incomplete");
    const pending = (await stats(server.base)).pending;
    assert.equal(pending?.kind, "waiting", JSON.stringify(pending));
    assert.match(pending.message, /0 unique digests.*2000/);
    assert.deepEqual(await falseAbsents(server.base, 2, sample.slice(0, 20)), [], "no 404 at v2 meanwhile");
    await writeFile(at("cat.txt"), listText(v2));
    assert.equal((await served(server.base)).version, 2, "v2 is served once its complete list is there");
    assert.equal((await stats(server.base)).pending, null);
    assert.deepEqual(await falseAbsents(server.base, 2, sample), [], "v2 members answered absent");
    assert.match(server.stderr(), /incomplete list/);
  });

  test("a list written in two halves: the first half is never served", async () => {
    const v3 = [...v2, ...digestsOf("v3", 500)];
    await writeFile(at("list3.txt"), listText(v3));
    await publish(at("list3.txt"), at("snap.abf1"), 3);
    await writeFile(at("cat.txt"), listText(v3.slice(0, 1200)));
    assert.equal((await served(server.base)).version, 2);
    assert.equal((await stats(server.base)).pending?.kind, "waiting");
    assert.deepEqual(await falseAbsents(server.base, 3, v3.slice(1200).slice(0, 50)), []);
    await writeFile(at("cat.txt"), listText(v3));
    assert.equal((await served(server.base)).version, 3);
    assert.deepEqual(
      await falseAbsents(
        server.base,
        3,
        v3.filter((_, i) => i % 25 === 0),
      ),
      [],
    );
  });

  test("the list changed after the swap: never used for the served version, /stats says why until it is complete", async () => {
    const v3 = [...v2, ...digestsOf("v3", 500)];
    assert.equal((await served(server.base)).version, 3);
    // A writer restarting the list in place under the served v3 snapshot.
    await writeFile(at("cat.txt"), listText(v3.slice(0, 700)));
    assert.equal((await served(server.base)).version, 3);
    // Before: the change was ignored in silence (pending null).
    const pending = (await stats(server.base)).pending;
    assert.equal(pending?.kind, "waiting", JSON.stringify(pending));
    assert.match(pending.message, /700 unique digests.*2500/);
    const lacking = v3.slice(700).filter((_, i) => i % 20 === 0);
    assert.deepEqual(await falseAbsents(server.base, 3, lacking), [], "the list read with v3 keeps answering");
    await writeFile(at("cat.txt"), listText(v3));
    assert.equal((await served(server.base)).version, 3);
    assert.equal((await stats(server.base)).pending, null, "the complete list is v3's again");
  });
});

describe("§1.1: serve started from an incomplete list answers no existence request until it is complete", () => {
  const digests = digestsOf("start", 300);
  let server;
  before(async () => {
    await writeFile(at("start.txt"), listText(digests));
    await publish(at("start.txt"), at("start.abf1"), 1);
    await writeFile(at("start-half.txt"), listText(digests.slice(0, 150)));
    server = await startServe(at("start.abf1"), at("start-half.txt"));
  });
  after(async () => {
    await stopServe(server);
  });

  test("503 (never 404) for the members the half list lacks, then 200 once the list is complete", async () => {
    const lacking = digests.slice(150, 170);
    for (const digest of lacking) assert.equal((await head(server.base, digest, 1)).status, 503);
    const pending = (await stats(server.base)).pending;
    assert.match(pending?.message ?? "", /150 unique digests.*300/);
    await writeFile(at("start-half.txt"), listText(digests));
    await served(server.base); // waits for the reload the change starts
    assert.deepEqual(await falseAbsents(server.base, 1, lacking), []);
    for (const digest of lacking) assert.equal((await head(server.base, digest, 1)).status, 200);
    assert.equal((await stats(server.base)).pending, null);
  });
});

describe("§1.2: --catalog-version V refuses a replacement snapshot of V with other content", () => {
  const all = digestsOf("v5", 1000);
  let server;
  let original;
  before(async () => {
    await writeFile(at("v5.txt"), listText(all));
    await publish(at("v5.txt"), at("v5.abf1"), 5);
    server = await startServe(at("v5.abf1"), at("v5.txt"), ["--catalog-version", "5"]);
    original = await served(server.base);
  });
  after(async () => {
    await stopServe(server);
  });

  test("mv other-v5.abf1 over the served file: still the original, refused once, counted", async () => {
    // Another v5 from half of the digests, built with the library (publish
    // itself refuses to reuse a version).
    const half = Buffer.concat(all.slice(0, 500).map((d) => Buffer.from(d, "hex")));
    const built = ArtifactBloomFilter.createPacked(half, { expectedItemCount: EXPECTED, targetFalsePositiveRate: FPP });
    assert.equal(built.kind, "success");
    await writeFile(at("other.abf1"), encodeSnapshot(built.value, { catalogVersion: 5 }));
    built.value.free();
    await rename(at("other.abf1"), at("v5.abf1"));
    const now = await served(server.base);
    assert.equal(now.etag, original.etag, "the replacement was swapped in");
    assert.deepEqual(await falseAbsents(server.base, 5, all.slice(500, 600)), []);
    const after = await stats(server.base);
    assert.equal(after.versionRefusals, 1);
    assert.equal(after.pending?.kind, "refusal");
    assert.match(server.stderr(), /refusing .*--catalog-version 5 names one catalog/);
  });
});
