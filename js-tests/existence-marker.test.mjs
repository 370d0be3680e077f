// The existence API marks its answers, and HttpArtifactRepository takes only
// marked ones (issue 32 §1.3). Before, any 404 read as "absent": pointed at a
// static host, a wrong base path or a framework's catch-all 404, the client
// answered "absent" for a stored artifact, and the service said "absent"
// after the filter said "maybe" — the one answer we must never give.
//
// Every server here is on 127.0.0.1, port 0: small node:http stand-ins for a
// static host, a framework and an API mounted under a path, and the real
// `artifact-bloom serve`.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  ArtifactBloomFilter,
  ArtifactExistenceService,
  HttpArtifactRepository,
  encodeSnapshot,
  loadSnapshot,
} from "artifact-bloom";
import { hex, sha256 } from "./helpers/digests.mjs";
import { publishSizing, runCli, tempDir } from "./helpers/cli.mjs";
import { startServe, stopServe } from "./helpers/serve-process.mjs";

const VERSION = 3;
const MARK_HEADER = "artifact-bloom-catalog-version";
const members = Array.from({ length: 50 }, (_, i) => sha256(`member:${i}`));
const stranger = sha256("never stored");

/** Starts `handle(request, response)` on 127.0.0.1:0 → { base, close }. */
async function startFake(handle) {
  const server = createServer(handle);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const isCode = (code) => (error) => {
  assert.equal(error.code, code, error.message);
  return true;
};

describe("answers that are not the existence API's are errors, never 'absent' or 'exists'", () => {
  const fakes = {};
  before(async () => {
    // A static host (python3 -m http.server, nginx): 404 for every path it has no file for.
    fakes.staticHost = await startFake((_request, response) =>
      response.writeHead(404, { "content-type": "text/html" }).end("<h1>404</h1>"),
    );
    // A framework's catch-all 404, JSON like an API's.
    fakes.framework = await startFake((request, response) =>
      response
        .writeHead(404, { "content-type": "application/json" })
        .end(
          JSON.stringify({ message: `Route ${request.method}:${request.url} not found`, error: "Not Found", statusCode: 404 }),
        ),
    );
    // A single-page app's catch-all: 200 and index.html for every path.
    fakes.spa = await startFake((_request, response) =>
      response.writeHead(200, { "content-type": "text/html" }).end("<html>app</html>"),
    );
  });
  after(async () => {
    for (const fake of Object.values(fakes)) await fake.close();
  });

  for (const name of ["staticHost", "framework", "spa"]) {
    test(`${name}: HEAD rejects with code "notExistenceApi"`, async () => {
      const repository = new HttpArtifactRepository(`${fakes[name].base}/`);
      await assert.rejects(repository.existsAtVersionAsync(members[0], VERSION), isCode("notExistenceApi"));
    });
  }

  for (const name of ["staticHost", "framework", "spa"]) {
    test(`${name}: findMissing rejects with code "notExistenceApi", naming the URL and the mark expected`, async () => {
      const repository = new HttpArtifactRepository(`${fakes[name].base}/`);
      await assert.rejects(repository.existsManyAtVersionAsync([members[0], stranger], VERSION), (error) => {
        isCode("notExistenceApi")(error);
        assert.match(error.message, new RegExp(`POST ${fakes[name].base}/blobs:findMissing`));
        assert.match(error.message, /does not look like an artifact-bloom existence API/);
        assert.match(error.message, new RegExp(`${MARK_HEADER}: ${VERSION}`));
        return true;
      });
    });
  }

  test("the service confirms a 'maybe' through a static host: an error, never false", async () => {
    const built = ArtifactBloomFilter.create(members, { expectedItemCount: 100, targetFalsePositiveRate: 0.01 });
    assert.equal(built.kind, "success");
    const loaded = loadSnapshot(encodeSnapshot(built.value, { catalogVersion: VERSION }));
    built.value.free();
    assert.equal(loaded.kind, "success");
    const service = new ArtifactExistenceService(loaded.value, new HttpArtifactRepository(`${fakes.staticHost.base}/`));
    await assert.rejects(service.existsAsync(members[7]), isCode("notExistenceApi"));
    // Batched, the maybes go to findMissing: the same error, never "missing" (an upload) or "present" (a skip).
    await assert.rejects(service.findMissingAsync([members[8], members[9], stranger]), isCode("notExistenceApi"));
    loaded.value.filter.free();
  });

  for (const status of [404, 200]) {
    test(`a ${status} marked with another catalogVersion rejects with code "versionMismatch"`, async () => {
      const other = await startFake((_request, response) =>
        response.writeHead(status, { [MARK_HEADER]: String(VERSION + 1) }).end(),
      );
      try {
        const repository = new HttpArtifactRepository(`${other.base}/`);
        await assert.rejects(repository.existsAtVersionAsync(members[0], VERSION), isCode("versionMismatch"));
      } finally {
        await other.close();
      }
    });
  }
});

describe("a base URL without a trailing slash keeps its path", () => {
  let api;
  before(async () => {
    // The existence API mounted under /api/ (every blob stored); anything
    // else is the host's plain 404.
    api = await startFake((request, response) => {
      if (request.url.startsWith("/api/blobs/sha256/")) return response.writeHead(200, { [MARK_HEADER]: String(VERSION) }).end();
      return response.writeHead(404).end();
    });
  });
  after(() => api.close());

  test('new HttpArtifactRepository("http://host/api") asks /api/blobs/…', async () => {
    const repository = new HttpArtifactRepository(`${api.base}/api`);
    assert.equal(await repository.existsAtVersionAsync(members[0], VERSION), true);
  });
});

describe("artifact-bloom serve marks its answers, and only them", () => {
  let dir;
  let server;
  before(async () => {
    dir = await tempDir("existence-marker");
    const list = join(dir.path, "catalog.txt");
    await writeFile(list, `${members.map(hex).join("\n")}\n`);
    const run = await runCli([
      "publish",
      ...publishSizing(VERSION, 100, 0.01),
      "--input",
      list,
      "--out",
      join(dir.path, "c.abf1"),
    ]);
    assert.equal(run.code, 0, run.stderr);
    server = await startServe(join(dir.path, "c.abf1"), list);
  });
  after(async () => {
    await stopServe(server);
    await dir?.remove();
  });

  test("the right base: members exist, a stranger is absent (a marked 404)", async () => {
    const repository = new HttpArtifactRepository(server.base);
    assert.equal(await repository.existsAtVersionAsync(members[3], VERSION), true);
    assert.equal(await repository.existsAtVersionAsync(stranger, VERSION), false);
    assert.deepEqual(await repository.existsManyAtVersionAsync([members[4], stranger], VERSION), [true, false]);
  });

  test("GET of an absent blob: marked, with the BLOB_UNKNOWN code", async () => {
    const response = await fetch(`${server.base}/blobs/sha256/${hex(stranger)}?catalogVersion=${VERSION}`);
    assert.equal(response.status, 404);
    assert.equal(response.headers.get(MARK_HEADER), String(VERSION));
    const body = await response.json();
    assert.equal(body.errors?.[0]?.code, "BLOB_UNKNOWN");
    // The fields clients already read stay as they were.
    assert.deepEqual(
      { digest: body.digest, catalogVersion: body.catalogVersion, exists: body.exists },
      { digest: hex(stranger), catalogVersion: VERSION, exists: false },
    );
  });

  test("another catalogVersion: a marked 409 with availableVersions, and the client says which version is held", async () => {
    const response = await fetch(`${server.base}/blobs/sha256/${hex(members[3])}?catalogVersion=${VERSION + 1}`);
    assert.equal(response.status, 409);
    assert.equal(response.headers.get(MARK_HEADER), String(VERSION));
    assert.deepEqual((await response.json()).availableVersions, [VERSION]);
    const repository = new HttpArtifactRepository(server.base);
    for (const ask of [
      () => repository.existsAtVersionAsync(members[3], VERSION + 1),
      () => repository.existsManyAtVersionAsync([members[3]], VERSION + 1),
    ]) {
      await assert.rejects(ask(), (error) => {
        isCode("versionMismatch")(error);
        assert.equal(error.status, 409);
        assert.match(error.message, new RegExp(`holds catalogVersion "${VERSION}", not ${VERSION + 1}`));
        return true;
      });
    }
  });

  test("a wrong base path gets serve's own (unmarked) 404: an error, not 'absent'", async () => {
    const plain = await fetch(`${server.base}/v2/blobs/sha256/${hex(members[3])}?catalogVersion=${VERSION}`);
    assert.equal(plain.status, 404);
    assert.equal(plain.headers.get(MARK_HEADER), null);
    await plain.arrayBuffer();
    const repository = new HttpArtifactRepository(`${server.base}/v2/`);
    await assert.rejects(repository.existsAtVersionAsync(members[3], VERSION), isCode("notExistenceApi"));
    await assert.rejects(repository.existsManyAtVersionAsync([members[3]], VERSION), isCode("notExistenceApi"));
  });
});
