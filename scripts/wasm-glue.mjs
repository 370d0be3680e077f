// Two build steps (scripts/build.mjs) that let the main wasm module be
// compiled on first use instead of at import:
//
//   - `instantiatedOnFirstUse` rewrites wasm-bindgen's glue so that its
//     `wasm` (the instance's exports, which every glue function reads)
//     starts as a stand-in whose first property read instantiates the
//     module through `${name}_embedded.js` (whichever embedding the entry
//     bundles: LZMA, base64 for Node, or workerd's compiled module).
//   - `foldFormatRules` asks the built module for the format constants of
//     lib/wasm/format-rules.js and writes the numbers into the package's
//     copy, so a module that reads them at import compiles nothing.
//
// Why: compiling the main module is most of what loading the package costs
// a fresh Node 20 process (V8 11 compiles every function of a module up
// front; Node 24 compiles lazily), and a process that never builds or
// queries a filter (a CLI's --help, a server that only serves files) need
// not pay it. bench/import-cost.mjs measures both import alone and import
// followed by a first query.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const DECLARATION = "let wasmModule, wasmInstance, wasm;";
const GUARD = "if (wasm !== undefined) return wasm;";

/**
 * `glue` (wasm-bindgen's web-target glue of module `name`) with its `wasm`
 * instantiated on first use. Throws if the glue is not shaped as expected
 * (one declaration, the two `init` guards), so a wasm-bindgen upgrade that
 * changes it fails the build instead of shipping an eager or broken glue.
 * @param {string} glue
 * @param {string} name
 * @returns {string}
 */
export function instantiatedOnFirstUse(glue, name) {
  const declarations = glue.split(DECLARATION).length - 1;
  const guards = glue.split(GUARD).length - 1;
  if (declarations !== 1 || guards !== 2) {
    throw new Error(`${name}.js: expected one "${DECLARATION}" and two "${GUARD}", found ${declarations} and ${guards}`);
  }
  const lazy = glue
    .replace(DECLARATION, [
      "// scripts/wasm-glue.mjs: until the module is instantiated, `wasm` is a stand-in",
      "// whose first property read instantiates it (which sets `wasm` to its exports).",
      "const firstUse = new Proxy({}, {",
      "  get(_target, property) {",
      "    instantiateOnFirstUse();",
      `    if (wasm === firstUse) throw new Error("${name}: instantiating the wasm module did not set its exports");`,
      "    return wasm[property];",
      "  },",
      "});",
      "let wasmModule, wasmInstance, wasm = firstUse;",
    ].join("\n"))
    .replaceAll(GUARD, "if (wasm !== firstUse) return wasm;");
  if (/\bwasm [!=]== undefined/.test(lazy)) throw new Error(`${name}.js compares wasm with undefined where the rewrite does not`);
  return `import { instantiate as instantiateOnFirstUse } from "./${name}_embedded.js";\n${lazy}`;
}

/**
 * Replaces each `export const NAME = rule();` of the package's
 * lib/wasm/format-rules.js with the number `rule()` returns from the built
 * module `name` (glue and .wasm already in `pkg`), and drops the glue
 * import. Throws if a rule is not a glue function or does not return a
 * safe integer, or if the file uses the glue in any other way.
 * @param {string} pkg the staging package directory
 * @param {string} name the main module's name
 * @returns {Promise<Record<string, number>>} the folded constants
 */
export async function foldFormatRules(pkg, name) {
  const file = join(pkg, "lib", "wasm", "format-rules.js");
  const source = readFileSync(file, "utf8");
  const glue = await import(pathToFileURL(join(pkg, `${name}.js`)).href);
  glue.initSync({ module: readFileSync(join(pkg, `${name}_bg.wasm`)) });
  /** @type {Record<string, number>} */
  const folded = {};
  const rules = new Set();
  let text = source.replace(/^export const ([A-Z0-9_]+) = (\w+)\(\);$/gm, (_line, constant, rule) => {
    if (typeof glue[rule] !== "function") throw new Error(`format-rules.js: ${rule} is not a function of ${name}.js`);
    const value = glue[rule]();
    if (!Number.isSafeInteger(value)) throw new Error(`format-rules.js: ${rule}() returned ${value}, not an integer`);
    folded[constant] = value;
    rules.add(rule);
    return `export const ${constant} = /** @type {number} */ (${value}); // ${rule}() of ${name}_bg.wasm, asked by the build`;
  });
  // Once every name it imports is folded, the file no longer imports the
  // glue, so it asks wasm nothing at run time; anything else fails the build.
  const glueImport = new RegExp(`^import \\{([^}]*)\\} from "\\.\\./\\.\\./${name}\\.js";\\n`, "m");
  const imported = glueImport.exec(text)?.[1].split(",").map((part) => part.trim()).filter(Boolean) ?? [];
  if (Object.keys(folded).length === 0 || imported.length === 0 || !imported.every((rule) => rules.has(rule))) {
    throw new Error(`format-rules.js: expected one import of ${name}.js and only \`export const NAME = rule();\` uses of it:\n${source}`);
  }
  text = text.replace(glueImport, "");
  if (text.includes(`${name}.js`)) throw new Error(`format-rules.js still refers to ${name}.js after folding`);
  writeFileSync(file, text);
  return folded;
}
