// The emitted declarations lose nothing of the hand-written index.d.ts they
// replaced (kept as the baseline, baseline-index.d.ts beside this file):
// every name it exported is still exported, as the same kind (value /
// type), with every member of every class, and
// every type alias the same type (checked by TypeScript's identity relation,
// so a lost `readonly`, a widened code union or a changed field fails).
// Names are read with the TypeScript compiler API, through "artifact-bloom"
// as a user resolves it (package.json "exports"), both as ESM and as CJS.
//
// Run: node --test js-tests/types/api-parity.test.mjs (after the build).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const here = dirname(fileURLToPath(import.meta.url));
const baselinePath = join(here, "baseline-index.d.ts");
// A file in js-tests/types: "artifact-bloom" resolves from here through
// js-tests/node_modules/artifact-bloom (the link to pkg/).
const consumer = join(here, "usage.ts");

const options = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.esnext.disposable.d.ts"],
  types: [],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
};

/** The declaration file a consumer's `import` (ESM) or `require` (CJS) of artifact-bloom resolves to. */
function resolveEntry(mode) {
  const { resolvedModule } = ts.resolveModuleName("artifact-bloom", consumer, options, ts.sys, undefined, undefined, mode);
  assert.ok(resolvedModule, `artifact-bloom does not resolve (${mode === ts.ModuleKind.CommonJS ? "require" : "import"}): build and link pkg/ first`);
  return resolvedModule.resolvedFileName;
}

const aliased = (checker, symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

// Well-known symbol members are named `__@dispose@<id>` internally.
const memberName = (symbol) => symbol.escapedName.toString().replace(/^__@(\w+)@\d+$/, "[Symbol.$1]");

/** name → { kind, members } for every export of the declaration file at `path`. */
function surfaceOf(program, path) {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(path);
  const surface = new Map();
  for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(file))) {
    const symbol = aliased(checker, exported);
    const kind = [symbol.flags & ts.SymbolFlags.Value ? "value" : "", symbol.flags & ts.SymbolFlags.Type ? "type" : ""]
      .filter(Boolean).join("+");
    let members = [];
    if (symbol.flags & ts.SymbolFlags.Class) {
      const instance = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).map(memberName);
      const statics = checker.getPropertiesOfType(checker.getTypeOfSymbol(symbol))
        .map(memberName).filter((name) => name !== "prototype").map((name) => `static ${name}`);
      members = [...instance, ...statics];
    }
    surface.set(exported.name, { kind, members, isAlias: Boolean(symbol.flags & ts.SymbolFlags.TypeAlias) });
  }
  return surface;
}

function programOf(path) {
  return ts.createProgram([path], options);
}

const baseline = surfaceOf(programOf(baselinePath), baselinePath);
// The CommonJS declarations are checked by path: which file `require`
// resolves to is package.json's business ("exports" conditions). The
// baseline described one entry; its other filters and sizing helpers now
// live in "artifact-bloom/variants" and the delta functions (encode,
// compose, apply, read a header) in "artifact-bloom/delta", so each side is
// the three entries together. Both the main entry and the delta entry
// export a fetchSnapshot (the delta one asks for deltas), of one type.
const esmEntry = resolveEntry(ts.ModuleKind.ESNext);
const packageDir = dirname(esmEntry);
const entries = {
  import: [esmEntry, join(packageDir, "variants", "index.d.ts"), join(packageDir, "delta", "index.d.ts")],
  "index.d.cts": [join(packageDir, "index.d.cts"), join(packageDir, "variants", "index.d.cts"), join(packageDir, "delta", "index.d.cts")],
};
/** The exports of the entry files of one resolution mode, as one surface. */
function surfaceOfEntries(files) {
  const surface = new Map();
  for (const file of files) for (const [name, value] of surfaceOf(programOf(file), file)) surface.set(name, value);
  return surface;
}
// The entries as one module, for the checks written against one import.
const COMBINED = 'export * from "artifact-bloom";\nexport * from "artifact-bloom/variants";\nexport * from "artifact-bloom/delta";\n';

test("the hand-written baseline is readable (the test compares something)", () => {
  assert.ok(existsSync(baselinePath));
  assert.ok(baseline.size > 40, `only ${baseline.size} exports read from ${baselinePath}`);
  assert.ok(baseline.has("ArtifactBloomFilter") && baseline.has("BloomError") && baseline.has("default"));
});

for (const [how, files] of Object.entries(entries)) {
  test(`the shipped declarations (${how}) are the emitted ones, not the hand-written file`, () => {
    for (const entry of files) assert.match(readFileSync(entry, "utf8"), /^\/\/ Generated by scripts\/emit-types\.mjs/, entry);
  });

  test(`every name of the hand-written index.d.ts is exported (${how}), as the same kind, with every class member`, () => {
    const emitted = surfaceOfEntries(files);
    const problems = [];
    for (const [name, old] of baseline) {
      const now = emitted.get(name);
      if (now === undefined) {
        problems.push(`${name}: missing`);
        continue;
      }
      if (now.kind !== old.kind) problems.push(`${name}: was ${old.kind}, now ${now.kind}`);
      for (const member of old.members) {
        if (!now.members.includes(member)) problems.push(`${name}: member ${member} missing`);
      }
    }
    assert.deepEqual(problems, []);
  });
}

// Aliases whose type contains the package's classes are compared by their
// shape with the classes swapped for the emitted ones: a class emitted from
// JavaScript carries `#private`, so the old and new classes are distinct
// nominal types even when every member matches (the member test covers them).
const GENERIC_INSTANCES = {
  Result: ["<ArtifactBloomFilter>", "<ArtifactBloomFilter, \"incompatibleFilters\">"],
  DecodeResult: ["<number, \"truncated\">"],
  SnapshotDeltaResult: ["<Uint8Array, \"notSuperset\">"],
};

test("every type alias of the hand-written index.d.ts is the identical type in the emitted declarations", () => {
  const aliases = [...baseline].filter(([, value]) => value.isAlias).map(([name]) => name);
  const classes = [...baseline].filter(([, value]) => value.members.length > 0).map(([name]) => name);
  assert.ok(aliases.length >= 25 && classes.length >= 9, `read ${aliases.length} aliases and ${classes.length} classes`);
  // Old.X with every class name rewritten to New's class, so only the alias's own shape is compared.
  const baselineText = readFileSync(baselinePath, "utf8");
  const lines = [
    'import type * as New from "./parity-new.generated.js";',
    "type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;",
    "declare function identical<A, B>(check: Identical<A, B>): void;",
  ];
  for (const name of aliases) {
    for (const args of GENERIC_INSTANCES[name] ?? [""]) {
      const typeArgs = args.replace(/\b[A-Z]\w+\b/g, (word) => (classes.includes(word) ? `New.${word}` : word));
      lines.push(`identical<Old.${name}${typeArgs}, New.${name}${typeArgs}>(true); // ${name}`);
    }
  }
  // The baseline as a module whose class names mean the emitted classes.
  const oldModule = `${classes.map((name) => `import type { ${name} as New_${name} } from "./parity-new.generated.js";`).join("\n")}\n`
    + baselineText
      .replace(/export (default )?function init[^\n]*\n/g, "")
      .replace(/export declare (class|function|const) /g, "declare $1 ")
      .replace(new RegExp(`\\b(${classes.join("|")})\\b(?!\\s*(?:implements|extends|\\{|<))`, "g"), "New_$1");
  const checkPath = join(here, "parity-check.generated.ts");
  const oldPath = join(here, "parity-old.generated.ts");
  const newPath = join(here, "parity-new.generated.ts");
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const files = {
    [checkPath]: `import type * as Old from "./parity-old.generated.js";\n${lines.join("\n")}\n`,
    [oldPath]: `${oldModule}\nexport {};\n`,
    [newPath]: COMBINED,
  };
  host.readFile = (name) => files[name] ?? read(name);
  host.fileExists = ((exists) => (name) => name in files || exists(name))(host.fileExists.bind(host));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language) => (name in files
    ? ts.createSourceFile(name, files[name], language)
    : getSourceFile(name, language));
  const program = ts.createProgram([checkPath], options, host);
  const diagnostics = ts.getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === checkPath)
    .map((diagnostic) => {
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      return `${diagnostic.file.text.split("\n")[line].replace(/.*\/\/ /, "")}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
    });
  assert.deepEqual(diagnostics, []);
});

test("byte results are Uint8Array<ArrayBuffer> (usable as a BlobPart / BufferSource under TS ≥ 5.7)", () => {
  const program = ts.createProgram(entries.import, options);
  const checker = program.getTypeChecker();
  const exports = new Map(entries.import.flatMap((file) => checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file))))
    .map((symbol) => [symbol.name, aliased(checker, symbol)]));
  const returnOf = (owner, member) => {
    const symbol = exports.get(owner);
    assert.ok(symbol, `${owner} is not exported`);
    let type = checker.getTypeOfSymbol(symbol);
    if (member !== undefined) {
      const side = member.startsWith("static ") ? type : checker.getDeclaredTypeOfSymbol(symbol);
      const property = side.getProperty(member.replace(/^static /, ""));
      assert.ok(property, `${owner}.${member} does not exist`);
      type = checker.getTypeOfSymbol(property);
    }
    return checker.typeToString(checker.getReturnTypeOfSignature(type.getCallSignatures()[0]));
  };
  const byteResults = [
    ["sha256"], ["encodeSnapshot"], ["Sha256", "digest"], ["ArtifactBloomFilter", "serializeBits"],
    ["ArtifactBloomFilter", "mightContainMany"], ["TlBloom", "toBytes"], ["MergeableBloomFilter", "encode"],
    ["MergeableDelta", "encode"], ["ScalableBloomFilter", "encode"],
  ];
  const wrong = byteResults
    .map(([owner, member]) => [`${owner}${member ? `#${member}` : ""}`, returnOf(owner, member)])
    .filter(([, type]) => type !== "Uint8Array<ArrayBuffer>");
  assert.deepEqual(wrong, []);
});
