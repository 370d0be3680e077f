// The CLI runs on the built library as any program does: its modules import
// the package by its own name ("artifact-bloom", "artifact-bloom/oci", …,
// Node's self-reference through "exports"), so an error a registry step
// throws inside the CLI is `instanceof` the OciRegistryError that
// `artifact-bloom` and `artifact-bloom/oci` export (one class: the main
// entry's Node bundle takes it from the oci bundle).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { OciRegistryError } from "artifact-bloom";
import { startScriptedServer } from "./helpers/fake-registry.mjs";

const require = createRequire(import.meta.url);
const PACKAGE_DIR = dirname(require.resolve("artifact-bloom/package.json"));

describe("a registry error thrown inside the CLI is the exported OciRegistryError", () => {
  const cli = (path) => import(pathToFileURL(join(PACKAGE_DIR, "cli", path)).href);
  const savedEnv = {};
  let server;

  before(async () => {
    // clientFromOptions looks credentials up in these places: none of this machine's.
    const absent = join(PACKAGE_DIR, "no-such-directory-for-credentials");
    for (const name of ["DOCKER_CONFIG", "REGISTRY_AUTH_FILE", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"]) {
      savedEnv[name] = process.env[name];
      process.env[name] = join(absent, name);
    }
    server = await startScriptedServer((req, res) => {
      req.resume();
      if (req.url.startsWith("/v2/garbled/tags/list")) res.writeHead(200, { "content-type": "application/json" }).end("not json");
      else res.writeHead(500, { "content-type": "text/plain" }).end("broken");
    });
  });

  after(async () => {
    await server?.stop();
    for (const [name, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  /** What listTags rejects with for repository `name` of the scripted server. */
  async function tagListFailure(name) {
    const { clientFromOptions, describeFailure } = await cli("registry/registry-common.mjs");
    const { listTags } = await cli("registry/registry-catalog.mjs");
    const client = await clientFromOptions(server.url, name, {});
    const error = await listTags(client).then(
      () => assert.fail("listTags resolved"),
      (rejected) => rejected,
    );
    return { error, described: describeFailure(error, client) };
  }

  test("the CLI's own check (a tag list that is not JSON): instanceof, for import and require alike", async () => {
    const { error, described } = await tagListFailure("garbled");
    assert.match(error.message, /answered a tag list that is not JSON/);
    assert.ok(error instanceof OciRegistryError, `${error.constructor.name} from another copy of the library`);
    assert.ok(error instanceof require("artifact-bloom").OciRegistryError);
    assert.equal(described.code, "badResponse");
  });

  test("the main entry and artifact-bloom/oci export one OciRegistryError and one OciRegistryRepository", async () => {
    const oci = await import("artifact-bloom/oci");
    assert.equal(oci.OciRegistryError, OciRegistryError);
    assert.equal(require("artifact-bloom/oci").OciRegistryRepository, require("artifact-bloom").OciRegistryRepository);
  });

  test("the client's error (a 500): instanceof the same class", async () => {
    const { error, described } = await tagListFailure("failing");
    assert.ok(error instanceof OciRegistryError, `${error.constructor.name} from another copy of the library`);
    assert.equal(error.status, 500);
    assert.equal(described.status, 500, "describeFailure recognises it as a registry error (its status)");
  });
});
