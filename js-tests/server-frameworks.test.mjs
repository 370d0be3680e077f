// The request handler mounted in one line each (docs/server.md) in
// node:http, Express 5, Fastify 5, Hono 4 and a Cloudflare Worker
// (Miniflare, over an R2 bucket binding with bucketLayoutStore): in each,
// fetchSnapshot follows the manifest and HttpArtifactRepository gets marked
// existence answers (HEAD and findMissing). Servers on 127.0.0.1, port 0.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { ArtifactBloomFilter, HttpArtifactRepository, fetchSnapshot } from "artifact-bloom";
import { createRequestHandler, directoryLayoutStore, publishToLayout, toNodeListener } from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { tempDir } from "./helpers/cli.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const NODE22 = join(here, "..", "tools", "node-runtimes", "node_modules", "node22", "bin", "node");
const RUNNER = join(here, "helpers", "worker-handler-runner.mjs");
const PKG = dirname(createRequire(import.meta.url).resolve("artifact-bloom/package.json"));
const members = splitDigests(packedDigests("frameworks", 800));
const stranger = splitDigests(packedDigests("frameworks-stranger", 1))[0];
const hexOf = (digest) => Buffer.from(digest).toString("hex");

/** Listens on 127.0.0.1:0 → { url, close }. */
async function listen(server) {
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) };
}

describe("the handler mounted in each framework", () => {
  let dir;
  let handler;
  before(async () => {
    dir = await tempDir("server-frameworks");
    const created = ArtifactBloomFilter.create(members, { expectedItemCount: 1000, targetFalsePositiveRate: 0.01 });
    assert.equal(created.kind, "success");
    const published = await publishToLayout(join(dir.path, "layout"), { filter: created.value, catalogVersion: 1 });
    created.value.free();
    assert.equal(published.kind, "success", published.message);
    const present = new Set(members.map(hexOf));
    handler = createRequestHandler({
      store: directoryLayoutStore(join(dir.path, "layout")),
      catalog: { catalogVersion: 1, has: (hex) => present.has(hex) },
      basePath: "/catalog/",
    });
  });
  after(async () => {
    await dir?.remove();
  });

  /** What every framework must give a client: the snapshot, and marked existence answers. */
  async function clientSees(origin) {
    const loaded = await fetchSnapshot(`${origin}/catalog/manifest.json`);
    assert.equal(loaded.kind, "success", loaded.message);
    assert.equal(loaded.value.catalogVersion, 1);
    loaded.value.filter.free();
    const repository = new HttpArtifactRepository(`${origin}/catalog/`);
    assert.deepEqual(await repository.existsManyAtVersionAsync([members[3], stranger], 1), [true, false]);
    assert.equal(await repository.existsAtVersionAsync(stranger, 1), false);
    // The app's own routes are the app's.
    return fetch(`${origin}/health`).then((response) => response.text());
  }

  test("node:http: createServer(toNodeListener(handler))", async () => {
    const server = await listen(createServer(toNodeListener(handler)));
    try {
      const loaded = await fetchSnapshot(`${server.url}/catalog/manifest.json`);
      assert.equal(loaded.kind, "success", loaded.message);
      loaded.value.filter.free();
    } finally {
      await server.close();
    }
  });

  test("Express 5: app.use(toNodeListener(handler)) after the app's routes", async () => {
    const app = express();
    app.get("/health", (_request, response) => response.send("express ok"));
    app.use(toNodeListener(handler));
    const server = await listen(createServer(app));
    try {
      assert.equal(await clientSees(server.url), "express ok");
    } finally {
      await server.close();
    }
  });

  test("Fastify 5: an onRequest hook hands /catalog/ to the listener before Fastify reads the body", async () => {
    const app = Fastify();
    const listener = toNodeListener(handler);
    app.addHook("onRequest", (request, reply, done) => {
      if (!request.url.startsWith("/catalog/")) return done();
      reply.hijack();
      listener(request.raw, reply.raw);
    });
    app.get("/health", async () => "fastify ok");
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      assert.equal(await clientSees(`http://127.0.0.1:${app.server.address().port}`), "fastify ok");
    } finally {
      await app.close();
    }
  });

  test("Hono 4: app.all('/catalog/*', (c) => handler(c.req.raw))", async () => {
    const app = new Hono();
    app.all("/catalog/*", (c) => handler(c.req.raw));
    app.get("/health", (c) => c.text("hono ok"));
    const server = await listen(createServer(toNodeListener((request) => Promise.resolve(app.fetch(request)))));
    try {
      assert.equal(await clientSees(server.url), "hono ok");
    } finally {
      await server.close();
    }
  });

  test("a Cloudflare Worker (Miniflare): export default { fetch } over an R2 binding", {
    skip: !existsSync(NODE22) && process.env.CI !== "true" && "no Node 22 (bash scripts/setup.sh)",
    timeout: 180_000,
  }, async () => {
    const entry = join(dir.path, "worker-entry.js");
    await writeFile(
      entry,
      [
        'import { bucketLayoutStore, createRequestHandler } from "artifact-bloom/server";',
        "export default {",
        "  async fetch(request, env) {",
        '    const listed = await env.LAYOUT.get("catalog/members.json");',
        "    const present = new Set(listed === null ? [] : await listed.json());",
        "    const catalog = { catalogVersion: 1, has: (hex) => present.has(hex) };",
        '    const store = bucketLayoutStore(env.LAYOUT, { prefix: "catalog/" });',
        '    return createRequestHandler({ store, catalog, basePath: "/catalog/" })(request);',
        "  },",
        "};",
      ].join("\n"),
    );
    await writeFile(join(dir.path, "layout", "members.json"), JSON.stringify(members.map(hexOf)));
    const worker = join(dir.path, "worker.js");
    await esbuild.build({
      entryPoints: [entry],
      outfile: worker,
      bundle: true,
      format: "esm",
      platform: "neutral",
      conditions: ["workerd", "worker", "browser"],
      mainFields: ["module", "main"],
      nodePaths: [join(here, "node_modules")],
      logLevel: "error",
    });
    const output = await new Promise((resolve, reject) => {
      const child = spawn(NODE22, [RUNNER, worker, join(dir.path, "layout"), PKG, hexOf(members[3]), hexOf(stranger)], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (chunk) => {
        out += chunk;
      });
      child.stderr.on("data", (chunk) => {
        err += chunk;
      });
      child.once("error", reject);
      child.once("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`runner exited ${code}: ${err}`))));
    });
    const result = JSON.parse(output.trim().split("\n").at(-1));
    assert.equal(result.thrown, undefined, result.thrown);
    assert.deepEqual(result.load, { catalogVersion: 1 });
    assert.deepEqual(result.exists, [true, false]);
    assert.equal(result.head, false);
    assert.equal(result.manifestCacheControl, "no-cache");
  });
});
