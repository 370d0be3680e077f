// Issue 21, D2 (publish/merge) and D5: one catalogVersion names one catalog,
// so `publish` and `merge` refuse to write a catalogVersion that is not
// greater than the one at --out (unless byte-identical, or with
// --allow-version-reuse); and a digest list's lines are bounded, so a
// line without a newline fails at once instead of in quadratic time.
// Each test runs the real CLI on a temp dir.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadSnapshot } from "artifact-bloom";
import { sha256 } from "./helpers/abf1.mjs";
import { CLI, publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";

const WAIT_MS = 60_000; // the bound on any wait below: generous, never a timing assertion
const MAX_LINE_LENGTH = 4096; // documented in `publish --help`

let dir;
const at = (name) => join(dir.path, name);
const digests = (prefix, count) => Array.from({ length: count }, (_, i) => sha256(`${prefix}:${i}`));
const publishArgs = (version, input, out, ...extra) => [
  "publish",
  ...publishSizing(version, 200, 0.01),
  "--input",
  at(input),
  "--out",
  at(out),
  ...extra,
];

/** The catalogVersion of a snapshot file. */
async function versionOf(path) {
  const loaded = loadSnapshot(new Uint8Array(await readFile(path)));
  assert.equal(loaded.kind, "success", loaded.message);
  loaded.value.filter.free();
  return loaded.value.catalogVersion;
}

/** One line on stderr, no stack trace, matching every pattern. */
function assertOneLine(stderr, ...patterns) {
  const lines = stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one line, got:\n${stderr}`);
  for (const pattern of patterns) assert.match(lines[0], pattern);
  assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
}

before(async () => {
  dir = await tempDir("publish-versions");
  await writeHexList(at("a.txt"), digests("a", 100));
  await writeHexList(at("b.txt"), digests("b", 100));
});
after(async () => {
  await dir?.remove();
});

describe("publish: the version rule", () => {
  test("the same catalogVersion with other digests → exit 1, the old file intact, both versions in one line", async () => {
    assert.equal((await runCli(publishArgs(5, "a.txt", "same.abf1"))).code, 0);
    const old = await readFile(at("same.abf1"));
    const run = await runCli(publishArgs(5, "b.txt", "same.abf1"));
    assert.equal(run.code, 1, run.stderr);
    assertOneLine(
      run.stderr,
      /refusing to write catalogVersion 5 to .*same\.abf1, which holds catalogVersion 5 with other content/,
      /greater than 5/,
      /--allow-version-reuse/,
    );
    assert.deepEqual(await readFile(at("same.abf1")), old);
  });

  test("a lower catalogVersion → exit 1 naming both versions, the old file intact", async () => {
    assert.equal((await runCli(publishArgs(5, "a.txt", "lower.abf1"))).code, 0);
    const old = await readFile(at("lower.abf1"));
    const run = await runCli(publishArgs(4, "a.txt", "lower.abf1"));
    assert.equal(run.code, 1, run.stderr);
    assertOneLine(run.stderr, /catalogVersion 4 .*the newer catalogVersion 5/);
    assert.deepEqual(await readFile(at("lower.abf1")), old);
  });

  test("a byte-identical republish (a retry) and a greater catalogVersion are published", async () => {
    assert.equal((await runCli(publishArgs(5, "a.txt", "retry.abf1"))).code, 0);
    const retry = await runCli(publishArgs(5, "a.txt", "retry.abf1"));
    assert.equal(retry.code, 0, retry.stderr);
    const next = await runCli(publishArgs(6, "b.txt", "retry.abf1"));
    assert.equal(next.code, 0, next.stderr);
    assert.equal(await versionOf(at("retry.abf1")), 6);
  });

  test("--allow-version-reuse replaces the same and a lower catalogVersion", async () => {
    assert.equal((await runCli(publishArgs(5, "a.txt", "reuse.abf1"))).code, 0);
    const same = await runCli(publishArgs(5, "b.txt", "reuse.abf1", "--allow-version-reuse"));
    assert.equal(same.code, 0, same.stderr);
    const lower = await runCli(publishArgs(3, "b.txt", "reuse.abf1", "--allow-version-reuse"));
    assert.equal(lower.code, 0, lower.stderr);
    assert.equal(await versionOf(at("reuse.abf1")), 3);
  });

  test("an --out whose header does not load is refused (its version is unknown); the flag replaces it", async () => {
    await writeFile(at("junk.abf1"), "not a snapshot at all");
    const run = await runCli(publishArgs(5, "a.txt", "junk.abf1"));
    assert.equal(run.code, 1, run.stderr);
    assertOneLine(run.stderr, /refusing to replace .*junk\.abf1: its header does not load \(\w+\)/, /--allow-version-reuse/);
    assert.equal(await readFile(at("junk.abf1"), "utf8"), "not a snapshot at all");
    const forced = await runCli(publishArgs(5, "a.txt", "junk.abf1", "--allow-version-reuse"));
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(await versionOf(at("junk.abf1")), 5);
  });

  test("publish --help and merge --help state the rule and the flag", async () => {
    for (const command of ["publish", "merge"]) {
      const help = (await runCli([command, "--help"])).stdout;
      for (const rule of [/one catalogVersion names one catalog/, /--allow-version-reuse/, /byte-identical/, /versionConflict/]) {
        assert.match(help, rule, command);
      }
    }
  });
});

describe("merge: the version rule", () => {
  before(async () => {
    for (const [out, input] of [
      ["shard-a.abf1", "a.txt"],
      ["shard-b.abf1", "b.txt"],
    ]) {
      assert.equal((await runCli(publishArgs(1, input, out))).code, 0);
    }
  });
  const mergeArgs = (version, out, ...extra) => [
    "merge",
    at("shard-a.abf1"),
    at("shard-b.abf1"),
    "--catalog-version",
    String(version),
    "--out",
    at(out),
    ...extra,
  ];

  test("over a newer or same-version different OUT → exit 1, OUT intact; identical or greater → merged", async () => {
    assert.equal((await runCli(publishArgs(7, "a.txt", "merged.abf1"))).code, 0);
    const old = await readFile(at("merged.abf1"));
    for (const version of [6, 7]) {
      const run = await runCli(mergeArgs(version, "merged.abf1"));
      assert.equal(run.code, 1, run.stderr);
      assertOneLine(run.stderr, new RegExp(`^merge: refusing to write catalogVersion ${version} .*catalogVersion 7`));
      assert.deepEqual(await readFile(at("merged.abf1")), old);
    }
    assert.equal((await runCli(mergeArgs(8, "merged.abf1"))).code, 0);
    const again = await runCli(mergeArgs(8, "merged.abf1"));
    assert.equal(again.code, 0, again.stderr);
    const forced = await runCli(mergeArgs(2, "merged.abf1", "--allow-version-reuse"));
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(await versionOf(at("merged.abf1")), 2);
  });
});

describe("digest lists: bounded lines (D5)", () => {
  test(`a line longer than ${MAX_LINE_LENGTH} characters fails naming its line number and the limit`, async () => {
    const good = digests("g", 3).map((d) => Buffer.from(d).toString("hex"));
    await writeFile(at("long.txt"), `${good.join("\n")}\n${"0".repeat(MAX_LINE_LENGTH + 1)}\n${good[0]}\n`);
    const run = await runCli(publishArgs(1, "long.txt", "long.abf1"));
    assert.equal(run.code, 2, run.stderr);
    assertOneLine(run.stderr, new RegExp(`line 4: longer than ${MAX_LINE_LENGTH} characters`));
    // At the limit a line is judged as a line: not a digest, with its number.
    await writeFile(at("limit.txt"), `${good[0]}\n${" ".repeat(MAX_LINE_LENGTH - 64)}${good[1]}\n`);
    const limit = await runCli(publishArgs(1, "limit.txt", "limit.abf1"));
    assert.equal(limit.code, 0, limit.stderr);
  });

  test("an endless line with no newline on stdin is refused at once, not read to its end", async () => {
    // The writer never stops by itself: only a reader that gives up at the
    // limit ends this (the old reader joined and re-split the line forever).
    const child = spawn(
      process.execPath,
      [CLI, ...publishArgs(1, "a.txt", "endless.abf1").filter((arg, i, all) => arg !== "--input" && all[i - 1] !== "--input")],
      { stdio: ["pipe", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const chunk = Buffer.alloc(64 * 1024, "A");
    let written = 0;
    const pump = () => {
      while (child.exitCode === null && child.stdin.writable && child.stdin.write(chunk)) written += chunk.byteLength;
    };
    child.stdin.on("drain", pump);
    child.stdin.on("error", () => {}); // EPIPE once the CLI exits
    pump();
    const code = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`publish still reading after ${written} bytes and ${WAIT_MS} ms`));
      }, WAIT_MS);
      child.once("exit", (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    assert.equal(code, 2, stderr);
    assertOneLine(stderr, new RegExp(`line 1: longer than ${MAX_LINE_LENGTH} characters`));
  });
});
