// Cloudflare Workers (issue 22, item 3): the packed tarball in a fresh
// project, a module Worker (fixtures/workerd-worker.js) bundled by wrangler 4
// with its default rules (`wrangler deploy --dry-run --outdir`), run in
// workerd by Miniflare 4 (workerd-runner.mjs). workerd compiles wasm only
// while a Worker starts up: the variants and delta entries, imported inside
// a request, and the main entry's SnapshotHolder, which loads the delta
// module on first use, must reach wasm that was compiled before (the
// `workerd` export condition: `.wasm` files imported as modules). The
// answers are compared with the same computations in this process (the
// Node build of the same package, fixtures/workerd-checks.js).
//
// Wrangler and Miniflare need Node ≥ 22: both run on the repo's Node 22.
// Nothing goes to the network: no metrics, no error reports, no banner (its
// update check), an update-check cache that says this version is the
// latest, Miniflare's `cf: false`, workerd on 127.0.0.1 port 0.
// Its own directory, not consumers.test.mjs's WORK.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import * as main from "artifact-bloom";
import * as delta from "artifact-bloom/delta";
import * as variants from "artifact-bloom/variants";
import { deltaAnswers, encodedDelta, holderAnswers, variantsAnswers } from "./fixtures/workerd-checks.js";
import { CONSUMER_ROOT, REPO, TIMEOUT_MS, freshProject, packPackage, run } from "./harness.mjs";

const work = join(CONSUMER_ROOT, "consumers-workerd");
const NODE22 = join(REPO, "tools", "node-runtimes", "node_modules", "node22", "bin", "node");
const WRANGLER = join(REPO, "node_modules", "wrangler", "bin", "wrangler.js");
const RUNNER = join(REPO, "js-tests", "consumers", "workerd-runner.mjs");
const versionOf = (name) => JSON.parse(readFileSync(join(REPO, "node_modules", name, "package.json"), "utf8")).version;
const wranglerVersion = versionOf("wrangler");
const COMPATIBILITY_DATE = "2026-07-01";

let bundled;
let ran;
let answers;

before(async () => {
  rmSync(work, { recursive: true, force: true });
  const { tarball } = await packPackage(work);
  const wranglerConfig = { name: "artifact-bloom-consumer", main: "src/index.js", compatibility_date: COMPATIBILITY_DATE };
  const project = await freshProject("worker", tarball, {
    work,
    files: {
      "src/index.js": "workerd-worker.js",
      "src/checks.js": "workerd-checks.js",
      "wrangler.json": { text: `${JSON.stringify(wranglerConfig, null, 2)}\n` },
    },
  });
  // wrangler's update check reads os.tmpdir()/update-check/wrangler-latest.json
  // first: a fresh entry naming this version means it never asks the registry.
  const tmp = join(work, "tmp");
  mkdirSync(join(tmp, "update-check"), { recursive: true });
  writeFileSync(
    join(tmp, "update-check", "wrangler-latest.json"),
    JSON.stringify({ latest: wranglerVersion, lastUpdate: Date.now() }),
  );
  const env = {
    CI: "1",
    TMPDIR: tmp,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    WRANGLER_HIDE_BANNER: "true",
    WRANGLER_NO_SKILLS_UPDATE_PROMPTS: "true",
    WRANGLER_LOG_PATH: join(work, "wrangler-logs"),
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
  };
  const dist = join(project, "dist");
  bundled = await run(NODE22, [WRANGLER, "deploy", "--dry-run", "--outdir", dist], { cwd: project, env });
  if (bundled.code !== 0) return;
  const deltaFile = join(work, "delta.abd1");
  writeFileSync(deltaFile, encodedDelta(main, delta));
  // The holder first: its delta module must not have been used by another route.
  ran = await run(NODE22, [RUNNER, dist, COMPATIBILITY_DATE, `/holder=${deltaFile}`, "/variants", "/delta"], {
    cwd: project,
    env,
    timeout: TIMEOUT_MS,
  });
  try {
    ({ answers } = JSON.parse(ran.stdout.trim().split("\n").pop()));
  } catch {
    answers = undefined;
  }
});

after(() => rmSync(work, { recursive: true, force: true }));

/** The Worker's answer on `path`, or a failure that says what went wrong. */
function workerAnswer(path) {
  assert.equal(bundled.code, 0, `wrangler deploy --dry-run failed:\n${bundled.stdout}${bundled.stderr}`);
  assert.ok(answers, `the Miniflare runner printed no answers (exit ${ran.code}):\n${ran.stdout}${ran.stderr}`);
  const answer = answers[path];
  assert.equal(answer.ok, true, `${path} threw inside the Worker: ${answer.error}`);
  return answer.result;
}

test(`wrangler ${wranglerVersion} bundles the Worker with the package's .wasm files as modules (the workerd condition)`, (t) => {
  assert.equal(bundled.code, 0, `${bundled.stdout}${bundled.stderr}`);
  const dist = readdirSync(join(work, "worker", "dist"));
  t.diagnostic(`dist: ${dist.join(", ")}`);
  for (const name of ["artifact_bloom_bg.wasm", "artifact_bloom_variants_bg.wasm", "artifact_bloom_delta_bg.wasm"]) {
    assert.equal(dist.filter((file) => file.endsWith(name)).length, 1, `one ${name} in ${dist.join(", ")}`);
  }
  // The embeddings and their decoder stay out: the Worker gets its wasm only as modules.
  assert.doesNotMatch(readFileSync(join(work, "worker", "dist", "index.js"), "utf8"), /unpackWasm|LZMA_UNPACK_WASM/);
});

test("inside a request, SnapshotHolder (main entry, imported at start-up) applies an ABD1 delta as in Node", async () => {
  const result = workerAnswer("/holder");
  const expected = await holderAnswers(main, encodedDelta(main, delta));
  assert.equal(result.outcome, "replaced", JSON.stringify(result));
  assert.equal(result.deltaRefreshCount, 1);
  assert.equal(result.current.catalogVersion, 43);
  assert.equal(result.current.targetMembersMaybe, 120);
  assert.deepEqual(result, expected);
});

test('inside a request, await import("artifact-bloom/variants") answers as in Node', () => {
  const result = workerAnswer("/variants");
  assert.equal(result.tlbfCat, true);
  assert.deepEqual(result, variantsAnswers(main, variants));
});

test('inside a request, await import("artifact-bloom/delta") encodes, reads and applies a delta as in Node', () => {
  const result = workerAnswer("/delta");
  assert.equal(result.applied.catalogVersion, 43);
  assert.equal(result.applied.targetMembersMaybe, 120);
  assert.deepEqual(result, deltaAnswers(main, delta));
});
