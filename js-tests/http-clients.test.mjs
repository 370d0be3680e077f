// The HTTP clients never guess (issue 11, part 4):
//
//   - HttpArtifactRepository takes an existence answer only from the
//     repository itself: a redirect is refused (never followed), and every
//     status but 200/404 (HEAD) or 200 (findMissing) rejects with `status`
//     and `code`;
//   - a request that never answers ends, after `timeoutMs`, as an error
//     (repository) or a failure result (fetchSnapshot) with code "timeout";
//     a caller's own abort still wins with its reason; the limit's timer is
//     cleared on every path.
//
// No test waits on the clock: a timeout is provoked with a tiny limit
// against a server that never answers (the hang is certain, so the outcome
// is too), or with injected timers that the test fires itself. Every wait
// that could hang on a regression goes through withTimeout (30 s, far above
// what a passing run needs), so a regression fails instead of hanging.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { HttpArtifactRepository, fetchSnapshot } from "artifact-bloom";
import { readVector, sha256, withTimeout } from "./helpers/abf1.mjs";
import { manualTimers } from "./helpers/timers.mjs";

const GUARD_MS = 30_000;
const VERSION = 7;
const DIGEST = sha256("blob");
const SNAPSHOT = readVector("members10k-v43.abf1");

/** A fetch that never answers, but rejects with the signal's reason on abort (as fetch does). */
function hangingFetch(seen = {}) {
  return (_url, init) =>
    new Promise((_resolve, reject) => {
      seen.signal = init.signal;
      init.signal?.addEventListener("abort", () => reject(init.signal.reason), { once: true });
    });
}

const isCode = (code, status) => (error) => {
  assert.equal(error.code, code, error.message);
  if (status !== undefined) assert.equal(error.status, status, error.message);
  return true;
};

// The existence API's mark (serve's Artifact-Bloom-Catalog-Version): a fake
// that stands for the API carries it, so only the status or body is at fault.
const MARK = { "artifact-bloom-catalog-version": String(VERSION) };
let server;
let base;
const hits = new Map(); // route → requests it received
let snapshotStallClosed;

before(async () => {
  server = createServer((request, response) => {
    const route = request.url.split("/")[1];
    const rest = request.url.slice(route.length + 1);
    hits.set(route, (hits.get(route) ?? 0) + 1);
    const redirect = /^redirect-(\d{3})-to-(.+)$/.exec(route);
    if (redirect) {
      response.writeHead(Number(redirect[1]), { location: `/${redirect[2]}${rest}` });
      return response.end();
    }
    const status = /^status-(\d{3})$/.exec(route);
    if (status) {
      // A well-formed findMissing body: only the status may make it a non-answer.
      response.writeHead(Number(status[1]), { "content-type": "application/json", ...MARK });
      return response.end(Number(status[1]) === 204 ? undefined : JSON.stringify({ catalogVersion: VERSION, missing: [] }));
    }
    switch (route) {
      case "html": // where a redirect might lead: a login page answering 200
        response.writeHead(200, { "content-type": "text/html" });
        return response.end("<html>sign in</html>");
      case "gone":
        response.writeHead(404);
        return response.end();
      case "json-ok":
        response.writeHead(200, { "content-type": "application/json", ...MARK });
        return response.end(JSON.stringify({ catalogVersion: VERSION, missing: [] }));
      case "hang": // never answers; the connection stays open until teardown
        return undefined;
      case "stall-body":
        response.writeHead(200, { "content-type": "application/json", ...MARK });
        return response.write('{"catalogVersion":7,');
      case "snapshot-stall": // a valid header and part of the payload, then nothing
        snapshotStallClosed = new Promise((resolve) => response.on("close", resolve));
        response.writeHead(200, { "content-type": "application/octet-stream" });
        return response.write(SNAPSHOT.subarray(0, 1000));
      default:
        response.writeHead(500);
        return response.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("HttpArtifactRepository: an existence answer only from the repository itself", () => {
  for (const [status, target] of [
    [302, "html"],
    [301, "gone"],
    [303, "html"],
    [307, "html"],
    [308, "gone"],
  ]) {
    test(`HEAD answered ${status} → rejects with code "redirect" and status ${status}; the target is never asked`, async () => {
      hits.clear();
      const repository = new HttpArtifactRepository(`${base}/redirect-${status}-to-${target}/`);
      await assert.rejects(
        withTimeout(repository.existsAtVersionAsync(DIGEST, VERSION), GUARD_MS, "HEAD"),
        isCode("redirect", status),
      );
      assert.equal(hits.get(target), undefined, "the redirect was followed");
    });
  }

  for (const status of [307, 303]) {
    test(`findMissing answered ${status} → rejects with code "redirect"; a well-formed reply behind it is never read`, async () => {
      hits.clear();
      const repository = new HttpArtifactRepository(`${base}/redirect-${status}-to-json-ok/`);
      await assert.rejects(
        withTimeout(repository.existsManyAtVersionAsync([DIGEST], VERSION), GUARD_MS, "findMissing"),
        isCode("redirect", status),
      );
      assert.equal(hits.get("json-ok"), undefined, "the redirect was followed");
    });
  }

  test('a browser\'s opaque redirect (status 0) → code "redirect", status 0', async () => {
    const opaque = { status: 0, type: "opaqueredirect", statusText: "", headers: new Headers(), body: null };
    const repository = new HttpArtifactRepository(base, { fetch: async () => opaque });
    await assert.rejects(repository.existsAtVersionAsync(DIGEST, VERSION), isCode("redirect", 0));
    await assert.rejects(repository.existsManyAtVersionAsync([DIGEST], VERSION), isCode("redirect", 0));
  });

  test('both requests are sent with redirect: "manual"', async () => {
    const modes = [];
    const fetch = async (_url, init) => {
      modes.push(init.redirect);
      return init.method === "HEAD"
        ? new Response(null, { status: 404, headers: MARK })
        : Response.json({ catalogVersion: VERSION, missing: [] }, { headers: MARK });
    };
    const repository = new HttpArtifactRepository(base, { fetch });
    assert.equal(await repository.existsAtVersionAsync(DIGEST, VERSION), false);
    assert.deepEqual(await repository.existsManyAtVersionAsync([DIGEST], VERSION), [true]);
    assert.deepEqual(modes, ["manual", "manual"]);
  });

  for (const status of [204, 403, 410, 429, 500, 503]) {
    test(`HEAD answered ${status} → rejects with code "unexpectedStatus" and status ${status}`, async () => {
      const repository = new HttpArtifactRepository(`${base}/status-${status}/`);
      await assert.rejects(repository.existsAtVersionAsync(DIGEST, VERSION), isCode("unexpectedStatus", status));
    });
  }

  for (const status of [201, 404, 500]) {
    test(`findMissing answered ${status} (with a well-formed body) → rejects with code "unexpectedStatus"`, async () => {
      const repository = new HttpArtifactRepository(`${base}/status-${status}/`);
      await assert.rejects(repository.existsManyAtVersionAsync([DIGEST], VERSION), isCode("unexpectedStatus", status));
    });
  }

  test('findMissing answered 200 with a body that is not JSON, or the wrong shape → code "malformedResponse"', async () => {
    for (const body of ["<html>", JSON.stringify({ catalogVersion: VERSION })]) {
      const repository = new HttpArtifactRepository(base, { fetch: async () => new Response(body, { headers: MARK }) });
      await assert.rejects(repository.existsManyAtVersionAsync([DIGEST], VERSION), isCode("malformedResponse", 200), body);
    }
  });
});

describe("HttpArtifactRepository: timeoutMs", () => {
  test('a HEAD that is never answered → rejects with code "timeout" (name TimeoutError)', async () => {
    const repository = new HttpArtifactRepository(`${base}/hang/`, { timeoutMs: 20 });
    await assert.rejects(withTimeout(repository.existsAtVersionAsync(DIGEST, VERSION), GUARD_MS, "hung HEAD"), (error) => {
      assert.equal(error.code, "timeout", error.message);
      assert.equal(error.name, "TimeoutError");
      assert.match(error.message, /20 ms/);
      return true;
    });
  });

  test('a findMissing whose body stalls after the headers → code "timeout" (the limit covers the body)', async () => {
    const repository = new HttpArtifactRepository(`${base}/stall-body/`, { timeoutMs: 20 });
    await assert.rejects(
      withTimeout(repository.existsManyAtVersionAsync([DIGEST], VERSION), GUARD_MS, "stalled findMissing body"),
      isCode("timeout"),
    );
  });

  test("the default limit is 30 s, and its timer is cleared on every path", async () => {
    const answers = [
      () => new Response(null, { status: 200 }),
      () => new Response(null, { status: 404 }),
      () => new Response(null, { status: 500 }),
      () => new Response(null, { status: 302, headers: { location: "/elsewhere" } }),
      () => {
        throw new TypeError("fetch failed"); // a network error
      },
    ];
    for (const answer of answers) {
      const timers = manualTimers();
      const repository = new HttpArtifactRepository(base, { fetch: async () => answer(), timers });
      await repository.existsAtVersionAsync(DIGEST, VERSION).catch(() => {});
      assert.deepEqual(timers.delays, [30_000]);
      assert.equal(timers.live.size, 0, "a timer outlived its request");
    }
  });

  test('firing the limit aborts the fetch\'s signal and rejects with code "timeout"', async () => {
    const timers = manualTimers();
    const seen = {};
    const repository = new HttpArtifactRepository(base, { fetch: hangingFetch(seen), timers, timeoutMs: 5_000 });
    const pending = repository.existsManyAtVersionAsync([DIGEST], VERSION);
    assert.deepEqual(timers.delays, [5_000]);
    timers.fireAll();
    await assert.rejects(pending, isCode("timeout"));
    assert.equal(seen.signal.aborted, true);
  });

  for (const withAny of [true, false]) {
    test(`a caller's abort wins with its own reason${withAny ? "" : " (engine without AbortSignal.any)"}`, async () => {
      const saved = Object.getOwnPropertyDescriptor(AbortSignal, "any");
      if (!withAny) Object.defineProperty(AbortSignal, "any", { value: undefined, configurable: true, writable: true });
      try {
        const timers = manualTimers();
        const seen = {};
        const repository = new HttpArtifactRepository(base, { fetch: hangingFetch(seen), timers });
        const controller = new AbortController();
        const pending = repository.existsAtVersionAsync(DIGEST, VERSION, controller.signal);
        const reason = new Error("caller stopped");
        controller.abort(reason);
        await assert.rejects(pending, (error) => error === reason);
        assert.equal(seen.signal.aborted, true, "the fetch was not aborted");
        assert.equal(timers.live.size, 0);
      } finally {
        if (saved) Object.defineProperty(AbortSignal, "any", saved);
      }
    });
  }

  test("a bad timeoutMs or timers is refused by the constructor", () => {
    for (const timeoutMs of [0, -1, Number.NaN, "5", null]) {
      assert.throws(() => new HttpArtifactRepository(base, { timeoutMs }), RangeError, String(timeoutMs));
    }
    assert.throws(() => new HttpArtifactRepository(base, { timers: {} }), TypeError);
    assert.doesNotThrow(() => new HttpArtifactRepository(base, { timeoutMs: Infinity }));
  });
});

describe("fetchSnapshot: timeoutMs", () => {
  test('no response headers within timeoutMs → failure "timeout"', async () => {
    const result = await withTimeout(fetchSnapshot(`${base}/hang/`, { timeoutMs: 20 }), GUARD_MS, "hung GET");
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "timeout", result.message);
    assert.match(result.message, /20 ms/);
  });

  test('a body that stops after part of the payload → failure "timeout", and the connection is closed', async () => {
    const result = await withTimeout(fetchSnapshot(`${base}/snapshot-stall/`, { timeoutMs: 20 }), GUARD_MS, "stalled body");
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "timeout", result.message);
    await withTimeout(snapshotStallClosed, GUARD_MS, "the server to see the connection close");
  });

  test("the default is 30 s for the headers and per body chunk; every timer is cleared", async () => {
    const timers = manualTimers();
    const result = await fetchSnapshot(`${base}/unused`, { fetch: async () => new Response(SNAPSHOT), timers });
    assert.equal(result.kind, "success", result.message);
    result.value.filter.free();
    assert.ok(timers.delays.length >= 2, `timers set: ${timers.delays}`);
    assert.ok(
      timers.delays.every((ms) => ms === 30_000),
      `timers set: ${timers.delays}`,
    );
    assert.equal(timers.live.size, 0, "a timer outlived the load");
  });

  test("a caller's abort still rejects with its reason", async () => {
    const controller = new AbortController();
    const pending = fetchSnapshot(`${base}/hang/`, { signal: controller.signal, timeoutMs: 3_600_000 });
    const reason = new Error("caller stopped");
    controller.abort(reason);
    await assert.rejects(withTimeout(pending, GUARD_MS, "aborted GET"), (error) => error === reason);
  });

  test("an httpError failure carries the status", async () => {
    const result = await fetchSnapshot(`${base}/status-503/`);
    assert.equal(result.error, "httpError");
    assert.equal(result.status, 503);
  });

  test("a bad timeoutMs is refused before any request", async () => {
    let requests = 0;
    const fetch = async () => {
      requests += 1;
      return new Response(SNAPSHOT);
    };
    for (const timeoutMs of [0, -5, Number.NaN, "30"]) {
      await assert.rejects(fetchSnapshot(`${base}/unused`, { fetch, timeoutMs }), RangeError, String(timeoutMs));
    }
    assert.equal(requests, 0);
  });
});
