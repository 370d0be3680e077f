// The READMEs' examples are code people paste: every ```js block whose first
// line starts with `// example:` must run as written, as an ES module,
// against the built package — in the repository README and in the package's
// own README (pkg-template/README.md, what npm shows).
//
// Each block is written to a temp .mjs file INSIDE js-tests/ (not the OS temp
// dir) so that `import ... from "artifact-bloom"` resolves exactly as in a
// user's project, through js-tests/node_modules/artifact-bloom. The pid in the
// name keeps concurrent runs apart; the file is deleted afterwards.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";

const READMES = {
  "README.md": new URL("../README.md", import.meta.url),
  "pkg-template/README.md": new URL("../pkg-template/README.md", import.meta.url),
};
const FENCE = /^```js[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;

/** The runnable examples: `{ title, code, line }` for each marked ```js block. */
function examples(markdown) {
  const found = [];
  for (const match of markdown.matchAll(FENCE)) {
    const code = match[1];
    const first = code.split("\n", 1)[0];
    if (!first.startsWith("// example:")) continue;
    const line = markdown.slice(0, match.index).split("\n").length;
    found.push({ title: first.slice("// example:".length).trim(), code, line });
  }
  return found;
}

function runModule(path) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${path} ran over 30 s`));
    }, 30_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

/** One test per `// example:` block of the README at `url`. */
function describeExamples(name, url) {
  const markdown = readFileSync(url, "utf8");
  const found = examples(markdown);
  const slug = name.replace(/[^a-z]+/gi, "-");

  describe(`${name} examples`, () => {
    test("there is at least one `// example:` ```js block", () => {
      assert.ok(found.length >= 1, `${name} has no \`\`\`js block starting with // example:`);
    });

    found.forEach(({ title, code, line }, index) => {
      test(`example ${index + 1} (${name} line ${line}): ${title}`, async () => {
        const path = fileURLToPath(new URL(`./.readme-example-${slug}-${index + 1}-${process.pid}.mjs`, import.meta.url));
        await writeFile(path, code);
        try {
          const { code: exitCode, signal, output } = await runModule(path);
          assert.equal(signal, null, output);
          assert.equal(exitCode, 0, `the example failed:\n${output}`);
        } finally {
          await rm(path, { force: true });
        }
      });
    });
  });
}

for (const [name, url] of Object.entries(READMES)) describeExamples(name, url);
