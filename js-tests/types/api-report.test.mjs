// The public API as the build declares it is the committed report
// (api/artifact-bloom.api.md, written by scripts/api-report.mjs): an API
// change — a new export, a changed signature, a widened union, in the .d.ts
// or only in the .d.cts — fails here with the diff, until the report is
// regenerated and the change is reviewed as that file's diff.
//
// Run: node --test js-tests/types/api-report.test.mjs (after the build).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { REPORT_PATH, UPDATE_COMMAND, checkReport, typedEntries } from "../../scripts/api-report.mjs";

// "artifact-bloom" resolves from here through js-tests/node_modules/artifact-bloom (the link to pkg/).
const packageDir = dirname(createRequire(import.meta.url).resolve("artifact-bloom/package.json"));
let checked;
/** The committed report compared with the build's (rendered once for both tests). */
const check = () => (checked ??= checkReport(packageDir));

test("the committed API report is the built package's", () => {
  const { same, diff } = check();
  const update = `If the change is meant, regenerate the report and commit it:\n  ${UPDATE_COMMAND}`;
  assert.ok(same, `the API differs from the committed report:\n\n${diff}\n\n${update}\n`);
});

test("the report has a section for each entry with types, naming each of its exports", () => {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const entries = typedEntries(manifest);
  assert.deepEqual(
    entries.map((entry) => entry.specifier),
    ["artifact-bloom", "artifact-bloom/variants", "artifact-bloom/delta", "artifact-bloom/server", "artifact-bloom/oci"],
  );
  const sections = check().actual.split(/^## /m).slice(1);
  for (const entry of entries) {
    const section = sections.find((text) => text.startsWith(`${entry.specifier}\n`));
    assert.ok(section, `no section for ${entry.specifier} in ${REPORT_PATH}`);
    for (const file of entry.files.keys()) assert.ok(section.includes(`\`${file}\``), `${entry.specifier}: ${file} not listed`);
    const entryFile = join(
      packageDir,
      [...entry.files.keys()].find((file) => file.endsWith(".d.ts")),
    );
    // The entry files re-export lib/ modules; the compiler's own list of names is checked against the section.
    const names = exportedNames(entryFile);
    assert.ok(names.length >= 5, `${entry.specifier}: ${names.length} exports`);
    const missing = names.filter((name) => !new RegExp(`\\b${name}\\b`).test(section));
    assert.deepEqual(missing, [], `${entry.specifier}: exports missing from its section`);
    assert.doesNotMatch(section, /import\("\.|from "\./, `${entry.specifier}: internal module paths in the report`);
  }
});

/** The export names of a declaration file, as TypeScript resolves them. */
function exportedNames(path) {
  const program = ts.createProgram([path], {
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  return checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(path))).map((symbol) => symbol.name);
}
