// `artifact-bloom serve` against clients that try to hang or stall it
// (issue 11, section 2): per-digest stats must stay bounded, a replaced
// catalog must be read once while the old one keeps answering, findMissing
// must take JSON only and cap its digest count, and --help must say what
// --host exposes.
//
// The server runs as a child process (the real CLI), so a server that hangs
// fails the test at a generous bound instead of hanging the test runner.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { link, open, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { hex, sha256 } from "./helpers/abf1.mjs";
import { publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";
import { SERVE_WAIT_MS as WAIT_MS, startServe, stopServe } from "./helpers/serve-process.mjs";

const RECENT_DIGEST_LIMIT = 1024; // documented in `serve --help`
const MAX_DIGESTS_PER_REQUEST = 10_000; // idem

let dir;
const at = (name) => join(dir.path, name);
const members = Array.from({ length: 200 }, (_, i) => hex(sha256(`served:${i}`)));
const outsider = hex(sha256("not served"));
/** `count` distinct valid hex digests (a counter), distinct from every other `batch`. */
const counterDigests = (batch, count) =>
  Array.from({ length: count }, (_, i) => `${batch.toString(16).padStart(8, "0")}${i.toString(16).padStart(56, "0")}`);

/** `promise`, or a rejection naming `what` after WAIT_MS. */
async function within(promise, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${WAIT_MS} ms`)), WAIT_MS);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Writes `text` (less than a pipe buffer) to a FIFO that a reader has open or
 * is opening. Non-blocking, retried (bounded), so a missing reader fails the
 * test instead of leaving this process blocked in open().
 */
async function writeFifo(path, text) {
  for (let round = 0; round < 1500; round += 1) {
    let handle;
    try {
      handle = await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if (error.code !== "ENXIO") throw error; // ENXIO: no reader yet
      await sleep(20);
      continue;
    }
    try {
      await handle.write(text);
      return;
    } finally {
      await handle.close();
    }
  }
  assert.fail(`nothing opened ${path} for reading`);
}

/** POSTs `body` as JSON text with `contentType`; null sends bytes with no content-type at all. */
const postJson = (base, body, contentType = "application/json") =>
  fetch(`${base}/blobs:findMissing`, {
    method: "POST",
    headers: contentType === null ? {} : { "content-type": contentType },
    body: contentType === null ? new TextEncoder().encode(JSON.stringify(body)) : JSON.stringify(body),
    signal: AbortSignal.timeout(WAIT_MS),
  });
// Every request gives up after WAIT_MS, so a hung server fails the test instead of hanging it.
const head = (base, digest, version = 1) =>
  fetch(`${base}/blobs/sha256/${digest}?catalogVersion=${version}`, {
    method: "HEAD",
    signal: AbortSignal.timeout(WAIT_MS),
  });
const stats = async (base) => (await fetch(`${base}/stats`, { signal: AbortSignal.timeout(WAIT_MS) })).json();

before(async () => {
  dir = await tempDir("serve-hardening");
  await writeHexList(at("catalog.txt"), members);
  const run = await runCli([
    "publish",
    ...publishSizing(1, 1000, 0.01),
    "--input",
    at("catalog.txt"),
    "--out",
    at("catalog.abf1"),
  ]);
  assert.equal(run.code, 0, run.stderr);
});
after(async () => {
  await dir?.remove();
});

describe("serve: bounded stats, JSON-only findMissing with a digest cap", () => {
  let server;
  before(async () => {
    server = await startServe(at("catalog.abf1"), at("catalog.txt"));
  });
  after(async () => {
    await stopServe(server);
  });

  test("/stats does not grow with the number of distinct digests asked", async () => {
    // Bound: the recent window keeps RECENT_DIGEST_LIMIT distinct digests, so
    // once it is full /stats changes only in its counters' digits. The old
    // server kept every digest: 60,000 distinct would be ~4 MB of /stats.
    for (let batch = 0; batch < 2; batch += 1) {
      assert.equal((await postJson(server.base, { catalogVersion: 1, digests: counterDigests(batch, 1000) })).status, 200);
    }
    const full = JSON.stringify(await stats(server.base)).length;
    for (let batch = 2; batch < 62; batch += 1) {
      assert.equal((await postJson(server.base, { catalogVersion: 1, digests: counterDigests(batch, 1000) })).status, 200);
    }
    const after60k = await stats(server.base);
    assert.ok(after60k.digestsAsked >= 62_000, `digestsAsked ${after60k.digestsAsked}`);
    assert.equal(Object.keys(after60k.recentByDigest).length, RECENT_DIGEST_LIMIT);
    assert.equal(after60k.recentByDigest[counterDigests(61, 1000)[999]], 1, "the latest digest is in the window");
    assert.equal(after60k.recentByDigest[counterDigests(0, 1)[0]], undefined, "the oldest left it");
    const grown = JSON.stringify(after60k).length - full;
    assert.ok(grown < 64, `/stats grew by ${grown} bytes for 60,000 more distinct digests`);
  });

  test("a HEAD answers while a findMissing of the largest allowed size is in flight, and after it", async () => {
    const big = postJson(server.base, {
      catalogVersion: 1,
      digests: [...counterDigests(100, MAX_DIGESTS_PER_REQUEST - 1), members[0]],
    });
    const during = await within(head(server.base, members[1]), "HEAD during a large findMissing");
    assert.equal(during.status, 200);
    const answer = await within(big, "the large findMissing");
    assert.equal(answer.status, 200);
    assert.equal((await answer.json()).missing.length, MAX_DIGESTS_PER_REQUEST - 1);
    assert.equal((await within(head(server.base, outsider), "HEAD after")).status, 404);
  });

  test("findMissing without application/json → 415; JSON with a charset is accepted", async () => {
    const body = { catalogVersion: 1, digests: [members[2], outsider] };
    for (const type of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      null,
    ]) {
      const response = await postJson(server.base, body, type);
      assert.equal(response.status, 415, `content-type ${type}`);
      const answer = await response.json();
      assert.equal(answer.error, "unsupportedMediaType");
      assert.match(answer.message, /application\/json/);
    }
    const ok = await postJson(server.base, body, "application/json; charset=utf-8");
    assert.equal(ok.status, 200);
    assert.deepEqual((await ok.json()).missing, [outsider]);
  });

  test(`more than ${MAX_DIGESTS_PER_REQUEST} digests in one request → 413 naming the limit`, async () => {
    const tooMany = counterDigests(200, MAX_DIGESTS_PER_REQUEST + 1);
    // Only the object form, which names the version it asks about: a bare
    // list (which serve once took as "the served version") is refused (400)
    // by the library's handler, as an answer for an unnamed version would be.
    for (const body of [{ catalogVersion: 1, digests: tooMany }]) {
      const response = await postJson(server.base, body);
      assert.equal(response.status, 413);
      const answer = await response.json();
      assert.equal(answer.error, "tooManyDigests");
      assert.match(answer.message, new RegExp(`at most ${MAX_DIGESTS_PER_REQUEST} digests per request`));
    }
    assert.equal((await head(server.base, members[3])).status, 200, "the server still answers");
  });
});

describe("serve: a replaced catalog is read once while the old one answers", () => {
  let server;
  before(async () => {
    await writeHexList(at("reloaded.txt"), members);
    server = await startServe(at("catalog.abf1"), at("reloaded.txt"));
  });
  after(async () => {
    await stopServe(server);
  });

  test("200 concurrent HEADs during a reload that cannot finish are answered from the loaded catalog", async () => {
    // The replacement is a FIFO: reading it blocks until this test writes to
    // it, so the reload stays in flight for as long as the test wants. A
    // request that waited for it (or started its own) could not answer.
    const fifo = at("catalog.fifo");
    execFileSync("mkfifo", [fifo]);
    await link(fifo, at("catalog.fifo-writer")); // a second name: the writer's way in after the rename
    await rename(fifo, at("reloaded.txt"));
    const answers = await within(
      Promise.all(Array.from({ length: 200 }, (_, i) => head(server.base, members[i]))),
      "200 HEADs during a reload",
    );
    assert.deepEqual(
      answers.map((r) => r.status),
      Array(200).fill(200),
    );
    assert.equal((await head(server.base, outsider)).status, 404);
    assert.equal((await stats(server.base)).catalogLoads, 1, "the reload is still in flight");

    // Let the one reload finish: the new catalog adds `outsider`.
    await writeFifo(at("catalog.fifo-writer"), `${[...members, outsider].join("\n")}\n`);
    let loaded;
    for (let round = 0; round < 1500 && loaded?.catalogLoads !== 2; round += 1) {
      loaded = await stats(server.base);
      if (loaded.catalogLoads !== 2) await sleep(20);
    }
    assert.equal(loaded.catalogLoads, 2, "exactly one reload for 201 requests that saw the new file");
    assert.equal(loaded.reloadFailures, 0);
    // No request here: a written FIFO has a new mtime, and a look at it now
    // would start a reload that blocks (no writer). A regular file again
    // (same content), so nothing is left reading the FIFO, and its snapshot,
    // version 2: both are served together (a new list alone waits for it).
    await writeHexList(at("regular.txt"), [...members, outsider]);
    await rename(at("regular.txt"), at("reloaded.txt"));
    const run = await runCli([
      "publish",
      ...publishSizing(2, 1000, 0.01),
      "--input",
      at("reloaded.txt"),
      "--out",
      at("reloaded.abf1"),
    ]);
    assert.equal(run.code, 0, run.stderr);
    await rename(at("reloaded.abf1"), at("catalog.abf1"));
    assert.equal((await head(server.base, outsider, 2)).status, 200, "version 2 answers from the reloaded list");
  });

  test("a replacement that does not load is reported and the previous catalog keeps answering", async () => {
    await writeFile(at("broken.txt"), `${members[0]}\nnot a digest\n`);
    await rename(at("broken.txt"), at("reloaded.txt"));
    assert.equal((await head(server.base, members[0], 2)).status, 200);
    let seen;
    for (let round = 0; round < 1500 && seen?.reloadFailures !== 1; round += 1) {
      // A request is what makes serve look at the file: if the previous
      // test's reload (of regular.txt) is still in flight, the broken file is
      // only noticed by a request after it — so keep asking, do not assume
      // the HEAD above came late enough (on a busy machine it does not).
      await head(server.base, members[0], 2);
      seen = await stats(server.base);
      if (seen.reloadFailures !== 1) await sleep(20);
    }
    assert.equal(seen.reloadFailures, 1);
    assert.equal((await head(server.base, outsider, 2)).status, 200, "still the previous catalog (it had outsider)");
    assert.match(server.stderr(), /cannot reload .*reloaded\.txt: line 2: expected 64 hex digits.*previous contents/);
  });
});

test("serve --help says what --host exposes", async () => {
  const run = await runCli(["serve", "--help"]);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /--host H\s+listen address \(default 127\.0\.0\.1: this machine only\)/);
  assert.match(run.stdout, /exposes[\s\S]*no\s+authentication/);
  assert.match(run.stdout, new RegExp(`at most ${MAX_DIGESTS_PER_REQUEST} digests`));
});
