// The `workerd` export condition (Cloudflare Workers), statically: what a
// resolver with wrangler's conditions finds, what every other resolver still
// finds, and what the workerd files import. (consumers/workerd.test.mjs runs
// the packed tarball in workerd itself.)
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { describe, test } from "node:test";
import * as esbuild from "esbuild";

const require = createRequire(import.meta.url);
const root = dirname(require.resolve("artifact-bloom/package.json"));
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
/** wrangler 4's resolve conditions (getBuildConditions in wrangler-dist/cli.js). */
const WRANGLER_CONDITIONS = ["workerd", "worker", "browser"];
const SUBPATHS = {
  "artifact-bloom": { workerd: "workerd/index.js", browser: "web.js", types: "index.d.ts" },
  "artifact-bloom/variants": { workerd: "workerd/variants.js", browser: "variants/index.js", types: "variants/index.d.ts" },
  "artifact-bloom/delta": { workerd: "workerd/delta.js", browser: "delta/index.js", types: "delta/index.d.ts" },
};
const WASM = ["artifact_bloom_bg.wasm", "artifact_bloom_variants_bg.wasm", "artifact_bloom_delta_bg.wasm"];

/** The file esbuild resolves `specifier` to, from js-tests/, with `options` (conditions, platform). */
async function resolvedBy(specifier, options) {
  let found;
  await esbuild.build({
    stdin: { contents: `import ${JSON.stringify(specifier)};`, resolveDir: dirname(new URL(import.meta.url).pathname) },
    bundle: true,
    write: false,
    logLevel: "silent",
    format: "esm",
    ...options,
    plugins: [
      {
        name: "record",
        setup(build) {
          build.onResolve({ filter: /^artifact-bloom/ }, async (args) => {
            if (args.pluginData === "again") return undefined;
            const result = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "again" });
            found = relative(root, result.path);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return found;
}

/** Every JavaScript file of the package, relative to its root (not node_modules, not www/). */
function packageScripts(dir = root) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "www" ? [] : packageScripts(path);
    return /\.(c|m)?js$/.test(entry.name) ? [relative(root, path)] : [];
  });
}

describe("the workerd export condition", () => {
  for (const [specifier, expected] of Object.entries(SUBPATHS)) {
    test(`${specifier}: wrangler's conditions resolve to ${expected.workerd}; esbuild's browser default still to ${expected.browser}`, async () => {
      assert.equal(await resolvedBy(specifier, { conditions: WRANGLER_CONDITIONS }), expected.workerd);
      assert.equal(await resolvedBy(specifier, { platform: "browser" }), expected.browser);
      assert.equal(
        await resolvedBy(specifier, { platform: "neutral" }),
        expected.browser,
        "import without workerd: the ES entry",
      );
    });

    test(`${specifier}: the workerd condition comes first and has the ES entry's types (${expected.types})`, () => {
      const subpath = specifier === "artifact-bloom" ? "." : `./${specifier.split("/")[1]}`;
      const conditions = manifest.exports[subpath];
      assert.equal(Object.keys(conditions)[0], "workerd");
      assert.deepEqual(conditions.workerd, { types: `./${expected.types}`, default: `./${expected.workerd}` });
      assert.equal(conditions.workerd.types, conditions.import.types);
    });
  }

  test("each .wasm is imported once, by a workerd/ file, and by no file of another entry", () => {
    const importers = Object.fromEntries(WASM.map((name) => [name, []]));
    for (const file of packageScripts()) {
      const source = readFileSync(join(root, file), "utf8");
      for (const name of WASM) if (source.includes(`${name}"`)) importers[name].push(file);
    }
    for (const name of WASM) {
      assert.equal(importers[name].length, 1, `${name} imported by ${importers[name].join(", ") || "nothing"}`);
      assert.match(importers[name][0], /^workerd\//);
      assert.match(readFileSync(join(root, importers[name][0]), "utf8"), new RegExp(`^import \\w+ from "\\.\\./${name}";$`, "m"));
    }
  });

  test("the workerd files carry no embedded wasm and no LZMA decoder", () => {
    for (const file of readdirSync(join(root, "workerd"))) {
      const source = readFileSync(join(root, "workerd", file), "utf8");
      assert.doesNotMatch(source, /unpackWasm|lzmaDecode|LZMA_UNPACK_WASM/, file);
    }
  });

  test("the .wasm files and workerd/ are shipped, and workerd/ is a side effect", () => {
    for (const name of [...WASM, "workerd/"]) assert.ok(manifest.files.includes(name), name);
    assert.ok(manifest.sideEffects.includes("./workerd/*.js"));
  });
});
