// The registry client sends requests, and above all credentials, only to the
// registry's own origin (issue 21, D3). Every URL a registry hands back is
// tried: a tag-list Link, a blob upload Location, a redirect of a manifest
// GET, and a Bearer token realm. "Another host" is a second scripted server
// on 127.0.0.1 (another port: another origin) that records what reached it.
//
// The rule: a Link or Location naming another origin is refused (code
// crossOrigin) before anything is sent there; redirects are never followed;
// a token realm on another origin gets the token request, but the Basic
// credentials only when the user named that origin (--token-realm /
// options.tokenRealms).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { OciRegistryError, OciRegistryRepository } from "artifact-bloom";
import { tempDir } from "./helpers/cli.mjs";
import { refuseWithoutBasic, sendJson, sendManifest, startScriptedServer, tinyManifest } from "./helpers/fake-registry.mjs";
import { OciLayoutBuilder } from "./helpers/oci-layout.mjs";
import { publishDigests, publishFromRegistry, pushLayout } from "./helpers/oci-steps.mjs";

const USER = "ci";
const PASSWORD = "s3cret";
const WITH_CREDENTIALS = { extra: ["--username", USER], env: { ARTIFACT_BLOOM_REGISTRY_PASSWORD: PASSWORD } };
const manifest = tinyManifest("origins");
let dir;
const servers = [];

before(async () => {
  dir = await tempDir("oci-origins");
});
after(async () => {
  for (const server of servers.splice(0)) await server.stop();
  await dir?.remove();
});

/** A scripted server, stopped after the suite. */
async function serve(handle) {
  const server = await startScriptedServer(handle);
  servers.push(server);
  return server;
}

/** "Another host": answers anything with 200 and a plausible body, and records it. */
const otherHost = () =>
  serve((req, res, url) => {
    req.resume();
    if (url.pathname.endsWith("/tags/list")) return sendJson(res, 200, { name: "app", tags: ["elsewhere"] });
    if (url.pathname === "/token") return sendJson(res, 200, { token: "good-token", expires_in: 300 });
    return sendJson(res, 201, {});
  });

const at = (name) => join(dir.path, name);

describe("tag-list Link", () => {
  test("a Link to another origin is refused (crossOrigin): nothing, and no credentials, reach that host", async () => {
    const other = await otherHost();
    const registry = await serve((req, res, url) => {
      if (refuseWithoutBasic(req, res, USER, PASSWORD)) return undefined;
      if (url.pathname === "/v2/app/tags/list") {
        return sendJson(
          res,
          200,
          { name: "app", tags: ["a"] },
          { link: `<${other.url}/v2/app/tags/list?n=100&last=a>; rel="next"` },
        );
      }
      if (url.pathname === "/v2/app/manifests/a") return sendManifest(res, manifest);
      return sendJson(res, 404, { errors: [{ code: "NOT_FOUND", message: "no" }] });
    });
    const { run } = await publishFromRegistry(registry.url, "app", at("link-other.abf1"), WITH_CREDENTIALS);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /crossOrigin: .*Link.*another origin/);
    assert.ok(run.stderr.includes(other.origin) && run.stderr.includes(registry.origin), run.stderr);
    assert.deepEqual(other.requests, [], "the other host got no request at all");
  });

  test("an absolute Link within the registry's origin is followed, with the credentials", async () => {
    const registry = await serve((req, res, url) => {
      if (refuseWithoutBasic(req, res, USER, PASSWORD)) return undefined;
      if (url.pathname === "/v2/app/tags/list") {
        if (url.searchParams.get("last") === "a") return sendJson(res, 200, { name: "app", tags: ["b"] });
        return sendJson(
          res,
          200,
          { name: "app", tags: ["a"] },
          { link: `<http://${req.headers.host}/v2/app/tags/list?n=100&last=a>; rel="next"` },
        );
      }
      if (/^\/v2\/app\/manifests\/[ab]$/.test(url.pathname)) return sendManifest(res, manifest);
      return sendJson(res, 404, { errors: [{ code: "NOT_FOUND", message: "no" }] });
    });
    const { run, summary } = await publishFromRegistry(registry.url, "app", at("link-same.abf1"), WITH_CREDENTIALS);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.registry.tags, 2);
  });
});

describe("blob upload Location", () => {
  test("a Location on another origin is refused (crossOrigin): the blob and the credentials stay home", async () => {
    const other = await otherHost();
    const registry = await serve((req, res, url) => {
      req.resume();
      if (refuseWithoutBasic(req, res, USER, PASSWORD)) return undefined;
      if (req.method === "HEAD") return res.writeHead(404).end();
      if (req.method === "POST" && url.pathname === "/v2/app/blobs/uploads/") {
        return res.writeHead(202, { location: `${other.url}/v2/app/blobs/uploads/session-1` }).end();
      }
      return sendJson(res, 404, { errors: [{ code: "NOT_FOUND", message: "no" }] });
    });
    const layout = new OciLayoutBuilder();
    const image = layout.image({ layers: [layout.layer("origins-layer", 1000)], label: "origins" });
    layout.tag("b", image);
    const layoutDir = await layout.write(at("layout"));
    const snapshot = await publishDigests(["ab".repeat(32)], at("unrelated.abf1")); // every blob: definitely absent
    const { run, summary } = await pushLayout(layoutDir, `${registry.host}/app:b`, snapshot, {
      ...WITH_CREDENTIALS,
      extra: [...WITH_CREDENTIALS.extra, "--concurrency", "1"],
    });
    assert.equal(run.code, 3, run.stderr);
    assert.equal(summary.error.code, "crossOrigin", summary.error.message);
    assert.match(summary.error.message, /Location/);
    assert.equal(summary.uploaded, 0);
    assert.deepEqual(other.requests, [], "the other host got no request at all");
  });
});

describe("redirects", () => {
  test("a manifest GET redirected to another origin is an error (redirect), not followed", async () => {
    const other = await otherHost();
    const registry = await serve((req, res, url) => {
      if (refuseWithoutBasic(req, res, USER, PASSWORD)) return undefined;
      if (url.pathname === "/v2/app/tags/list") return sendJson(res, 200, { name: "app", tags: ["a"] });
      if (url.pathname === "/v2/app/manifests/a")
        return res.writeHead(307, { location: `${other.url}/v2/app/manifests/a` }).end();
      return sendJson(res, 404, { errors: [{ code: "NOT_FOUND", message: "no" }] });
    });
    const { run } = await publishFromRegistry(registry.url, "app", at("redirect.abf1"), WITH_CREDENTIALS);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /redirect \(HTTP 307\)/);
    assert.deepEqual(other.requests, []);
  });
});

describe("Bearer token realm on another host", () => {
  /** A registry whose every request needs "Bearer good-token", with its realm at `realm`. */
  const bearerRegistry = (realm) =>
    serve((req, res, url) => {
      req.resume();
      if (req.headers.authorization !== "Bearer good-token") {
        return sendJson(
          res,
          401,
          { errors: [{ code: "UNAUTHORIZED", message: "token needed" }] },
          {
            "www-authenticate": `Bearer realm="${realm}/token",service="scripted",scope="repository:app:pull"`,
          },
        );
      }
      if (url.pathname === "/v2/app/tags/list") return sendJson(res, 200, { name: "app", tags: ["a"] });
      if (url.pathname === "/v2/app/manifests/a") return sendManifest(res, manifest);
      if (req.method === "HEAD") return res.writeHead(404).end();
      return sendJson(res, 404, { errors: [{ code: "NOT_FOUND", message: "no" }] });
    });

  test("with credentials and a realm the user did not name: refused (crossOrigin), the realm sees nothing", async () => {
    const realm = await otherHost();
    const registry = await bearerRegistry(realm.url);
    const { run } = await publishFromRegistry(registry.url, "app", at("realm-unnamed.abf1"), WITH_CREDENTIALS);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /crossOrigin: .*token realm/);
    assert.ok(run.stderr.includes(`--token-realm ${realm.origin}`), `the message says how to allow it: ${run.stderr}`);
    assert.deepEqual(realm.requests, []);
    assert.deepEqual(registry.authorized(), [], "no credentials went to the registry either (it asked for a token)");
  });

  test("with --token-realm naming it: the realm gets the Basic credentials, the registry only the token", async () => {
    const realm = await otherHost();
    const registry = await bearerRegistry(realm.url);
    const named = { ...WITH_CREDENTIALS, extra: [...WITH_CREDENTIALS.extra, "--token-realm", realm.url] };
    const { run, summary } = await publishFromRegistry(registry.url, "app", at("realm-named.abf1"), named);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary.registry.tags, 1);
    const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
    assert.deepEqual(
      realm.requests.map((entry) => entry.authorization),
      [basic],
      "one token request, with the credentials",
    );
    for (const entry of registry.requests)
      assert.notEqual(entry.authorization, basic, `${entry.method} ${entry.path} carried no Basic credentials`);
  });

  test("anonymous: the token request goes to any realm, without an Authorization header", async () => {
    const realm = await otherHost();
    const registry = await bearerRegistry(realm.url);
    const { run } = await publishFromRegistry(registry.url, "app", at("realm-anonymous.abf1"));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(realm.requests.length, 1);
    assert.equal(realm.requests[0].authorization, undefined);
  });

  test("OciRegistryRepository: options.tokenRealms is the same rule through the package API", async () => {
    const realm = await otherHost();
    const registry = await bearerRegistry(realm.url);
    const credentials = { username: USER, password: PASSWORD };
    const digest = new Uint8Array(32).fill(7);
    const unnamed = new OciRegistryRepository(registry.url, "app", { credentials });
    await assert.rejects(unnamed.existsAtVersionAsync(digest, 1), (error) => {
      assert.ok(error instanceof OciRegistryError);
      assert.equal(error.code, "crossOrigin");
      assert.ok(error.message.includes(realm.origin), error.message);
      return true;
    });
    assert.deepEqual(realm.requests, []);
    const named = new OciRegistryRepository(registry.url, "app", { credentials, tokenRealms: [realm.url] });
    assert.equal(await named.existsAtVersionAsync(digest, 1), false);
    assert.equal(realm.authorized().length, 1);
    assert.throws(() => new OciRegistryRepository(registry.url, "app", { tokenRealms: ["not a url"] }), /options\.tokenRealms/);
  });
});
