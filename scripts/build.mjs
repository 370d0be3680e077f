#!/usr/bin/env node
// Builds the npm package into pkg/ (ignored by git):
//
//   1. wasm-pack compiles the crate three times for wasm32 and runs
//      wasm-bindgen (web target): the main module (default features: the
//      artifact filter, ABF1, SHA-256), the variants
//      module (`--no-default-features --features variants`: TLBF, mergeable,
//      scalable, sizing) and the delta module (`--features delta`:
//      ABD1 deltas: encode, compose and apply), so the main
//      entry carries neither;
//   2. wasm-opt (npm `binaryen`) optimizes each release .wasm;
//   3. each module's bytes are embedded in a generated `*_embedded.js`
//      (see `embeddedModule`), whose `instantiate()` compiles and
//      instantiates it synchronously; a generated `*_instance.js` hands it
//      to the module's glue, which calls it the first time it reaches into
//      wasm (scripts/wasm-glue.mjs), the same way for all three modules;
//      the main module's format constants are asked here once and written
//      into lib/wasm/format-rules.js, so loading the main entry compiles no
//      wasm;
//   4. pkg-template/ (package.json, README, the hand-written JS, .d.ts and
//      CLI) and the licenses are copied in; each .d.ts gets its .d.cts copy;
//   5. esbuild bundles each entry's Node build into one CommonJS file and an
//      ES-module face re-exports it (through a three-line CommonJS bridge),
//      so `require` and `import` share one wasm
//      instance;
//      esbuild also bundles hashFiles' worker (lib/hashing/hash-worker.js) into one
//      module, so a worker starts with one fetch;
//   6. the `workerd` condition's entries (scripts/build-workerd.mjs) import
//      the `.wasm` files as modules instead of the embeddings;
//   7. sizes are printed: each .wasm raw and gzipped, and each entry's
//      browser bundle (esbuild --bundle --minify, wasm included), gzipped.
//
// Usage: node scripts/build.mjs [--dev]   (--dev: debug wasm, no wasm-opt)
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { buildWorkerdEntries } from "./build-workerd.mjs";
import { emitTypes } from "./emit-types.mjs";
import { bytesFromBase64, lzmaDecode } from "../pkg-template/lib/wasm/wasm-bytes.js";
import { nodeEmbeddedModule, nodeEmbeddingFile, nodeEmbeddings } from "./node-embedding.mjs";
import { FIRST_USE_TYPINGS, firstUseInstanceModule, foldFormatRules, instantiatedOnFirstUse } from "./wasm-glue.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const finalPkg = join(root, "pkg");
/** npm `lzma` (LZMA-JS): a CommonJS encoder for the wasm embedding. */
const lzma = createRequire(import.meta.url)("lzma");
// Built in a staging directory and renamed over pkg/ at the end, so a test
// that is reading pkg/ while a rebuild runs never sees it half-written.
const pkg = join(root, `.pkg-staging-${process.pid}`);
const dev = process.argv.includes("--dev");

// Tools from `npm ci` (wasm-opt) come first on PATH; cargo's bin holds
// wasm-pack and wasm-bindgen.
const env = {
  ...process.env,
  PATH: [join(root, "node_modules", ".bin"), join(process.env.HOME ?? "/root", ".cargo", "bin"), process.env.PATH].join(":"),
};
const run = (command, args) => execFileSync(command, args, { cwd: root, env, stdio: "inherit" });

/**
 * The three wasm modules: the main entry's, `artifact-bloom/variants`' and
 * `artifact-bloom/delta`'s. `nodeShared` names lib modules that a Node
 * bundle must not carry a copy of but take from the main entry's node.cjs
 * (path relative to the bundle), so both share one wasm instance.
 *
 * Each is compiled and instantiated on first use, never at import:
 * `*_instance.js` hands the instantiation to the glue, which calls it the
 * first time it reaches into wasm (scripts/wasm-glue.mjs). A process that
 * imports the package and never queries compiles nothing (compiling the
 * main module is ≈ 5 ms of a fresh Node 20 process's CPU:
 * bench/import-cost.mjs), a page that imports SnapshotHolder compiles the
 * delta module only when a delta arrives, and no module is compiled while
 * a Worker's global scope is evaluated.
 */
const MODULES = [
  {
    label: "main entry",
    name: "artifact_bloom",
    cargo: [],
    entry: "web.js",
    nodeEntry: "node-entry.js",
    node: "node",
    // SnapshotHolder's lazily imported delta apply: the delta entry's own
    // bundle, so Node embeds and instantiates the delta module once.
    // The OCI client: the /oci entry's bundle (no wasm), so OciRegistryError
    // is one class whichever entry a program imports it from.
    nodeShared: { "delta-apply.js": "./delta/index.cjs", "oci-repository.js": "./oci/index.cjs" },
  },
  {
    label: "variants",
    name: "artifact_bloom_variants",
    cargo: ["--no-default-features", "--features", "variants"],
    entry: "variants/index.js",
    nodeEntry: "variants/index.js",
    node: "variants/index",
  },
  {
    label: "delta",
    name: "artifact_bloom_delta",
    cargo: ["--no-default-features", "--features", "delta"],
    entry: "delta/index.js",
    nodeEntry: "delta/node-entry.js",
    node: "delta/index",
    nodeShared: { "delta-main.js": "../node.cjs" },
  },
];

/**
 * `artifact-bloom/server`: Node bundles only, and no wasm module of its own.
 * It takes the main module's functions from node.cjs and the delta module's
 * from delta/index.cjs (`nodeShared`, as for the delta entry), so a process
 * that imports all three holds one instance of each module.
 */
const SERVER_ENTRY = {
  label: "server",
  nodeEntry: "server/index.js",
  node: "server/index",
  nodeShared: { "server-main.js": "../node.cjs", "server-delta.js": "../delta/index.cjs" },
};

/**
 * `artifact-bloom/oci`: the OCI Distribution client, pure JavaScript. Node
 * bundles only; built first, since the main entry's node.cjs requires it
 * (its OciRegistryError and OciRegistryRepository).
 */
const OCI_ENTRY = { label: "oci", nodeEntry: "oci/index.js", node: "oci/index" };

/**
 * An esbuild plugin that leaves each module of `shared` (by file name) out
 * of the bundle, as a require of the file it names.
 * @param {Record<string, string>} shared
 */
function sharedModules(shared) {
  return {
    name: "shared-modules",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        const name = args.path.split("/").pop();
        return Object.hasOwn(shared, name) ? { path: shared[name], external: true } : undefined;
      });
    },
  };
}

const started = Date.now();
rmSync(pkg, { recursive: true, force: true });
mkdirSync(pkg);
cpSync(join(root, "pkg-template"), pkg, { recursive: true });
for (const license of ["LICENSE-MIT", "LICENSE-APACHE"]) cpSync(join(root, license), join(pkg, license));
// The browser precheck page ships too, so `artifact-bloom serve` works from npm.
cpSync(join(root, "www"), join(pkg, "www"), { recursive: true });
// The hosting guide ships too: the README links it, and a team setting up a
// CDN has the package, not necessarily the repository.
mkdirSync(join(pkg, "docs"));
cpSync(join(root, "docs", "hosting.md"), join(pkg, "docs", "hosting.md"));
cpSync(join(root, "docs", "server.md"), join(pkg, "docs", "server.md"));
cpSync(join(root, "docs", "security.md"), join(pkg, "docs", "security.md"));

// The LZMA decoder the instance modules unpack with (tools/lzma-unpack: no
// std, no allocator, 16 KiB of stack instead of rustc's default 1 MiB, so an
// instance starts with 2 pages of memory), written into lib/wasm/wasm-bytes.js.
const unpacker = join(root, "tools", "lzma-unpack");
execFileSync("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown"], {
  cwd: unpacker,
  env: { ...env, RUSTFLAGS: "-C link-arg=-zstack-size=16384" },
  stdio: "inherit",
});
const unpackerWasm = join(root, "target", "lzma_unpack.wasm");
mkdirSync(dirname(unpackerWasm), { recursive: true });
run("wasm-opt", [
  "-Oz",
  "--strip-debug",
  "--strip-producers",
  "--enable-bulk-memory",
  "--enable-sign-ext",
  "--enable-mutable-globals",
  join(unpacker, "target", "wasm32-unknown-unknown", "release", "lzma_unpack.wasm"),
  "-o",
  unpackerWasm,
]);
const unpackerBytes = readFileSync(unpackerWasm);
const wasmBytesModule = join(pkg, "lib", "wasm", "wasm-bytes.js");
const placeholder = '"@LZMA_UNPACK_WASM@"';
const wasmBytesSource = readFileSync(wasmBytesModule, "utf8");
if (!wasmBytesSource.includes(placeholder)) throw new Error("lib/wasm/wasm-bytes.js lost its decoder placeholder");
writeFileSync(wasmBytesModule, wasmBytesSource.replace(placeholder, JSON.stringify(unpackerBytes.toString("base64"))));

for (const module of MODULES) {
  const out = join(root, "target", "wasm-pack-out", module.name);
  run("wasm-pack", [
    "build",
    dev ? "--dev" : "--release",
    "--target",
    "web",
    "--mode",
    "no-install", // never download helpers: wasm-bindgen comes from PATH
    "--out-dir",
    out,
    "--out-name",
    module.name,
    "--no-pack",
    "--no-opt",
    "--",
    ...module.cargo,
  ]);
  const rawWasm = join(out, `${module.name}_bg.wasm`);
  const wasm = join(pkg, `${module.name}_bg.wasm`);
  if (dev) {
    cpSync(rawWasm, wasm);
  } else {
    // The features rustc enables by default for wasm32 must be allowed explicitly.
    run("wasm-opt", [
      "-O3",
      "--strip-debug",
      "--strip-producers",
      "--enable-bulk-memory",
      "--enable-nontrapping-float-to-int",
      "--enable-sign-ext",
      "--enable-mutable-globals",
      "--enable-reference-types",
      "--enable-multivalue",
      "--enable-simd",
      rawWasm,
      "-o",
      wasm,
    ]);
  }
  // src/wasm/error.rs imports `codedError` from the crate-root path of
  // pkg-template/lib/core/errors.js, which wasm-bindgen copies under snippets/:
  // the glue uses the package's own lib/core/errors.js instead (one module, so
  // the messages and `codeOf` are the ones the rest of lib/ uses).
  const glue = readFileSync(join(out, `${module.name}.js`), "utf8").replace(
    /(["'])\.\/snippets\/[^"']*\/pkg-template\/lib\/core\/errors\.js\1/g,
    '"./lib/core/errors.js"',
  );
  if (glue.includes("snippets/")) throw new Error(`${module.name}.js imports a snippet the package does not ship`);
  // The glue made a TextDecoder at import, which jsdom (Jest's "jsdom"
  // environment) lacks: lib/core/text-codec.js makes one on first decode, or
  // decodes itself where the host has none.
  const decoding = glue.replaceAll("new TextDecoder('utf-8', { ignoreBOM: true })", "wasmTextDecoder()");
  if (decoding.includes("new TextDecoder")) throw new Error(`${module.name}.js makes a TextDecoder build.mjs does not rewrite`);
  const decoded = decoding === glue ? glue : `import { wasmTextDecoder } from "./lib/core/text-codec.js";\n${decoding}`;
  const lazyGlue = instantiatedOnFirstUse(decoded, module.name);
  // Cargo.toml sets omit-default-module-path: a `new URL("…_bg.wasm",
  // import.meta.url)` left in the glue would make webpack and Vite emit or
  // fetch a file nothing needs.
  if (glue.includes("import.meta")) throw new Error(`${module.name}.js still refers to import.meta`);
  writeFileSync(join(pkg, `${module.name}.js`), lazyGlue);
  // wasm-bindgen's typings of the raw layer: the JSDoc of lib/ is checked against them.
  const typings = readFileSync(join(out, `${module.name}.d.ts`), "utf8");
  writeFileSync(join(pkg, `${module.name}.d.ts`), `${typings}${FIRST_USE_TYPINGS}`);
  writeFileSync(join(pkg, `${module.name}_embedded.js`), embeddedModule(module.name, readFileSync(wasm)));
  writeFileSync(join(pkg, nodeEmbeddingFile(module.name)), nodeEmbeddedModule(module.name, readFileSync(wasm), bytesFromBase64));
  writeFileSync(join(pkg, `${module.name}_instance.js`), firstUseInstanceModule(module.name));
}

/**
 * The module that holds `name`'s wasm, its bytes embedded as base64 of an
 * LZMA stream (npm `lzma`, level 9), which `lib/wasm/wasm-bytes.js` unpacks
 * synchronously with tools/lzma-unpack's wasm, and exports `instantiate()`.
 * `${name}_instance.js` hands it to the glue for first use (see MODULES),
 * so a process or worker that never reaches into a module (the hashing
 * worker digesting whole files with WebCrypto) never unpacks, compiles or
 * holds it. Measured on the main
 * module (96.2 KiB): gzipped, hex text was 45.4 KiB and base64 of deflate
 * 41.6; base64 of LZMA is 33.2 (gzip finds nothing more in it), so the page
 * downloads ≈ 12 KiB less for a decoder of ≈ 2 KiB gzipped. The embedding is
 * decoded here with the package's own decoder and compared with the module,
 * so what ships is known to unpack to exactly these bytes.
 */
function embeddedModule(name, bytes) {
  const packed = Buffer.from(lzma.compress(bytes, 9).map((byte) => byte & 0xff)).toString("base64");
  if (!Buffer.from(lzmaDecode(Buffer.from(packed, "base64"), unpackerBytes)).equals(bytes))
    throw new Error(`${name}: the LZMA embedding does not unpack to the module`);
  return [
    `// Generated by scripts/build.mjs from ${name}_bg.wasm (${bytes.length} bytes): do not edit.`,
    "// No side effect at import: `instantiate()` (idempotent) compiles and instantiates the module synchronously.",
    `import { initSync } from "./${name}.js";`,
    'import { unpackWasm } from "./lib/wasm/wasm-bytes.js";',
    "",
    "let instantiated = false;",
    "",
    "export function instantiate() {",
    "  if (instantiated) return;",
    `  initSync({ module: unpackWasm("${packed}") });`,
    "  instantiated = true;",
    "}",
    "",
  ].join("\n");
}

// The main module's format constants, as numbers (scripts/wasm-glue.mjs).
const formatConstants = await foldFormatRules(pkg, MODULES[0].name);

// lib/*.d.ts, index.d.ts, variants/index.d.ts and their .d.cts copies,
// emitted by tsc from the JSDoc (the one source of the public types).
emitTypes(pkg);

// hashFiles' module worker as one file (after the types: they are emitted
// from its source). A module worker fetches and links its whole import
// graph before it can take a message; unbundled, with the dozen lib modules
// behind it, a fresh worker was ready after 96–127 ms in Chromium here, as
// one file after 27–47 ms (a throwaway variant of bench/browser.mjs's page;
// docs/browser-performance.md). Bundlers that build the worker
// themselves (`new Worker(new URL(…))`) see a module without imports.
await esbuild.build({
  absWorkingDir: pkg,
  entryPoints: ["lib/hashing/hash-worker.js"],
  bundle: true,
  format: "esm",
  outfile: join(pkg, "lib", "hashing", "hash-worker.js"),
  allowOverwrite: true,
  legalComments: "none",
  logLevel: "warning",
});

// The `workerd` export condition's entries (Cloudflare Workers): workerd/,
// one code-split bundle whose wasm comes from the shipped `.wasm` files
// imported as modules, since workerd refuses to compile wasm after start-up
// (scripts/build-workerd.mjs).
await buildWorkerdEntries(pkg, MODULES);

// One CommonJS bundle per entry for Node; the ESM face lists its names
// explicitly so static `import { X }` works on every Node ≥ 20.
const require = createRequire(import.meta.url);
const exportsOf = {};
for (const module of [OCI_ENTRY, ...MODULES, SERVER_ENTRY]) {
  const cjs = join(pkg, `${module.node}.cjs`);
  await esbuild.build({
    entryPoints: [join(pkg, module.nodeEntry)],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile: cjs,
    logLevel: "warning",
    // hashFiles' `new URL("./hash-worker.js", import.meta.url)` only runs
    // where `Worker` exists (browsers); in Node it hashes with node:crypto.
    logOverride: { "empty-import-meta": "silent" },
    plugins: [nodeEmbeddings(), ...(module.nodeShared ? [sharedModules(module.nodeShared)] : [])],
  });
  const api = require(cjs);
  // `_`-names are internal (node-entry.js's `_fetchSnapshotWith` and
  // `_encodeSnapshotUnsealed`, which
  // the delta entry's Node build takes from node.cjs): not in the ESM face.
  const names = Object.keys(api).filter((name) => name !== "default" && name !== "__esModule" && !name.startsWith("_"));
  exportsOf[module.label] = names;
  const base = module.node.split("/").pop();
  // node.mjs reaches node.cjs through a three-line CommonJS bridge, not
  // `import api from "./node.cjs"`: (1) Node's CommonJS-in-ESM path runs
  // cjs-module-lexer over the file it imports, and over the 213 kB bundle
  // that cost more than loading it (import +64 vs require +22 ms CPU over
  // a bare Node 20; bench/import-cost.mjs); the bridge is what it lexes.
  // (2) The bridge's exports object has no `__esModule`, so a bundler's
  // interop that honours the bundle's own (Turbopack's) hands back the
  // module object, not its `default`. The require() inside is a plain one
  // that every bundler follows, so a node bundle still runs alone.
  writeFileSync(
    join(pkg, `${module.node}-bridge.cjs`),
    [
      `// Generated by scripts/build.mjs: how ${base}.mjs loads ${base}.cjs (see build.mjs for why a bridge).`,
      `module.exports = { api: require("./${base}.cjs") };`,
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(pkg, `${module.node}.mjs`),
    [
      `// Generated by scripts/build.mjs: the ES-module face of ${base}.cjs (one module, one wasm instance).`,
      `import bridge from "./${base}-bridge.cjs";`,
      "const { api } = bridge;",
      `export const { ${names.join(", ")} } = api;`,
      ...("default" in api ? ["export default api.default;"] : []),
      "",
    ].join("\n"),
  );
}
rmSync(join(pkg, "node-entry.js"));
rmSync(join(pkg, "delta", "node-entry.js"));
for (const module of MODULES) rmSync(join(pkg, nodeEmbeddingFile(module.name)));

// Sizes, measured before the swap so a failure leaves the old pkg/ in place.
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const gzipped = (bytes) => gzipSync(bytes, { level: 9 }).length;
const BUNDLE_INPUTS = {
  // The four imports of a typical page: what the main entry's target is measured on.
  "main entry": 'export { ArtifactBloomFilter, loadSnapshot, fetchSnapshot, Sha256 } from "./web.js";',
  variants: 'export * from "./variants/index.js";',
  // The server's delta functions: the delta module and the main one.
  delta: 'export * from "./delta/index.js";',
};
/** The size target (docs/performance.md): the main entry's browser bundle, gzipped. */
const BUNDLE_TARGETS = { "main entry": 40 * 1024 };
const sizes = [];
for (const module of MODULES) {
  const wasm = readFileSync(join(pkg, `${module.name}_bg.wasm`));
  const bundle = await esbuild.build({
    stdin: { contents: BUNDLE_INPUTS[module.label], resolveDir: pkg, sourcefile: "measure.js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "warning",
  });
  const js = bundle.outputFiles[0].contents;
  const target = BUNDLE_TARGETS[module.label];
  const verdict = target === undefined ? "" : ` (target ≤ ${kib(target)}: ${gzipped(js) <= target ? "MET" : "MISSED"})`;
  sizes.push(
    `  ${module.label.padEnd(10)} ${module.name}_bg.wasm ${kib(wasm.length)} raw, ${kib(gzipped(wasm))} gzipped; `
      + `browser bundle (esbuild --bundle --minify, wasm embedded) ${kib(js.length)}, ${kib(gzipped(js))} gzipped${verdict}`,
  );
}

const retired = join(root, `.pkg-retired-${process.pid}`);
rmSync(retired, { recursive: true, force: true });
try {
  renameSync(finalPkg, retired);
} catch (error) {
  if (error.code !== "ENOENT") throw error;
}
renameSync(pkg, finalPkg);
rmSync(retired, { recursive: true, force: true });

console.log(`\nartifact-bloom built into pkg/ in ${((Date.now() - started) / 1000).toFixed(1)} s (${dev ? "dev" : "release"})`);
for (const line of sizes) console.log(line);
for (const [label, names] of Object.entries(exportsOf)) console.log(`  ${label} exports: ${names.join(", ")}`);
console.log(
  `  format constants (lib/wasm/format-rules.js): ${Object.entries(formatConstants)
    .map(([name, value]) => `${name} = ${value}`)
    .join(", ")}`,
);
