#!/usr/bin/env node
// Type-checks the built package's command line strictly (tsconfig.cli.json):
// bin/ and cli/, cli/serve/ included, against the package's own emitted
// declarations. The one thing plain `tsc -p tsconfig.cli.json` cannot do is
// leave a folder out of the strict check while a checked file imports it (a
// dynamic import pulls a module into the program whatever "exclude" says):
// NOT_YET_STRICT lists such folders, whose diagnostics are not printed —
// none now. This prints every other diagnostic and exits 1 if any remain.
//
// Usage: node scripts/check-cli-types.mjs     (after `node scripts/build.mjs`)
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const CONFIG = join(root, "tsconfig.cli.json");
/** @type {string[]} absolute folder paths ending in the separator */
const NOT_YET_STRICT = [];

if (!ts.sys.fileExists(join(root, "pkg", "package.json"))) {
  process.stderr.write("check-cli-types: no pkg/package.json; run `node scripts/build.mjs` first\n");
  process.exit(2);
}
const read = ts.readConfigFile(CONFIG, ts.sys.readFile);
if (read.error) fail([read.error]);
const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, CONFIG);
if (parsed.errors.length > 0) fail(parsed.errors);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const diagnostics = ts.getPreEmitDiagnostics(program).filter((diagnostic) => {
  const file = diagnostic.file?.fileName;
  return file === undefined || !NOT_YET_STRICT.some((folder) => ts.sys.resolvePath(file).startsWith(folder));
});
if (diagnostics.length > 0) fail(diagnostics);
const checked = program.getRootFileNames().length;
process.stdout.write(`check-cli-types: ${checked} files of bin/ and cli/ checked strictly, no errors\n`);

/** @param {readonly import("typescript").Diagnostic[]} found */
function fail(found) {
  const host = {
    getCanonicalFileName: (/** @type {string} */ name) => name,
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  };
  const format = process.stderr.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stderr.write(format(found, host));
  process.stderr.write(`\ncheck-cli-types: ${found.length} error(s)\n`);
  process.exit(1);
}
