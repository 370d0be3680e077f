// The package as users get it: `npm pack` of pkg/, installed into fresh
// projects, then loaded by every toolchain issue 12 names, each with no
// configuration for this package (no init call, no plugin, no
// optimizeDeps/asset rules). Every consumer runs fixtures/app.js and must
// give the real answers (members "maybe", a non-member "absent", the
// published snapshot loads fetched and from bytes, the variants entry works);
// pages and workers run in Debian's Chromium under a CSP that allows only
// 'self' and 'wasm-unsafe-eval', with zero console errors, failed requests
// or HTTP errors. Also: attw and publint on the package, and the TypeScript
// matrix. The measured table is printed with the test's output.
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { hasChromium, launchChromium } from "../browser/chromium.mjs";
import * as build from "./builders.mjs";
import {
  BIN,
  REPO,
  WORK,
  contentSecurityPolicy,
  freshProject,
  nodeOutcome,
  packPackage,
  pageHtml,
  pageOutcome,
  run,
  serveStatic,
} from "./harness.mjs";
import { TYPE_PROJECTS, compileTypeMatrix, declaredNames, usageMentions } from "./type-matrix.mjs";
import { EXPECTED, publishedSnapshot } from "./app-answers.mjs";

const viteCurrentVersion = JSON.parse(readFileSync(join(REPO, "node_modules", "vite-current", "package.json"), "utf8")).version;
const viteVersion = JSON.parse(readFileSync(join(REPO, "node_modules", "vite", "package.json"), "utf8")).version;

/** Runs `work` and turns a throw into a failed outcome (one broken consumer must not hide the others). */
async function attempt(work) {
  try {
    return await work();
  } catch (error) {
    return {
      ok: false,
      error: String(error?.stack ?? error)
        .split("\n")
        .slice(0, 4)
        .join(" | "),
    };
  }
}

const outcomes = new Map(); // consumer → { ok, result?, error?, problems?, notes? }
let packed;
let attw;
let publint;
let typeResults;
let browser;
const closers = [];
const built = {}; // toolchain → where its build ended up

before(async () => {
  rmSync(WORK, { recursive: true, force: true });
  packed = await packPackage();
  const snapshot = publishedSnapshot();
  const tarball = packed.tarball;
  const viteFiles = build.viteProjectFiles(snapshot);
  const importMap = JSON.stringify({
    imports: {
      "artifact-bloom": "./node_modules/artifact-bloom/web.js",
      "artifact-bloom/variants": "./node_modules/artifact-bloom/variants/index.js",
    },
  });
  const importMapTag = `<script type="importmap">${importMap}</script>`;
  const [bundlers, vite6, viteCurrent, plain, node, types] = await Promise.all([
    freshProject("bundlers", tarball, { files: { "app.js": "app.js", "page.js": "page.js", "node-main.js": "node-main.js" } }),
    freshProject("vite6", tarball, { files: viteFiles }),
    freshProject("vite-current", tarball, { files: viteFiles }),
    freshProject("plain", tarball, {
      files: {
        "app.js": "app.js",
        "page.js": "page.js",
        "worker.js": "worker.js",
        "worker-page.js": "worker-page.js",
        "index.html": { text: pageHtml("page.js", importMapTag) },
        "snapshot.abf1": { text: snapshot },
      },
    }),
    freshProject("node", tarball, {
      files: {
        "app.js": "app.js",
        "node-main.js": "node-main.js",
        "node-worker-threads.js": "node-worker-threads.js",
        "snapshot.abf1": { text: snapshot },
      },
    }),
    freshProject("types", tarball),
  ]);
  const workerDir = build.plainWorkerFiles(plain);
  writeFileSync(join(workerDir, "snapshot.abf1"), snapshot);
  const cjsMain = await build.commonJsCopies(node);

  // Builds, tools and the type matrix, concurrently (each bounded).
  const vite6Module = await import("vite");
  const viteCurrentModule = await import("vite-current");
  const buildErrors = {};
  const step = (key, work) =>
    attempt(async () => {
      built[key] = await work();
    }).then((failure) => {
      if (failure) buildErrors[key] = failure.error;
    });
  const buildFailure = (key) => ({ ok: false, error: `the build failed: ${buildErrors[key]}` });
  await Promise.all([
    step("esbuild", () => build.esbuildBrowser(bundlers, snapshot)),
    step("rollup", () => build.rollupBrowser(bundlers, snapshot)),
    step("webpack", () => build.webpackBrowser(bundlers, snapshot)),
    step("nodeEsm", () => build.esbuildNode(bundlers, "esm")),
    step("nodeCjs", () => build.esbuildNode(bundlers, "cjs")),
    step("vite6", () => build.viteBuild(vite6Module, vite6)),
    step("viteCurrent", () => build.viteBuild(viteCurrentModule, viteCurrent)),
  ]);
  [attw, publint, typeResults] = await Promise.all([
    run(join(BIN, "attw"), ["--pack", join(REPO, "pkg"), "--format", "table"]),
    run(join(BIN, "publint"), [join(REPO, "pkg"), "--strict"]),
    compileTypeMatrix(types),
  ]);

  // Node consumers, against the snapshot served on 127.0.0.1.
  const nodeServer = await serveStatic(node);
  closers.push(nodeServer.close);
  const snapshotUrl = `${nodeServer.url}snapshot.abf1`;
  const nodeRows = {
    "Node ESM (import)": () => nodeOutcome(join(node, "node-main.js"), snapshotUrl, node),
    "Node CommonJS (require)": () => nodeOutcome(cjsMain, snapshotUrl, node),
    "Node worker_threads": () => nodeOutcome(join(node, "node-worker-threads.js"), snapshotUrl, node),
    "esbuild --bundle --platform=node, ESM output (run alone)": () =>
      built.nodeEsm ? nodeOutcome(built.nodeEsm, snapshotUrl) : buildFailure("nodeEsm"),
    "esbuild --bundle --platform=node, CJS output (run alone)": () =>
      built.nodeCjs ? nodeOutcome(built.nodeCjs, snapshotUrl) : buildFailure("nodeCjs"),
  };
  await Promise.all(Object.entries(nodeRows).map(async ([name, row]) => outcomes.set(name, await attempt(row))));

  if (!hasChromium) return;
  browser = await launchChromium();
  const csp = { "content-security-policy": contentSecurityPolicy() };
  const served = async (dir, headers = csp) => {
    const server = await serveStatic(dir, headers);
    closers.push(server.close);
    return server.url;
  };
  const pageRows = {
    "esbuild --bundle --format=esm (browser)": async () =>
      built.esbuild ? pageOutcome(browser, await served(built.esbuild)) : buildFailure("esbuild"),
    "Rollup 4 + @rollup/plugin-node-resolve only": async () =>
      built.rollup ? pageOutcome(browser, await served(built.rollup)) : buildFailure("rollup"),
    "webpack 5 (mode, entry, output)": async () => {
      if (!built.webpack) return buildFailure("webpack");
      const outcome = await pageOutcome(browser, await served(built.webpack.dir));
      return {
        ...outcome,
        notes: built.webpack.warnings.length > 0 ? `webpack warnings: ${built.webpack.warnings.join("; ")}` : undefined,
      };
    },
    [`Vite ${viteVersion} build`]: async () =>
      built.vite6 ? pageOutcome(browser, await served(built.vite6)) : buildFailure("vite6"),
    [`Vite ${viteCurrentVersion} build (current)`]: async () =>
      built.viteCurrent ? pageOutcome(browser, await served(built.viteCurrent)) : buildFailure("viteCurrent"),
    [`Vite ${viteVersion} dev server`]: async () => {
      const server = await build.viteDevServer(vite6Module, vite6);
      closers.push(server.close);
      return pageOutcome(browser, server.url);
    },
    [`Vite ${viteCurrentVersion} dev server (current)`]: async () => {
      const server = await build.viteDevServer(viteCurrentModule, viteCurrent);
      closers.push(server.close);
      return pageOutcome(browser, server.url);
    },
    '<script type="module"> + import map, no bundler': async () => {
      const headers = { "content-security-policy": contentSecurityPolicy({ inlineScripts: [importMap] }) };
      return pageOutcome(browser, await served(plain, headers));
    },
    "module Web Worker, no bundler": async () => pageOutcome(browser, `${await served(plain)}worker/`),
  };
  for (const [name, row] of Object.entries(pageRows)) outcomes.set(name, await attempt(row));
  // Control: the CSP line the README gives is needed, so the page test can fail.
  const strict = { "content-security-policy": contentSecurityPolicy({ wasm: false, inlineScripts: [importMap] }) };
  outcomes.set(
    "control: import-map page, CSP without 'wasm-unsafe-eval'",
    await attempt(async () => pageOutcome(browser, await served(plain, strict))),
  );
});

after(async () => {
  await browser?.close();
  await Promise.all(closers.map((close) => close()));
  // The esbuild node bundles ran from their own temp directories.
  for (const file of [built.nodeEsm, built.nodeCjs]) if (file) rmSync(dirname(file), { recursive: true, force: true });
  const lines = ["| consumer | outcome |", "|---|---|"];
  for (const [name, outcome] of outcomes) {
    const answer = outcome.ok ? describeResult(outcome) : `fails: ${outcome.error ?? outcome.problems?.join("; ")}`;
    lines.push(`| ${name} | ${answer}${outcome.notes ? ` (${outcome.notes})` : ""} |`);
  }
  const report = `${lines.join("\n")}\n`;
  if (outcomes.size > 0) {
    process.stdout.write(`\n${report}`);
  }
});

function describeResult(outcome) {
  try {
    assert.deepEqual(outcome.result, EXPECTED);
    return outcome.problems && outcome.problems.length > 0 ? `fails: ${outcome.problems.join("; ")}` : "works";
  } catch {
    return `fails: wrong answers ${JSON.stringify(outcome.result)}`;
  }
}

describe("consumers of the packed tarball", () => {
  test("the tarball holds the entries, licenses and package README, and the .wasm files only the workerd entries import", () => {
    for (const file of [
      "web.js",
      "node.cjs",
      "node.mjs",
      "index.d.ts",
      "index.d.cts",
      "variants/index.js",
      "variants/index.cjs",
      "variants/index.mjs",
      "variants/index.d.ts",
      "variants/index.d.cts",
      "delta/index.js",
      "delta/index.cjs",
      "delta/index.mjs",
      "delta/index.d.ts",
      "delta/index.d.cts",
      "server/index.js",
      "server/index.cjs",
      "server/index.mjs",
      "server/index.d.ts",
      "server/index.d.cts",
      "artifact_bloom_instance.js",
      "artifact_bloom_embedded.js",
      "artifact_bloom_delta_embedded.js",
      "artifact_bloom_delta_instance.js",
      "LICENSE-MIT",
      "LICENSE-APACHE",
      "README.md",
      "docs/hosting.md",
      "docs/server.md",
      "docs/security.md",
    ]) {
      assert.ok(packed.files.includes(file), `${file} is not packed`);
    }
    // Every other entry embeds its wasm; workerd compiles only modules it is handed (js-tests/workerd-entry.test.mjs).
    assert.deepEqual(packed.files.filter((file) => file.endsWith(".wasm")).sort(), [
      "artifact_bloom_bg.wasm",
      "artifact_bloom_delta_bg.wasm",
      "artifact_bloom_variants_bg.wasm",
    ]);
    assert.ok(packed.files.includes("workerd/index.js"), "workerd/index.js is not packed");
  });

  const rows = [
    "Node ESM (import)",
    "Node CommonJS (require)",
    "Node worker_threads",
    "esbuild --bundle --platform=node, ESM output (run alone)",
    "esbuild --bundle --platform=node, CJS output (run alone)",
  ];
  const pageRows = [
    "esbuild --bundle --format=esm (browser)",
    "Rollup 4 + @rollup/plugin-node-resolve only",
    "webpack 5 (mode, entry, output)",
    `Vite ${viteVersion} build`,
    `Vite ${viteVersion} dev server`,
    `Vite ${viteCurrentVersion} build (current)`,
    `Vite ${viteCurrentVersion} dev server (current)`,
    '<script type="module"> + import map, no bundler',
    "module Web Worker, no bundler",
  ];
  for (const name of rows) {
    test(`${name}: real answers`, () => {
      const outcome = outcomes.get(name);
      assert.ok(outcome?.ok, outcome?.error ?? "no outcome");
      assert.deepEqual(outcome.result, EXPECTED);
    });
  }
  for (const name of pageRows) {
    test(`${name}: real answers in Chromium, zero console errors`, { skip: hasChromium ? false : "no /usr/bin/chromium" }, () => {
      const outcome = outcomes.get(name);
      assert.ok(outcome?.ok, outcome?.error ?? "no outcome");
      assert.deepEqual(outcome.problems, []);
      assert.deepEqual(outcome.result, EXPECTED);
    });
  }
  test("control: without 'wasm-unsafe-eval' in the CSP the page cannot compile the module", {
    skip: hasChromium ? false : "no /usr/bin/chromium",
  }, () => {
    const outcome = outcomes.get("control: import-map page, CSP without 'wasm-unsafe-eval'");
    assert.equal(outcome?.ok, false);
    assert.match(`${outcome.error} ${outcome.problems?.join(" ")}`, /WebAssembly|wasm-unsafe-eval|Content Security Policy/i);
  });
});

describe("tools written by others", () => {
  test("attw --pack: no problem for any entry point in node10, node16 (CJS, ESM), bundler", (t) => {
    t.diagnostic(attw.stdout.trim());
    assert.equal(attw.code, 0, `${attw.stdout}${attw.stderr}`);
    assert.match(attw.stdout, /No problems found/);
  });

  test("publint --strict: clean", (t) => {
    t.diagnostic(`${publint.stdout}${publint.stderr}`.trim());
    assert.equal(publint.code, 0, `${publint.stdout}${publint.stderr}`);
  });
});

describe("TypeScript matrix (usage.ts: every export of the three entries)", () => {
  test("usage.ts names every declaration of index.d.ts, variants/index.d.ts and delta/index.d.ts", () => {
    for (const dts of ["index.d.ts", join("variants", "index.d.ts"), join("delta", "index.d.ts")]) {
      const unused = declaredNames(join(REPO, "pkg", dts)).filter((name) => !usageMentions(name));
      assert.deepEqual(unused, [], `${dts}: declarations usage.ts does not use`);
    }
  });

  for (const name of Object.keys(TYPE_PROJECTS)) {
    test(`compiles: ${name}`, () => {
      assert.ok(typeResults[name].ok, typeResults[name].output);
    });
  }
});
