// The CLI surface an npm user meets first: `--version`, `check -` reading
// digests from standard input, and exit codes that every command documents
// the same way (0 ok, 1 a check found problems, 2 usage or input error).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { ArtifactBloomFilter, encodeSnapshot } from "artifact-bloom";
import { CLI, publishSizing, runCli, tempDir } from "./helpers/cli.mjs";

const require = createRequire(import.meta.url);
const hexOf = (text) => createHash("sha256").update(text).digest("hex");
const MEMBERS = Array.from({ length: 50 }, (_, i) => hexOf(`member:${i}`));
const OUTSIDER = hexOf("not a member");

let dir;
let snapshot;

before(async () => {
  dir = await tempDir("cli-surface");
  const built = ArtifactBloomFilter.create(
    MEMBERS.map((hex) => Uint8Array.from(Buffer.from(hex, "hex"))),
    {
      expectedItemCount: 50,
      targetFalsePositiveRate: 0.001,
    },
  );
  if (built.kind === "failure") throw new Error(built.error);
  snapshot = join(dir.path, "catalog.abf1");
  writeFileSync(snapshot, encodeSnapshot(built.value, { catalogVersion: 7 }));
  built.value.free();
});

after(async () => {
  await dir.remove();
});

describe("artifact-bloom --version", () => {
  const { version } = JSON.parse(readFileSync(require.resolve("artifact-bloom/package.json"), "utf8"));
  for (const flag of ["--version", "-v"]) {
    test(`${flag} prints the package version and exits 0`, async () => {
      const ran = await runCli([flag]);
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, `${version}\n`);
    });
  }
});

describe("artifact-bloom check - (digests from standard input)", () => {
  test("answers each hex line: members maybe, the outsider absent", async () => {
    const input = `# a comment\n${MEMBERS.slice(0, 3).join("\n")}\n\n${OUTSIDER}\r\n`;
    const ran = await runCli(["check", snapshot, "-", "--json"], { input });
    assert.equal(ran.code, 0, ran.stderr);
    const report = JSON.parse(ran.stdout);
    assert.equal(report.catalogVersion, 7);
    assert.deepEqual(
      report.results.map((r) => [r.digest, r.verdict]),
      [...MEMBERS.slice(0, 3).map((hex) => [hex, "maybe"]), [OUTSIDER, "absent"]],
    );
  });

  test("mixes with digest arguments, in argument order", async () => {
    const ran = await runCli(["check", snapshot, OUTSIDER, "-", MEMBERS[9]], { input: `${MEMBERS[4]}\n` });
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(
      ran.stdout
        .trim()
        .split("\n")
        .map((line) => line.split(/\s+/).slice(0, 2)),
      [
        ["absent", OUTSIDER],
        ["maybe", MEMBERS[4]],
        ["maybe", MEMBERS[9]],
      ],
    );
  });

  test("a line that is not a digest → exit 2 naming the line, nothing printed", async () => {
    const ran = await runCli(["check", snapshot, "-"], { input: `${MEMBERS[0]}\nnot-a-digest\n` });
    assert.equal(ran.code, 2);
    assert.equal(ran.stdout, "");
    assert.match(ran.stderr, /line 2: expected 64 hex digits/);
  });

  test('"-" twice → exit 2 (standard input is read once)', async () => {
    const ran = await runCli(["check", snapshot, "-", "-"], { input: "" });
    assert.equal(ran.code, 2);
    assert.match(ran.stderr, /"-" appears twice/);
  });
});

describe("usage errors: one clear line, then the command's usage, exit 2", () => {
  test("check with a snapshot but nothing to check", async () => {
    const ran = await runCli(["check", snapshot]);
    assert.equal(ran.code, 2);
    assert.equal(ran.stdout, "");
    assert.match(
      ran.stderr,
      /^.*check needs a FILE, a HEX digest or - \(standard input\) after .*catalog\.abf1\n\nUsage: artifact-bloom check /,
    );
  });

  test("an unknown flag is named, with no advice that would read it as a file", async () => {
    const ran = await runCli(["check", snapshot, OUTSIDER, "--jsn"]);
    assert.equal(ran.code, 2);
    assert.equal(ran.stdout, "");
    assert.match(ran.stderr, /unknown option --jsn\n\nUsage: artifact-bloom check /);
    assert.doesNotMatch(ran.stderr, /positional|'--'/);
  });
});

describe("publish on a terminal", () => {
  // A pseudo-terminal from Python's pty module (CPython is on every machine
  // the tests run on): the CLI's stdin is then a TTY, as for a person who
  // forgot --input. "\x04" at the start of a line is the terminal's end of file.
  test("says it reads standard input instead of waiting in silence", async () => {
    const out = join(dir.path, "from-terminal.abf1");
    const command = [process.execPath, CLI, "publish", ...publishSizing(1, 10, 0.01), "--out", out];
    const ran = await new Promise((resolve, reject) => {
      const child = spawn("python3", ["-c", "import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)", ...command], {
        stdio: ["pipe", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => {
        output += chunk;
      });
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`no exit within 30 s: ${output}`));
      }, 30_000);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
      child.stdin.end(`${MEMBERS[0]}\n\x04`);
    });
    assert.match(ran.output, /publish: reading digests from standard input/);
    assert.equal(ran.code, 0, ran.output);
    assert.equal(readFileSync(out).subarray(0, 4).toString(), "ABF1");
  });
});

describe("exit codes are documented the same way by every command", () => {
  /** The exit-code table of a --help text: its heading and every "  N  …" row with continuation lines. */
  const tableOf = (text) =>
    /^Exit codes \(the same for every command\):\n(?: {2}\d {2}.*\n(?: {5}.*\n)*)+/m.exec(`${text}\n`)?.[0];

  test("the top-level --help has the table: 0, 1, 2 and 3 (a registry or network failure)", async () => {
    const ran = await runCli(["--help"]);
    assert.equal(ran.code, 0);
    const table = tableOf(ran.stdout);
    assert.ok(table, ran.stdout);
    for (const code of ["0", "1", "2", "3"]) assert.match(table, new RegExp(`^  ${code}  `, "m"));
    assert.match(table, /3 {2}a registry or network failure/);
  });

  for (const command of ["publish", "inspect", "check", "merge", "serve", "push"]) {
    test(`${command} --help prints the same table as the top-level --help`, async () => {
      const [top, ran] = await Promise.all([runCli(["--help"]), runCli([command, "--help"])]);
      assert.equal(ran.code, 0);
      assert.equal(tableOf(ran.stdout), tableOf(top.stdout));
      assert.match(ran.stdout, new RegExp(`^For ${command}: `, "m"), "and what the codes mean for this command");
    });
  }

  test("the package README documents the same four codes", () => {
    const readme = readFileSync(join(dirname(require.resolve("artifact-bloom/package.json")), "README.md"), "utf8");
    for (const code of ["0", "1", "2", "3"])
      assert.match(readme, new RegExp(`^\\| \`${code}\` \\|`, "m"), `README's table lacks exit code ${code}`);
    assert.match(readme, /standard input \(`-`\)/);
    assert.match(readme, /--version/);
  });
});

describe("the registry limits in the usage are the client's", () => {
  // The usage states them without loading the library (cli-lazy-library.test.mjs),
  // so they are written out in cli/option-groups.mjs; these are the numbers the client enforces.
  test("publish --help: the answer-size limits and the default --timeout-ms", async () => {
    const packageDir = dirname(require.resolve("artifact-bloom/package.json"));
    const { RESPONSE_LIMITS } = await import(pathToFileURL(join(packageDir, "lib/repositories/oci-limits.js")).href);
    const ran = await runCli(["publish", "--help"]);
    assert.equal(ran.code, 0);
    const limits =
      /a\s+manifest\s+or\s+index\s+(\d+)\s+MiB\s+\(the\s+distribution\s+spec's\),\s+a\s+tag\s+page\s+(\d+)\s+MiB,\s+a\s+token\s+answer\s+(\d+)\s+MiB/.exec(
        ran.stdout,
      );
    assert.ok(limits, ran.stdout);
    const mib = (bytes) => String(bytes / (1024 * 1024));
    const { manifest, tagPage, token } = RESPONSE_LIMITS;
    assert.deepEqual(limits.slice(1), [manifest.bytes, tagPage.bytes, token.bytes].map(mib));
    const timeout = /--timeout-ms N\s+per-request timeout \(default (\d+)\)/.exec(ran.stdout);
    assert.equal(Number(timeout?.[1]), require("artifact-bloom/oci").DEFAULT_TIMEOUT_MS);
  });
});
