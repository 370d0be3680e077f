// The CLI reads no more than the format allows, and every failure is one
// line (issue 32 §3.3–§3.5). Before: `check /dev/zero`, `inspect /dev/zero`
// and `serve --snapshot /dev/zero` grew memory without bound (1.5 GiB in
// 2–3 s), a file name with a newline forged a line of check's output, an
// allocation failure in publish printed a stack trace, and without
// WebAssembly every command died with the engine's bare ReferenceError.
//
// Bounds here are generous (a spawn timeout of 60 s, one stderr line): the
// point is that the commands stop, not how fast.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { copyFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { hex, sha256 } from "./helpers/digests.mjs";
import { CLI, publishSizing, runCli, tempDir } from "./helpers/cli.mjs";
import { runWithPeak } from "./helpers/peak-rss.mjs";
import { startServe, stopServe } from "./helpers/serve-process.mjs";

const BOUND_MS = 60_000;
let dir;
let snapshot;
let member;
let delta;
const at = (name) => join(dir.path, name);
before(async () => {
  dir = await tempDir("cli-input-bounds");
  const digests = Array.from({ length: 200 }, (_, i) => hex(sha256(`bounds:${i}`)));
  member = digests[0];
  await writeFile(at("list.txt"), `${digests.join("\n")}\n`);
  snapshot = at("c.abf1");
  const run = await runCli(["publish", ...publishSizing(1, 1000, 0.001), "--input", at("list.txt"), "--out", snapshot]);
  assert.equal(run.code, 0, run.stderr);
  // A delta from it, for inspect DELTA --base.
  await writeFile(at("list2.txt"), `${[...digests, hex(sha256("bounds:next"))].join("\n")}\n`);
  delta = at("d.abd1");
  const next = await runCli([
    "publish",
    ...publishSizing(2, 1000, 0.001),
    "--input",
    at("list2.txt"),
    "--out",
    at("c2.abf1"),
    "--delta-from",
    snapshot,
    "--delta-out",
    delta,
  ]);
  assert.equal(next.code, 0, next.stderr);
});
after(async () => {
  await dir?.remove();
});

/** `node [flags] CLI args…`, bounded → { code, stdout, stderr }. */
function runNode(flags, args) {
  const run = spawnSync(process.execPath, [...flags, CLI, ...args], { encoding: "utf8", timeout: BOUND_MS });
  return { code: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}
const lines = (text) => text.split("\n").filter((line) => line !== "");

describe("§3.3: a snapshot path that never ends is refused at the format's limit", () => {
  // Bound: the reader keeps at most the limit (≈ 128 MiB) in chunks plus one
  // joined copy, beside node itself (≈ 60 MiB): 1 GiB is far above that and
  // far below what an unbounded read reaches (1.5 GiB within 3 s, no end).
  const PEAK_BOUND_MIB = 1024;
  for (const args of [
    ["check", "/dev/zero", "0".repeat(64)],
    ["inspect", "/dev/zero"],
    ["inspect", "DELTA", "--base", "/dev/zero"],
    ["merge", "/dev/zero", "/dev/zero", "--catalog-version", "1", "--out", "OUT"],
  ]) {
    test(`${args
      .join(" ")
      .replace(/0{64}/, "HEX")
      .replace(/ --catalog.*/, "")}: one line, exit 2, bounded memory`, async () => {
      const named = { OUT: at("merged.abf1"), DELTA: delta };
      const run = await runWithPeak(process.execPath, [CLI, ...args.map((arg) => named[arg] ?? arg)], { timeoutMs: BOUND_MS });
      assert.equal(run.code, 2, run.stderr);
      assert.equal(lines(run.stderr).length, 1, run.stderr);
      assert.match(run.stderr, /\/dev\/zero is larger than the largest snapshot or delta file \(134218056 bytes\)/);
      assert.ok(run.peakMiB < PEAK_BOUND_MIB, `peak RSS ${run.peakMiB} MiB, bound ${PEAK_BOUND_MIB} MiB`);
    });
  }

  test("serve --snapshot /dev/zero: does not start, one line, exit 2", () => {
    const run = runNode([], ["serve", "--snapshot", "/dev/zero", "--catalog", at("list.txt"), "--port", "0"]);
    assert.equal(run.signal, null);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(lines(run.stderr).length, 1, run.stderr);
    assert.match(run.stderr, /larger than the largest snapshot/);
  });

  for (const command of ["check", "inspect", "serve"]) {
    test(`${command} reading a FIFO that never ends: one line, exit 2`, async () => {
      const fifo = at(`endless-${command}.fifo`);
      assert.equal(spawnSync("mkfifo", [fifo]).status, 0);
      const args = {
        check: ["check", fifo, member],
        inspect: ["inspect", fifo],
        serve: ["serve", "--snapshot", fifo, "--catalog", at("list.txt"), "--port", "0"],
      }[command];
      // The writer pours zeros until the reader closes the pipe (EPIPE ends it).
      const writer = spawn("sh", ["-c", `exec cat /dev/zero > '${fifo}'`], { stdio: "ignore" });
      try {
        const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (chunk) => {
          stderr += chunk;
        });
        const timer = setTimeout(() => child.kill("SIGKILL"), BOUND_MS);
        const [code, signal] = await new Promise((resolve) => child.once("exit", (...result) => resolve(result)));
        clearTimeout(timer);
        assert.equal(signal, null, "killed at the bound");
        assert.equal(code, 2, stderr);
        assert.equal(lines(stderr).length, 1, stderr);
        assert.match(stderr, /^artifact-bloom: \S+\.fifo is larger than the largest snapshot/);
      } finally {
        writer.kill("SIGKILL");
      }
    });
  }

  test("serve's GET /snapshot.meta.json of a sidecar that never ends: refused, the server keeps answering", async () => {
    const served = at("served.abf1");
    await copyFile(snapshot, served);
    await symlink("/dev/zero", `${served}.meta.json`);
    const server = await startServe(served, at("list.txt"));
    try {
      const response = await fetch(`${server.base}/snapshot.meta.json`, { signal: AbortSignal.timeout(BOUND_MS) });
      assert.equal(response.status, 500);
      await response.arrayBuffer();
      const snapshotResponse = await fetch(`${server.base}/snapshot`, { signal: AbortSignal.timeout(BOUND_MS) });
      assert.equal(snapshotResponse.status, 200);
      await snapshotResponse.arrayBuffer();
    } finally {
      await stopServe(server);
    }
  });
});

describe("§3.4: one file is always one line of check's output", () => {
  test("a file name with a newline and a forged 'absent' line is escaped as sha256sum does", async () => {
    const forged = `report.txt\nabsent ${member}  innocent.bin`;
    await writeFile(at(forged), "contents");
    const run = await runCli(["check", snapshot, at(forged)]);
    assert.equal(run.code, 0, run.stderr);
    const out = lines(run.stdout);
    assert.equal(out.length, 1, run.stdout);
    assert.ok(out[0].startsWith("\\"), out[0]);
    assert.ok(!out.some((line) => line.startsWith("absent") && line.includes(member)), run.stdout);
    assert.ok(out[0].endsWith(`report.txt\\nabsent ${member}  innocent.bin`), out[0]);
  });

  test("a plain name is printed as it is", async () => {
    await writeFile(at("plain.bin"), "contents");
    const run = await runCli(["check", snapshot, at("plain.bin")]);
    assert.match(run.stdout, /^(absent|maybe) {1,2}[0-9a-f]{64} {2}\/.*plain\.bin\n$/);
  });
});

describe("§3.5: every CLI failure is one line with the documented code", () => {
  test("publish that cannot reserve wasm memory: one line, exit 2, no stack", async () => {
    const digests = Array.from({ length: 300_000 }, (_, i) => hex(sha256(`big:${i}`)));
    await writeFile(at("big.txt"), `${digests.join("\n")}\n`);
    // 300 pages of 64 KiB for each wasm module (18.75 MiB): too little for
    // the bit array of 20M items at p = 0.001 (34 MiB). (The list's own
    // size no longer matters: runs are sorted in JavaScript, and 300,000
    // digests publish within those pages.)
    const run = runNode(
      ["--wasm-max-mem-pages=300"],
      ["publish", ...publishSizing(1, 20_000_000, 0.001), "--input", at("big.txt"), "--out", at("big.abf1")],
    );
    assert.equal(run.code, 2, run.stderr);
    assert.equal(lines(run.stderr).length, 1, run.stderr);
    assert.match(run.stderr, /outOfMemory: (could not reserve \d+ bytes|not enough memory)/);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  });

  // --help too: on Node 22, loading a command that touches fetch makes
  // undici compile its own wasm, an uncaught ReferenceError without WebAssembly.
  for (const args of [
    ["inspect", "SNAPSHOT"],
    ["check", "SNAPSHOT", "0".repeat(64)],
    ["publish", "--help"],
  ]) {
    test(`node --jitless ${args.join(" ").replace(/0{64}/, "HEX")}: one line, exit 2`, () => {
      const run = runNode(
        ["--jitless"],
        args.map((arg) => (arg === "SNAPSHOT" ? snapshot : arg)),
      );
      assert.equal(run.code, 2, run.stderr);
      const errors = lines(run.stderr).filter((line) => !line.startsWith("Warning:"));
      assert.equal(errors.length, 1, run.stderr);
      assert.match(errors[0], /this runtime has no WebAssembly/);
    });
  }
});
