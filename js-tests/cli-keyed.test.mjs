// The CLI's --key-file (issue 35 §4): publish writes a keyed snapshot
// (ABF1 hashProtocolVersion 3) that check, inspect and merge read only with
// the same key; without it the load is keyRequired, with another wrongKey
// (exit 1, never an "absent"); the key file is raw bytes or hex; a key of
// the wrong length is a usage error naming the file, and the key's bytes
// appear in no output, no file name and no error.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fetchSnapshot, loadSnapshot } from "artifact-bloom";
import { publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";
import { hex, sha256 } from "./helpers/digests.mjs";
import { startServe, stopServe } from "./helpers/serve-process.mjs";
import { startStaticFileHost } from "./helpers/static-file-host.mjs";

const MEMBERS = Array.from({ length: 200 }, (_, i) => sha256(`keyed-cli member ${i}`));
const OUTSIDER = sha256("keyed-cli outsider");
const KEY = randomBytes(32);
const OTHER_KEY = randomBytes(32);

let dir;
let snapshot;
let keyFile;
let hexKeyFile;
let otherKeyFile;

/** Neither stream of a run shows the key, raw or as hex. */
function assertNoKey(run) {
  for (const key of [KEY, OTHER_KEY]) {
    for (const text of [run.stdout, run.stderr]) {
      assert.ok(!text.includes(key.toString("hex")), "the key's hex in the output");
      assert.ok(!text.includes(key.toString("latin1")), "the key's bytes in the output");
    }
  }
}

before(async () => {
  dir = await tempDir("cli-keyed");
  keyFile = join(dir.path, "catalog.key");
  hexKeyFile = join(dir.path, "catalog.key.hex");
  otherKeyFile = join(dir.path, "other.key");
  await writeFile(keyFile, KEY);
  await writeFile(hexKeyFile, `${KEY.toString("hex")}\n`);
  await writeFile(otherKeyFile, OTHER_KEY);
  const list = join(dir.path, "digests.txt");
  await writeHexList(list, MEMBERS);
  snapshot = join(dir.path, "catalog.abf1");
  const run = await runCli([
    "publish",
    ...publishSizing(4, 1000, 0.001),
    "--input",
    list,
    "--out",
    snapshot,
    "--key-file",
    keyFile,
  ]);
  assert.equal(run.code, 0, run.stderr);
  assertNoKey(run);
});

after(async () => {
  await dir?.remove();
});

describe("--key-file", () => {
  test("publish writes a keyed snapshot: protocol 3, loadable only with the key", async () => {
    const bytes = new Uint8Array(await readFile(snapshot));
    assert.equal(loadSnapshot(bytes).error, "keyRequired");
    const loaded = loadSnapshot(bytes, { key: new Uint8Array(KEY) });
    assert.equal(loaded.kind, "success", loaded.message);
    assert.equal(loaded.value.header.hashProtocolVersion, 3);
    assert.equal(loaded.value.header.insertedItemCount, MEMBERS.length);
    loaded.value.filter.free();
    assert.ok(!Buffer.from(bytes).includes(KEY), "the key is not in the file");
  });

  for (const [label, file] of [
    ["raw", () => keyFile],
    ["hex", () => hexKeyFile],
  ]) {
    test(`check with the key (${label} file): members maybe, an outsider absent`, async () => {
      const run = await runCli(["check", snapshot, hex(MEMBERS[7]), hex(OUTSIDER), "--key-file", file(), "--json"]);
      assert.equal(run.code, 0, run.stderr);
      const verdicts = JSON.parse(run.stdout).results.map((r) => r.verdict);
      assert.deepEqual(verdicts, ["maybe", "absent"]);
      assertNoKey(run);
    });
  }

  test("check without the key is keyRequired, with another key wrongKey: exit 1, no verdict", async () => {
    const without = await runCli(["check", snapshot, hex(OUTSIDER)]);
    assert.equal(without.code, 1);
    assert.equal(without.stdout, "");
    assert.match(without.stderr, /keyRequired/);
    const wrong = await runCli(["check", snapshot, hex(OUTSIDER), "--key-file", otherKeyFile]);
    assert.equal(wrong.code, 1);
    assert.equal(wrong.stdout, "");
    assert.match(wrong.stderr, /wrongKey/);
    assertNoKey(wrong);
  });

  test("check of a keyed snapshot's URL: keyRequired without the key is the snapshot's failure (exit 1), not a fetch's", async () => {
    const host = await startStaticFileHost(dir.path);
    try {
      const url = `${host.url}/catalog.abf1`;
      const without = await runCli(["check", url, hex(OUTSIDER)]);
      assert.equal(without.code, 1, without.stderr);
      assert.match(without.stderr, /keyRequired/);
      const withKey = await runCli(["check", url, hex(OUTSIDER), "--key-file", keyFile]);
      assert.equal(withKey.code, 0, withKey.stderr);
      assert.match(withKey.stdout, /^absent /);
      assertNoKey(withKey);
    } finally {
      await host.close();
    }
  });

  test("inspect with the key shows the header; without it says keyRequired", async () => {
    const withKey = await runCli(["inspect", snapshot, "--key-file", keyFile, "--json"]);
    assert.equal(withKey.code, 0, withKey.stderr);
    assert.equal(JSON.parse(withKey.stdout).header.hashProtocolVersion, 3);
    assertNoKey(withKey);
    const without = await runCli(["inspect", snapshot]);
    assert.equal(without.code, 1);
    assert.match(without.stdout + without.stderr, /keyRequired/);
  });

  test("merge of keyed shards under the key is keyed; the same shards without it refuse", async () => {
    const shard = join(dir.path, "shard.txt");
    await writeHexList(shard, [OUTSIDER]);
    const second = join(dir.path, "shard.abf1");
    const published = await runCli([
      "publish",
      ...publishSizing(4, 1000, 0.001),
      "--input",
      shard,
      "--out",
      second,
      "--key-file",
      keyFile,
    ]);
    assert.equal(published.code, 0, published.stderr);
    const merged = join(dir.path, "merged.abf1");
    const run = await runCli(["merge", snapshot, second, "--catalog-version", "5", "--out", merged, "--key-file", keyFile]);
    assert.equal(run.code, 0, run.stderr);
    const check = await runCli(["check", merged, hex(OUTSIDER), hex(MEMBERS[0]), "--key-file", keyFile, "--json"]);
    assert.deepEqual(
      JSON.parse(check.stdout).results.map((r) => r.verdict),
      ["maybe", "maybe"],
    );
    const refused = await runCli(["merge", snapshot, second, "--catalog-version", "6", "--out", join(dir.path, "no.abf1")]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /keyRequired/);
  });

  test("serve --key-file serves a keyed snapshot: fetched with the key it loads, without it keyRequired; the existence API answers", async () => {
    const list = join(dir.path, "digests.txt");
    const server = await startServe(snapshot, list, ["--key-file", keyFile]);
    try {
      const url = new URL("snapshot", server.base);
      const withKey = await fetchSnapshot(url, { key: new Uint8Array(KEY) });
      assert.equal(withKey.kind, "success", withKey.message);
      assert.equal(withKey.value.filter.mightContain(MEMBERS[3]), true);
      withKey.value.filter.free();
      assert.equal((await fetchSnapshot(url)).error, "keyRequired");
      const head = await fetch(new URL(`blobs/sha256/${hex(MEMBERS[3])}?catalogVersion=4`, server.base), { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.ok(!server.stderr().includes(KEY.toString("hex")));
    } finally {
      await stopServe(server);
    }
  });

  test("a key of the wrong length is a usage error naming the file, not its bytes", async () => {
    const short = join(dir.path, "short.key");
    await writeFile(short, KEY.subarray(0, 8));
    const run = await runCli(["check", snapshot, hex(OUTSIDER), "--key-file", short]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--key-file .*short\.key: a key is 16 to 1024 bytes .* this one is 8 bytes/);
    assertNoKey(run);
    const missing = await runCli(["check", snapshot, hex(OUTSIDER), "--key-file", join(dir.path, "absent.key")]);
    assert.equal(missing.code, 2);
  });
});
