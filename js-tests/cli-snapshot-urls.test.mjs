// check and inspect given a URL (issue 33 §2): the snapshot is fetched with
// the library's fetchSnapshot, so a layout's manifest.json is followed and
// a snapshot URL is one GET; the verdicts are those of the same file on
// disk. A URL that cannot be fetched is one line and exit 2; a body that is
// not a snapshot "does not load" (exit 1), as a file would.
// The host is an in-process static file host on 127.0.0.1 (nginx-like
// validators, helpers/static-file-host.mjs) over a temp dir.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { publishSizing, runCli, tempDir } from "./helpers/cli.mjs";
import { startStaticFileHost } from "./helpers/static-file-host.mjs";

const COUNT = 500;
const hexOf = (digest) => Buffer.from(digest).toString("hex");

describe("check and inspect given a URL", () => {
  let dir;
  let host;
  const members = splitDigests(packedDigests("url-check", COUNT)).map(hexOf);
  const strangers = splitDigests(packedDigests("url-stranger", 20)).map(hexOf);
  before(async () => {
    dir = await tempDir("cli-snapshot-urls");
    const root = join(dir.path, "www");
    await mkdir(root);
    const list = join(dir.path, "digests.txt");
    await writeFile(list, `${members.join("\n")}\n`);
    const sizing = publishSizing(1, 1000, 0.01);
    for (const target of [
      ["--out", join(root, "catalog.abf1")],
      ["--layout", join(root, "layout")],
    ]) {
      const run = await runCli(["publish", "--input", list, ...sizing, ...target]);
      assert.equal(run.code, 0, run.stderr);
    }
    // A host's error page answered with 200 (longer than an ABF1 header, so the magic is what fails).
    await writeFile(join(root, "not-a-snapshot.abf1"), `<html>${"a host's error page ".repeat(20)}</html>\n`);
    host = await startStaticFileHost(root);
  });
  after(async () => {
    await host?.close();
    await dir?.remove();
  });

  const verdicts = (stdout) =>
    stdout
      .trim()
      .split("\n")
      .map((line) => line.split(" ")[0]);

  test("check: the file, its URL and the layout's manifest give the same verdicts", async () => {
    const items = [...members.slice(0, 10), ...strangers];
    const file = await runCli(["check", join(dir.path, "www", "catalog.abf1"), ...items]);
    assert.equal(file.code, 0, file.stderr);
    for (const url of [`${host.url}/catalog.abf1`, `${host.url}/layout/manifest.json`]) {
      const fetched = await runCli(["check", url, ...items]);
      assert.equal(fetched.code, 0, `${url}: ${fetched.stderr}`);
      assert.equal(fetched.stdout, file.stdout, url);
    }
    assert.deepEqual(verdicts(file.stdout).slice(0, 10), Array(10).fill("maybe"), "members are never absent");
  });

  test("the manifest mode fetched the manifest, then the snapshot it names", async () => {
    const before = host.requests.length;
    const run = await runCli(["inspect", `${host.url}/layout/manifest.json`, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.verdict, "ok");
    assert.equal(report.header.catalogVersion, 1);
    assert.equal(report.header.insertedItemCount, COUNT);
    const paths = host.requests.slice(before).map((request) => request.path);
    assert.deepEqual(paths, ["/layout/manifest.json", `/layout/snapshots/${report.header.checksum}.abf1`]);
  });

  test("a 404 is one line and exit 2; a body that is not a snapshot does not load (exit 1)", async () => {
    const missing = await runCli(["check", `${host.url}/nothing.abf1`, members[0]]);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr.trim().split("\n").length, 1, missing.stderr);
    assert.match(missing.stderr, /httpError: GET .*nothing\.abf1 answered 404/);
    const page = await runCli(["check", `${host.url}/not-a-snapshot.abf1`, members[0]]);
    assert.equal(page.code, 1);
    assert.match(page.stderr, /does not load: badMagic/);
    const inspected = await runCli(["inspect", `${host.url}/not-a-snapshot.abf1`]);
    assert.equal(inspected.code, 1);
    assert.match(inspected.stdout, /badMagic/);
  });

  test("nothing listens: exit 2, one line naming the URL", async () => {
    const closed = await startStaticFileHost(dir.path);
    const url = `${closed.url}/catalog.abf1`;
    await closed.close();
    const run = await runCli(["check", url, members[0]]);
    assert.equal(run.code, 2);
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    assert.match(run.stderr, /networkError/);
  });
});
