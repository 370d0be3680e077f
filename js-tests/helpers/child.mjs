// Memory tests measure wasm memory and RSS in a child process of their own:
// a fresh `node --expose-gc` whose heap holds nothing but the test's work, so
// the numbers are not polluted by the other tests in the runner's process.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

// The children run from js-tests/, where `artifact-bloom` resolves to the
// linked package (js-tests/link-package.sh), as for a user.
const JS_TESTS = fileURLToPath(new URL("..", import.meta.url));

/**
 * Runs `source` as an ES module in `node --expose-gc` from js-tests/ and
 * returns its last stdout line parsed as JSON (earlier lines are free for
 * diagnostics). A child that exits non-zero fails the test with its stderr.
 *
 * @param {string} source
 * @param {number} timeout ms before the child is killed (generous: the
 *   machine may be busy; the child's work is bounded, not timed)
 */
export function runChild(source, timeout) {
  const result = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", source], {
    cwd: JS_TESTS,
    encoding: "utf8",
    timeout,
    maxBuffer: 16 * 1024 * 1024,
  });
  assert.equal(result.status, 0, `child failed (${result.signal ?? result.status}):\n${result.stderr}`);
  const lines = result.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}
