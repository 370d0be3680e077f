// serve's access flags (issue 35 §1, §3): --token-file scopes (read,
// existence, admin), --public-read, --rate-limit counted in digests, and a
// token file that is refused without its tokens being printed. serve runs
// on 127.0.0.1, port 0; the library's guard is tested on its own in
// server-access-tokens / server-rate-limit; this is the CLI's wiring.
import assert from "node:assert/strict";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";
import { hex, sha256 } from "./helpers/digests.mjs";
import { startServe, stopServe } from "./helpers/serve-process.mjs";

const MEMBERS = Array.from({ length: 50 }, (_, i) => sha256(`serve-access ${i}`));
const OUTSIDER = sha256("serve-access outsider");
const TOKENS = { read: "r-4f9d1c2b7a8e6f30", existence: "e-0b7c3a9d5e1f2468", admin: "a-9e8d7c6b5a4f3e21" };

let dir;
let snapshot;
let list;
let tokenFile;

before(async () => {
  dir = await tempDir("serve-access");
  list = join(dir.path, "digests.txt");
  await writeHexList(list, MEMBERS);
  snapshot = join(dir.path, "catalog.abf1");
  const run = await runCli(["publish", ...publishSizing(3, 100, 0.01), "--input", list, "--out", snapshot]);
  assert.equal(run.code, 0, run.stderr);
  tokenFile = join(dir.path, "tokens.json");
  await writeFile(
    tokenFile,
    JSON.stringify(Object.entries(TOKENS).map(([scope, token]) => ({ token, scopes: [scope], name: scope }))),
  );
  await chmod(tokenFile, 0o600);
});

after(async () => {
  await dir?.remove();
});

const bearer = (token) => (token === undefined ? {} : { authorization: `Bearer ${token}` });
const blob = (base, digest) => new URL(`blobs/sha256/${hex(digest)}?catalogVersion=3`, base);

/** Status, the headers that could tell digests apart, and the body. */
async function observed(response) {
  return {
    status: response.status,
    mark: response.headers.get("artifact-bloom-catalog-version"),
    type: response.headers.get("content-type"),
    body: await response.text(),
  };
}

describe("serve --token-file", () => {
  let server;
  before(async () => {
    server = await startServe(snapshot, list, ["--token-file", tokenFile]);
  });
  after(async () => {
    await stopServe(server);
  });

  test("reads need the read scope: none 401, existence 403, read 200", async () => {
    const url = new URL("snapshot", server.base);
    assert.equal((await fetch(url)).status, 401);
    assert.equal((await fetch(url, { headers: bearer(TOKENS.existence) })).status, 403);
    assert.equal((await fetch(url, { headers: bearer(TOKENS.read) })).status, 200);
  });

  test("existence needs its scope; refused answers are the same for a member and an outsider", async () => {
    for (const token of [undefined, "not-a-token", TOKENS.read]) {
      const member = await observed(await fetch(blob(server.base, MEMBERS[0]), { headers: bearer(token) }));
      const outsider = await observed(await fetch(blob(server.base, OUTSIDER), { headers: bearer(token) }));
      assert.ok(member.status === 401 || member.status === 403, `${token}: ${member.status}`);
      assert.deepEqual(member, outsider, `token ${token ?? "(none)"}: the refusal tells the digests apart`);
    }
    const allowed = await fetch(blob(server.base, MEMBERS[0]), { method: "HEAD", headers: bearer(TOKENS.existence) });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get("artifact-bloom-catalog-version"), "3");
  });

  test("/stats needs the admin scope", async () => {
    const url = new URL("stats", server.base);
    assert.equal((await fetch(url, { headers: bearer(TOKENS.existence) })).status, 403);
    assert.equal((await fetch(url, { headers: bearer(TOKENS.admin) })).status, 200);
  });

  test("no token appears in serve's output", () => {
    for (const token of Object.values(TOKENS)) assert.ok(!server.stderr().includes(token));
  });
});

describe("serve --token-file --public-read --rate-limit", () => {
  let server;
  before(async () => {
    server = await startServe(snapshot, list, ["--token-file", tokenFile, "--public-read", "--rate-limit", "10000"]);
  });
  after(async () => {
    await stopServe(server);
  });

  test("reads are public, existence still needs a token", async () => {
    assert.equal((await fetch(new URL("snapshot", server.base))).status, 200);
    assert.equal((await fetch(blob(server.base, OUTSIDER), { method: "HEAD" })).status, 401);
  });

  test("the limit counts digests: a 10,000-digest findMissing spends the burst, the next one is 429 with Retry-After", async () => {
    const digests = Array.from({ length: 10_000 }, (_, i) => hex(sha256(`ask ${i}`)));
    const ask = () =>
      fetch(new URL("./blobs:findMissing", server.base), {
        method: "POST",
        headers: { ...bearer(TOKENS.existence), "content-type": "application/json" },
        body: JSON.stringify({ catalogVersion: 3, digests }),
      });
    const first = await ask();
    assert.equal(first.status, 200, await first.clone().text());
    // 10,000 digests refill in one second at 10,000/s: the second request,
    // sent at once, finds the bucket short (Retry-After ≥ 1 s, an integer).
    const second = await ask();
    assert.equal(second.status, 429);
    assert.match(second.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
  });
});

describe("a bad token file stops serve with one line and no token", () => {
  for (const [label, content, pattern] of [
    ["not JSON", `[{"token": "${TOKENS.read}", "scopes": ["read"],`, /not JSON/],
    ["an unknown scope", JSON.stringify([{ token: TOKENS.read, scopes: ["write"] }]), /--token-file: .*(\[0\]|0)/],
    ["an empty list", "[]", /non-empty JSON array/],
  ]) {
    test(label, async () => {
      const file = join(dir.path, `bad-${label.replaceAll(" ", "-")}.json`);
      await writeFile(file, content, { mode: 0o600 });
      const run = await runCli(["serve", "--snapshot", snapshot, "--catalog", list, "--port", "0", "--token-file", file]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, pattern);
      assert.ok(!run.stderr.includes(TOKENS.read), run.stderr);
      assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    });
  }
});
