// artifact-bloom/server's rate limits on the existence API (issue 35 §3,
// docs/security.md): createRateLimiter's token buckets counted in digests (a
// findMissing of 10,000 costs 10,000), 429 + Retry-After + a JSON body,
// recovery when the injected clock advances (no real time is waited),
// per-token and per-client-key buckets, metrics in the Prometheus text
// format, and memory bounded by maxClients under 100,000 distinct clients.
// The handler is called directly with Requests: no network.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  bearerTokenAuthorizer,
  createRateLimiter,
  createRequestHandler,
  createTenantHandler,
  MAX_DIGESTS_PER_REQUEST,
  renderRateLimitPrometheus,
  withAccessControl,
} from "artifact-bloom/server";
import { packedDigests, splitDigests } from "./helpers/abf1.mjs";

const hexOf = (digest) => Buffer.from(digest).toString("hex");
const members = splitDigests(packedDigests("limits", 200)).map(hexOf);
const strangers = splitDigests(packedDigests("limits-stranger", MAX_DIGESTS_PER_REQUEST)).map(hexOf);
const FIRST = "first-token-0123456789abcdef";
const SECOND = "second-token-0123456789abcdef";
const authorize = bearerTokenAuthorizer(
  [
    { token: FIRST, scopes: ["existence"], tenants: "*", name: "first" },
    { token: SECOND, scopes: ["existence"], tenants: "*", name: "second" },
  ],
  { publicScopes: ["read"] },
);

/** A guarded catalog (200 members, version 1), its limiter and a clock the test moves. */
function setup({ burst = MAX_DIGESTS_PER_REQUEST, digestsPerSecond = 1000, maxClients, clientKey } = {}) {
  const clock = { now: 0 };
  const limiter = createRateLimiter({ burst, digestsPerSecond, maxClients, now: () => clock.now });
  const present = new Set(members);
  const counter = { lookups: 0 };
  const catalog = {
    catalogVersion: 1,
    has: (hex) => {
      counter.lookups += 1;
      return present.has(hex);
    },
  };
  const handler = withAccessControl(createRequestHandler({ catalog }), { authorize, rateLimit: { limiter, clientKey } });
  return { clock, limiter, handler, counter };
}

const head = (hex, token = FIRST, headers = {}) =>
  new Request(`http://127.0.0.1/blobs/sha256/${hex}?catalogVersion=1`, {
    method: "HEAD",
    headers: { authorization: `Bearer ${token}`, ...headers },
  });
const findMissing = (digests, token = FIRST) =>
  new Request("http://127.0.0.1/blobs:findMissing", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ catalogVersion: 1, digests }),
  });

describe("rate limits on the existence API, counted in digests", () => {
  test("a 10,000-digest findMissing spends a 10,000 burst; the next question is 429 with Retry-After and a JSON body", async () => {
    const { clock, limiter, handler } = setup();
    const full = await handler(findMissing(strangers));
    assert.equal(full.status, 200);
    assert.equal((await full.json()).missing.length, MAX_DIGESTS_PER_REQUEST);
    const limited = await handler(head(members[0]));
    assert.equal(limited.status, 429);
    // 1 digest short, 1,000 a second: 1 ms of refill, rounded up to the whole second.
    assert.equal(limited.headers.get("retry-after"), "1");
    const body = await limited.json();
    assert.equal(body.error, "rateLimited");
    assert.equal(body.retryAfterSeconds, 1);
    assert.equal(limited.headers.get("artifact-bloom-catalog-version"), null, "a refusal is no existence answer");
    clock.now += 999;
    assert.equal((await handler(head(members[0]))).status, 200, "999 ms refilled 999 digests");
    clock.now += 1;
    const again = await handler(findMissing(strangers.slice(0, 5000)));
    assert.equal(again.status, 429);
    // 999 digests refilled, 5,000 asked: 4,001 more at 1,000/s is 4.001 s, rounded up to 5.
    assert.equal(again.headers.get("retry-after"), "5");
    clock.now += 5000;
    assert.equal((await handler(findMissing(strangers.slice(0, 5000)))).status, 200, "recovered after Retry-After");
    assert.deepEqual(limiter.metrics(), {
      allowedRequests: 3,
      limitedRequests: 2,
      allowedDigests: MAX_DIGESTS_PER_REQUEST + 1 + 5000,
      limitedDigests: 1 + 5000,
      trackedClients: 1,
      evictedClients: 0,
    });
  });

  test("the cost is the digests in the body, whatever the headers say; refusals reveal nothing and ask no catalog", async () => {
    const { handler, limiter, counter } = setup({ burst: 100, digestsPerSecond: 10 });
    const request = findMissing(strangers.slice(0, 60));
    request.headers.set("x-digest-count", "1");
    assert.equal((await handler(request)).status, 200);
    assert.equal(limiter.metrics().allowedDigests, 60);
    const before = counter.lookups;
    const present = await handler(findMissing(members.slice(0, 50)));
    const absent = await handler(findMissing(strangers.slice(0, 50)));
    assert.equal(present.status, 429);
    assert.deepEqual(
      { status: absent.status, headers: [...absent.headers], body: await absent.text() },
      { status: present.status, headers: [...present.headers], body: await present.text() },
    );
    assert.equal(counter.lookups, before);
    // More than the bucket holds can never pass: 413 (split it), not a Retry-After that would not help.
    const tooMany = await handler(findMissing(strangers.slice(0, 101)));
    assert.equal(tooMany.status, 413);
    assert.equal((await tooMany.json()).error, "tooManyDigests");
    assert.equal(tooMany.headers.get("retry-after"), null);
  });

  test("each token has its own bucket, shared across the tenants it reaches", async () => {
    const clock = { now: 0 };
    const limiter = createRateLimiter({ burst: 10, digestsPerSecond: 1, now: () => clock.now });
    const catalog = { catalogVersion: 1, has: () => false };
    const handler = createTenantHandler({
      tenants: { a: createRequestHandler({ catalog }), b: createRequestHandler({ catalog }) },
      authorize,
      rateLimit: { limiter },
    });
    const ask = (tenant, token) =>
      handler(
        new Request(`http://127.0.0.1/${tenant}/blobs:findMissing`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ catalogVersion: 1, digests: strangers.slice(0, 6) }),
        }),
      );
    assert.equal((await ask("a", FIRST)).status, 200);
    assert.equal((await ask("b", FIRST)).status, 429, "6 + 6 > 10: tenant b shares the token's bucket");
    assert.equal((await ask("b", SECOND)).status, 200, "another token is not slowed");
    clock.now += 2000;
    assert.equal((await ask("b", FIRST)).status, 200);
  });

  test("a caller-given client key (public existence routes); reads are never counted", async () => {
    const open = bearerTokenAuthorizer([], { publicScopes: ["read", "existence"] });
    const clock = { now: 0 };
    const limiter = createRateLimiter({ burst: 2, digestsPerSecond: 1, now: () => clock.now });
    const handler = withAccessControl(createRequestHandler({ catalog: { catalogVersion: 1, has: () => true } }), {
      authorize: open,
      rateLimit: { limiter, clientKey: (request) => request.headers.get("x-forwarded-for") ?? "unknown" },
    });
    const from = (address) => head(members[0], "unused-token-0123456789", { "x-forwarded-for": address });
    assert.equal((await handler(from("10.0.0.1"))).status, 200);
    assert.equal((await handler(from("10.0.0.1"))).status, 200);
    assert.equal((await handler(from("10.0.0.1"))).status, 429);
    assert.equal((await handler(from("10.0.0.2"))).status, 200);
    assert.equal(limiter.metrics().trackedClients, 2);
  });

  test("memory stays bounded: 100,000 distinct clients never hold more than maxClients buckets", async () => {
    const clock = { now: 0 };
    const maxClients = 1000;
    const limiter = createRateLimiter({ burst: 5, digestsPerSecond: 1, maxClients, now: () => clock.now });
    let largest = 0;
    for (let client = 0; client < 100_000; client += 1) {
      assert.equal(limiter.take(`client-${client}`, 1).allowed, true);
      if (client % 1000 === 999) largest = Math.max(largest, limiter.metrics().trackedClients);
    }
    assert.equal(largest, maxClients);
    assert.equal(limiter.metrics().trackedClients, maxClients);
    assert.equal(limiter.metrics().evictedClients, 100_000 - maxClients);
    // A recent client kept its debt: the most recently used are the ones kept.
    for (let spend = 0; spend < 4; spend += 1) limiter.take("client-99999", 1);
    assert.equal(limiter.take("client-99999", 1).allowed, false);
    // Through the handler too, keyed by a caller-given function.
    const { handler, limiter: guarded } = setup({ maxClients: 100, clientKey: (request) => request.headers.get("x-client") });
    for (let client = 0; client < 2000; client += 1) {
      const response = await handler(head(members[1], FIRST, { "x-client": `c${client}` }));
      assert.equal(response.status, 200);
    }
    assert.equal(guarded.metrics().trackedClients, 100);
    assert.equal(guarded.metrics().evictedClients, 1900);
  });

  test("the guard's copy of findMissing bodies is bounded: maxBodyBytes each (413), bodyBudgetBytes together (503)", async () => {
    const limiter = createRateLimiter({ burst: MAX_DIGESTS_PER_REQUEST, digestsPerSecond: 1000, now: () => 0 });
    const catalog = { catalogVersion: 1, has: () => false };
    // One digest's body is 99 bytes, two are 166: a budget of 120 takes the first, not the second.
    const handler = withAccessControl(createRequestHandler({ catalog }), {
      authorize,
      rateLimit: { limiter },
      maxBodyBytes: 4096,
      bodyBudgetBytes: 120,
    });
    const one = await handler(findMissing(strangers.slice(0, 1)));
    assert.equal(one.status, 200);
    assert.equal((await handler(findMissing(strangers.slice(0, 1)))).status, 200, "the first body's bytes were released");
    const busy = await handler(findMissing(strangers.slice(0, 2)));
    assert.equal(busy.status, 503);
    assert.equal(busy.headers.get("retry-after"), "1");
    assert.equal((await busy.json()).error, "serverBusy");
    const large = await handler(findMissing(strangers.slice(0, 100)));
    assert.equal(large.status, 413);
    assert.equal((await large.json()).error, "bodyTooLarge");
    assert.equal(limiter.metrics().allowedDigests, 2, "refused bodies cost nothing");
    assert.throws(() => withAccessControl(handler, { authorize, bodyBudgetBytes: 0 }), TypeError);
  });

  test("metrics render in the Prometheus text format; bad options are TypeErrors", () => {
    const limiter = createRateLimiter({ burst: 3, digestsPerSecond: 1, now: () => 0 });
    limiter.take("x", 3);
    limiter.take("x", 2);
    const text = renderRateLimitPrometheus(limiter.metrics());
    assert.match(text, /^# TYPE artifact_bloom_rate_limit_allowed_requests_total counter$/m);
    assert.match(text, /^artifact_bloom_rate_limit_allowed_digests_total 3$/m);
    assert.match(text, /^artifact_bloom_rate_limit_limited_digests_total 2$/m);
    assert.match(text, /^artifact_bloom_rate_limit_tracked_clients 1$/m);
    assert.ok(text.endsWith("\n"));
    assert.throws(() => renderRateLimitPrometheus({}), TypeError);
    assert.throws(() => createRateLimiter({ burst: 0, digestsPerSecond: 1 }), TypeError);
    assert.throws(() => createRateLimiter({ burst: 10, digestsPerSecond: Number.NaN }), TypeError);
    assert.throws(() => createRateLimiter({ burst: 10, digestsPerSecond: 1, maxClients: 0 }), TypeError);
    assert.throws(() => limiter.take("x", 0), TypeError);
    assert.throws(() => limiter.take("x", 1.5), TypeError);
  });
});
