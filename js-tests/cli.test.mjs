// The `artifact-bloom` command line, run as a real child process on temp
// dirs: help texts, publish → inspect → check, input formats, the documented
// exit codes (0 ok, 1 problems found, 2 usage/input error), merge, and serve.
//
// Exit codes and stderr wording are an interface: CI scripts branch on them,
// and an operator fixing a 300k-line digest list needs the line number.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fetchSnapshot, loadSnapshot } from "artifact-bloom";
import { VECTORS_DIR, hex, randomDigest, seededRandom, sha256 } from "./helpers/abf1.mjs";
import { CLI, listDir, publishSizing, runCli, tempDir, writeHexList } from "./helpers/cli.mjs";

const FPP = 0.01;
let dir;
before(async () => {
  dir = await tempDir("cli");
});
after(async () => {
  await dir.remove();
});

const at = (name) => join(dir.path, name);
const digestsOf = (prefix, count) => Array.from({ length: count }, (_, i) => sha256(`${prefix}${i}`));

/** Loads a snapshot file through the package (the oracle for CLI output). */
async function loadFile(path) {
  const result = loadSnapshot(new Uint8Array(await readFile(path)));
  assert.equal(result.kind, "success", result.message);
  return result.value;
}

function publishArgs(version, expected, out, ...extra) {
  return ["publish", ...publishSizing(version, expected, FPP), "--out", out, ...extra];
}

describe("--help", () => {
  for (const args of [["--help"], ["-h"], ["help"]]) {
    test(`artifact-bloom ${args[0]} → exit 0 with the usage and every command`, async () => {
      const run = await runCli(args);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^Usage: artifact-bloom/);
      for (const command of ["publish", "inspect", "check", "merge", "serve"])
        assert.match(run.stdout, new RegExp(`\\b${command}\\b`));
    });
  }

  test("no command at all → usage on stdout, exit 2; an unknown command → exit 2", async () => {
    const bare = await runCli([]);
    assert.equal(bare.code, 2);
    assert.match(bare.stdout, /Usage/);
    const unknown = await runCli(["frobnicate"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });

  for (const command of ["publish", "inspect", "check", "merge", "serve"]) {
    test(`${command} --help → exit 0 with its usage, without doing anything`, async () => {
      const run = await runCli([command, "--help"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^Usage: artifact-bloom ${command}`));
      assert.match(run.stdout, /Exit codes|listening on/);
    });
  }
});

describe("publish → inspect → check", () => {
  // 40 digests, one of them the SHA-256 of a file, written with a comment,
  // blank lines, CRLF, surrounding blanks and one duplicate (in upper case:
  // the same digest spelled differently must still count as a duplicate).
  const fileContent = "an artifact that is in the catalog\n";
  const members = [...digestsOf("e2e:", 39), sha256(fileContent)];
  const version = 17;
  let snapshot;

  before(async () => {
    const lines = ["# catalog v17", "", ...members.map(hex), `  ${hex(members[5]).toUpperCase()}\r`, "", "# end"];
    await writeFile(at("e2e.txt"), `${lines.join("\n")}\n`);
    await writeFile(at("member.bin"), fileContent);
    snapshot = at("e2e.abf1");
  });

  test("publish reports the duplicate and inserts each digest once", async () => {
    const run = await runCli(publishArgs(version, 100, snapshot, "--input", at("e2e.txt"), "--json"));
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.digestsRead, 41);
    assert.equal(summary.duplicates, 1);
    assert.equal(summary.insertedItemCount, 40);
    assert.equal(summary.catalogVersion, version);
    assert.equal(summary.bytes, (await stat(snapshot)).size);
    // The human summary says the same.
    const text = await runCli(publishArgs(version, 100, snapshot, "--input", at("e2e.txt")));
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /40 unique digests \(41 read, 1 duplicates\)/);
  });

  test("inspect --json: unique inserted count, checksum ok, alertFillRatio = (2p)^(1/k)", async () => {
    const run = await runCli(["inspect", snapshot, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.verdict, "ok");
    assert.equal(report.header.insertedItemCount, 40);
    assert.equal(report.header.expectedItemCount, 100);
    assert.equal(report.header.catalogVersion, version);
    assert.equal(report.header.targetFpp, FPP);
    const { header } = await loadFile(snapshot);
    assert.deepEqual(report.header, { ...header });
    assert.ok(Math.abs(report.alertFillRatio - (2 * FPP) ** (1 / header.hashCount)) < 1e-12);
    assert.equal(report.alert, report.fillRatio >= report.alertFillRatio);
    const human = await runCli(["inspect", snapshot]);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /checksum verdict\s+ok/);
  });

  test("check: member hex and member file → maybe, a digest the filter rejects → absent", async () => {
    // The "absent" digest is chosen with the package, so the test does not
    // rely on luck: any digest the loaded filter rejects must print absent.
    const { filter } = await loadFile(snapshot);
    const random = seededRandom(0xc0ffee);
    let outsider;
    do outsider = randomDigest(random);
    while (filter.mightContain(outsider));
    filter.free();

    const run = await runCli(["check", snapshot, hex(members[0]), at("member.bin"), hex(outsider), "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.catalogVersion, version);
    assert.deepEqual(
      report.results.map((r) => [r.kind, r.verdict]),
      [
        ["digest", "maybe"],
        ["file", "maybe"],
        ["digest", "absent"],
      ],
    );
    assert.equal(report.results[1].digest, hex(sha256(fileContent)));

    const text = await runCli(["check", snapshot, hex(outsider)]);
    assert.match(text.stdout, new RegExp(`^absent\\s+${hex(outsider)}`));
  });

  test("--binary packed records and --input - (stdin) publish the same bytes as the text file", async () => {
    const unique = [...new Map(members.map((d) => [hex(d), d])).values()];
    await writeFile(at("e2e.bin"), Buffer.concat(unique));
    const binary = await runCli(publishArgs(version, 100, at("binary.abf1"), "--input", at("e2e.bin"), "--binary"));
    assert.equal(binary.code, 0, binary.stderr);
    const stdin = await runCli(publishArgs(version, 100, at("stdin.abf1"), "--input", "-"), {
      input: await readFile(at("e2e.txt")),
    });
    assert.equal(stdin.code, 0, stdin.stderr);
    const expected = hex(await readFile(snapshot));
    assert.equal(hex(await readFile(at("binary.abf1"))), expected);
    assert.equal(hex(await readFile(at("stdin.abf1"))), expected);
  });
});

describe("publish input and option errors → exit 2, nothing written", () => {
  test("a bad line: stderr names its line number", async () => {
    const good = digestsOf("bad-line:", 5).map(hex);
    const text = ["# header", good[0], good[1], "", `${good[2]}x`, good[3]].join("\n");
    await writeFile(at("bad.txt"), text);
    const run = await runCli(publishArgs(1, 10, at("bad.abf1"), "--input", at("bad.txt")));
    assert.equal(run.code, 2);
    assert.match(run.stderr, /line 5\b/);
    assert.equal(
      (await listDir(dir.path)).some((n) => n.includes("bad.abf1")),
      false,
    );
  });

  test("a binary input with a partial record", async () => {
    await writeFile(at("partial.bin"), new Uint8Array(32 * 3 + 5));
    const run = await runCli(publishArgs(1, 10, at("partial.abf1"), "--input", at("partial.bin"), "--binary"));
    assert.equal(run.code, 2);
    assert.match(run.stderr, /not a multiple of 32/);
  });

  test("more unique digests than --expected-items → capacityExceeded", async () => {
    await writeHexList(at("six.txt"), digestsOf("cap:", 6));
    const run = await runCli(publishArgs(1, 5, at("cap.abf1"), "--input", at("six.txt")));
    assert.equal(run.code, 2);
    assert.match(run.stderr, /capacityExceeded/);
    await assert.rejects(stat(at("cap.abf1")), { code: "ENOENT" });
  });

  test("--fpp 1 → invalidFalsePositiveRate", async () => {
    const run = await runCli(["publish", ...publishSizing(1, 10, 1), "--out", at("p1.abf1"), "--input", at("six.txt")]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /invalidFalsePositiveRate/);
  });

  const full = ["--catalog-version", "1", "--expected-items", "10", "--fpp", "0.01", "--out", "OUT"];
  for (const missing of ["--catalog-version", "--expected-items", "--fpp", "--out"]) {
    test(`publish without ${missing}`, async () => {
      const index = full.indexOf(missing);
      const args = full.filter((_, i) => i !== index && i !== index + 1).map((a) => (a === "OUT" ? at("missing.abf1") : a));
      const run = await runCli(["publish", ...args], { input: "" });
      assert.equal(run.code, 2);
      // --out has an alternative (--layout DIR): the message names both.
      const required = missing === "--out" ? "--out PATH or --layout DIR is required" : `${missing} is required`;
      assert.equal(run.stderr, `artifact-bloom: ${required}\n`);
    });
  }

  test("other commands without their required arguments", async () => {
    for (const args of [["inspect"], ["check"], ["merge", at("e2e.abf1")], ["serve"], ["publish", "--bogus"]]) {
      const run = await runCli(args, { input: "" });
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.ok(run.stderr.length > 0);
    }
  });
});

describe("corrupted snapshots → exit 1", () => {
  const corrupted = new URL("payload-bitflip.abf1", VECTORS_DIR).pathname;

  test("inspect payload-bitflip shows the claimed header and checksumMismatch", async () => {
    const run = await runCli(["inspect", corrupted]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /checksumMismatch/);
    assert.match(run.stdout, /catalogVersion\s+42/);
    const json = JSON.parse((await runCli(["inspect", corrupted, "--json"])).stdout);
    assert.equal(json.verdict, "checksumMismatch");
    assert.equal(json.header.catalogVersion, 42);
  });

  test("check against it refuses to answer", async () => {
    const run = await runCli(["check", corrupted, hex(sha256("cat"))]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /checksumMismatch/);
    assert.equal(run.stdout, "");
  });
});

describe("merge", () => {
  test("two disjoint shards merge to the byte-identical publish of their union", async () => {
    const all = digestsOf("shard:", 300);
    await writeHexList(at("shard-a.txt"), all.slice(0, 170));
    await writeHexList(at("shard-b.txt"), all.slice(170));
    await writeHexList(at("union.txt"), all);
    for (const [input, out] of [
      ["shard-a.txt", "a.abf1"],
      ["shard-b.txt", "b.abf1"],
      ["union.txt", "union.abf1"],
    ]) {
      const run = await runCli(publishArgs(out === "union.abf1" ? 9 : 8, 300, at(out), "--input", at(input)));
      assert.equal(run.code, 0, run.stderr);
    }
    const run = await runCli(["merge", at("a.abf1"), at("b.abf1"), "--catalog-version", "9", "--out", at("merged.abf1")]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(hex(await readFile(at("merged.abf1"))), hex(await readFile(at("union.abf1"))));
  });

  test("snapshots of different layouts → exit 1 incompatibleFilters, no output", async () => {
    const run = await runCli(publishArgs(8, 5000, at("wide.abf1"), "--input", at("shard-a.txt")));
    assert.equal(run.code, 0, run.stderr);
    const merge = await runCli(["merge", at("a.abf1"), at("wide.abf1"), "--catalog-version", "9", "--out", at("bad-merge.abf1")]);
    assert.equal(merge.code, 1);
    assert.match(merge.stderr, /incompatibleFilters/);
    await assert.rejects(stat(at("bad-merge.abf1")), { code: "ENOENT" });
  });
});

describe("serve", () => {
  const catalog = digestsOf("served:", 50);
  const outsiders = digestsOf("not-served:", 3);
  let server;
  let base;

  before(async () => {
    await writeHexList(at("served.txt"), catalog);
    const run = await runCli(publishArgs(21, 100, at("served.abf1"), "--input", at("served.txt")));
    assert.equal(run.code, 0, run.stderr);
    server = spawn(
      process.execPath,
      [CLI, "serve", "--snapshot", at("served.abf1"), "--catalog", at("served.txt"), "--port", "0"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    base = await new Promise((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
      server.stdout.on("data", (chunk) => {
        out += chunk;
        const match = /listening on (http:\/\/\S+?)\/?\s/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      server.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited ${code}`));
      });
    });
  });

  after(async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  });

  const blob = (digest, version) => `${base}/blobs/sha256/${hex(digest)}?catalogVersion=${version}`;

  test("GET /snapshot: the file with ETag and Last-Modified; If-None-Match → 304", async () => {
    const response = await fetch(`${base}/snapshot`);
    assert.equal(response.status, 200);
    assert.equal(hex(new Uint8Array(await response.arrayBuffer())), hex(await readFile(at("served.abf1"))));
    const etag = response.headers.get("etag");
    assert.ok(etag);
    assert.ok(!Number.isNaN(Date.parse(response.headers.get("last-modified"))));
    const again = await fetch(`${base}/snapshot`, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
  });

  test("HEAD /blobs: member → 200, non-member → 404, wrong catalogVersion → 409", async () => {
    assert.equal((await fetch(blob(catalog[0], 21), { method: "HEAD" })).status, 200);
    assert.equal((await fetch(blob(outsiders[0], 21), { method: "HEAD" })).status, 404);
    assert.equal((await fetch(blob(catalog[0], 20), { method: "HEAD" })).status, 409);
  });

  test("POST /blobs:findMissing → exactly the missing ones", async () => {
    const digests = [catalog[3], outsiders[1], catalog[4], outsiders[2]].map(hex);
    const response = await fetch(`${base}/blobs:findMissing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ catalogVersion: 21, digests }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { catalogVersion: 21, missing: [hex(outsiders[1]), hex(outsiders[2])] });
  });

  test("an atomic republish to the same path is served on the next GET /snapshot", async () => {
    const before = await fetchSnapshot(`${base}/snapshot`);
    assert.equal(before.kind, "success");
    assert.equal(before.value.catalogVersion, 21);
    before.value.filter.free();

    // The catalog list first, then its snapshot: serve switches to both together.
    await writeHexList(at("served-v22.txt"), [...catalog, ...outsiders]);
    await rename(at("served-v22.txt"), at("served.txt"));
    const run = await runCli(publishArgs(22, 100, at("served.abf1"), "--input", at("served.txt")));
    assert.equal(run.code, 0, run.stderr);

    const after = await fetchSnapshot(`${base}/snapshot`, { etag: before.value.etag });
    assert.equal(after.kind, "success", `${after.error}: the old ETag must no longer match`);
    assert.notEqual(after.value.etag, before.value.etag);
    assert.equal(after.value.catalogVersion, 22);
    assert.equal(after.value.filter.mightContain(outsiders[0]), true);
    after.value.filter.free();
  });
});
