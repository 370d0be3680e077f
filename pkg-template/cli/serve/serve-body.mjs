// Reading POST /blobs:findMissing bodies in `artifact-bloom serve`, within
// a per-request cap and a budget shared by every connection.
//
// Each body was capped at 64 MiB but nothing bounded their sum: 6–8
// concurrent 60 MiB bodies took the server to 494–762 MiB RSS (issue 21,
// D6). Now the bytes buffered across all requests are reserved from one
// BodyBudget as they arrive; a request that would exceed it stops buffering,
// drains the rest of its body and is answered 503 with Retry-After.

/** The largest POST /blobs:findMissing body read (64 MiB); more → 413 and the connection closes. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/**
 * The most digests one POST /blobs:findMissing may ask about. 10,000 hex
 * digests are a 670 KB body, parsed and answered in tens of milliseconds, so
 * one request holds up the HEADs queued behind it only that long, and
 * leaves little garbage (100,000 per request measured 4× the HEAD latency and
 * twice the RSS growth: docs/reliability.md). The package's own client sends
 * 1,000 per request by default.
 */
export const MAX_DIGESTS_PER_REQUEST = 10_000;
/** Default total of findMissing body bytes buffered at once, all connections together (MiB). */
export const DEFAULT_BODY_BUDGET_MIB = 64;
/** The Retry-After (seconds) of a 503 for an exhausted body budget. */
const BODY_RETRY_AFTER_SECONDS = 1;
// Each digest is a JSON string (two quotes); the object form adds two keys.
// Counting quotes as the body arrives rejects an oversized list before
// buffering or parsing it; the exact count is checked after parsing.
const MAX_QUOTES = 2 * (MAX_DIGESTS_PER_REQUEST + 2);

/** An error the server answers with: `status` and `{ error: code, message }` (and `headers`). */
export function answerError(status, code, message, { close = false, headers = {} } = {}) {
  return Object.assign(new Error(message), { status, code, close, headers });
}

export const tooManyDigests = (detail) =>
  answerError(
    413,
    "tooManyDigests",
    `at most ${MAX_DIGESTS_PER_REQUEST} digests per request, ${detail}; split the list into several requests`,
  );

/** The body bytes buffered by all requests together, bounded by `limit`. */
export class BodyBudget {
  /** Bytes reserved now, and the most ever reserved at once (for /stats). */
  used = 0;
  peak = 0;
  /** Requests answered 503 because the budget was spent. */
  refusals = 0;

  /** @param {number} limit bytes */
  constructor(limit) {
    this.limit = limit;
  }

  /** Reserves `bytes` if they fit; false (nothing reserved) if not. */
  reserve(bytes) {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    this.peak = Math.max(this.peak, this.used);
    return true;
  }

  release(bytes) {
    this.used -= bytes;
  }
}

/** How many `"` bytes a chunk holds. */
function countQuotes(chunk) {
  let count = 0;
  for (let at = chunk.indexOf(0x22); at !== -1; at = chunk.indexOf(0x22, at + 1)) count += 1;
  return count;
}

/**
 * The findMissing body as text, its bytes reserved from `budget` until the
 * text is returned. Over MAX_BODY_BYTES → 413 at once (and the connection
 * closes). More strings than MAX_DIGESTS_PER_REQUEST digests could need
 * (413), or no room left in the budget (503 + Retry-After) → the rest is
 * read and dropped, then the error (so the client, still sending, gets the
 * answer instead of a reset).
 */
export function readFindMissingBody(request, budget) {
  return new Promise((done, fail) => {
    const chunks = [];
    let size = 0;
    let reserved = 0;
    let quotes = 0;
    /** @type {Error | undefined} the answer once the rest is drained */
    let refusal;
    const drop = (error) => {
      refusal ??= error;
      chunks.length = 0;
      budget.release(reserved);
      reserved = 0;
    };
    const onData = (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.off("data", onData).pause();
        drop(undefined);
        fail(answerError(413, "bodyTooLarge", `the request body exceeds ${MAX_BODY_BYTES} bytes (64 MiB)`, { close: true }));
        return;
      }
      if (refusal !== undefined) return;
      quotes += countQuotes(chunk);
      if (quotes > MAX_QUOTES) return drop(tooManyDigests("this body holds more"));
      if (!budget.reserve(chunk.length)) {
        budget.refusals += 1;
        return drop(
          answerError(
            503,
            "serverBusy",
            `the server is buffering its limit of ${budget.limit} request-body bytes (all findMissing requests together);`
              + ` retry after ${BODY_RETRY_AFTER_SECONDS} s`,
            { headers: { "retry-after": String(BODY_RETRY_AFTER_SECONDS) } },
          ),
        );
      }
      reserved += chunk.length;
      chunks.push(chunk);
    };
    request.on("data", onData);
    request.once("end", () => {
      if (refusal !== undefined) return fail(refusal);
      const text = Buffer.concat(chunks).toString("utf8");
      drop(undefined);
      done(text);
    });
    request.once("error", (error) => {
      drop(undefined);
      fail(error);
    });
    request.once("close", () => {
      drop(undefined);
      fail(answerError(400, "incompleteBody", "the client closed the connection mid-body"));
    });
  });
}
