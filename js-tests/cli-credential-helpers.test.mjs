// Credential helpers and credential files can neither hang the CLI, nor make
// it print a secret, nor flood its memory (issue 32 §3.1–§3.3, §3.5). Before:
// a helper that is a shell script around `sleep 60` or `yes` outlived
// --timeout-ms (forever with `yes`: only the shell was killed, and the CLI
// waited for pipes the grandchild held); a helper that printed its answer and
// exited non-zero had its stdout — the secret — echoed; credential files and
// --ca-file were read to ≈ 570 MB; Basic credentials went over --plain-http
// without a word.
//
// Helpers are scripts on a temp PATH; HOME and DOCKER_CONFIG are temp dirs.
// The push never reaches a registry in the helper tests (the credentials are
// looked up first); the plain-HTTP one pushes to a closed port on 127.0.0.1.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { CLI, tempDir } from "./helpers/cli.mjs";
import { OciLayoutBuilder } from "./helpers/oci-layout.mjs";
import { publishDigests } from "./helpers/oci-steps.mjs";

/** The most any run here may take before the test kills it: generous, and far below "forever". */
const BOUND_MS = 30_000;
const SECRET = "S3cr3t-5a0c7e1f-do-not-print";
let dir;
let layout;
let snapshot;
let host;
const lines = (text) => text.split("\n").filter((line) => line !== "");

/** A port on 127.0.0.1 nothing listens on (asked of the OS, then closed). */
async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  dir = await tempDir("cli-credential-helpers");
  const builder = new OciLayoutBuilder();
  builder.tag("v1", builder.image({ layers: [builder.layer("helper-0")], label: "helpers" }));
  layout = await builder.write(join(dir.path, "layout"));
  snapshot = join(dir.path, "empty.abf1");
  await publishDigests(["0".repeat(64)], snapshot);
  host = `127.0.0.1:${await closedPort()}`;
  const bin = join(dir.path, "bin");
  await mkdir(bin);
  const helpers = {
    // A wrapper around a long sleep; it records the sleeper's pid.
    sleepy: ['sleep 60 & echo $! > "$HELPER_PIDS"', "wait"],
    // A wrapper around an endless writer.
    endless: ['yes & echo $! > "$HELPER_PIDS"', "wait"],
    // Prints its answer, then fails.
    leaky: [`printf '{"ServerURL":"x","Username":"ci","Secret":"${SECRET}"}'`, "echo 'keychain locked' >&2", "exit 1"],
    // Answers: for the plain-HTTP warning.
    good: [`printf '{"ServerURL":"x","Username":"ci","Secret":"${SECRET}"}'`],
  };
  for (const [name, body] of Object.entries(helpers)) {
    const path = join(bin, `docker-credential-${name}`);
    await writeFile(path, ["#!/bin/sh", "read -r server", ...body, ""].join("\n"));
    await chmod(path, 0o755);
  }
});
after(async () => {
  await dir?.remove();
});

/** `push` with DOCKER_CONFIG naming `helper` as credsStore (or the given config) → { code, stderr, stdout, ms }. */
async function pushWith(label, config, extra = []) {
  const root = join(dir.path, label);
  await mkdir(join(root, "docker"), { recursive: true });
  await mkdir(join(root, "home"), { recursive: true });
  await writeFile(join(root, "docker", "config.json"), typeof config === "string" ? config : JSON.stringify(config));
  const env = {
    ...process.env,
    HOME: join(root, "home"),
    XDG_RUNTIME_DIR: root,
    XDG_CONFIG_HOME: root,
    DOCKER_CONFIG: join(root, "docker"),
    REGISTRY_AUTH_FILE: "",
    PATH: `${join(dir.path, "bin")}${delimiter}${process.env.PATH}`,
    HELPER_PIDS: join(root, "pids"),
  };
  const args = [CLI, "push", layout, `${host}/helpers:v1`, "--snapshot", snapshot, "--plain-http", ...extra];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const started = Date.now();
  const timer = setTimeout(() => child.kill("SIGKILL"), BOUND_MS);
  const [code, signal] = await new Promise((resolve) => child.once("exit", (...result) => resolve(result)));
  clearTimeout(timer);
  return { code, signal, stdout, stderr, ms: Date.now() - started, pidsFile: env.HELPER_PIDS };
}

/** Whether process `pid` still exists. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function assertNoOrphan(pidsFile) {
  const pid = Number((await readFile(pidsFile, "utf8")).trim());
  assert.ok(pid > 0);
  // The group was killed before the CLI exited; a zombie reaped late is not "alive" for long: allow a bounded wait.
  for (let round = 0; round < 50 && alive(pid); round += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(alive(pid), false, `the helper's child ${pid} outlived the CLI`);
}

describe("§3.1: a helper is bounded by --timeout-ms, its whole process group", () => {
  for (const helper of ["sleepy", "endless"]) {
    test(`${helper}: one line, exit 2, within the bound, no process left`, async () => {
      const run = await pushWith(helper, { credsStore: helper }, ["--timeout-ms", "2000"]);
      assert.equal(run.signal, null, `killed at ${BOUND_MS} ms: the CLI did not stop (stderr: ${run.stderr.slice(0, 300)})`);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(lines(run.stderr).length, 1, run.stderr);
      assert.match(run.stderr, helper === "sleepy" ? /did not answer within 2000 ms/ : /printed more than \d+ bytes/);
      await assertNoOrphan(run.pidsFile);
    });
  }
});

describe("§3.2: a failing helper's stdout is never printed", () => {
  test("leaky: the helper, its exit status and its stderr; not the secret", async () => {
    const run = await pushWith("leaky", { credsStore: "leaky" });
    assert.equal(run.code, 2, run.stderr);
    assert.ok(!run.stderr.includes(SECRET) && !run.stdout.includes(SECRET), run.stderr);
    assert.match(run.stderr, /docker-credential-leaky get failed \(exit 1\); its stderr: keychain locked/);
  });
});

describe("§3.3: credential files are read up to a small cap", () => {
  test("config.json that is /dev/zero (a symlink): one line, exit 2", async () => {
    const root = join(dir.path, "zero-config");
    await mkdir(join(root, "docker"), { recursive: true });
    const { symlink } = await import("node:fs/promises");
    await symlink("/dev/zero", join(root, "docker", "config.json"));
    const child = spawn(process.execPath, [CLI, "push", layout, `${host}/helpers:v1`, "--snapshot", snapshot, "--plain-http"], {
      env: { ...process.env, HOME: root, DOCKER_CONFIG: join(root, "docker"), REGISTRY_AUTH_FILE: "", XDG_RUNTIME_DIR: root },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), BOUND_MS);
    const [code] = await new Promise((resolve) => child.once("exit", (...result) => resolve(result)));
    clearTimeout(timer);
    assert.equal(code, 2, stderr);
    assert.equal(lines(stderr).length, 1, stderr);
    assert.match(stderr, /larger than the largest/);
  });

  test("--ca-file /dev/zero: one line, exit 2", async () => {
    const run = await pushWith("zero-ca", {}, ["--ca-file", "/dev/zero"]);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(lines(run.stderr).length, 1, run.stderr);
    assert.match(run.stderr, /\/dev\/zero is larger than the largest --ca-file/);
  });
});

describe("§3.5: Basic credentials over --plain-http are warned about, once", () => {
  test("a password for the host: one warning naming the host, never the password", async () => {
    const run = await pushWith("plain", { credsStore: "good" }, ["--timeout-ms", "2000"]);
    const warnings = lines(run.stderr).filter((line) => /plain HTTP/.test(line));
    assert.equal(warnings.length, 1, run.stderr);
    assert.ok(warnings[0].includes(host), warnings[0]);
    assert.ok(!run.stderr.includes(SECRET), run.stderr);
  });
});
