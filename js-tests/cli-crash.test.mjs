// Crash safety of `artifact-bloom publish`: readers (serve, CI jobs) read the
// snapshot path at any moment, so an interrupted publish must leave either the
// old snapshot byte for byte or the complete new one there — never a partial
// or missing file.
//
// The publish writes in 64 KiB chunks; ARTIFACT_BLOOM_TEST_WRITE_DELAY_MS=20
// (a hook in cli/publish.mjs) sleeps after each chunk, which stretches the
// write of a 539 KB snapshot (300k digests, p = 0.001: 9 chunks) to ~200 ms,
// so kills at random times land mid-write often; those runs accept either
// outcome. The runs that must kill inside the write window do not race the
// clock: ARTIFACT_BLOOM_TEST_STALL_AFTER_CHUNKS=N holds the writer after N
// chunks until it is killed. Kill times and N come from a seeded PRNG, so a
// failing schedule replays exactly.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { loadSnapshot } from "artifact-bloom";
import { hex, seededRandom, sha256 } from "./helpers/abf1.mjs";
import { CLI, isTempOf, publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";

const TARGET = "catalog.abf1";
const BIG_COUNT = 300_000;
const ENV = { ARTIFACT_BLOOM_TEST_WRITE_DELAY_MS: "20" };

let dir;
let v1;
let v2; // the complete v2 snapshot, from an uninterrupted publish
let fullPublishMs;
const at = (name) => join(dir.path, name);
const v2Args = (out) => ["publish", ...publishSizing(2, BIG_COUNT, 0.001), "--binary", "--input", at("v2.bin"), "--out", out];

before(async () => {
  dir = await tempDir("crash");
  await writeHexList(
    at("v1.txt"),
    Array.from({ length: 1000 }, (_, i) => sha256(`v1:${i}`)),
  );
  const published = await runCli(["publish", ...publishSizing(1, 1000, 0.01), "--input", at("v1.txt"), "--out", at(TARGET)]);
  assert.equal(published.code, 0, published.stderr);
  v1 = await readFile(at(TARGET));

  // 300k pseudo-random digests as packed records (no hashing needed: any
  // 32 bytes are a digest to the filter).
  const random = seededRandom(2024);
  const words = new Uint32Array(BIG_COUNT * 8);
  for (let i = 0; i < words.length; i += 1) words[i] = Math.floor(random() * 2 ** 32);
  await writeFile(at("v2.bin"), new Uint8Array(words.buffer));

  // One uninterrupted publish elsewhere: how long a full publish takes, and
  // what the complete v2 file is (publishing is deterministic).
  const started = performance.now();
  const reference = await runCli(v2Args(at("reference-v2.abf1")), { env: ENV });
  fullPublishMs = performance.now() - started;
  assert.equal(reference.code, 0, reference.stderr);
  v2 = await readFile(at("reference-v2.abf1"));
  await rm(at("reference-v2.abf1"));
  assert.ok(v2.byteLength > 8 * 64 * 1024, `v2 is ${v2.byteLength} bytes: several chunks`);
});

after(async () => {
  await dir.remove();
});

/**
 * Starts a v2 publish onto TARGET; resolves { exit: Promise<{code, signal}>, child }.
 * `extraEnv` adds test hooks (ARTIFACT_BLOOM_TEST_STALL_AFTER_CHUNKS).
 */
function startPublish(extraEnv = {}) {
  const child = spawn(process.execPath, [CLI, ...v2Args(at(TARGET))], {
    env: { ...process.env, ...ENV, ...extraEnv },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal, stderr })));
  return { child, exit };
}

/**
 * Polls until a publish temp file for TARGET holds at least `minBytes` (the
 * write has begun, or reached the chunk where a stalled writer waits). The
 * limit is generous: it only bounds a broken run, it never decides a pass.
 */
async function waitForTempFile(exit, minBytes = 0, limitMs = 60_000) {
  let exited = false;
  exit.then(() => {
    exited = true;
  });
  const deadline = performance.now() + limitMs;
  while (performance.now() < deadline && !exited) {
    for (const name of (await readdir(dir.path)).filter((n) => isTempOf(n, TARGET))) {
      const size = await stat(at(name)).then(
        (s) => s.size,
        () => -1,
      );
      if (size >= minBytes) return true;
    }
    await sleep(2);
  }
  return false;
}

const WRITE_CHUNK = 64 * 1024; // cli/replace.mjs writes in chunks of this size

/**
 * The invariant after any interruption: TARGET exists and is v1 byte for
 * byte, or is the complete v2 (which also loads as catalogVersion 2); the
 * only other new files are `.catalog.abf1.tmp-*`. Returns what it found.
 */
async function checkTarget() {
  const names = await readdir(dir.path);
  const temps = names.filter((n) => isTempOf(n, TARGET));
  const others = names.filter((n) => !isTempOf(n, TARGET));
  assert.deepEqual(others.sort(), [TARGET, "v1.txt", "v2.bin"].sort(), "no files other than the target, inputs and temp files");
  const bytes = await readFile(at(TARGET)); // throws if missing
  let state;
  if (Buffer.compare(bytes, v1) === 0) state = "v1";
  else if (Buffer.compare(bytes, v2) === 0) state = "v2";
  else assert.fail(`${TARGET} is neither v1 nor v2: ${bytes.byteLength} bytes`);
  if (state === "v2") {
    const loaded = loadSnapshot(new Uint8Array(bytes));
    assert.equal(loaded.kind, "success");
    assert.equal(loaded.value.catalogVersion, 2);
    loaded.value.filter.free();
  }
  const tempSizes = await Promise.all(temps.map(async (n) => (await stat(at(n))).size));
  return { state, temps, tempSizes };
}

/** Puts v1 back and removes leftovers, so each run starts from the same state. */
async function reset() {
  for (const name of await readdir(dir.path)) if (isTempOf(name, TARGET)) await rm(at(name));
  await writeFile(at(TARGET), v1);
}

describe("SIGKILL during publish never leaves a partial or missing snapshot", () => {
  test("10 kills at seeded random times in [0, full publish time]", async (t) => {
    const random = seededRandom(0xdead);
    const outcomes = [];
    for (let run = 0; run < 10; run += 1) {
      await reset();
      const delay = Math.round(random() * fullPublishMs);
      const { child, exit } = startPublish();
      await sleep(delay);
      child.kill("SIGKILL");
      const { code, signal, stderr } = await exit;
      const found = await checkTarget();
      if (signal !== "SIGKILL") assert.equal(code, 0, `finished before the kill but failed: ${stderr}`);
      outcomes.push(`${delay}ms:${signal ?? `exit ${code}`}:${found.state}:${found.temps.length} temp`);
    }
    // Shown with --test-reporter=spec; useful when tuning the delays.
    t.diagnostic(outcomes.join(", "));
  });

  test("4 kills inside the write window (a writer stalled after 1–8 of 9 chunks) leave v1 and a partial temp file", async () => {
    const random = seededRandom(0xbeef);
    for (let run = 0; run < 4; run += 1) {
      await reset();
      // The writer stops after `chunks` chunks until it is killed: the kill
      // lands mid-write whatever the scheduler does.
      const chunks = 1 + Math.floor(random() * 8);
      const { child, exit } = startPublish({ ARTIFACT_BLOOM_TEST_STALL_AFTER_CHUNKS: String(chunks) });
      assert.equal(await waitForTempFile(exit, chunks * WRITE_CHUNK), true, `the publish wrote ${chunks} chunks`);
      child.kill("SIGKILL");
      assert.equal((await exit).signal, "SIGKILL");
      const found = await checkTarget();
      assert.equal(found.state, "v1", "the rename cannot have happened mid-write");
      // SIGKILL allows no cleanup: the stray temp file is expected, and it is
      // the only trace. It is shorter than v2, i.e. really cut mid-write.
      assert.equal(found.temps.length, 1, `temp files: ${found.temps}`);
      assert.ok(found.tempSizes[0] < v2.byteLength, `temp file ${found.tempSizes[0]} of ${v2.byteLength} bytes`);
    }
  });
});

describe("SIGINT and SIGTERM during publish remove the temp file", () => {
  for (const signal of ["SIGINT", "SIGTERM"]) {
    test(`${signal} mid-write → v1 untouched, no temp file left, killed by ${signal}`, async () => {
      await reset();
      const { child, exit } = startPublish({ ARTIFACT_BLOOM_TEST_STALL_AFTER_CHUNKS: "3" });
      assert.equal(await waitForTempFile(exit, 3 * WRITE_CHUNK), true, "the publish wrote 3 chunks and waits");
      child.kill(signal);
      const result = await exit;
      // The handler removes the temp file, then re-raises the signal so the
      // parent sees a signal death (not a clean exit).
      assert.equal(result.signal, signal, `exit code ${result.code}: ${result.stderr}`);
      const found = await checkTarget();
      assert.equal(found.state, "v1");
      assert.deepEqual(found.temps, []);
      assert.equal(hex(await readFile(at(TARGET))), hex(v1));
    });
  }
});
