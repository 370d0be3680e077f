// The access guard in a Cloudflare Worker (Miniflare 4, workerd): issue 35
// asks that tokens, tenants and rate limits run wherever the handler runs.
// The Worker mounts createTenantHandler over one R2 binding (tenant "a" and
// "b" under their prefixes) with bearerTokenAuthorizer (WebCrypto's
// SHA-256, no node:crypto), a rate limit of 3 digests and a CORS
// allow-list; helpers/worker-access-runner.mjs asks it as clients do.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { ArtifactBloomFilter } from "artifact-bloom";
import { publishToLayout } from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { tempDir } from "./helpers/cli.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const NODE22 = join(here, "..", "tools", "node-runtimes", "node_modules", "node22", "bin", "node");
const RUNNER = join(here, "helpers", "worker-access-runner.mjs");
const PKG = dirname(createRequire(import.meta.url).resolve("artifact-bloom/package.json"));
const hexOf = (digest) => Buffer.from(digest).toString("hex");
const membersOf = (tenant) => splitDigests(packedDigests(`worker-${tenant}`, 400)).map(hexOf);
const stranger = hexOf(splitDigests(packedDigests("worker-stranger", 1))[0]);
const TOKEN_A = "worker-token-a-0123456789abcdef";
const TOKEN_B = "worker-token-b-0123456789abcdef";

/** The Worker's source: tenants built on first request from the bucket's member lists. */
const WORKER = `
import { bearerTokenAuthorizer, bucketLayoutStore, createRateLimiter, createRequestHandler, createTenantHandler } from "artifact-bloom/server";
let handler;
async function build(env) {
  const tenants = {};
  for (const name of ["a", "b"]) {
    const present = new Set(await (await env.LAYOUT.get(name + "/members.json")).json());
    tenants[name] = createRequestHandler({
      store: bucketLayoutStore(env.LAYOUT, { prefix: name + "/" }),
      catalog: { catalogVersion: 1, has: (hex) => present.has(hex) },
    });
  }
  return createTenantHandler({
    tenants,
    authorize: bearerTokenAuthorizer([
      { token: ${JSON.stringify(TOKEN_A)}, scopes: ["read", "existence"], tenants: ["a"] },
      { token: ${JSON.stringify(TOKEN_B)}, scopes: ["read", "existence"], tenants: ["b"] },
    ]),
    cors: ["https://app.example"],
    // 3 digests, then (almost) never again: the runner's 4th digest is refused whatever the clock.
    rateLimit: { limiter: createRateLimiter({ burst: 3, digestsPerSecond: 0.001 }) },
  });
}
export default {
  async fetch(request, env) {
    handler ??= await build(env);
    return handler(request);
  },
};
`;

describe("the access guard in a Cloudflare Worker (Miniflare)", () => {
  let dir;
  before(async () => {
    dir = await tempDir("access-worker");
  });
  after(async () => {
    await dir?.remove();
  });

  test("tokens, tenants, rate limit and CORS answer in workerd as in Node", {
    skip: !existsSync(NODE22) && process.env.CI !== "true" && "no Node 22 (bash scripts/setup.sh)",
    timeout: 180_000,
  }, async () => {
    for (const tenant of ["a", "b"]) {
      const layout = join(dir.path, "layouts", tenant);
      await mkdir(layout, { recursive: true });
      const digests = membersOf(tenant).map((hex) => Uint8Array.from(Buffer.from(hex, "hex")));
      const created = ArtifactBloomFilter.create(digests, { expectedItemCount: 1000, targetFalsePositiveRate: 0.01 });
      assert.equal(created.kind, "success");
      assert.equal((await publishToLayout(layout, { filter: created.value, catalogVersion: 1 })).kind, "success");
      created.value.free();
      await writeFile(join(layout, "members.json"), JSON.stringify(membersOf(tenant)));
    }
    const entry = join(dir.path, "worker-entry.js");
    await writeFile(entry, WORKER);
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
    const args = [RUNNER, worker, join(dir.path, "layouts"), PKG, TOKEN_A, membersOf("a")[5], stranger];
    const output = await new Promise((resolve, reject) => {
      const child = spawn(NODE22, args, { stdio: ["ignore", "pipe", "pipe"] });
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
    assert.equal(result.anonymousLoad, "failure");
    assert.equal(result.otherTenant, 403);
    assert.equal(result.unknownLikeOther, true, "an unknown tenant answers as a forbidden one");
    assert.equal(result.unauthorizedAlike, true, "a 401 does not depend on the digest");
    assert.deepEqual(result.exists, [true, false]);
    assert.equal(result.limited.status, 429, "2 + 2 digests > a burst of 3");
    assert.ok(Number.isInteger(result.limited.retryAfter) && result.limited.retryAfter >= 1);
    assert.equal(result.preflight.status, 204);
    assert.match(result.preflight.allowHeaders, /authorization/);
  });
});
