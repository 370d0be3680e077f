// Rolldown (pinned in package-lock.json): the packed tarball in a fresh
// project, bundled for the browser with input, platform and output only,
// and the page that hashes a 3 MB file with hashFiles run in Chromium.
// Rolldown does not emit `new URL("./hash-worker.js", import.meta.url)`, so
// the page asks for a worker that is not there (issue 22, item 2):
// hashFiles must still give node:crypto's digest, from a Blob-URL worker, or
// from the calling thread where the CSP forbids blob: workers. Its own
// directory, not consumers.test.mjs's WORK (that file empties WORK when it
// starts).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hasChromium, launchChromium } from "../browser/chromium.mjs";
import { checkHashPage, serveTwice } from "./bundled-hashing.mjs";
import { CONSUMER_ROOT, REPO, freshProject, packPackage, pageHtml } from "./harness.mjs";

const work = join(CONSUMER_ROOT, "consumers-rolldown");
const rolldownVersion = JSON.parse(readFileSync(join(REPO, "node_modules", "rolldown", "package.json"), "utf8")).version;

let project;
let browser;
let served;

before(async () => {
  rmSync(work, { recursive: true, force: true });
  const { tarball } = await packPackage(work);
  project = await freshProject("rolldown", tarball, { work, files: { "hash-page.js": "hash-page.js" } });
});

after(async () => {
  await browser?.close();
  await served?.close();
  rmSync(work, { recursive: true, force: true });
});

test(`Rolldown ${rolldownVersion}: a browser bundle of a page that runs hashFiles on 3 MB in Chromium`, {
  skip: hasChromium ? false : "no Chromium",
}, async (t) => {
  const started = performance.now();
  const { rolldown } = await import("rolldown");
  const outDir = join(project, "dist-rolldown");
  const warnings = [];
  const bundle = await rolldown({
    input: join(project, "hash-page.js"),
    platform: "browser",
    cwd: project,
    onwarn: (warning) => warnings.push(warning.message),
  });
  await bundle.write({ dir: outDir, format: "es" });
  await bundle.close();
  t.diagnostic(`rolldown warnings: ${warnings.length === 0 ? "none" : warnings.join("; ")}`);
  writeFileSync(join(outDir, "index.html"), pageHtml("hash-page.js"));
  served = await serveTwice(outDir);
  browser = await launchChromium();
  await checkHashPage(browser, served);
  t.diagnostic(`wall ${((performance.now() - started) / 1000).toFixed(1)} s`);
});
