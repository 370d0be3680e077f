// artifact-bloom/server's access control (issue 35 §1, docs/security.md):
// withAccessControl around createRequestHandler with bearerTokenAuthorizer —
// right, wrong, missing tokens and tokens of another scope; 401/403 with
// fixed JSON bodies; an unauthorized existence question answered the same
// whether the digest exists or not (the catalog is not even asked); the
// token never echoed; constantTimeEqual reading every byte; public reads
// cacheable, authorized ones private; the CORS allow-list with its
// preflight. The handler is called directly (no network) except where a
// client runs over node:http on 127.0.0.1:0.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, HttpArtifactRepository, fetchSnapshot } from "artifact-bloom";
import {
  bearerTokenAuthorizer,
  constantTimeEqual,
  createRequestHandler,
  directoryLayoutStore,
  publishToLayout,
  toNodeListener,
  withAccessControl,
} from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";
import { tempDir } from "./helpers/cli.mjs";

const hexOf = (digest) => Buffer.from(digest).toString("hex");
const members = splitDigests(packedDigests("access", 500));
const stranger = hexOf(splitDigests(packedDigests("access-stranger", 1))[0]);
const member = hexOf(members[7]);
const READER = "reader-token-0123456789abcdef";
const QUERIER = "querier-token-0123456789abcdef";
const BOTH = "both-scopes-token-0123456789abcdef";
const ADMIN = "admin-token-0123456789abcdef";
const TOKENS = [
  { token: READER, scopes: ["read"], name: "reader" },
  { token: QUERIER, scopes: ["existence"], name: "querier" },
  { token: BOTH, scopes: ["read", "existence"] },
  { token: ADMIN, scopes: ["admin"] },
];
const ORIGIN = "https://pages.example";
const base = "http://127.0.0.1/catalog/";

/** A request to the guarded handler, with a bearer token when given. */
function ask(path, { token, method = "GET", body, headers = {} } = {}) {
  const all = { ...headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) };
  if (body !== undefined) all["content-type"] = "application/json";
  return new Request(`${base}${path}`, { method, headers: all, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Status, every header and the body: what a prober could compare. */
async function observed(response) {
  return { status: response.status, headers: [...response.headers.entries()], body: await response.text() };
}

describe("withAccessControl with bearer tokens", () => {
  let dir;
  let handler;
  let lookups = 0;
  let snapshotPath;
  before(async () => {
    dir = await tempDir("access-tokens");
    const created = ArtifactBloomFilter.create(members, { expectedItemCount: 1000, targetFalsePositiveRate: 0.01 });
    assert.equal(created.kind, "success");
    assert.equal((await publishToLayout(dir.path, { filter: created.value, catalogVersion: 1 })).kind, "success");
    created.value.free();
    const present = new Set(members.map(hexOf));
    const catalog = {
      catalogVersion: 1,
      has: (hex) => {
        lookups += 1;
        return present.has(hex);
      },
    };
    // The inner handler's own CORS ("*") is replaced by the guard's allow-list.
    const inner = createRequestHandler({
      store: directoryLayoutStore(dir.path),
      catalog,
      basePath: "/catalog/",
      cors: "*",
      stats: { path: "stats" },
    });
    handler = withAccessControl(inner, { authorize: bearerTokenAuthorizer(TOKENS), basePath: "/catalog/", cors: [ORIGIN] });
    snapshotPath = (await (await handler(ask("manifest.json", { token: READER }))).json()).snapshot.url;
  });
  after(async () => {
    await dir?.remove();
  });

  test("the right token is served on its scope; missing is 401 with a Bearer challenge, wrong is 401 invalid_token", async () => {
    for (const token of [READER, BOTH]) {
      assert.equal((await handler(ask("manifest.json", { token }))).status, 200);
      assert.equal((await handler(ask(snapshotPath, { token }))).status, 200);
    }
    for (const token of [QUERIER, BOTH]) {
      const head = await handler(ask(`blobs/sha256/${member}?catalogVersion=1`, { token, method: "HEAD" }));
      assert.equal(head.status, 200);
      const post = await handler(
        ask("blobs:findMissing", { token, method: "POST", body: { catalogVersion: 1, digests: [member, stranger] } }),
      );
      assert.deepEqual(await post.json(), { catalogVersion: 1, missing: [stranger] });
    }
    const missing = await handler(ask("manifest.json"));
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="artifact-bloom"');
    assert.deepEqual(Object.keys(await missing.json()), ["error", "message"]);
    for (const wrong of [`${READER.slice(0, -1)}X`, `${READER}0`, READER.slice(0, -1), "Basic abc", "x".repeat(5000)]) {
      const response = await handler(ask("manifest.json", { token: wrong }));
      assert.equal(response.status, 401, "a near miss is a miss");
      assert.equal((await response.json()).error, "unauthorized");
    }
    const invalid = await handler(ask("manifest.json", { token: `${READER}0` }));
    assert.equal(invalid.headers.get("www-authenticate"), 'Bearer realm="artifact-bloom", error="invalid_token"');
    // The scheme is case-insensitive (RFC 9110 §11.1).
    const lower = await handler(ask("manifest.json", { headers: { authorization: `bearer ${READER}` } }));
    assert.equal(lower.status, 200);
  });

  test("a valid token outside its scope is 403 with a clear body", async () => {
    const read = await handler(ask("manifest.json", { token: QUERIER }));
    assert.equal(read.status, 403);
    assert.deepEqual(await read.json(), { error: "forbidden", message: "this credential may not read this layout" });
    const query = await handler(ask(`blobs/sha256/${member}?catalogVersion=1`, { token: READER }));
    assert.equal(query.status, 403);
    assert.equal((await query.json()).message, "this credential may not query this existence API");
  });

  test("the stats route, which lists digests other clients asked, needs the admin scope", async () => {
    await handler(ask(`blobs/sha256/${stranger}?catalogVersion=1`, { token: QUERIER, method: "HEAD" }));
    for (const token of [READER, QUERIER, BOTH]) {
      const refused = await handler(ask("stats", { token }));
      assert.equal(refused.status, 403);
      assert.equal((await refused.json()).message, "this credential may not use this administrative route");
    }
    const stats = await handler(ask("stats", { token: ADMIN }));
    assert.equal(stats.status, 200);
    assert.ok(stranger in (await stats.json()).recentByDigest);
    assert.equal((await handler(ask("manifest.json", { token: ADMIN }))).status, 403, "admin alone reads no layout");
  });

  test("an unauthorized existence question answers the same for a present and an absent digest, without asking the catalog", async () => {
    const before = lookups;
    for (const token of [undefined, "not-a-known-token-0000000", READER]) {
      for (const method of ["HEAD", "GET"]) {
        const present = await observed(await handler(ask(`blobs/sha256/${member}?catalogVersion=1`, { token, method })));
        const absent = await observed(await handler(ask(`blobs/sha256/${stranger}?catalogVersion=1`, { token, method })));
        assert.deepEqual(present, absent, `${method} with ${token === undefined ? "no token" : "a refused token"}`);
        assert.ok(present.status === 401 || present.status === 403);
      }
      const body = (digest) => ({ catalogVersion: 1, digests: [digest] });
      const present = await observed(await handler(ask("blobs:findMissing", { token, method: "POST", body: body(member) })));
      const absent = await observed(await handler(ask("blobs:findMissing", { token, method: "POST", body: body(stranger) })));
      assert.deepEqual(present, absent);
    }
    assert.equal(lookups, before, "the catalog was never consulted for a refused question");
  });

  test("the token never appears in an answer or an error message", async () => {
    const secret = "SeCrEt-token-never-echoed-98765";
    for (const path of ["manifest.json", `blobs/sha256/${member}?catalogVersion=1`]) {
      const response = await observed(await handler(ask(path, { token: secret })));
      assert.ok(!JSON.stringify(response).includes(secret), path);
      const scoped = await observed(await handler(ask(path, { token: READER })));
      assert.ok(!JSON.stringify(scoped).includes(READER), path);
    }
    const badEntries = [
      [{ token: "short-SeCrEt", scopes: ["read"] }],
      [{ token: "SeCrEt with spaces inside!", scopes: ["read"] }],
      [{ token: "SeCrEt-long-enough-0000", scopes: ["write"] }],
      [
        { token: "SeCrEt-long-enough-0000", scopes: ["read"] },
        { token: "SeCrEt-long-enough-0000", scopes: ["existence"] },
      ],
    ];
    for (const entries of badEntries) {
      assert.throws(
        () => bearerTokenAuthorizer(entries),
        (error) => error instanceof TypeError && !error.message.includes("SeCrEt"),
      );
    }
  });

  test("constantTimeEqual reads every byte of both digests whatever they hold", () => {
    const counted = (bytes, reads) =>
      new Proxy(bytes, {
        get(target, key) {
          if (typeof key === "string" && /^\d+$/.test(key)) reads.add(Number(key));
          return Reflect.get(target, key);
        },
      });
    const digest = Uint8Array.from({ length: 32 }, (_, index) => index * 7);
    const cases = [
      ["equal", Uint8Array.from(digest), true],
      ["first byte differs", Uint8Array.from(digest, (byte, index) => (index === 0 ? byte ^ 1 : byte)), false],
      ["last byte differs", Uint8Array.from(digest, (byte, index) => (index === 31 ? byte ^ 0x80 : byte)), false],
      ["all differ", new Uint8Array(32).fill(255), false],
    ];
    for (const [what, other, expected] of cases) {
      const left = new Set();
      const right = new Set();
      assert.equal(constantTimeEqual(counted(digest, left), counted(other, right)), expected, what);
      assert.equal(left.size, 32, `${what}: every byte of the left digest read`);
      assert.equal(right.size, 32, `${what}: every byte of the right digest read`);
    }
    assert.equal(constantTimeEqual(new Uint8Array(32), new Uint8Array(31)), false);
    assert.throws(() => constantTimeEqual("abc", new Uint8Array(3)), TypeError);
  });

  test("public reads keep public caching; reads behind a token become private", async () => {
    const publicReads = withAccessControl(
      createRequestHandler({ store: directoryLayoutStore(dir.path), basePath: "/catalog/" }),
      { authorize: bearerTokenAuthorizer(TOKENS, { publicScopes: ["read"] }), basePath: "/catalog/" },
    );
    const open = await publicReads(ask(snapshotPath));
    assert.equal(open.status, 200);
    assert.equal(open.headers.get("cache-control"), "public, max-age=31536000, immutable");
    const guarded = await handler(ask(snapshotPath, { token: READER }));
    assert.equal(guarded.headers.get("cache-control"), "private, max-age=31536000, immutable");
    assert.equal(
      (await publicReads(ask(`blobs/sha256/${member}?catalogVersion=1`))).status,
      401,
      "existence still needs a token",
    );
  });

  test("CORS: a preflight from an allowed origin allows Authorization; another origin gets 403 and no grant", async () => {
    const preflight = await handler(
      ask("blobs:findMissing", {
        method: "OPTIONS",
        headers: { origin: ORIGIN, "access-control-request-headers": "authorization" },
      }),
    );
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), ORIGIN);
    assert.match(preflight.headers.get("access-control-allow-headers"), /\bauthorization\b/);
    assert.match(preflight.headers.get("vary"), /Origin/);
    const stranger = await handler(ask("manifest.json", { method: "OPTIONS", headers: { origin: "https://evil.example" } }));
    assert.equal(stranger.status, 403);
    assert.equal(stranger.headers.get("access-control-allow-origin"), null);
    // A refusal is readable by an allowed page (it says why); nothing is granted to another.
    const refused = await handler(ask("manifest.json", { headers: { origin: ORIGIN } }));
    assert.equal(refused.headers.get("access-control-allow-origin"), ORIGIN);
    assert.match(refused.headers.get("access-control-expose-headers"), /WWW-Authenticate/);
    const served = await handler(ask("manifest.json", { token: READER, headers: { origin: "https://evil.example" } }));
    assert.equal(served.status, 200);
    assert.equal(served.headers.get("access-control-allow-origin"), null, "the inner handler's * was dropped");
    assert.throws(
      () => withAccessControl(handler, { authorize: () => ({ kind: "allow" }), cors: ["https://a.example/"] }),
      TypeError,
    );
    assert.throws(() => withAccessControl(handler, { authorize: () => ({ kind: "allow" }), cors: "*" }), TypeError);
  });

  test("an authorizer that throws is a 500 without its message; onError is told", async () => {
    const told = [];
    const failing = withAccessControl(handler, {
      authorize: () => {
        throw new Error("db password hunter2 rejected");
      },
      onError: (error) => told.push(error.message),
    });
    const response = await failing(ask("manifest.json"));
    assert.equal(response.status, 500);
    assert.ok(!(await response.text()).includes("hunter2"));
    assert.deepEqual(told, ["db password hunter2 rejected"]);
  });

  test("clients over node:http: fetchSnapshot and HttpArtifactRepository with the token; without it an error, never absent", async () => {
    const server = createServer(toNodeListener(handler));
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const root = `http://127.0.0.1:${server.address().port}/catalog/`;
    try {
      const loaded = await fetchSnapshot(`${root}manifest.json`, { headers: { authorization: `Bearer ${BOTH}` } });
      assert.equal(loaded.kind, "success", loaded.message);
      assert.equal(loaded.value.filter.mightContain(members[3]), true);
      loaded.value.filter.free();
      const refused = await fetchSnapshot(`${root}manifest.json`);
      assert.equal(refused.kind, "failure");
      const authorized = (url, init = {}) =>
        fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${QUERIER}` } });
      const repository = new HttpArtifactRepository(root, { fetch: authorized });
      assert.equal(await repository.existsAtVersionAsync(members[1], 1), true);
      assert.deepEqual(await repository.existsManyAtVersionAsync([members[2], Buffer.from(stranger, "hex")], 1), [true, false]);
      const anonymous = new HttpArtifactRepository(root);
      await assert.rejects(anonymous.existsAtVersionAsync(Buffer.from(stranger, "hex"), 1), (error) => error.status === 401);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
