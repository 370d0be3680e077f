// Streaming loads: loadSnapshotStream over async generators, ReadableStreams
// and Responses, and fetchSnapshot over real HTTP.
//
// A streaming load must agree exactly with loadSnapshot on every vector
// whatever the chunking (a chunk boundary inside the header or checksum is
// where incremental parsers break), and it must decide the header from its
// first 96 bytes: a hostile server that sends a huge-bitcount header and
// then stalls must not be able to hold a client. Every wait for something
// that might never happen goes through withTimeout, so a regression fails
// a test instead of hanging the run.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { fetchSnapshot, loadSnapshot, loadSnapshotStream } from "artifact-bloom";
import { chunked, forever, manifest, readVector, readableOf, withTimeout } from "./helpers/abf1.mjs";
import { runChild } from "./helpers/child.mjs";
import { manualTimers } from "./helpers/timers.mjs";

const GUARD_MS = 2000;

const SOURCES = [
  ["async generator, 1-byte chunks", (bytes) => chunked(bytes, 1)],
  ["async generator, 7-byte chunks", (bytes) => chunked(bytes, 7)],
  ["async generator, 4096-byte chunks", (bytes) => chunked(bytes, 4096)],
  ["ReadableStream, 1000-byte chunks", (bytes) => readableOf(bytes, 1000)],
  ["Response", (bytes) => new Response(bytes)],
];

/** What a result looks like once the filter is reduced to its bits (then freed). */
function summarize(result) {
  if (result.kind === "failure") return { kind: "failure", error: result.error };
  const { filter, header, catalogVersion } = result.value;
  const summary = { kind: "success", catalogVersion, header: { ...header }, bits: filter.serializeBits() };
  filter.free();
  return summary;
}

describe("every manifest file through loadSnapshotStream equals loadSnapshot", () => {
  for (const entry of manifest.files) {
    describe(`${entry.file} (${entry.expect})`, () => {
      const bytes = readVector(entry.file);
      const expected = summarize(loadSnapshot(bytes));
      for (const [name, sourceOf] of SOURCES) {
        test(name, async () => {
          const result = await withTimeout(loadSnapshotStream(sourceOf(bytes)), GUARD_MS * 5, entry.file);
          if (result.kind === "failure") {
            assert.equal(typeof result.message, "string");
            assert.ok(result.message.length > 0);
          }
          assert.deepEqual(summarize(result), expected);
        });
      }
    });
  }
});

/** A source that sends `head` (in the given pieces) and then neither sends nor ends. */
function stallingGenerator(head, pieces, state) {
  return (async function* stalling() {
    try {
      let offset = 0;
      for (const size of pieces) {
        yield head.slice(offset, offset + size);
        offset += size;
      }
      state.askedForMore = true;
      await forever();
    } finally {
      state.finalized = true;
    }
  })();
}

describe("the header is rejected as soon as 96 bytes are in", () => {
  for (const [file, code] of [
    ["huge-bitcount.abf1", "invalidHeader"],
    ["bad-magic.abf1", "badMagic"],
  ]) {
    for (const pieces of [[104], [50, 54], [96, 8]]) {
      test(`${file} as ${pieces.join("+")} bytes, then a stall → ${code}, and the source is closed`, async () => {
        const state = {};
        const result = await withTimeout(
          loadSnapshotStream(stallingGenerator(readVector(file), pieces, state)),
          GUARD_MS,
          `${file} must not wait for the rest of the stream`,
        );
        assert.equal(result.kind, "failure");
        assert.equal(result.error, code);
        assert.equal(state.finalized, true, "the generator's finally ran (iterator.return was called)");
      });
    }
  }

  test("huge-bitcount from a ReadableStream that never closes → invalidHeader", async () => {
    const stream = new ReadableStream({ start: (c) => c.enqueue(readVector("huge-bitcount.abf1")) });
    const result = await withTimeout(loadSnapshotStream(stream), GUARD_MS, "stalled ReadableStream");
    assert.equal(result.error, "invalidHeader");
    assert.equal(stream.locked, false, "the reader's lock is released");
  });

  test("a rejected ReadableStream source is cancelled, so its producer stops", async () => {
    // Releasing the lock is not enough: a fetch body keeps downloading (and
    // its connection stays open) until somebody cancels it.
    let cancelled = false;
    const stream = new ReadableStream({
      start: (c) => c.enqueue(readVector("huge-bitcount.abf1")),
      cancel: () => {
        cancelled = true;
      },
    });
    const result = await withTimeout(loadSnapshotStream(stream), GUARD_MS, "stalled ReadableStream");
    assert.equal(result.error, "invalidHeader");
    assert.equal(cancelled, true, "underlying source cancel() was called");
  });
});

describe("options", () => {
  const bytes = readVector("members10k-v43.abf1");

  test("onProgress reports increasing bytes; total is the file length from the 96th byte on", async () => {
    const seen = [];
    const result = await loadSnapshotStream(chunked(bytes, 7), { onProgress: (p) => seen.push({ ...p }) });
    assert.equal(result.kind, "success");
    result.value.filter.free();
    assert.equal(seen.length, Math.ceil(bytes.byteLength / 7));
    for (let i = 0; i < seen.length; i += 1) {
      assert.equal(seen[i].bytes, Math.min((i + 1) * 7, bytes.byteLength));
      assert.equal(seen[i].total, seen[i].bytes >= 96 ? bytes.byteLength : undefined, `call ${i}`);
    }
  });

  test("maxBytes below the file size → tooLarge; equal to it → success", async () => {
    for (const size of [1, 4096]) {
      const result = await loadSnapshotStream(chunked(bytes, size), { maxBytes: bytes.byteLength - 1 });
      assert.equal(result.error, "tooLarge", result.message);
    }
    const exact = await loadSnapshotStream(chunked(bytes, 4096), { maxBytes: bytes.byteLength });
    assert.equal(exact.kind, "success");
    exact.value.filter.free();
  });

  test("maxBytes is enforced from the header's declared size, even if the rest never comes", async () => {
    const state = {};
    const result = await withTimeout(
      loadSnapshotStream(stallingGenerator(bytes, [200], state), { maxBytes: 1000 }),
      GUARD_MS,
      "tooLarge from the header",
    );
    assert.equal(result.error, "tooLarge");
    assert.equal(state.finalized, true);
  });

  test("an AbortSignal aborted mid-stream rejects with its reason, and the source is closed", async () => {
    const controller = new AbortController();
    let finalized = false;
    async function* source() {
      try {
        yield* chunked(bytes, 1000);
      } finally {
        finalized = true;
      }
    }
    const loading = loadSnapshotStream(source(), {
      signal: controller.signal,
      onProgress: ({ bytes: arrived }) => {
        if (arrived >= 3000) controller.abort();
      },
    });
    const error = await withTimeout(
      loading.then(
        () => undefined,
        (e) => e,
      ),
      GUARD_MS,
      "abort",
    );
    assert.ok(error, "the load rejected");
    assert.equal(error, controller.signal.reason);
    assert.equal(error.name, "AbortError");
    assert.equal(finalized, true, "the source generator's finally ran");
  });

  test("a custom abort reason is what the load rejects with", async () => {
    const controller = new AbortController();
    const reason = new Error("user pressed cancel");
    const loading = loadSnapshotStream(chunked(bytes, 1000), {
      signal: controller.signal,
      onProgress: () => controller.abort(reason),
    });
    await assert.rejects(loading, (e) => e === reason);
  });

  test("an already-aborted signal rejects at once, without reading the source", async () => {
    let started = false;
    async function* source() {
      started = true;
      yield bytes;
    }
    const signal = AbortSignal.abort();
    await assert.rejects(withTimeout(loadSnapshotStream(source(), { signal }), GUARD_MS, "pre-aborted"), { name: "AbortError" });
    assert.equal(started, false);
  });

  test("abort while the source is stalled rejects promptly and cancels the stream", async () => {
    // A stalled download must not defeat a Cancel button: the abort has to
    // win over a pending read, not wait for a chunk that may never come.
    let cancelled = false;
    const stream = new ReadableStream({
      start: (c) => c.enqueue(bytes.slice(0, 200)),
      cancel: () => {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await withTimeout(
      loadSnapshotStream(stream, { signal: controller.signal }).then(
        () => undefined,
        (e) => e,
      ),
      GUARD_MS,
      "abort during a stalled read",
    );
    assert.equal(error, controller.signal.reason);
    assert.equal(cancelled, true);
  });

  test("a chunk that is not a Uint8Array → TypeError", async () => {
    for (const bad of ["ABF1", bytes.buffer, [65, 66, 70, 49], new Uint16Array(4), null]) {
      async function* source() {
        yield bytes.slice(0, 10);
        yield bad;
      }
      await assert.rejects(loadSnapshotStream(source()), TypeError);
    }
    await assert.rejects(loadSnapshotStream(42), TypeError, "a number is not a source");
  });
});

describe("idleTimeoutMs: a stalled source ends as a coded failure", () => {
  const bytes = readVector("members10k-v43.abf1");
  // Generous on purpose: the stalls below are certain, so a passing run
  // never comes near this; it only turns a regression into a failure.
  const STALL_GUARD_MS = 30_000;

  /** A ReadableStream that enqueues `head` and then neither sends nor closes. */
  function stalledStream(head, state) {
    return new ReadableStream({
      start: (c) => c.enqueue(head),
      cancel: () => {
        state.cancelled = true;
      },
    });
  }

  test('no chunk for idleTimeoutMs → failure "timeout", and the source is cancelled', async () => {
    const state = {};
    const result = await withTimeout(
      loadSnapshotStream(stalledStream(bytes.slice(0, 200), state), { idleTimeoutMs: 20 }),
      STALL_GUARD_MS,
      "a stalled stream with idleTimeoutMs",
    );
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "timeout", result.message);
    assert.match(result.message, /idleTimeoutMs/);
    assert.equal(state.cancelled, true, "underlying source cancel() was called");
  });

  test("the limit is per chunk: each wait gets a fresh timer, and every timer is cleared", async () => {
    const timers = manualTimers();
    const result = await loadSnapshotStream(chunked(bytes, 4096), { idleTimeoutMs: 5_000, timers });
    assert.equal(result.kind, "success", result.message);
    result.value.filter.free();
    // One wait per chunk plus the final `done`.
    assert.equal(timers.delays.length, Math.ceil(bytes.byteLength / 4096) + 1);
    assert.ok(timers.delays.every((ms) => ms === 5_000));
    assert.equal(timers.live.size, 0, "a timer outlived the load");
  });

  test('firing the idle timer during a stall answers "timeout" at once and asks the source to stop', async () => {
    const timers = manualTimers();
    const state = {};
    const loading = loadSnapshotStream(stalledStream(bytes.slice(0, 200), state), { idleTimeoutMs: 5_000, timers });
    // Bounded: the stream's first chunk is consumed within a few turns.
    for (let turn = 0; turn < 1000 && timers.delays.length < 2; turn += 1) await new Promise((r) => setImmediate(r));
    assert.equal(timers.delays.length, 2, "the load is waiting for its second chunk");
    timers.fireAll();
    const result = await withTimeout(loading, STALL_GUARD_MS, "fired idle timer");
    assert.equal(result.error, "timeout");
    assert.equal(state.cancelled, true);
  });

  test("default: no idle limit for a caller's own stream (no timer is set)", async () => {
    const timers = manualTimers();
    const result = await loadSnapshotStream(chunked(bytes, 4096), { timers });
    assert.equal(result.kind, "success");
    result.value.filter.free();
    assert.deepEqual(timers.delays, []);
  });

  test("a bad idleTimeoutMs or timers → thrown before the source is read", async () => {
    for (const idleTimeoutMs of [0, -1, Number.NaN, "20", null]) {
      await assert.rejects(loadSnapshotStream(chunked(bytes, 4096), { idleTimeoutMs }), RangeError, String(idleTimeoutMs));
    }
    await assert.rejects(loadSnapshotStream(chunked(bytes, 4096), { timers: { setTimeout() {} } }), TypeError);
  });
});

describe("fetchSnapshot over HTTP", () => {
  const body = readVector("members10k-v43.abf1");
  const etag = '"members10k-v43"';
  const lastModified = "Tue, 04 Nov 2025 10:20:30 GMT";
  let server;
  let base;
  let stalledClosed;

  before(async () => {
    server = createServer((request, response) => {
      if (request.url === "/snapshot") {
        if (request.headers["if-none-match"] === etag) {
          response.writeHead(304, { etag, "last-modified": lastModified });
          return response.end();
        }
        response.writeHead(200, {
          etag,
          "last-modified": lastModified,
          "content-type": "application/octet-stream",
          "content-length": body.byteLength,
        });
        return response.end(body);
      }
      if (request.url === "/huge-then-stall") {
        // Declares 2^40 bits, then keeps the connection open forever.
        stalledClosed = new Promise((resolve) => response.on("close", resolve));
        response.writeHead(200, { "content-type": "application/octet-stream" });
        return response.write(readVector("huge-bitcount.abf1"));
      }
      response.writeHead(500, { "content-type": "text/plain" });
      return response.end("boom");
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test("200 → success carrying etag and lastModified (a Date)", async () => {
    const progress = [];
    const result = await fetchSnapshot(`${base}/snapshot`, { onProgress: (p) => progress.push(p) });
    assert.equal(result.kind, "success", result.message);
    const { etag: gotEtag, lastModified: gotDate, catalogVersion, filter } = result.value;
    assert.equal(gotEtag, etag);
    assert.ok(gotDate instanceof Date);
    assert.equal(gotDate.toUTCString(), lastModified);
    assert.equal(catalogVersion, 43);
    assert.deepEqual(filter.serializeBits(), summarize(loadSnapshot(body)).bits);
    filter.free();
    assert.equal(progress.at(-1).bytes, body.byteLength);
    assert.ok(
      progress.every((p) => p.total === body.byteLength),
      "Content-Length gives the total early",
    );
  });

  test("{ etag } equal to the server's → failure notModified", async () => {
    const result = await fetchSnapshot(`${base}/snapshot`, { etag });
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "notModified");
  });

  test("a stale etag gets the full snapshot", async () => {
    const result = await fetchSnapshot(`${base}/snapshot`, { etag: '"older"' });
    assert.equal(result.kind, "success");
    result.value.filter.free();
  });

  test("a 500 → failure httpError", async () => {
    const result = await fetchSnapshot(`${base}/broken`);
    assert.equal(result.kind, "failure");
    assert.equal(result.error, "httpError");
    assert.match(result.message, /500/);
  });

  test("a huge-bitcount header then a stall → invalidHeader, and the connection is closed", async () => {
    const result = await withTimeout(fetchSnapshot(`${base}/huge-then-stall`), GUARD_MS, "fetch of a stalled body");
    assert.equal(result.error, "invalidHeader");
    // The client must drop the response (cancel its body), not leave the
    // socket open for the server to keep filling.
    await withTimeout(stalledClosed, GUARD_MS, "the server to see the connection close");
  });
});

// Issue 21, D11: the idle limit is the only thing that can end a load whose
// source never yields and holds no I/O; if its timer were unref()ed, Node
// would exit with the load unanswered. The child has nothing else pending.
test("a stalled source with no I/O: idleTimeoutMs keeps the process alive and answers timeout", () => {
  const result = runChild(
    `
    import { loadSnapshotStream } from "artifact-bloom";
    const stalled = { [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) };
    const loaded = await loadSnapshotStream(stalled, { idleTimeoutMs: 50 });
    console.log(JSON.stringify({ kind: loaded.kind, error: loaded.error }));
  `,
    30_000,
  );
  assert.deepEqual(result, { kind: "failure", error: "timeout" });
});
