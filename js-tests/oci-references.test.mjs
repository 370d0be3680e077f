// push's references against the real docker-registry: HOST/NAME@sha256:…
// pushes by digest and writes no tag (read back by digest, tags/list
// checked); LAYOUT:ENTRY picks the layout entry independently of the remote
// tag; a digest that is not the entry's is refused before any request; and a
// reference with no registry host ("team/app:b" would go to a host called
// "team") is refused with exit 2 before any request anywhere.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { runCli, tempDir } from "./helpers/cli.mjs";
import { startScriptedServer } from "./helpers/fake-registry.mjs";
import { OciLayoutBuilder } from "./helpers/oci-layout.mjs";
import { getManifest, publishFromRegistry, pushLayout } from "./helpers/oci-steps.mjs";
import { startRegistry } from "./helpers/registry.mjs";

const { parseImageReference } = await import(
  new URL("./node_modules/artifact-bloom/cli/registry/image-reference.mjs", import.meta.url).href
);

let registry;
let dir;
let builder;
let layout;
let v1;
let v2;
let snapshot;

before(async () => {
  registry = await startRegistry("oci-refs");
  dir = await tempDir("oci-refs");
  builder = new OciLayoutBuilder();
  const base = builder.layer("refs-base");
  v1 = builder.image({ layers: [base, builder.layer("refs-v1")], label: "refs-v1" });
  v2 = builder.image({ layers: [base, builder.layer("refs-v2")], label: "refs-v2" });
  builder.tag("v1", v1).tag("v2", v2);
  layout = await builder.write(join(dir.path, "layout"));
  snapshot = join(dir.path, "empty.abf1");
  assert.equal((await publishFromRegistry(registry.url, "empty", snapshot)).run.code, 0);
});
after(async () => {
  await registry?.stop();
  await dir?.remove();
});

/** GET tags/list straight from the registry → the tags (none when the repository has none). */
async function tagsOf(repository) {
  const response = await fetch(`${registry.url}/v2/${repository}/tags/list`);
  const body = await response.json();
  if (response.status === 404) return [];
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.tags ?? [];
}

/** The registry's log since `mark`, without the settle markers. */
async function requestsSince(mark) {
  await registry.settle();
  return registry.since(mark).filter((entry) => !entry.path.startsWith("/v2/?settle="));
}

describe("push by digest", () => {
  test("HOST/NAME@sha256:… PUTs the manifest by digest: readable by digest, no tag created", async () => {
    const { run, summary } = await pushLayout(layout, `${registry.host}/by-digest@${v2.digest}`, snapshot);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.ok, true);
    assert.equal(summary.digest, v2.digest, "the entry with that digest was chosen (the layout has two)");
    assert.equal(summary.reference, `${registry.host}/by-digest@${v2.digest}`);
    assert.equal(summary.tagged, false);
    const read = await getManifest(registry.url, "by-digest", v2.digest);
    assert.equal(read.status, 200);
    assert.deepEqual(read.bytes, new Uint8Array(builder.bytes(v2.digest)));
    assert.deepEqual(await tagsOf("by-digest"), [], "no tag was written");
    const manifestPuts = registry.log().filter((entry) => entry.method === "PUT" && entry.path.includes("/by-digest/manifests/"));
    assert.deepEqual(
      manifestPuts.map((entry) => entry.path),
      [`/v2/by-digest/manifests/${v2.digest}`],
    );
  });

  test("text output says no tag was written", async () => {
    const run = await runCli([
      "push",
      `${layout}:v1`,
      `${registry.host}/by-digest-text@${v1.digest}`,
      "--snapshot",
      snapshot,
      "--plain-http",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(`^pushed ${registry.host}/by-digest-text@${v1.digest} \\(${v1.digest}\\), no tag written`, "m"),
    );
  });

  test("a digest that is not the entry's manifest: exit 2 naming both, before any request", async () => {
    await registry.settle();
    const mark = registry.mark();
    const wrong = `sha256:${"0".repeat(64)}`;
    const named = await runCli([
      "push",
      `${layout}:v1`,
      `${registry.host}/mismatch@${v2.digest}`,
      "--snapshot",
      snapshot,
      "--plain-http",
    ]);
    assert.equal(named.code, 2, named.stderr);
    assert.ok(
      named.stderr.includes(`names ${v2.digest}, but the layout's entry "v1" is ${v1.digest}; nothing was pushed`),
      named.stderr,
    );
    const unknown = await runCli(["push", layout, `${registry.host}/mismatch@${wrong}`, "--snapshot", snapshot, "--plain-http"]);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, new RegExp(`index.json has no entry digest ${wrong}`));
    const both = await runCli([
      "push",
      layout,
      `${registry.host}/mismatch:v1@${v1.digest}`,
      "--snapshot",
      snapshot,
      "--plain-http",
    ]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give :TAG or @sha256:DIGEST, not both/);
    assert.deepEqual(await requestsSince(mark), [], "nothing reached the registry");
  });
});

describe("LAYOUT:ENTRY", () => {
  test("the entry and the remote tag are chosen independently", async () => {
    const { run, summary } = await pushLayout(`${layout}:v2`, `${registry.host}/entry:prod`, snapshot);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.digest, v2.digest);
    assert.equal(summary.tagged, true);
    assert.deepEqual(await tagsOf("entry"), ["prod"]);
    const read = await getManifest(registry.url, "entry", "prod");
    assert.deepEqual(read.bytes, new Uint8Array(builder.bytes(v2.digest)));
  });

  test("a named entry must exist, even in a one-entry layout", async () => {
    const single = new OciLayoutBuilder();
    single.tag("only", single.image({ layers: [single.layer("refs-single")], label: "single" }));
    const singleDir = await single.write(join(dir.path, "single"));
    const byTag = await pushLayout(singleDir, `${registry.host}/single:anything`, snapshot);
    assert.equal(byTag.run.code, 0, `without ENTRY the only entry is pushed: ${byTag.run.stderr}`);
    const run = await runCli(["push", `${singleDir}:nope`, `${registry.host}/single:x`, "--snapshot", snapshot, "--plain-http"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /index.json has no entry named "nope"/);
  });
});

describe("a reference must name its registry host", () => {
  test("team/app:b, app:b and team/app@sha256:… exit 2 with the rule, and no request goes anywhere", async () => {
    const snapshotServer = await startScriptedServer((_req, res) => res.writeHead(500).end());
    try {
      await registry.settle();
      const mark = registry.mark();
      for (const reference of ["team/app:b", "app:b", `team/app@${v1.digest}`, "Registry/app:b"]) {
        const run = await runCli([
          "push",
          layout,
          reference,
          "--snapshot",
          `${snapshotServer.url}/snapshot`,
          "--plain-http",
          "--json",
        ]);
        assert.equal(run.code, 2, `${reference}: ${run.stderr}`);
        assert.equal(run.stdout, "", "no summary: nothing was attempted");
        assert.match(run.stderr, /^artifact-bloom: expected HOST\[:PORT\]\/NAME:TAG or HOST\[:PORT\]\/NAME@sha256:DIGEST/);
        assert.ok(run.stderr.includes(`got "${reference}": it names no registry host`), run.stderr);
        assert.equal(run.stderr.trim().split("\n").length, 1, "one line");
      }
      const first = await runCli(["push", layout, "team/app:b", "--snapshot", snapshot]);
      assert.match(first.stderr, /"team" holds no "\." or ":" and is not "localhost"/);
      assert.deepEqual(snapshotServer.requests, [], "the --snapshot URL was not fetched");
      assert.deepEqual(await requestsSince(mark), [], "nothing reached the registry");
    } finally {
      await snapshotServer.stop();
    }
  });

  test("docker's rule: a first component with '.' or ':' or 'localhost' is a host", () => {
    assert.deepEqual(parseImageReference("localhost/app:v1"), { host: "localhost", name: "app", tag: "v1" });
    assert.deepEqual(parseImageReference("registry.example/team/app:v1"), {
      host: "registry.example",
      name: "team/app",
      tag: "v1",
    });
    assert.deepEqual(parseImageReference("registry:5000/app:v1"), { host: "registry:5000", name: "app", tag: "v1" });
    assert.deepEqual(parseImageReference(`[::1]:5000/app@${v1.digest}`), { host: "[::1]:5000", name: "app", digest: v1.digest });
    assert.throws(() => parseImageReference("localhost:5000/app"), /no :TAG or @sha256:DIGEST/);
    assert.throws(() => parseImageReference("localhost/app@sha256:abc"), /bad digest "sha256:abc"/);
  });
});
