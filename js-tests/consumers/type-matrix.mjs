// The TypeScript matrix: types/usage.ts (every export of both entries) is
// compiled against the installed tarball under each module system a
// TypeScript user may have, with skipLibCheck off so the package's own
// declarations are checked too.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { REPO, run } from "./harness.mjs";

const SOURCES = join(dirname(fileURLToPath(import.meta.url)), "types");
const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");

const STRICT = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  target: "ES2022",
};

/** name → package.json "type", compilerOptions, files. */
export const TYPE_PROJECTS = {
  "CommonJS, module node16": {
    type: "commonjs",
    options: { module: "node16", moduleResolution: "node16", lib: ["ES2022"], types: ["node"] },
  },
  "ESM, module node16": {
    type: "module",
    options: { module: "node16", moduleResolution: "node16", lib: ["ES2022"], types: ["node"] },
  },
  "ESM, module nodenext": {
    type: "module",
    options: { module: "nodenext", moduleResolution: "nodenext", lib: ["ES2022"], types: ["node"] },
  },
  "bundler resolution": {
    type: "module",
    options: { module: "esnext", moduleResolution: "bundler", lib: ["ES2022", "DOM"], types: ["node"] },
  },
  "browser only (lib ES2022 + DOM, types: [])": {
    type: "module",
    options: { module: "esnext", moduleResolution: "bundler", lib: ["ES2022", "DOM"], types: [] },
    extra: ["browser.ts"],
  },
};

/**
 * Writes one project per row under `root` (whose node_modules holds the
 * installed tarball; @types/node comes from the repo's node_modules by
 * parent lookup) and compiles them, two at a time. Resolves
 * `{ name → { ok, output } }`.
 */
export async function compileTypeMatrix(root) {
  const names = Object.keys(TYPE_PROJECTS);
  const results = {};
  const compile = async (name, index) => {
    const { type, options, extra = [] } = TYPE_PROJECTS[name];
    const dir = join(root, `project-${index}`);
    mkdirSync(dir, { recursive: true });
    const files = ["usage.ts", ...extra];
    for (const file of files) cpSync(join(SOURCES, file), join(dir, file));
    writeFileSync(join(dir, "package.json"), `${JSON.stringify({ private: true, type }, null, 2)}\n`);
    writeFileSync(
      join(dir, "tsconfig.json"),
      `${JSON.stringify({ compilerOptions: { ...STRICT, ...options }, files }, null, 2)}\n`,
    );
    const compiled = await run(process.execPath, [TSC, "-p", dir, "--pretty", "false"]);
    results[name] = { ok: compiled.code === 0, output: `${compiled.stdout}${compiled.stderr}`.trim() };
  };
  for (let i = 0; i < names.length; i += 2) {
    await Promise.all(names.slice(i, i + 2).map((name) => compile(name, names.indexOf(name))));
  }
  return results;
}

/** Exported declarations of a .d.ts (the names usage.ts must use). */
export function declaredNames(dtsPath) {
  // The entry files are emitted as `export * from "./lib/…"`: ask the
  // compiler for the module's exports rather than reading the text.
  const program = ts.createProgram([dtsPath], {
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  const names = checker
    .getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(dtsPath)))
    .map((symbol) => symbol.name);
  return [...new Set(names.filter((name) => name !== "default"))];
}

/** Whether usage.ts names `name` as an identifier. */
export function usageMentions(name) {
  return new RegExp(`\\b${name}\\b`).test(readFileSync(join(SOURCES, "usage.ts"), "utf8"));
}
