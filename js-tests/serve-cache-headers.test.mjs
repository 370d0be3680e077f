// serve's /snapshot answers say what a shared cache may do with them (issue
// 33 §4): a 226 delta fits only the client whose If-None-Match named its
// base, so it is never stored — `private, no-store`, and X-Accel-Expires: 0 /
// Surrogate-Control: no-store for the nginx and CDN caches set to ignore Vary
// and Cache-Control (before: only Vary, so such a cache replayed one client's
// 226 to others, who could not load until the entry expired); the ETag is
// exposed to pages on another origin.
import assert from "node:assert/strict";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hex, sha256 } from "./helpers/digests.mjs";
import { publishSizing, runCli, tempDir } from "./helpers/cli.mjs";
import { SERVE_WAIT_MS, startServe, stopServe } from "./helpers/serve-process.mjs";

let dir;
let server;
const at = (name) => join(dir.path, name);
const digests = Array.from({ length: 1100 }, (_, i) => hex(sha256(`cache:${i}`)));

async function publishVersion(version, count) {
  await writeFile(at("next.txt"), `${digests.slice(0, count).join("\n")}\n`);
  await rename(at("next.txt"), at("list.txt"));
  const run = await runCli([
    "publish",
    ...publishSizing(version, 10_000, 0.001),
    "--input",
    at("list.txt"),
    "--out",
    at("c.abf1"),
  ]);
  assert.equal(run.code, 0, run.stderr);
}

before(async () => {
  dir = await tempDir("serve-cache-headers");
  await publishVersion(1, 1000);
  server = await startServe(at("c.abf1"), at("list.txt"));
});
after(async () => {
  await stopServe(server);
  await dir?.remove();
});

test("the 200 varies and exposes its ETag; the 226 is private and never stored by a shared cache", async () => {
  const first = await fetch(`${server.base}/snapshot`, { signal: AbortSignal.timeout(SERVE_WAIT_MS) });
  assert.equal(first.status, 200);
  await first.arrayBuffer();
  const etag = first.headers.get("etag");
  assert.match(first.headers.get("vary") ?? "", /A-IM/i);
  assert.match(first.headers.get("access-control-expose-headers") ?? "", /ETag/i);

  await publishVersion(2, 1100);
  const delta = await fetch(`${server.base}/snapshot`, {
    headers: { "a-im": "abd1", "if-none-match": etag },
    signal: AbortSignal.timeout(SERVE_WAIT_MS),
  });
  assert.equal(delta.status, 226);
  await delta.arrayBuffer();
  assert.match(delta.headers.get("cache-control") ?? "", /private/);
  assert.match(delta.headers.get("cache-control") ?? "", /no-store/);
  assert.equal(delta.headers.get("x-accel-expires"), "0");
  assert.equal(delta.headers.get("surrogate-control"), "no-store");
});
