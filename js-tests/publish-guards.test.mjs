// Publish guards (issue 11, section 5) — the seed's anti-patterns "replacing
// a filter with an empty one" and "digests of some shards missing from the
// build input" — plus stale temp files, output-side errors and the merge
// rule for shards that overlap. Each runs the real CLI (or, for an injected
// ENOSPC writer, the package's replace module) on a temp dir.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmod, mkdir, open, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { loadSnapshot } from "artifact-bloom";
import { hex, sha256 } from "./helpers/abf1.mjs";
import { CLI, isTempOf, publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";

const REPLACE = fileURLToPath(new URL("node_modules/artifact-bloom/cli/replace.mjs", import.meta.url));
const WAIT_MS = 30_000; // the bound on any wait below

let dir;
const at = (name) => join(dir.path, name);
const digests = (prefix, count, start = 0) => Array.from({ length: count }, (_, i) => sha256(`${prefix}:${start + i}`));
// Every publish here is catalogVersion 1 over catalogVersion 1: these tests
// are about the other guards, so they lift the version rule (its own tests
// are in publish-versions.test.mjs).
const publishArgs = (out, input, ...extra) => [
  "publish",
  ...publishSizing(1, 200, 0.01),
  "--input",
  input,
  "--out",
  out,
  "--allow-version-reuse",
  ...extra,
];

/** Loads a snapshot file through the package (free its filter). */
async function loadFile(path) {
  const result = loadSnapshot(new Uint8Array(await readFile(path)));
  assert.equal(result.kind, "success", result.message);
  return result.value;
}

/** The insertedItemCount of a snapshot file. */
async function countOf(path) {
  const snapshot = await loadFile(path);
  snapshot.filter.free();
  return snapshot.header.insertedItemCount;
}

/** An error message of one line, naming `path`, without a stack trace. */
function assertOneLine(stderr, path, pattern) {
  const lines = stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one line, got:\n${stderr}`);
  assert.ok(lines[0].includes(path), `names ${path}: ${lines[0]}`);
  assert.match(lines[0], pattern);
  assert.doesNotMatch(stderr, /\n\s+at |Error:/, "no stack trace");
}

before(async () => {
  dir = await tempDir("publish-guards");
  await writeHexList(at("100.txt"), digests("d", 100));
  await writeHexList(at("90.txt"), digests("d", 90));
  await writeHexList(at("89.txt"), digests("d", 89));
  await writeFile(at("empty.txt"), "# no digests, only a comment\n\n");
});
after(async () => {
  await dir?.remove();
});

/** `live.abf1` holds the 100-digest snapshot again; returns its bytes. */
async function resetLive() {
  const run = await runCli(publishArgs(at("live.abf1"), at("100.txt"), "--allow-shrink"));
  assert.equal(run.code, 0, run.stderr);
  return readFile(at("live.abf1"));
}

describe("publish refuses an empty catalog", () => {
  test("empty input (a file, or /dev/null) over a live snapshot → exit 1, the old file intact", async () => {
    const live = await resetLive();
    for (const input of [at("empty.txt"), "/dev/null"]) {
      const run = await runCli(publishArgs(at("live.abf1"), input));
      assert.equal(run.code, 1, `${input}: ${run.stderr}`);
      assert.match(run.stderr, /refusing to publish an empty snapshot.*definitely absent.*--allow-empty/);
      assert.deepEqual(await readFile(at("live.abf1")), live);
    }
    assert.deepEqual(
      (await readdir(dir.path)).filter((n) => isTempOf(n, "live.abf1")),
      [],
      "no temp file left",
    );
  });

  test("--allow-empty publishes it to a new path; over a non-empty snapshot it also needs --allow-shrink", async () => {
    const fresh = await runCli(publishArgs(at("new-empty.abf1"), at("empty.txt"), "--allow-empty"));
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal(await countOf(at("new-empty.abf1")), 0);

    const live = await resetLive();
    const onlyEmpty = await runCli(publishArgs(at("live.abf1"), at("empty.txt"), "--allow-empty"));
    assert.equal(onlyEmpty.code, 1);
    assert.match(onlyEmpty.stderr, /from 100 to 0 unique digests/);
    assert.deepEqual(await readFile(at("live.abf1")), live);
    const both = await runCli(publishArgs(at("live.abf1"), at("empty.txt"), "--allow-empty", "--allow-shrink"));
    assert.equal(both.code, 0, both.stderr);
    assert.equal(await countOf(at("live.abf1")), 0);
  });
});

describe("publish refuses a snapshot that shrinks by more than --max-shrink", () => {
  test("default 0.1: 100 → 89 unique digests is refused naming both counts; 100 → 90 is published", async () => {
    const live = await resetLive();
    const refused = await runCli(publishArgs(at("live.abf1"), at("89.txt")));
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /refusing to shrink .*live\.abf1 from 100 to 89 unique digests/);
    assert.match(refused.stderr, /--allow-shrink/);
    assert.deepEqual(await readFile(at("live.abf1")), live, "the old file is intact");
    const ok = await runCli(publishArgs(at("live.abf1"), at("90.txt")));
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(await countOf(at("live.abf1")), 90);
  });

  test("--max-shrink 0.5 accepts 100 → 89; --allow-shrink accepts anything; a bad --max-shrink → exit 2", async () => {
    await resetLive();
    assert.equal((await runCli(publishArgs(at("live.abf1"), at("89.txt"), "--max-shrink", "0.5"))).code, 0);
    await resetLive();
    await writeHexList(at("3.txt"), digests("d", 3));
    assert.equal((await runCli(publishArgs(at("live.abf1"), at("3.txt"), "--max-shrink", "0"))).code, 1);
    assert.equal((await runCli(publishArgs(at("live.abf1"), at("3.txt"), "--allow-shrink"))).code, 0);
    for (const bad of ["1.5", "-0.1", "x"]) {
      const run = await runCli(publishArgs(at("live.abf1"), at("3.txt"), "--max-shrink", bad));
      assert.equal(run.code, 2, `--max-shrink ${bad}`);
      assert.match(run.stderr, /--max-shrink/);
    }
  });

  test("a PATH that is not a loadable snapshot is replaced, with a note", async () => {
    await writeFile(at("junk.abf1"), "not a snapshot");
    const run = await runCli(publishArgs(at("junk.abf1"), at("3.txt")));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /junk\.abf1 is not a loadable snapshot .*without a shrink check/);
    assert.equal(await countOf(at("junk.abf1")), 3);
  });
});

describe("a temp file left by a killed publish is removed by the next one", () => {
  test("SIGKILL mid-write leaves .NAME.tmp-*; the next publish removes it, a live writer's file stays", async () => {
    await resetLive();
    // The test hook sleeps after each written chunk: 5 s leaves ample time
    // to see the temp file and kill the writer before its rename.
    const child = spawn(process.execPath, [CLI, ...publishArgs(at("live.abf1"), at("100.txt"))], {
      env: { ...process.env, ARTIFACT_BLOOM_TEST_WRITE_DELAY_MS: "5000" },
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    let stale;
    for (let round = 0; round < WAIT_MS / 5 && stale === undefined; round += 1) {
      stale = (await readdir(dir.path)).find((n) => isTempOf(n, "live.abf1"));
      if (stale === undefined) await sleep(5);
    }
    child.kill("SIGKILL");
    assert.equal((await exited).signal, "SIGKILL");
    assert.ok(stale, "the killed publish had created its temp file");

    // The same name with a live pid (this process): a writer that is still
    // running, whose file must survive. The pid follows "tmp-" (publish --help).
    const live = stale.replace(/\.tmp-\d+-/, `.tmp-${process.pid}-`);
    await writeFile(at(live), "a live writer's partial file");
    const other = `.other.abf1${stale.slice(".live.abf1".length)}`; // another target's: not this publish's business
    await writeFile(at(other), "x");

    const run = await runCli(publishArgs(at("live.abf1"), at("90.txt")));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, new RegExp(`removed ${stale.replace(/\./g, "\\.")}`));
    const names = await readdir(dir.path);
    assert.equal(names.includes(stale), false, "the dead writer's file is gone");
    assert.equal(names.includes(live), true, "the live writer's file stays");
    assert.equal(names.includes(other), true, "another target's file stays");
    await rm(at(live));
    await rm(at(other));
  });
});

describe("output-side errors: one line naming the path and cause, exit 2", () => {
  test("--out is a directory → EISDIR", async () => {
    await mkdir(at("a-directory.abf1"));
    const run = await runCli(publishArgs(at("a-directory.abf1"), at("3.txt")));
    assert.equal(run.code, 2);
    assertOneLine(run.stderr, at("a-directory.abf1"), /EISDIR \(it is a directory\)/);
  });

  test("--out in a directory that does not exist → ENOENT naming the directory", async () => {
    const out = at("no/such/dir/x.abf1");
    for (const args of [
      publishArgs(out, at("3.txt")),
      ["merge", at("live.abf1"), at("new-empty.abf1"), "--catalog-version", "1", "--out", out],
    ]) {
      const run = await runCli(args);
      assert.equal(run.code, 2, run.stderr);
      assertOneLine(run.stderr, out, /ENOENT \(the directory .*no\/such\/dir does not exist\)/);
    }
  });

  test("--out in a directory without write permission → EACCES", {
    skip: process.getuid?.() === 0 && "root ignores permission bits (EACCES is covered by the injected writer below)",
  }, async () => {
    await mkdir(at("read-only"));
    await chmod(at("read-only"), 0o555);
    const run = await runCli(publishArgs(at("read-only/x.abf1"), at("3.txt")));
    assert.equal(run.code, 2);
    assertOneLine(run.stderr, at("read-only/x.abf1"), /EACCES/);
  });

  for (const [code, cause, failAt] of [
    ["ENOSPC", "no space left on the device", "write"],
    ["EACCES", "permission denied", "open"],
  ]) {
    test(`a writer failing with ${code} (injected at ${failAt}) → a one-line error, the temp file removed, the old file intact`, async () => {
      const live = await resetLive();
      const { replaceSnapshotFile } = await import(REPLACE);
      const fail = (syscall) => Object.assign(new Error(`${code}: injected, ${syscall}`), { code, syscall });
      const failingOpen = async (path, flags, mode) => {
        if (failAt === "open") throw fail("open");
        const handle = await open(path, flags, mode);
        return {
          write: async () => {
            throw fail("write");
          },
          sync: () => handle.sync(),
          close: () => handle.close(),
        };
      };
      const bytes = new Uint8Array(await readFile(at("live.abf1")));
      await assert.rejects(
        replaceSnapshotFile(at("live.abf1"), bytes, () => undefined, { open: failingOpen }),
        (error) => {
          assert.equal(error.name, "UsageError"); // the CLI prints its message alone and exits 2
          assert.equal(error.message, `cannot write ${at("live.abf1")}: ${code} (${cause})`);
          return true;
        },
      );
      assert.deepEqual(await readFile(at("live.abf1")), live);
      assert.deepEqual(
        (await readdir(dir.path)).filter((n) => isTempOf(n, "live.abf1")),
        [],
      );
    });
  }
});

describe("merge: overlapping shards follow the documented rule", () => {
  const shardArgs = (out, input, expected) => ["publish", ...publishSizing(1, expected, 0.01), "--input", input, "--out", out];
  before(async () => {
    await writeHexList(at("shard-a.txt"), digests("s", 60));
    await writeHexList(at("shard-b.txt"), digests("s", 60, 40)); // shares s:40..s:59 with a
    await writeHexList(at("two.txt"), digests("t", 2));
    for (const [out, input, expected] of [
      ["a100.abf1", "shard-a.txt", 100],
      ["b100.abf1", "shard-b.txt", 100],
      ["a200.abf1", "shard-a.txt", 200],
      ["b200.abf1", "shard-b.txt", 200],
      ["two.abf1", "two.txt", 10],
    ]) {
      const run = await runCli(shardArgs(at(out), at(input), expected));
      assert.equal(run.code, 0, run.stderr);
    }
  });
  const mergeArgs = (out, ...inputs) => ["merge", ...inputs.map(at), "--catalog-version", "2", "--out", at(out)];

  test("a file merged with itself keeps its count (2, not 4)", async () => {
    const run = await runCli(mergeArgs("self.abf1", "two.abf1", "two.abf1"));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /identical to .*two\.abf1; merged once/);
    const merged = await loadFile(at("self.abf1"));
    assert.equal(merged.header.insertedItemCount, 2);
    assert.equal(merged.catalogVersion, 2);
    merged.filter.free();
  });

  test("overlapping shards whose counts add up past expectedItemCount → exit 1 saying so, not invalidFilter", async () => {
    const run = await runCli(mergeArgs("over.abf1", "a100.abf1", "b100.abf1"));
    assert.equal(run.code, 1);
    assert.doesNotMatch(run.stderr, /invalidFilter/);
    assert.match(run.stderr, /add up to 120, more than their expectedItemCount 100/);
    assert.match(run.stderr, /--expected-items of at least 120/);
    await assert.rejects(readFile(at("over.abf1")), { code: "ENOENT" });
  });

  test("overlapping shards within capacity merge: the exact union of bits, the count the sum (an upper bound)", async () => {
    const run = await runCli(mergeArgs("union.abf1", "a200.abf1", "b200.abf1"));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /insertedItemCount 120 \(the sum of the inputs': exact if they are disjoint, an upper bound/);
    const merged = await loadFile(at("union.abf1"));
    assert.equal(merged.header.insertedItemCount, 120);
    await writeHexList(at("union.txt"), digests("s", 100));
    assert.equal((await runCli(shardArgs(at("direct.abf1"), at("union.txt"), 200))).code, 0);
    const direct = await loadFile(at("direct.abf1"));
    assert.equal(hex(merged.filter.serializeBits()), hex(direct.filter.serializeBits()), "same bits as a publish of the union");
    merged.filter.free();
    direct.filter.free();
  });
});

test("publish --help and merge --help state the rules", async () => {
  const publish = (await runCli(["publish", "--help"])).stdout;
  for (const flag of [/--allow-empty/, /--max-shrink F/, /default\s+0\.1/, /--allow-shrink/, /writer .*is gone|once its writer/])
    assert.match(publish, flag);
  const merge = (await runCli(["merge", "--help"])).stdout;
  for (const rule of [/identical/, /SUM of the inputs' counts/, /upper bound/, /exceeds the layout's expectedItemCount/])
    assert.match(merge, rule);
});
