// `artifact-bloom serve` answers a catalogVersion from that version's catalog
// (issue 21, D1 and D2): the snapshot and the catalog list are one unit,
// switched together, and a snapshot that would give an old catalogVersion
// another catalog is refused.
//
// End to end: the real CLI serves files that the test replaces as an
// operator would (the catalog list, then `publish`), and every answer is
// checked against the catalog of the version it names. A wrong answer is a
// 404 for a member of that version (a false "absent") or a 200 for a digest
// it does not hold. The server runs as a child process; every wait is
// bounded (SERVE_WAIT_MS), nothing asserts on time.
import assert from "node:assert/strict";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, SnapshotHolder, encodeSnapshot, fetchSnapshot, readSnapshotHeader } from "artifact-bloom";
import { hex, sha256 } from "./helpers/digests.mjs";
import { publishSizing, runCli, tempDir } from "./helpers/cli.mjs";
import { SERVE_WAIT_MS, startServe, stopServe } from "./helpers/serve-process.mjs";
import { manualTimers } from "./helpers/timers.mjs";

const SPEC = { expectedItemCount: 1000, targetFalsePositiveRate: 0.01 };
const digestsOf = (label, count) => Array.from({ length: count }, (_, i) => hex(sha256(`${label}:${i}`)));

let dir;
const at = (name) => join(dir.path, name);
before(async () => {
  dir = await tempDir("serve-versions");
});
after(async () => {
  await dir?.remove();
});

const signal = () => AbortSignal.timeout(SERVE_WAIT_MS);
const head = (base, digest, version) =>
  fetch(`${base}/blobs/sha256/${digest}?catalogVersion=${version}`, { method: "HEAD", signal: signal() });
const getJson = async (base, path) => (await fetch(`${base}${path}`, { signal: signal() })).json();
/** The catalogVersion and ETag of the snapshot `serve` hands out now. */
async function servedSnapshot(base) {
  const response = await fetch(`${base}/snapshot`, { signal: signal() });
  assert.equal(response.status, 200);
  const header = readSnapshotHeader(new Uint8Array(await response.arrayBuffer()));
  assert.equal(header.kind, "success");
  return { version: header.value.catalogVersion, etag: response.headers.get("etag") };
}

/** Replaces `path` atomically with `text` (a new inode, as an operator's mv does). */
async function replaceFile(path, contents) {
  await writeFile(`${path}.new`, contents);
  await rename(`${path}.new`, path);
}
const replaceCatalog = (path, digests) => replaceFile(path, `${digests.join("\n")}\n`);
/** `publish`, the CLI, of `catalog` as `version` over `snapshot`. */
async function publish(catalog, snapshot, version) {
  const run = await runCli([
    "publish",
    ...publishSizing(version, SPEC.expectedItemCount, SPEC.targetFalsePositiveRate),
    "--input",
    catalog,
    "--out",
    snapshot,
  ]);
  assert.equal(run.code, 0, run.stderr);
}
/**
 * The ABF1 bytes of `digests` as `version`, built with the library: how a
 * test writes a snapshot that `publish` (which refuses to reuse a version)
 * would not.
 */
function snapshotBytes(digests, version) {
  const built = ArtifactBloomFilter.createPacked(Buffer.concat(digests.map((d) => Buffer.from(d, "hex"))), SPEC);
  assert.equal(built.kind, "success");
  try {
    return encodeSnapshot(built.value, { catalogVersion: version });
  } finally {
    built.value.free();
  }
}

/**
 * Asks `serve` about `members` and `outsiders` at `version` → the wrong
 * answers (a 404 for a member, a 200 for an outsider) and how many were asked.
 */
async function wrongAnswers(base, version, members, outsiders) {
  const wrong = [];
  for (const [digest, expected] of [...members.map((d) => [d, 200]), ...outsiders.map((d) => [d, 404])]) {
    const { status } = await head(base, digest, version);
    if (status !== expected) wrong.push(`${digest.slice(0, 12)}… at v${version}: ${status}, expected ${expected}`);
  }
  return { wrong, asked: members.length + outsiders.length };
}

describe("D1: an answer labelled version N comes from version N's catalog", () => {
  let server;
  const kept = digestsOf("kept", 100);
  const catalog = () => at("d1.txt");
  const snapshot = () => at("d1.abf1");
  before(async () => {
    await replaceCatalog(catalog(), [...kept, hex(sha256("removed:2"))]);
    await publish(catalog(), snapshot(), 2);
    server = await startServe(snapshot(), catalog());
  });
  after(async () => {
    await stopServe(server);
  });

  test("catalog list, then snapshot, then GET /snapshot: the first existence answers at the new version are right", async () => {
    const wrong = [];
    let asked = 0;
    // Each version removes the previous version's extra digest and adds its own.
    for (let version = 3; version <= 5; version += 1) {
      const added = hex(sha256(`removed:${version}`));
      const removed = hex(sha256(`removed:${version - 1}`));
      await replaceCatalog(catalog(), [...kept, added]);
      await publish(catalog(), snapshot(), version);
      const served = await servedSnapshot(server.base);
      assert.equal(served.version, version, "GET /snapshot serves the republished version");
      const round = await wrongAnswers(server.base, version, [added, kept[version]], [removed]);
      wrong.push(...round.wrong);
      asked += round.asked;
    }
    assert.deepEqual(wrong, [], `${wrong.length}/${asked} wrong answers after a reload`);
  });

  test("a request for the version being loaded waits for that load, without GET /snapshot first", async () => {
    const added = hex(sha256("removed:6"));
    await replaceCatalog(catalog(), [...kept, added]);
    await publish(catalog(), snapshot(), 6);
    const { wrong, asked } = await wrongAnswers(server.base, 6, [added, kept[0]], [hex(sha256("removed:5"))]);
    assert.deepEqual(wrong, [], `${wrong.length}/${asked} wrong answers`);
  });

  test("snapshot first, catalog list after (the wrong order): the new version is served only once both changed", async () => {
    const added = hex(sha256("removed:7"));
    const removed = hex(sha256("removed:6"));
    // Version 7 is published from its list elsewhere, and the served list is
    // replaced only afterwards.
    await replaceCatalog(at("d1-next.txt"), [...kept, added]);
    await publish(at("d1-next.txt"), snapshot(), 7);
    const waiting = await servedSnapshot(server.base);
    assert.equal(waiting.version, 6, "the v7 snapshot waits for its catalog list");
    // Version 7 is not available: an explicit refusal naming what the server has, never an answer.
    const refused = await fetch(`${server.base}/blobs/sha256/${added}?catalogVersion=7`, { signal: signal() });
    assert.equal(refused.status, 409);
    assert.deepEqual(await refused.json(), {
      error: "catalogVersionMismatch",
      catalogVersion: 6,
      availableVersions: [6],
      message: "this server answers for catalogVersion 6, not 7",
    });
    assert.equal((await head(server.base, removed, 6)).status, 200, "version 6 still answers from its own catalog");
    assert.match(server.stderr(), /snapshot catalogVersion 7\b.*catalog list .* has not changed/);

    await replaceCatalog(catalog(), [...kept, added]);
    assert.equal((await servedSnapshot(server.base)).version, 7, "both changed: version 7 is served");
    const { wrong, asked } = await wrongAnswers(server.base, 7, [added, kept[1]], [removed]);
    assert.deepEqual(wrong, [], `${wrong.length}/${asked} wrong answers`);
  });

  test("a list that is not the snapshot's (a digest the filter calls absent, or more digests) is not served with it", async () => {
    const added = hex(sha256("removed:8"));
    const stray = hex(sha256("not in version 8"));
    await replaceCatalog(at("d1-next.txt"), [...kept, added]);
    await publish(at("d1-next.txt"), snapshot(), 8);
    await replaceCatalog(catalog(), [...kept, added, stray]); // not the list version 8 was built from
    assert.equal((await servedSnapshot(server.base)).version, 7);
    assert.equal((await head(server.base, added, 8)).status, 409, "version 8 is not available");
    assert.match(
      server.stderr(),
      /is not the one snapshot catalogVersion 8 was built from: it holds 102 unique digests, the snapshot was built from 101/,
    );
    await replaceCatalog(catalog(), [...kept, added]);
    assert.equal((await servedSnapshot(server.base)).version, 8, "its own list: version 8 is served");
    assert.equal((await head(server.base, added, 8)).status, 200);
    assert.equal((await head(server.base, stray, 8)).status, 404);
  });
});

describe("D2: serve refuses a snapshot that reuses or lowers the catalogVersion it serves", () => {
  let server;
  const catalog = () => at("d2.txt");
  const snapshot = () => at("d2.abf1");
  const first = digestsOf("first", 200);
  const other = digestsOf("other", 100); // the digests a reused version 5 adds
  before(async () => {
    await replaceCatalog(catalog(), first);
    await publish(catalog(), snapshot(), 5);
    server = await startServe(snapshot(), catalog());
  });
  after(async () => {
    await stopServe(server);
  });

  test("a polling SnapshotHolder never gets 'absent' for a member of the version the server answers for", async () => {
    const url = `${server.base}/snapshot`;
    const initial = await fetchSnapshot(url);
    assert.equal(initial.kind, "success");
    const holder = new SnapshotHolder(initial.value);
    const timers = manualTimers();
    let polled = () => {};
    holder.startPolling(url, { intervalMs: 60_000, timers, onRefresh: () => polled() });
    const pollOnce = () =>
      new Promise((resolve) => {
        polled = resolve;
        timers.fireAll();
      });
    /** Digests the holder calls absent while the server's catalog at the holder's version holds them. */
    const falseAbsent = async (digests) => {
      const { catalogVersion, filter } = holder.current();
      let wrong = 0;
      for (const digest of digests) {
        if (!filter.mightContain(Buffer.from(digest, "hex")) && (await head(server.base, digest, catalogVersion)).status === 200)
          wrong += 1;
      }
      return wrong;
    };
    const before = await servedSnapshot(server.base);
    try {
      // The same bytes again (a new inode): nothing to refuse.
      await replaceFile(snapshot(), await readFile(snapshot()));
      assert.equal((await servedSnapshot(server.base)).etag, before.etag);

      // Version 5 again, from other digests (catalog list first, the documented order).
      await replaceCatalog(catalog(), [...first, ...other]);
      await replaceFile(snapshot(), snapshotBytes([...first, ...other], 5));
      await pollOnce();
      const wrong = await falseAbsent([...first, ...other]);
      assert.equal(wrong, 0, `${wrong}/${first.length + other.length} false 'absent' answers after a reused version`);
      assert.equal((await servedSnapshot(server.base)).etag, before.etag, "the original version 5 keeps serving");
      assert.equal((await head(server.base, other[0], 5)).status, 404, "version 5 answers from its original catalog");
      assert.equal((await head(server.base, first[0], 5)).status, 200);

      // A lower version.
      await replaceFile(snapshot(), snapshotBytes(first, 4));
      assert.equal((await servedSnapshot(server.base)).etag, before.etag, "version 4 is refused too");

      const stats = await getJson(server.base, "/stats");
      assert.equal(stats.versionRefusals, 2);
      assert.equal(stats.catalogVersion, 5);
      const lines = server
        .stderr()
        .split("\n")
        .filter((line) => /refus/.test(line));
      assert.equal(lines.length, 2, server.stderr());
      assert.match(lines[0], /catalogVersion 5 .*different content.*still serving catalogVersion 5/);
      assert.match(lines[1], /catalogVersion 4 .*lower than.*5/);

      // A real next version is served, and the holder follows it.
      await replaceCatalog(catalog(), [...first, ...other]);
      await publish(catalog(), snapshot(), 6);
      await pollOnce();
      assert.equal(holder.current().catalogVersion, 6);
      assert.equal(await falseAbsent([...first, ...other]), 0, "false 'absent' answers at version 6");
      assert.equal((await head(server.base, other[0], 6)).status, 200);
    } finally {
      holder.stopPolling();
    }
  });
});
