// Bun (node_modules/.bin/bun, pinned in package-lock.json): the packed
// tarball in a fresh project with no configuration, three ways —
// `bun run` of a script (create, query, snapshots, hashFiles in Bun's own
// runtime), `bun test` of a test file, and `bun build --target=browser` of
// a page that hashes a 3 MB file with hashFiles in Chromium. Bun's bundler
// does not emit `new URL("./hash-worker.js", import.meta.url)`, so that page
// asks for a worker that is not there (issue 22, item 2): hashFiles must
// still answer, from a Blob-URL worker, or from the calling thread where
// the CSP forbids blob: workers. Its own directory, not consumers.test.mjs's
// WORK (that file empties WORK when it starts).
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hasChromium, launchChromium } from "../browser/chromium.mjs";
import { PAGE_DIGEST, checkHashPage, serveTwice } from "./bundled-hashing.mjs";
import { BIN, CONSUMER_ROOT, REPO, freshProject, packPackage, pageHtml, run, serveStatic } from "./harness.mjs";
import { EXPECTED, publishedSnapshot } from "./app-answers.mjs";

const work = join(CONSUMER_ROOT, "consumers-bun");
const BUN = join(BIN, "bun");
const bunVersion = JSON.parse(readFileSync(join(REPO, "node_modules", "bun", "package.json"), "utf8")).version;
// Bun keeps its caches and install state out of $HOME and the repo.
const env = { BUN_INSTALL_CACHE_DIR: join(work, ".bun-cache"), NO_COLOR: "1" };

let project;
let browser;
const closers = [];

before(async () => {
  rmSync(work, { recursive: true, force: true });
  const { tarball } = await packPackage(work);
  project = await freshProject("bun", tarball, {
    work,
    files: {
      "app.js": "app.js",
      "bun-main.js": "bun-main.js",
      "filter.test.js": "bun-filter.test.js",
      "hash-page.js": "hash-page.js",
      "snapshot.abf1": { text: publishedSnapshot() },
    },
  });
});

after(async () => {
  await browser?.close();
  for (const close of closers) await close();
  rmSync(work, { recursive: true, force: true });
});

/** Runs `work`, reporting its wall time as a diagnostic. */
async function timed(t, work) {
  const started = performance.now();
  try {
    return await work();
  } finally {
    t.diagnostic(`wall ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

test(`Bun ${bunVersion}: bun run of a script — create, query, snapshots, and hashFiles of 3 MB in Bun's runtime`, (t) =>
  timed(t, async () => {
    const server = await serveStatic(project);
    closers.push(server.close);
    const ran = await run(BUN, ["run", "bun-main.js", `${server.url}snapshot.abf1`], { cwd: project, env });
    const line = ran.stdout.trim().split("\n").pop();
    assert.equal(ran.code, 0, `${ran.stdout}${ran.stderr}`);
    const outcome = JSON.parse(line);
    assert.equal(outcome.ok, true, outcome.error);
    const { hashFiles, ...answers } = outcome.result;
    assert.deepEqual(answers, EXPECTED);
    assert.equal(hashFiles.error, undefined, hashFiles.error);
    assert.equal(hashFiles.digest, PAGE_DIGEST);
    t.diagnostic(`hashFiles runner in Bun: ${hashFiles.runner}`);
  }));

test(`Bun ${bunVersion}: bun test of a test file importing the package`, (t) =>
  timed(t, async () => {
    const ran = await run(BUN, ["test", "./filter.test.js"], { cwd: project, env });
    const output = `${ran.stdout}${ran.stderr}`;
    assert.equal(ran.code, 0, output);
    assert.match(output, /\b3 pass\b/);
    assert.match(output, /\b0 fail\b/);
  }));

test(
  `Bun ${bunVersion}: bun build --target=browser of a page that runs hashFiles on 3 MB in Chromium`,
  { skip: hasChromium ? false : "no Chromium" },
  (t) =>
    timed(t, async () => {
      const outDir = join(project, "dist-bun");
      const built = await run(BUN, ["build", "./hash-page.js", "--target=browser", "--outdir", outDir], { cwd: project, env });
      assert.equal(built.code, 0, `${built.stdout}${built.stderr}`);
      writeFileSync(join(outDir, "index.html"), pageHtml("hash-page.js"));
      const served = await serveTwice(outDir);
      closers.push(served.close);
      browser ??= await launchChromium();
      await checkHashPage(browser, served);
    }),
);
