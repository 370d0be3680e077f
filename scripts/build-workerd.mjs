// The `workerd` export condition's entries (Cloudflare Workers: wrangler,
// Miniflare, workerd), built by scripts/build.mjs into pkg/workerd/.
//
// workerd compiles wasm only while a Worker starts up: `new
// WebAssembly.Module(bytes)` anywhere later (inside a request, an alarm, or
// a module that a request imports) throws "CompileError: Wasm code
// generation disallowed by embedder". The other ES entries unpack and
// compile their embedded bytes on first use, which in a Worker is most
// often inside a request. So here each
// `*_embedded.js` is replaced by a module that imports its `.wasm` file as
// a module — wrangler's default rule for `*.wasm` hands over a
// WebAssembly.Module that workerd compiled at upload — and instantiates
// that: an instance needs no code generation, so it may be made at any
// time. Each module is instantiated on its first use, as elsewhere, only
// now from the module workerd compiled at upload.
//
// The three entries are one esbuild build with code splitting, so the lib
// modules they share (the main glue, ArtifactBloomFilter, the delta glue)
// are one chunk: one wasm instance per module in a Worker, and a filter
// made through `artifact-bloom` is the class `artifact-bloom/delta` checks.
// The chunks import the `.wasm` files as `../NAME_bg.wasm` (external), and
// no embedded bytes or LZMA decoder are in them.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

/** Where the entries go, inside the package; every output file is directly in it. */
export const WORKERD_DIR = "workerd";

/**
 * The stand-in for `${name}_embedded.js`: same export (`instantiate()`,
 * idempotent: the glue's initSync returns the instance it already has).
 * @param {string} name
 */
function compiledModuleSource(name) {
  return [
    `// The workerd build's ${name}_embedded.js (scripts/build-workerd.mjs): the compiled module, instantiated on call.`,
    `import compiled from "../${name}_bg.wasm";`,
    `import { initSync } from "./${name}.js";`,
    "",
    "export function instantiate() {",
    "  initSync({ module: compiled });",
    "}",
    "",
  ].join("\n");
}

/**
 * An esbuild plugin: every `*_embedded.js` of `names` becomes
 * compiledModuleSource, and the `.wasm` files it imports stay imports.
 * @param {string} pkg
 * @param {string[]} names
 */
function compiledWasmModules(pkg, names) {
  const embedded = new Map(names.map((name) => [`${name}_embedded.js`, name]));
  return {
    name: "workerd-compiled-wasm",
    setup(build) {
      build.onResolve({ filter: /_embedded\.js$/ }, (args) => {
        const name = embedded.get(args.path.split("/").pop());
        return name === undefined ? undefined : { path: name, namespace: "workerd-wasm" };
      });
      build.onLoad({ filter: /.*/, namespace: "workerd-wasm" }, (args) => ({
        contents: compiledModuleSource(args.path),
        resolveDir: pkg,
        loader: "js",
      }));
      build.onResolve({ filter: /_bg\.wasm$/ }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/**
 * Builds pkg/workerd/ from the ES entries of `modules` (build.mjs MODULES:
 * `name`, `entry`) and checks that each workerd entry exports exactly the
 * names of its ES entry (they share its .d.ts), carries no embedded
 * bytes, and is what package.json's `workerd` condition names.
 * @param {string} pkg the staging package directory
 * @param {{ name: string, entry: string }[]} modules
 * @returns {Promise<void>}
 */
export async function buildWorkerdEntries(pkg, modules) {
  const entryPoints = Object.fromEntries(
    modules.map((module) => [`${WORKERD_DIR}/${entryName(module.entry)}`, join(pkg, module.entry)]),
  );
  const built = await esbuild.build({
    absWorkingDir: pkg,
    entryPoints,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "neutral",
    outdir: pkg,
    chunkNames: `${WORKERD_DIR}/shared-[hash]`,
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
    // hashFiles' `new URL("./hash-worker.js", import.meta.url)` runs only
    // where `Worker` exists, which workerd does not have.
    plugins: [
      compiledWasmModules(
        pkg,
        modules.map((module) => module.name),
      ),
    ],
  });
  const { exports } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
  for (const module of modules) {
    const file = `${WORKERD_DIR}/${entryName(module.entry)}.js`;
    const output = built.metafile.outputs[file];
    if (output === undefined)
      throw new Error(`workerd build: no ${file} among ${Object.keys(built.metafile.outputs).join(", ")}`);
    const expected = Object.keys(await import(pathToFileURL(join(pkg, module.entry)).href)).sort();
    const actual = [...output.exports].sort();
    if (actual.join() !== expected.join()) {
      throw new Error(`workerd build: ${file} exports ${actual.join(", ")}, but ${module.entry} exports ${expected.join(", ")}`);
    }
    const subpath = module.entry === "web.js" ? "." : `./${entryName(module.entry)}`;
    const condition = exports[subpath]?.workerd;
    if (condition?.default !== `./${file}` || condition.types !== exports[subpath].import.types) {
      throw new Error(
        `workerd build: package.json exports["${subpath}"].workerd must be { types: ${exports[subpath]?.import?.types}, default: ./${file} }`,
      );
    }
  }
  for (const file of Object.keys(built.metafile.outputs)) {
    const text = readFileSync(join(pkg, file), "utf8");
    if (text.includes("unpackWasm")) throw new Error(`workerd build: ${file} still unpacks embedded wasm`);
    if (relative(WORKERD_DIR, file).includes("/")) throw new Error(`workerd build: ${file} is not directly in ${WORKERD_DIR}/`);
  }
}

/** `web.js` → `index`, `variants/index.js` → `variants`. */
function entryName(entry) {
  return entry === "web.js" ? "index" : entry.split("/")[0];
}
