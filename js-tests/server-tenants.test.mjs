// artifact-bloom/server's createTenantHandler (issue 35 §2,
// docs/security.md): one entry point, two catalogs ("alpha", "beta"), each
// its own layout (two versions, so a delta), existence catalog and handler.
// Through every route — manifest, snapshot, delta, the current-snapshot
// path, the stats path, HEAD/GET blobs, findMissing — a token for alpha
// never reads beta's anything, and a tenant that does not exist is refused
// with the very bytes a forbidden one gets (no enumeration). The handler is
// called directly with Requests: no network.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter } from "artifact-bloom";
import {
  bearerTokenAuthorizer,
  createRequestHandler,
  createTenantHandler,
  directoryLayoutStore,
  publishToLayout,
} from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { tempDir } from "./helpers/cli.mjs";

const hexOf = (digest) => Buffer.from(digest).toString("hex");
const SPEC = { expectedItemCount: 1000, targetFalsePositiveRate: 0.01 };
const TENANTS = ["alpha", "beta"];
const digestsOf = (tenant, version) => splitDigests(packedDigests(`tenant-${tenant}`, 300 + 50 * version));
const TOKEN = { alpha: "alpha-token-0123456789abcdef", beta: "beta-token-0123456789abcdef" };
const ADMIN = "admin-token-0123456789abcdef";
const authorize = bearerTokenAuthorizer([
  { token: TOKEN.alpha, scopes: ["read", "existence", "admin"], tenants: ["alpha"], name: "alpha" },
  { token: TOKEN.beta, scopes: ["read", "existence", "admin"], tenants: ["beta"], name: "beta" },
  { token: ADMIN, scopes: ["read", "existence", "admin"], tenants: "*", name: "admin" },
]);

function ask(path, { token, method = "GET", body } = {}) {
  const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  return new Request(`http://127.0.0.1/catalogs/${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function observed(response) {
  return { status: response.status, headers: [...response.headers.entries()], body: await response.text() };
}

describe("createTenantHandler: tenants isolated through every route", () => {
  const dirs = [];
  /** tenant → { manifest, member (hex) } */
  const facts = {};
  let handler;
  before(async () => {
    const handlers = {};
    for (const tenant of TENANTS) {
      const dir = await tempDir(`tenants-${tenant}`);
      dirs.push(dir);
      for (const version of [1, 2]) {
        const created = ArtifactBloomFilter.create(digestsOf(tenant, version), SPEC);
        assert.equal(created.kind, "success");
        const published = await publishToLayout(dir.path, { filter: created.value, catalogVersion: version });
        assert.equal(published.kind, "success", published.message);
        created.value.free();
      }
      const present = new Set(digestsOf(tenant, 2).map(hexOf));
      handlers[tenant] = createRequestHandler({
        store: directoryLayoutStore(dir.path),
        catalog: { catalogVersion: 2, has: (hex) => present.has(hex) },
        snapshotPath: "snapshot",
        stats: { path: "stats" },
      });
    }
    handler = createTenantHandler({ tenants: handlers, authorize, basePath: "/catalogs/" });
    for (const tenant of TENANTS) {
      const manifest = await (await handler(ask(`${tenant}/manifest.json`, { token: TOKEN[tenant] }))).json();
      facts[tenant] = { manifest, member: hexOf(digestsOf(tenant, 2)[11]) };
    }
  });
  after(async () => {
    for (const dir of dirs) await dir.remove();
  });

  /** Every route of a tenant, as [label, path, init]; the digests asked are the tenant's own member. */
  function routes(tenant, of = tenant) {
    const { manifest, member } = facts[of];
    return [
      ["manifest", `${tenant}/manifest.json`, {}],
      ["snapshot file", `${tenant}/${manifest.snapshot.url}`, {}],
      ["delta file", `${tenant}/${manifest.deltas[0].url}`, {}],
      ["current snapshot", `${tenant}/snapshot`, {}],
      ["stats", `${tenant}/stats`, {}],
      ["HEAD blob", `${tenant}/blobs/sha256/${member}?catalogVersion=2`, { method: "HEAD" }],
      ["GET blob", `${tenant}/blobs/sha256/${member}?catalogVersion=2`, {}],
      ["findMissing", `${tenant}/blobs:findMissing`, { method: "POST", body: { catalogVersion: 2, digests: [member] } }],
    ];
  }

  test("each tenant's token reads its own catalog through every route", async () => {
    for (const tenant of TENANTS) {
      for (const [label, path, init] of routes(tenant)) {
        const response = await handler(ask(path, { ...init, token: TOKEN[tenant] }));
        assert.equal(response.status, 200, `${tenant} ${label}`);
        if (label === "findMissing") assert.deepEqual((await response.json()).missing, [], "its member is present");
      }
    }
    assert.notEqual(facts.alpha.manifest.snapshot.checksum, facts.beta.manifest.snapshot.checksum);
    // Each existence catalog is its own: alpha's member is missing from beta.
    const crossed = await handler(
      ask("beta/blobs:findMissing", {
        token: TOKEN.beta,
        method: "POST",
        body: { catalogVersion: 2, digests: [facts.alpha.member] },
      }),
    );
    assert.deepEqual((await crossed.json()).missing, [facts.alpha.member]);
  });

  test("alpha's token on beta: 403 on every route, the same bytes as for a tenant that does not exist", async () => {
    for (const [index, [label, path, init]] of routes("beta").entries()) {
      const forbidden = await observed(await handler(ask(path, { ...init, token: TOKEN.alpha })));
      assert.equal(forbidden.status, 403, label);
      const unknownPath = routes("gamma", "beta")[index][1];
      const unknown = await observed(await handler(ask(unknownPath, { ...init, token: TOKEN.alpha })));
      assert.deepEqual(unknown, forbidden, `${label}: unknown tenant = forbidden tenant`);
      for (const token of [undefined, "no-such-token-0123456789"]) {
        const beta = await observed(await handler(ask(path, { ...init, token })));
        const gamma = await observed(await handler(ask(unknownPath, { ...init, token })));
        assert.equal(beta.status, 401, label);
        assert.deepEqual(gamma, beta, `${label}: 401 alike`);
      }
    }
  });

  test("beta's files are not reachable under alpha's prefix, by name or by traversal", async () => {
    for (const [label, path, init] of routes("alpha", "beta")) {
      if (label === "current snapshot" || label === "stats" || label.includes("blob") || label === "findMissing") continue;
      const response = await handler(ask(path, { ...init, token: TOKEN.alpha }));
      assert.equal(response.status, label === "manifest" ? 200 : 404, `${label}: alpha's store has no such file`);
      if (label === "manifest") assert.notEqual((await response.json()).snapshot.checksum, facts.beta.manifest.snapshot.checksum);
    }
    for (const path of ["alpha/..%2fbeta/manifest.json", "alpha/%2F%2Fbeta/manifest.json", "alpha//beta/manifest.json"]) {
      const response = await handler(ask(path, { token: TOKEN.alpha }));
      assert.equal(response.status, 404, path);
    }
    // A dot-segment (also as %2e%2e) is resolved by the URL parser first: the request is then beta's, and refused.
    for (const path of ["alpha/../beta/manifest.json", "alpha/%2e%2e/beta/manifest.json"]) {
      assert.equal((await handler(ask(path, { token: TOKEN.alpha }))).status, 403, path);
    }
  });

  test("odd tenant names are unknown tenants: 403 for a scoped token, 404 for a token of every tenant", async () => {
    const forbidden = await observed(await handler(ask("gamma/manifest.json", { token: TOKEN.alpha })));
    for (const name of ["constructor", "__proto__", "toString", "%61lpha", "ALPHA", ".hidden", "a".repeat(65)]) {
      const scoped = await observed(await handler(ask(`${name}/manifest.json`, { token: TOKEN.alpha })));
      assert.deepEqual(scoped, forbidden, name);
      const admin = await handler(ask(`${name}/manifest.json`, { token: ADMIN }));
      assert.equal(admin.status, 404, name);
    }
    assert.equal((await handler(ask("beta/manifest.json", { token: ADMIN }))).status, 200);
    assert.equal((await handler(ask("manifest.json", { token: ADMIN }))).status, 404, "no tenant segment");
  });

  test("a tenant function is asked only for well-formed names, after the caller is authorized", async () => {
    const asked = [];
    const inner = async () => new Response("ok");
    const lazy = createTenantHandler({
      tenants: (name) => {
        asked.push(name);
        return name === "alpha" ? inner : undefined;
      },
      authorize,
      basePath: "/catalogs/",
    });
    assert.equal((await lazy(ask("alpha/manifest.json"))).status, 401);
    assert.equal((await lazy(ask("beta/manifest.json", { token: TOKEN.alpha }))).status, 403);
    assert.equal((await lazy(ask("constructor/manifest.json", { token: ADMIN }))).status, 404);
    assert.deepEqual(asked, ["constructor"], "refused requests never reached the lookup");
    assert.equal((await lazy(ask("%2e%2e/manifest.json", { token: ADMIN }))).status, 404);
    assert.equal(await (await lazy(ask("alpha/manifest.json", { token: TOKEN.alpha }))).text(), "ok");
    assert.deepEqual(asked, ["constructor", "alpha"]);
    assert.throws(() => createTenantHandler({ tenants: { "../x": inner }, authorize }), TypeError);
    assert.throws(() => createTenantHandler({ tenants: { ok: "not a handler" }, authorize }), TypeError);
  });

  test("an authorizer's 'allow, as tenant alpha' is held to alpha even if it compares no names", async () => {
    const asAlpha = createTenantHandler({
      tenants: { alpha: async () => new Response("alpha"), beta: async () => new Response("beta") },
      authorize: () => ({ kind: "allow", tenants: ["alpha"] }),
    });
    assert.equal(await (await asAlpha(new Request("http://127.0.0.1/alpha/manifest.json"))).text(), "alpha");
    assert.equal((await asAlpha(new Request("http://127.0.0.1/beta/manifest.json"))).status, 403);
  });
});
