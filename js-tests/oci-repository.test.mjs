// OciRegistryRepository through the package API, against the real registry
// (with a proxy in front where a test needs auth or a fault): HEAD blob is
// 200 → true, 404 → false and anything else an OciRegistryError with status
// and code — a redirect is not followed; bearer tokens are cached per scope
// and refreshed when they expire (injected clock); existsMany keeps at most
// `concurrency` HEADs in flight; the catalogVersion contract; and it plugs
// into ArtifactExistenceService.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ArtifactBloomFilter, ArtifactExistenceService, OciRegistryError, OciRegistryRepository } from "artifact-bloom";
import { tempDir } from "./helpers/cli.mjs";
import { deterministicBytes, sharedBaseImages } from "./helpers/oci-layout.mjs";
import { hexOf, proxyPool, pushFirstImage } from "./helpers/oci-steps.mjs";
import { startDeadRegistry } from "./helpers/registry-proxy.mjs";
import { headsOf, startRegistry } from "./helpers/registry.mjs";

let registry;
let dir;
let images;
const proxies = proxyPool(() => registry.url);
const bytesOf = (digest) => Uint8Array.from(Buffer.from(hexOf(digest), "hex"));
let present; // digests of image A in repository "lib"
let absent; // digests of B's new blobs (not pushed)

before(async () => {
  registry = await startRegistry("oci-repository");
  dir = await tempDir("oci-repository");
  images = sharedBaseImages({ label: "repo" });
  const layout = await images.builder.write(join(dir.path, "layout"));
  await pushFirstImage(registry, layout, "lib", join(dir.path, "empty.abf1"));
  present = [images.configA.digest, ...images.base.map((layer) => layer.descriptor.digest)].map(bytesOf);
  absent = [images.configB.digest, ...images.fresh.map((layer) => layer.descriptor.digest)].map(bytesOf);
});
after(async () => {
  await proxies.stopAll();
  await registry?.stop();
  await dir?.remove();
});

const proxy = (options) => proxies.start(options);

describe("HEAD /v2/<name>/blobs/<digest>", () => {
  test("200 → true, 404 → false; one HEAD per question; findMissingAsync keeps input order", async () => {
    const repository = new OciRegistryRepository(registry.url, "lib");
    assert.equal(await repository.existsAtVersionAsync(present[0], 0), true);
    assert.equal(await repository.existsAtVersionAsync(absent[0], 0), false);
    const mixed = [absent[1], present[1], absent[2], present[2]];
    assert.deepEqual(await repository.existsManyAtVersionAsync(mixed, 3), [false, true, false, true]);
    const missing = await repository.findMissingAsync(mixed);
    assert.equal(missing.length, 2);
    assert.equal(missing[0], absent[1]);
    assert.equal(missing[1], absent[2]);
    assert.equal(repository.requests.head, 10);
    assert.equal(repository.repository, "lib");
  });

  test("a blob stored in the registry but not linked to the repository answers 404 there", async () => {
    const other = new OciRegistryRepository(registry.url, "not-lib");
    assert.equal(await other.existsAtVersionAsync(present[0], 0), false);
  });

  test("3xx is an error (redirects are not followed), 5xx and 403 too: status and code, never an answer", async () => {
    const target = images.base[0].descriptor.digest;
    const faulty = await proxy({
      fault: (req) => {
        if (!req.url.endsWith(hexOf(target))) return undefined;
        const status = Number(req.headers["x-test-status"]);
        return { status, headers: status === 307 ? { location: `${registry.url}${req.url}` } : {} };
      },
    });
    await registry.settle();
    const mark = registry.mark();
    for (const [status, code] of [
      [307, "redirect"],
      [500, "serverError"],
      [503, "serverError"],
      [403, "denied"],
      [429, "tooManyRequests"],
      [400, "unexpectedStatus"],
    ]) {
      const repository = new OciRegistryRepository(faulty.url, "lib", {
        fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, "x-test-status": String(status) } }),
      });
      await assert.rejects(repository.existsAtVersionAsync(bytesOf(target), 0), (error) => {
        assert.ok(error instanceof OciRegistryError, String(error));
        assert.equal(error.status, status);
        assert.equal(error.code, code);
        assert.match(error.message, new RegExp(`HEAD .* answered ${status}`));
        return true;
      });
    }
    await registry.settle();
    assert.equal(headsOf(registry.since(mark), target), 0, "the 307's Location was not followed");
  });

  test("a bad digest is a RangeError before any request; so is a bad catalogVersion", async () => {
    const repository = new OciRegistryRepository(registry.url, "lib");
    await assert.rejects(repository.existsAtVersionAsync(new Uint8Array(31), 0), RangeError);
    await assert.rejects(repository.existsAtVersionAsync("sha256:abc", 0), RangeError);
    await assert.rejects(repository.existsManyAtVersionAsync([present[0], new Uint8Array(33)], 0), /digests\[1\]/);
    await assert.rejects(repository.existsAtVersionAsync(present[0], -1), RangeError);
    await assert.rejects(repository.existsAtVersionAsync(present[0], 1.5), RangeError);
    assert.equal(repository.requests.head, 0);
  });

  test("constructor: a non-http URL, a bad repository name, bad options are TypeError/RangeError", () => {
    assert.throws(() => new OciRegistryRepository("ftp://registry", "lib"), TypeError);
    assert.throws(() => new OciRegistryRepository("not a url", "lib"), TypeError);
    assert.throws(() => new OciRegistryRepository(registry.url, "Upper/Case"), TypeError);
    assert.throws(() => new OciRegistryRepository(registry.url, "lib", { concurrency: 0 }), RangeError);
    assert.throws(() => new OciRegistryRepository(registry.url, "lib", { timeoutMs: -1 }), RangeError);
  });
});

describe("catalogVersion", () => {
  test("any version is answered for now; a pinned version rejects others with catalogVersionMismatch", async () => {
    const free = new OciRegistryRepository(registry.url, "lib");
    assert.equal(await free.existsAtVersionAsync(present[0], 0), true);
    assert.equal(await free.existsAtVersionAsync(present[0], 99), true);
    const pinned = new OciRegistryRepository(registry.url, "lib", { catalogVersion: 7 });
    assert.equal(await pinned.existsAtVersionAsync(present[0], 7), true);
    await assert.rejects(
      pinned.existsAtVersionAsync(present[0], 8),
      (error) => error instanceof RangeError && error.code === "catalogVersionMismatch",
    );
  });
});

describe("auth", () => {
  test("Bearer: one anonymous pull token serves many HEADs; after it expires (injected clock) a new one is fetched", async () => {
    const bearer = await proxy({ auth: "bearer", tokenSeconds: 60 });
    let now = 1_000_000;
    const repository = new OciRegistryRepository(bearer.url, "lib", { now: () => now });
    for (const digest of present) assert.equal(await repository.existsAtVersionAsync(digest, 0), true);
    assert.equal(bearer.stats.tokens, 1, "the token is cached");
    assert.equal(bearer.stats.challenges, 1, "only the first request was challenged");
    now += 61_000;
    assert.equal(await repository.existsAtVersionAsync(absent[0], 0), false);
    assert.equal(bearer.stats.tokens, 2, "an expired token is not sent; the new challenge fetched another");
    assert.equal(repository.requests.token, 2);
  });

  test("Bearer: concurrent 401s share one token request", async () => {
    const bearer = await proxy({ auth: "bearer" });
    const repository = new OciRegistryRepository(bearer.url, "lib", { concurrency: 7 });
    assert.deepEqual(
      await repository.existsManyAtVersionAsync(present, 0),
      present.map(() => true),
    );
    assert.equal(bearer.stats.tokens, 1);
  });

  test("Basic without credentials: unauthorized 401; a static bearer token that is refused: unauthorized", async () => {
    const basic = await proxy({ auth: "basic", users: { ci: "pw" } });
    await assert.rejects(
      new OciRegistryRepository(basic.url, "lib").existsAtVersionAsync(present[0], 0),
      (error) => error.code === "unauthorized" && error.status === 401 && /needs credentials/.test(error.message),
    );
    const ok = new OciRegistryRepository(basic.url, "lib", { credentials: { username: "ci", password: "pw" } });
    assert.equal(await ok.existsAtVersionAsync(present[0], 0), true);
    const bearer = await proxy({ auth: "bearer" });
    await assert.rejects(
      new OciRegistryRepository(bearer.url, "lib", { credentials: { token: "forged" } }).existsAtVersionAsync(present[0], 0),
      (error) => error.code === "unauthorized" && error.status === 401,
    );
  });

  test("identityToken: the realm gets POST grant_type=refresh_token (no Basic); a Basic registry refuses it clearly", async () => {
    const bearer = await proxy({ auth: "bearer", refreshTokens: { "refresh-lib": "ci" } });
    const repository = new OciRegistryRepository(bearer.url, "lib", { credentials: { identityToken: "refresh-lib" } });
    assert.equal(await repository.existsAtVersionAsync(present[0], 0), true);
    assert.deepEqual(
      bearer.stats.refreshForms.map(({ query, form }) => ({ query, ...form })),
      [
        {
          query: "",
          grant_type: "refresh_token",
          refresh_token: "refresh-lib",
          client_id: "artifact-bloom",
          service: "test-registry",
          scope: "repository:lib:pull",
        },
      ],
    );
    assert.equal(
      bearer.stats.log.filter((entry) => entry.path.startsWith("/token") && entry.authorization !== undefined).length,
      0,
    );
    await assert.rejects(
      new OciRegistryRepository(bearer.url, "lib", { credentials: { identityToken: "forged" } }).existsAtVersionAsync(
        present[0],
        0,
      ),
      (error) =>
        error.code === "unauthorized"
        && error.status === 401
        && /POST .*\/token/.test(error.message)
        && !error.message.includes("forged"),
    );
    const basic = await proxy({ auth: "basic", users: { ci: "pw" } });
    await assert.rejects(
      new OciRegistryRepository(basic.url, "lib", { credentials: { identityToken: "refresh-lib" } }).existsAtVersionAsync(
        present[0],
        0,
      ),
      (error) => error.code === "unauthorized" && /an identity token is only for a Bearer token realm/.test(error.message),
    );
  });
});

describe("transport", () => {
  test("at most `concurrency` HEADs in flight (a hard limit, so the bound is exact)", async () => {
    const counting = await proxy({});
    const repository = new OciRegistryRepository(counting.url, "lib", { concurrency: 3 });
    const many = Array.from({ length: 40 }, (_, index) => deterministicBytes(`probe-${index}`, 32));
    assert.deepEqual(
      await repository.existsManyAtVersionAsync(many, 0),
      many.map(() => false),
    );
    assert.ok(counting.stats.maxInFlightHeads <= 3, `max in flight ${counting.stats.maxInFlightHeads}`);
    assert.ok(counting.stats.maxInFlightHeads >= 1);
  });

  test("down: networkError; no answer: timeout (status undefined); the caller's abort rejects with its reason", async () => {
    const dead = await startDeadRegistry();
    try {
      await assert.rejects(
        new OciRegistryRepository(dead.url, "lib").existsAtVersionAsync(present[0], 0),
        (error) => error instanceof OciRegistryError && error.code === "networkError" && error.status === undefined,
      );
    } finally {
      await dead.stop();
    }
    const hanging = await proxy({ fault: () => ({ hang: true }) });
    await assert.rejects(
      new OciRegistryRepository(hanging.url, "lib", { timeoutMs: 200 }).existsAtVersionAsync(present[0], 0),
      (error) => error.code === "timeout" && error.status === undefined,
    );
    const controller = new AbortController();
    const pending = new OciRegistryRepository(hanging.url, "lib").existsManyAtVersionAsync(present, 0, controller.signal);
    const reason = new Error("caller gave up");
    controller.abort(reason);
    await assert.rejects(pending, (error) => error === reason);
  });
});

describe("with ArtifactExistenceService", () => {
  test("only the snapshot's maybes are HEADed; absent blobs cost no request", async () => {
    const built = ArtifactBloomFilter.create(present, { expectedItemCount: 100, targetFalsePositiveRate: 0.001 });
    assert.equal(built.kind, "success");
    const repository = new OciRegistryRepository(registry.url, "lib");
    const service = new ArtifactExistenceService({ catalogVersion: 3, filter: built.value }, repository);
    const missing = await service.findMissingAsync([...present, ...absent]);
    const metrics = service.metrics();
    assert.deepEqual(missing, absent, "every new blob is missing, in input order; every pushed one exists");
    assert.equal(repository.requests.head, metrics["artifact_bloom.maybe.count"]);
    assert.equal(metrics["artifact_bloom.maybe.count"], present.length + metrics["artifact_bloom.false_positive.count"]);
    built.value.free();
  });
});
