// "Each command loads only what it uses": asking a command for its --help,
// or giving it arguments it refuses, must not load the library (node.mjs,
// node.cjs and their wasm, nor the delta or variants builds) — a person
// reading the usage pays only for the usage. The CLI runs with a preload
// (helpers/record-loads.mjs) that records every module the ES-module loader
// loads and every WebAssembly compile or instantiate; a control case checks
// that the recorder does see the library when a command really uses it.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { ArtifactBloomFilter, encodeSnapshot } from "artifact-bloom";
import { runCli, tempDir } from "./helpers/cli.mjs";

const PRELOAD = pathToFileURL(new URL("./helpers/record-loads.mjs", import.meta.url).pathname).href;
// What "the library" is, by file: the package's entry points, their bridges
// and bundles, the wasm-bindgen glue, and a compile of any of the package's
// own wasm modules (by the SHA-256 of the shipped .wasm files: a wasm Node
// compiles for itself, like Node 22's llhttp for node:http, is not ours).
const LIBRARY_FILES =
  /\/(?:node\.mjs|node-bridge\.cjs|node\.cjs|(?:delta|variants)\/index(?:-bridge)?\.[cm]?js|artifact_bloom[a-z_]*\.js)$/;
const PACKAGE_DIR = dirname(createRequire(import.meta.url).resolve("artifact-bloom/package.json"));
const PACKAGE_WASM = new Set(
  readdirSync(PACKAGE_DIR)
    .filter((name) => name.endsWith(".wasm"))
    .map((name) =>
      createHash("sha256")
        .update(readFileSync(join(PACKAGE_DIR, name)))
        .digest("hex"),
    ),
);
const isLibrary = (entry) => LIBRARY_FILES.test(entry) || (entry.startsWith("wasm:") && PACKAGE_WASM.has(entry.split(" ").pop()));
const COMMANDS = ["publish", "inspect", "check", "merge", "serve", "push"];

let dir;
let snapshot;
let runs = 0;

before(async () => {
  dir = await tempDir("cli-lazy");
  const member = createHash("sha256").update("member").digest();
  const built = ArtifactBloomFilter.create([new Uint8Array(member)], { expectedItemCount: 10, targetFalsePositiveRate: 0.01 });
  if (built.kind === "failure") throw new Error(built.error);
  snapshot = join(dir.path, "catalog.abf1");
  writeFileSync(snapshot, encodeSnapshot(built.value, { catalogVersion: 3 }));
  built.value.free();
});

after(async () => {
  await dir.remove();
});

/** Runs the CLI under the recorder → the run and what it loaded (one entry per line of the log). */
async function runRecorded(args) {
  const log = join(dir.path, `loads-${runs++}.log`);
  writeFileSync(log, "");
  const ran = await runCli(args, { env: { NODE_OPTIONS: `--import=${PRELOAD}`, ARTIFACT_BLOOM_LOAD_LOG: log } });
  const loaded = readFileSync(log, "utf8").split("\n").filter(Boolean);
  rmSync(log);
  return { ...ran, loaded };
}

/** The library entries among what a run loaded (module URLs without the "module:" tag). */
const libraryLoads = (loaded) => loaded.map((line) => line.replace(/^module:/, "")).filter(isLibrary);

describe("the recorder sees the library when a command uses it (control)", () => {
  test("check SNAPSHOT HEX loads node.mjs and compiles its wasm", async () => {
    const ran = await runRecorded(["check", snapshot, "00".repeat(32)]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /^absent /);
    const library = libraryLoads(ran.loaded);
    assert.ok(
      library.some((entry) => entry.endsWith("/node.mjs")),
      `node.mjs not recorded: ${ran.loaded.join(", ")}`,
    );
    assert.ok(PACKAGE_WASM.size >= 3, "the package ships its three .wasm files");
    assert.ok(
      library.some((entry) => entry.startsWith("wasm:")),
      `no compile of the package's wasm recorded: ${ran.loaded.join(", ")}`,
    );
  });
});

describe("--help loads no library", () => {
  for (const command of COMMANDS) {
    for (const flag of ["--help", "-h"]) {
      test(`${command} ${flag}`, async () => {
        const ran = await runRecorded([command, flag]);
        assert.equal(ran.code, 0, ran.stderr);
        assert.match(ran.stdout, new RegExp(`^Usage: artifact-bloom ${command} `));
        // serve and push live in their families' folders (cli/serve/, cli/registry/).
        assert.ok(
          ran.loaded.some((line) => /\/cli\/(?:serve\/|registry\/)?[a-z-]+\.mjs$/.test(line) && line.endsWith(`/${command}.mjs`)),
          `the recorder missed ${command}.mjs`,
        );
        assert.deepEqual(libraryLoads(ran.loaded), []);
      });
    }
  }

  for (const args of [["--help"], ["--version"]]) {
    test(`artifact-bloom ${args.join(" ")}`, async () => {
      const ran = await runRecorded(args);
      assert.equal(ran.code, 0, ran.stderr);
      assert.deepEqual(libraryLoads(ran.loaded), []);
    });
  }
});

describe("usage errors load no library", () => {
  const cases = [
    ...COMMANDS.map((command) => [command]),
    ...COMMANDS.map((command) => [command, "--no-such-option"]),
    ["check", "catalog.abf1"],
    ["no-such-command"],
  ];
  for (const args of cases) {
    test(`artifact-bloom ${args.join(" ")} → exit 2`, async () => {
      const ran = await runRecorded(args);
      assert.equal(ran.code, 2, ran.stderr);
      assert.equal(ran.stdout, "");
      assert.match(ran.stderr, /^artifact-bloom: .*\n/);
      assert.deepEqual(libraryLoads(ran.loaded), []);
    });
  }
});
