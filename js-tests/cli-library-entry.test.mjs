// The CLI runs on the built library, never on a second copy of it: its
// modules reach library code only through the package's Node entries
// (node.mjs / node.cjs, delta/, variants/; cli/library.mjs loads them), not
// through lib/ sources, which would be a second copy in the process whose
// OciRegistryError is not the exported one. Two ways to hold it: a scan of
// every shipped cli/ and bin/ module for runtime imports that leave cli/ and
// bin/ for anything but an entry, and the errors a registry step throws
// inside the CLI being `instanceof` the OciRegistryError that
// `artifact-bloom` exports.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { OciRegistryError } from "artifact-bloom";
import { startScriptedServer } from "./helpers/fake-registry.mjs";

const require = createRequire(import.meta.url);
const PACKAGE_DIR = dirname(require.resolve("artifact-bloom/package.json"));
const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8"));

/** The files Node loads for the package's entry points (main, and every export's "node" conditions). */
function nodeEntryFiles() {
  const files = new Set([manifest.main]);
  const collect = (target) => {
    if (typeof target === "string") files.add(target);
    else if (target !== null && typeof target === "object") {
      for (const [condition, value] of Object.entries(target)) if (condition !== "types") collect(value);
    }
  };
  for (const conditions of Object.values(manifest.exports)) {
    if (conditions !== null && typeof conditions === "object" && "node" in conditions) collect(conditions.node);
  }
  return new Set([...files].filter((file) => /\.[cm]?js$/.test(file)).map((file) => resolve(PACKAGE_DIR, file)));
}

/**
 * The specifiers a module's code imports at run time: static `import … from`,
 * `export … from`, bare `import "…"`, `import("…")` and `require("…")`. Block
 * comments (JSDoc's `import("…")` types among them) and whole-line `//`
 * comments are dropped first: a type reference loads nothing.
 * @param {string} source
 */
function runtimeSpecifiers(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const patterns = [
    /^\s*(?:import|export)\s[^;`]*?\bfrom\s*["']([^"']+)["']/gm,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[1]));
}

/** Every .mjs/.js file under `dir` in the built package. */
function modulesUnder(dir) {
  return readdirSync(join(PACKAGE_DIR, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.[cm]?js$/.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

describe("cli/ and bin/ import library code only through the package's Node entries", () => {
  test("the scanner sees runtime imports and skips JSDoc types (control)", () => {
    const source = [
      'import { a } from "../lib/a.js";',
      "import {",
      "  b,",
      '} from "../../lib/b.js";',
      'export { c } from "../lib/c.js";',
      'import "../lib/d.js";',
      'const e = await import("../lib/e.js");',
      'const f = require("../node.cjs");',
      '/** @param {import("../lib/types.js").T} t */',
      '// import { g } from "../lib/g.js";',
      "/**",
      " * @typedef {import('../lib/h.js').H} H",
      " */",
    ].join("\n");
    assert.deepEqual(runtimeSpecifiers(source).sort(), [
      "../../lib/b.js",
      "../lib/a.js",
      "../lib/c.js",
      "../lib/d.js",
      "../lib/e.js",
      "../node.cjs",
    ]);
  });

  test("every relative import of every cli/ and bin/ module stays there or names an entry", () => {
    const entries = nodeEntryFiles();
    assert.ok(entries.has(join(PACKAGE_DIR, "node.mjs")) && entries.has(join(PACKAGE_DIR, "node.cjs")), [...entries].join(", "));
    const inside = (file) => ["cli", "bin"].some((dir) => file.startsWith(join(PACKAGE_DIR, dir) + sep));
    const modules = [...modulesUnder("cli"), ...modulesUnder("bin")];
    assert.ok(modules.length > 20, `only ${modules.length} modules found`);
    const outside = [];
    const reached = new Set();
    for (const file of modules) {
      for (const specifier of runtimeSpecifiers(readFileSync(file, "utf8"))) {
        if (!specifier.startsWith(".")) continue;
        const target = resolve(dirname(file), specifier);
        if (inside(target)) continue;
        if (entries.has(target)) reached.add(relative(PACKAGE_DIR, target));
        else outside.push(`${relative(PACKAGE_DIR, file)} imports ${specifier}`);
      }
    }
    assert.deepEqual(outside, [], "runtime imports of library code that is not a built entry");
    // The lazy loader's own imports were seen, so the scan is not vacuous.
    for (const entry of ["node.mjs", "node.cjs"]) {
      assert.ok(reached.has(entry), `no cli/ module reaches ${entry}: ${[...reached].join(", ")}`);
    }
  });
});

describe("a registry error thrown inside the CLI is the exported OciRegistryError", () => {
  const cli = (path) => import(pathToFileURL(join(PACKAGE_DIR, "cli", path)).href);
  const savedEnv = {};
  let server;

  before(async () => {
    // clientFromOptions looks credentials up in these places: none of this machine's.
    const absent = join(PACKAGE_DIR, "no-such-directory-for-credentials");
    for (const name of ["DOCKER_CONFIG", "REGISTRY_AUTH_FILE", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"]) {
      savedEnv[name] = process.env[name];
      process.env[name] = join(absent, name);
    }
    server = await startScriptedServer((req, res) => {
      req.resume();
      if (req.url.startsWith("/v2/garbled/tags/list")) res.writeHead(200, { "content-type": "application/json" }).end("not json");
      else res.writeHead(500, { "content-type": "text/plain" }).end("broken");
    });
  });

  after(async () => {
    await server?.stop();
    for (const [name, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  /** What listTags rejects with for repository `name` of the scripted server. */
  async function tagListFailure(name) {
    const { clientFromOptions, describeFailure } = await cli("registry/registry-common.mjs");
    const { listTags } = await cli("registry/registry-catalog.mjs");
    const client = await clientFromOptions(server.url, name, {});
    const error = await listTags(client).then(
      () => assert.fail("listTags resolved"),
      (rejected) => rejected,
    );
    return { error, described: describeFailure(error, client) };
  }

  test("the CLI's own check (a tag list that is not JSON): instanceof, for import and require alike", async () => {
    const { error, described } = await tagListFailure("garbled");
    assert.match(error.message, /answered a tag list that is not JSON/);
    assert.ok(error instanceof OciRegistryError, `${error.constructor.name} from another copy of the library`);
    assert.ok(error instanceof require("artifact-bloom").OciRegistryError);
    assert.equal(described.code, "badResponse");
  });

  test("the client's error (a 500): instanceof the same class", async () => {
    const { error, described } = await tagListFailure("failing");
    assert.ok(error instanceof OciRegistryError, `${error.constructor.name} from another copy of the library`);
    assert.equal(error.status, 500);
    assert.equal(described.status, 500, "describeFailure recognises it as a registry error (its status)");
  });
});
