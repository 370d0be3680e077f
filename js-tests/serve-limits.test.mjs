// `artifact-bloom serve` (issue 21): A-IM weights are RFC 9110 qvalues (D10:
// `abd1; q=0.0` refuses deltas) and findMissing bodies share one buffer
// budget across connections (D6: 503 + Retry-After past it).
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { hex, sha256 } from "./helpers/digests.mjs";
import { publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";
import { SERVE_WAIT_MS, startServe, stopServe } from "./helpers/serve-process.mjs";

const DELTAS = fileURLToPath(new URL("node_modules/artifact-bloom/lib/server/current-snapshot.js", import.meta.url));

test("A-IM: abd1 with a zero or malformed qvalue is not acceptable; a positive one is", async () => {
  // The request handler's own parser (lib/server/current-snapshot.js; not a public export).
  const { acceptsDelta } = await import(DELTAS);
  for (const header of [
    "abd1; q=0",
    "abd1;q=0.0",
    "abd1; q = 0",
    "abd1;q=0.000",
    "ABD1;Q=0",
    "gzip, abd1;q=0.0",
    "abd1;q=abc",
    "abd1;q=2",
    "abd1;q=0.0001",
    "abd2",
  ]) {
    assert.equal(acceptsDelta(header), false, header);
  }
  for (const header of ["abd1", "abd1;q=1", "abd1; q=0.001", "gzip;q=0, abd1;q=0.5", "abd1;q=1.000"]) {
    assert.equal(acceptsDelta(header), true, header);
  }
});

describe("findMissing body budget", () => {
  let dir;
  let server;
  const members = Array.from({ length: 10 }, (_, i) => hex(sha256(`budget:${i}`)));
  before(async () => {
    dir = await tempDir("serve-limits");
    await writeHexList(join(dir.path, "c.txt"), members);
    const run = await runCli([
      "publish",
      ...publishSizing(1, 100, 0.01),
      "--input",
      join(dir.path, "c.txt"),
      "--out",
      join(dir.path, "c.abf1"),
    ]);
    assert.equal(run.code, 0, run.stderr);
    server = await startServe(join(dir.path, "c.abf1"), join(dir.path, "c.txt"), ["--body-budget", "1"]);
  });
  after(async () => {
    await stopServe(server);
    await dir?.remove();
  });

  const stats = async () => (await fetch(`${server.base}/stats`, { signal: AbortSignal.timeout(SERVE_WAIT_MS) })).json();
  const post = (body) =>
    fetch(`${server.base}/blobs:findMissing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(SERVE_WAIT_MS),
    });
  // A JSON body padded with spaces to `bytes`.
  const padded = (bytes) => {
    const json = JSON.stringify({ catalogVersion: 1, digests: [members[0], hex(sha256("absent"))] });
    return `${json.slice(0, -1)}${" ".repeat(bytes - json.length)}}`;
  };

  test("a body that would pass the shared budget while another is buffered → 503 with Retry-After; later it fits", async () => {
    // Request A sends 700 KiB and holds it (its body is not finished).
    const held = httpRequest(`${server.base}/blobs:findMissing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    const heldAnswer = new Promise((resolve, reject) => {
      held.once("response", (response) => {
        let text = "";
        response
          .on("data", (chunk) => {
            text += chunk;
          })
          .once("end", () => resolve({ status: response.statusCode, text }));
      });
      held.once("error", reject);
    });
    const body = padded(700 * 1024);
    held.write(body.slice(0, -1));
    let seen;
    for (let round = 0; round < 1500 && !(seen?.bodyBudget.bufferedBytes >= 600 * 1024); round += 1) {
      seen = await stats();
      if (!(seen.bodyBudget.bufferedBytes >= 600 * 1024)) await sleep(20);
    }
    assert.ok(seen.bodyBudget.bufferedBytes >= 600 * 1024, JSON.stringify(seen.bodyBudget));
    assert.equal(seen.bodyBudget.limitBytes, 1024 * 1024);

    const refused = await post(padded(700 * 1024));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    const answer = await refused.json();
    assert.equal(answer.error, "serverBusy");
    assert.match(answer.message, /1048576 request-body bytes/);

    held.end(body.slice(-1));
    const heldResult = await heldAnswer;
    assert.equal(heldResult.status, 200, heldResult.text);
    const retried = await post(padded(700 * 1024));
    assert.equal(retried.status, 200);
    assert.deepEqual((await retried.json()).missing, [hex(sha256("absent"))]);
    const after = await stats();
    assert.equal(after.bodyBudget.bufferedBytes, 0, "every reservation is released");
    assert.equal(after.bodyBudget.refusals, 1);
  });

  test("serve --help states the budget", async () => {
    const run = await runCli(["serve", "--help"]);
    assert.match(
      run.stdout,
      /--body-budget MIB\s+findMissing body bytes buffered at once, all connections\s+together \(1 \.\. 4096, default 64\)/,
    );
  });
});
