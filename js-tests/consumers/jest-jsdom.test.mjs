// Jest with `testEnvironment: "jsdom"` (jest-environment-jsdom, pinned in
// package-lock.json with the same major as jest): the packed tarball in a
// fresh project whose only configuration is that line, as a React setup has
// it. jsdom lacks TextDecoder and TextEncoder; the package once threw
// `ReferenceError: TextDecoder is not defined` at import there (issue 22,
// item 4). Its own directory, not consumers.test.mjs's WORK, which that file
// empties when it starts (node --test runs the two files at once).
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BIN, CONSUMER_ROOT, REPO, freshProject, packPackage, run } from "./harness.mjs";
import { publishedSnapshot } from "./app-answers.mjs";

const work = join(CONSUMER_ROOT, "consumers-jest");
const jestVersion = JSON.parse(readFileSync(join(REPO, "node_modules", "jest", "package.json"), "utf8")).version;
const jsdomEnvironmentVersion = JSON.parse(
  readFileSync(join(REPO, "node_modules", "jest-environment-jsdom", "package.json"), "utf8"),
).version;

let project;
before(async () => {
  rmSync(work, { recursive: true, force: true });
  const { tarball } = await packPackage(work);
  project = await freshProject("jsdom", tarball, {
    type: "commonjs",
    work,
    files: { "filter.test.js": "jest-jsdom.js", "snapshot.abf1": { text: publishedSnapshot() } },
  });
  // The one line of configuration a jsdom project has.
  const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
  manifest.jest = { testEnvironment: "jsdom" };
  writeFileSync(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
});

after(() => rmSync(work, { recursive: true, force: true }));

test(`Jest ${jestVersion} + jest-environment-jsdom ${jsdomEnvironmentVersion}: the tarball imports and answers in jsdom`, async (t) => {
  // --ci: no snapshot writes; no cache directory left behind in the repo.
  const ran = await run(join(BIN, "jest"), ["--ci", "--no-cache", "--colors=false"], { cwd: project });
  const output = `${ran.stdout}${ran.stderr}`;
  t.diagnostic(output.trim().split("\n").slice(-6).join("\n"));
  assert.equal(ran.code, 0, output);
  assert.match(output, /Tests:\s+3 passed, 3 total/);
});
