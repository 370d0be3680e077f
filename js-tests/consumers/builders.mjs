// One function per toolchain: each builds the consumer fixture of a fresh
// project with no configuration beyond entry and output (what the
// toolchain's docs call the minimal setup), and returns where the page or
// program ended up. Bundlers are the repo's pinned devDependencies
// (package-lock.json), loaded from its node_modules.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mkdtemp } from "node:fs/promises";
import * as esbuild from "esbuild";
import { pageHtml } from "./harness.mjs";

/** Writes the page's index.html and the snapshot beside a built script. */
function finishPage(outDir, script, snapshot) {
  writeFileSync(join(outDir, "index.html"), pageHtml(script));
  writeFileSync(join(outDir, "snapshot.abf1"), snapshot);
  return outDir;
}

/** esbuild --bundle --format=esm (platform browser, the default). */
export async function esbuildBrowser(project, snapshot) {
  const outDir = join(project, "dist-esbuild");
  await esbuild.build({
    entryPoints: [join(project, "page.js")],
    bundle: true,
    format: "esm",
    outfile: join(outDir, "page.js"),
    logLevel: "error",
  });
  return finishPage(outDir, "page.js", snapshot);
}

/**
 * esbuild --bundle --platform=node with `format` output, copied to a
 * directory outside any node_modules: it must run on its own.
 */
export async function esbuildNode(project, format) {
  const file = format === "esm" ? "main.mjs" : "main.cjs";
  const outDir = join(project, `dist-node-${format}`);
  await esbuild.build({
    entryPoints: [join(project, "node-main.js")],
    bundle: true,
    platform: "node",
    format,
    outfile: join(outDir, file),
    logLevel: "error",
  });
  const alone = await mkdtemp(join(tmpdir(), `artifact-bloom-esbuild-${format}-`));
  cpSync(join(outDir, file), join(alone, file));
  return join(alone, file);
}

/** Rollup 4 with @rollup/plugin-node-resolve and nothing else. */
export async function rollupBrowser(project, snapshot) {
  const { rollup } = await import("rollup");
  const { nodeResolve } = await import("@rollup/plugin-node-resolve");
  const outDir = join(project, "dist-rollup");
  const warnings = [];
  const bundle = await rollup({
    input: join(project, "page.js"),
    plugins: [nodeResolve()],
    onwarn: (warning) => warnings.push(warning.message),
  });
  await bundle.write({ dir: outDir, format: "es" });
  await bundle.close();
  if (warnings.length > 0) throw new Error(`rollup warned: ${warnings.join("; ")}`);
  return finishPage(outDir, "page.js", snapshot);
}

/** webpack 5: mode, entry and output only. */
export async function webpackBrowser(project, snapshot) {
  const { default: webpack } = await import("webpack");
  const outDir = join(project, "dist-webpack");
  const stats = await new Promise((resolve, reject) => {
    webpack(
      { mode: "production", context: project, entry: "./page.js", output: { path: outDir, filename: "page.js" } },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  const info = stats.toJson({ all: false, errors: true, warnings: true });
  if (stats.hasErrors()) throw new Error(`webpack: ${info.errors.map((e) => e.message).join("; ")}`);
  return { dir: finishPage(outDir, "page.js", snapshot), warnings: info.warnings.map((w) => w.message.split("\n")[0]) };
}

/**
 * A Vite project (index.html + page.js, snapshot in public/): `vite` is the
 * module of the Vite to use (vite 6, or the current one installed under an
 * npm alias). No vite.config: root and outDir only, as `vite build` would.
 */
export async function viteBuild(vite, project) {
  await vite.build({ root: project, configFile: false, logLevel: "error", build: { outDir: "dist" } });
  return join(project, "dist");
}

/** Vite's dev server on 127.0.0.1 and a free port; resolves `{ url, close }`. */
export async function viteDevServer(vite, project) {
  const server = await vite.createServer({
    root: project,
    configFile: false,
    logLevel: "error",
    server: { host: "127.0.0.1", port: 0, strictPort: false },
  });
  await server.listen();
  const url = server.resolvedUrls?.local?.[0];
  if (url === undefined) {
    await server.close();
    throw new Error("the Vite dev server did not report its URL");
  }
  return { url, close: () => server.close() };
}

/** Files of a Vite project: index.html at the root, the snapshot in public/. */
export function viteProjectFiles(snapshot) {
  return {
    "index.html": { text: pageHtml("page.js") },
    "page.js": "page.js",
    "app.js": "app.js",
    "public/snapshot.abf1": { text: snapshot },
  };
}

/**
 * The fixture as CommonJS for `require()` consumers: esbuild's transform
 * (no bundling) turns each import into a require of the same specifier.
 */
export async function commonJsCopies(project) {
  for (const [from, to] of [
    ["app.js", "app.cjs"],
    ["node-main.js", "node-main.cjs"],
  ]) {
    const source = readFileSync(join(project, from), "utf8");
    const { code } = await esbuild.transform(source, { format: "cjs", platform: "node", target: "node20" });
    writeFileSync(join(project, to), code.replaceAll('require("./app.js")', 'require("./app.cjs")'));
  }
  return join(project, "node-main.cjs");
}

/** A module worker without a bundler: the worker imports the package by its path (workers have no import maps). */
export function plainWorkerFiles(project) {
  const dir = join(project, "worker");
  mkdirSync(dir, { recursive: true });
  const app = readFileSync(join(project, "app.js"), "utf8")
    .replace('from "artifact-bloom/variants"', 'from "../node_modules/artifact-bloom/variants/index.js"')
    .replace('from "artifact-bloom"', 'from "../node_modules/artifact-bloom/web.js"');
  writeFileSync(join(dir, "app.js"), app);
  cpSync(join(project, "worker.js"), join(dir, "worker.js"));
  cpSync(join(project, "worker-page.js"), join(dir, "worker-page.js"));
  writeFileSync(join(dir, "index.html"), pageHtml("worker-page.js"));
  return dir;
}
