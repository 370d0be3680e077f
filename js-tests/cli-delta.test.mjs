// `publish --delta-from OLD --delta-out PATH` and `inspect` of ABD1 files,
// through the real CLI binary on temp dirs. The oracle is the package's
// own applySnapshotDelta and loadSnapshot: applying the written delta to the
// old snapshot must give exactly the newly published file (bits, header, and
// byte for byte on re-encode).
import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { encodeSnapshot, loadSnapshot } from "artifact-bloom";
import { applySnapshotDelta, readSnapshotDeltaHeader } from "artifact-bloom/delta";
import { sha256 } from "./helpers/abf1.mjs";
import { listDir, publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";

let dir;
before(async () => {
  dir = await tempDir("cli-delta");
});
after(async () => {
  await dir.remove();
});

const at = (name) => join(dir.path, name);
const digestsOf = (prefix, count) => Array.from({ length: count }, (_, i) => sha256(`${prefix}${i}`));

/** Publishes `digests` at `version` to `out` with a fixed layout (expected 5000, fpp 0.01). */
async function publishList(name, digests, version, out, extra = [], { expected = 5000 } = {}) {
  await writeHexList(at(name), digests);
  return runCli(["publish", ...publishSizing(version, expected, 0.01), "--input", at(name), "--out", out, ...extra]);
}

async function loadFile(path) {
  const loaded = loadSnapshot(new Uint8Array(await readFile(path)));
  assert.equal(loaded.kind, "success", loaded.message);
  return loaded.value;
}

async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe("publish --delta-from / --delta-out", () => {
  test("a grown catalog → the delta rebuilds the new snapshot byte for byte, and is far smaller", async () => {
    const old = at("grow-v1.abf1");
    assert.equal((await publishList("grow-v1.txt", digestsOf("a", 3000), 1, old)).code, 0);
    const out = at("grow-v2.abf1");
    const deltaPath = at("grow-1-2.abd1");
    const run = await publishList("grow-v2.txt", digestsOf("a", 3030), 2, out, [
      "--delta-from",
      old,
      "--delta-out",
      deltaPath,
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.delta.written, true);
    assert.equal(summary.delta.baseCatalogVersion, 1);
    const deltaBytes = new Uint8Array(await readFile(deltaPath));
    assert.equal(summary.delta.bytes, deltaBytes.byteLength);
    const full = new Uint8Array(await readFile(out));
    // 30 new digests of 3030 set at most 30·hashCount bits: a few hundred bytes against ~4.8 KB.
    assert.ok(deltaBytes.byteLength * 4 < full.byteLength, `${deltaBytes.byteLength} vs ${full.byteLength}`);
    const applied = applySnapshotDelta(await loadFile(old), deltaBytes);
    assert.equal(applied.kind, "success", applied.message);
    assert.deepEqual(applied.value.header, (await loadFile(out)).header);
    assert.deepEqual(encodeSnapshot(applied.value.filter, { catalogVersion: 2 }), full);
    assert.deepEqual(await listDir(dir.path).then((names) => names.filter((n) => n.includes(".tmp-"))), []);
  });

  test("--delta-from PATH itself: the old file is read before it is replaced", async () => {
    const path = at("same.abf1");
    assert.equal((await publishList("same-v1.txt", digestsOf("s", 1000), 1, path)).code, 0);
    const before = await loadFile(path);
    const deltaPath = at("same.abd1");
    const run = await publishList("same-v2.txt", digestsOf("s", 1100), 2, path, ["--delta-from", path, "--delta-out", deltaPath]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /delta from catalogVersion 1: .*same\.abd1, \d+ new bits, \d+ bytes/);
    const applied = applySnapshotDelta(before, new Uint8Array(await readFile(deltaPath)));
    assert.equal(applied.kind, "success", applied.message);
    assert.deepEqual(applied.value.header, (await loadFile(path)).header);
  });

  const refusals = [
    { name: "a removed digest → notSuperset", v2: () => digestsOf("r", 2000).slice(1), code: "notSuperset" },
    {
      name: "another layout (--expected-items) → incompatibleLayout",
      v2: () => digestsOf("r", 2100),
      code: "incompatibleLayout",
      expected: 9000,
    },
  ];
  for (const { name, v2, code, expected } of refusals) {
    test(`${name}: full snapshot written, a stale delta removed, exit 0`, async () => {
      const old = at(`${code}-v1.abf1`);
      assert.equal((await publishList(`${code}-v1.txt`, digestsOf("r", 2000), 1, old)).code, 0);
      const deltaPath = at(`${code}.abd1`);
      // A delta from an earlier publish: it must not survive to describe another change.
      const mid = at(`${code}-mid.abf1`);
      assert.equal(
        (await publishList(`${code}-mid.txt`, digestsOf("r", 2001), 2, mid, ["--delta-from", old, "--delta-out", deltaPath]))
          .code,
        0,
      );
      assert.ok(await exists(deltaPath));
      const out = at(`${code}-v2.abf1`);
      const run = await publishList(`${code}-v2.txt`, v2(), 3, out, ["--delta-from", old, "--delta-out", deltaPath, "--json"], {
        expected,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, new RegExp(`no delta: ${code}: `));
      assert.deepEqual(JSON.parse(run.stdout).delta.code, code);
      assert.equal((await loadFile(out)).catalogVersion, 3);
      assert.equal(await exists(deltaPath), false);
    });
  }

  test("a missing or unloadable OLD → no delta (noBase / invalidBase), exit 0", async () => {
    const out = at("nobase.abf1");
    const missing = await publishList("nobase.txt", digestsOf("n", 10), 1, out, [
      "--delta-from",
      at("absent.abf1"),
      "--delta-out",
      at("nobase.abd1"),
    ]);
    assert.equal(missing.code, 0, missing.stderr);
    assert.match(missing.stderr, /no delta: noBase: cannot read/);
    await writeFile(at("junk.abf1"), "not an ABF1 snapshot: ".repeat(8));
    const junk = await publishList("nobase.txt", digestsOf("n", 10), 2, out, [
      "--delta-from",
      at("junk.abf1"),
      "--delta-out",
      at("nobase.abd1"),
    ]);
    assert.equal(junk.code, 0, junk.stderr);
    assert.match(junk.stderr, /no delta: invalidBase: .*badMagic/);
    assert.equal((await loadFile(out)).catalogVersion, 2);
  });

  test("usage errors: one flag without the other, --delta-out equal to --out → exit 2, nothing written", async () => {
    const out = at("usage.abf1");
    const alone = await publishList("usage.txt", digestsOf("u", 10), 1, out, ["--delta-from", at("x.abf1")]);
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--delta-from and --delta-out go together/);
    const same = await publishList("usage.txt", digestsOf("u", 10), 1, out, ["--delta-from", at("x.abf1"), "--delta-out", out]);
    assert.equal(same.code, 2);
    assert.match(same.stderr, /--delta-out must not be --out/);
    assert.equal(await exists(out), false);
  });

  test("publish --help documents the delta flags", async () => {
    const run = await runCli(["publish", "--help"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /--delta-from OLD/);
    assert.match(run.stdout, /--delta-out DPATH/);
    assert.match(run.stdout, /no delta: <code>/);
  });
});

describe("inspect of an ABD1 delta", () => {
  let old;
  let deltaPath;
  before(async () => {
    old = at("inspect-v1.abf1");
    deltaPath = at("inspect.abd1");
    assert.equal((await publishList("inspect-v1.txt", digestsOf("i", 1500), 7, old)).code, 0);
    const run = await publishList("inspect-v2.txt", digestsOf("i", 1600), 9, at("inspect-v2.abf1"), [
      "--delta-from",
      old,
      "--delta-out",
      deltaPath,
    ]);
    assert.equal(run.code, 0, run.stderr);
  });

  test("--json: base, target header, positions and sizes; exit 0", async () => {
    const run = await runCli(["inspect", deltaPath, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    const header = readSnapshotDeltaHeader(new Uint8Array(await readFile(deltaPath)));
    assert.equal(report.kind, "delta");
    assert.equal(report.verdict, "ok");
    assert.equal(report.header.baseCatalogVersion, 7);
    assert.equal(report.header.target.catalogVersion, 9);
    assert.equal(report.header.positionCount, header.value.positionCount);
    assert.equal(report.header.basePayloadSha256, header.value.basePayloadSha256);
    assert.equal(report.targetBytes, (await readFile(at("inspect-v2.abf1"))).byteLength);
  });

  test("text: the base checksum, the target checksum and the new bits are shown", async () => {
    const run = await runCli(["inspect", deltaPath]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /ABD1 delta/);
    assert.match(run.stdout, /base catalogVersion\s+7/);
    assert.match(run.stdout, /base payload SHA-256 [0-9a-f]{64}/);
    assert.match(run.stdout, /target checksum\s+[0-9a-f]{64}/);
    assert.match(run.stdout, /new bits\s+\d+/);
    assert.match(run.stdout, /verdict\s+ok/);
  });

  test("--base: applied to the right base → ok; to another → wrongBase, exit 1", async () => {
    const right = await runCli(["inspect", deltaPath, "--base", old, "--json"]);
    assert.equal(right.code, 0, right.stderr);
    assert.equal(JSON.parse(right.stdout).applied.catalogVersion, 9);
    const wrong = await runCli(["inspect", deltaPath, "--base", at("inspect-v2.abf1"), "--json"]);
    assert.equal(wrong.code, 1);
    assert.equal(JSON.parse(wrong.stdout).verdict, "wrongBase");
  });

  test("a flipped body byte → checksumMismatch with the claimed header, exit 1", async () => {
    const bytes = new Uint8Array(await readFile(deltaPath));
    bytes[bytes.byteLength - 40] ^= 0x10;
    await writeFile(at("damaged.abd1"), bytes);
    const run = await runCli(["inspect", at("damaged.abd1"), "--json"]);
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout);
    assert.equal(report.verdict, "checksumMismatch");
    assert.equal(report.header.baseCatalogVersion, 7);
  });

  test("an ABF1 file is still inspected as a snapshot; --base on it is a usage error", async () => {
    const run = await runCli(["inspect", old, "--json"]);
    assert.equal(run.code, 0);
    assert.equal(JSON.parse(run.stdout).header.catalogVersion, 7);
    const base = await runCli(["inspect", old, "--base", old]);
    assert.equal(base.code, 2);
  });
});
