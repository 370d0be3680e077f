// A fetch-compatible transport over node:https / node:http, for the one thing
// Node's global fetch cannot do without undici's dispatcher: a TLS policy of
// our own (extra CA certificates, or no verification). It keeps the shape
// the library's clients rely on, so their error mapping works unchanged:
//
//   - the answer is a WHATWG Response (status, headers, a web stream body);
//   - `redirect: "manual"` hands back the 3xx itself, "follow" (the
//     default) follows up to 20, "error" rejects;
//   - `signal` aborts the request and the body read, rejecting with the
//     signal's reason (an AbortError by default), as fetch does;
//   - a request body is a Uint8Array, an ArrayBuffer, a string, or a web
//     ReadableStream sent as it is read (with `duplex: "half"`, which fetch
//     requires too), waiting for the socket to drain between chunks;
//   - no HTTP answer rejects with TypeError("fetch failed") whose `cause` is
//     the socket's error (e.g. code UNABLE_TO_VERIFY_LEAF_SIGNATURE), and a
//     body cut off errors the stream with TypeError("terminated").
//
// No Accept-Encoding is sent, so a conforming server answers uncompressed;
// the body is never decompressed.
import http from "node:http";
import https from "node:https";

const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * @typedef {object} NodeFetchOptions
 * @property {string[]} [ca] PEM certificates to trust for https: (undefined: Node's default store)
 * @property {boolean} [rejectUnauthorized] false: accept any certificate (default true)
 * @property {(url: URL) => void} [onHttpsRequest] called before each https: request (for the "verification is off" warning)
 */

/**
 * A fetch function with its own TLS policy; its connections are kept alive
 * and pooled per origin.
 * @param {NodeFetchOptions} [options]
 * @returns {typeof fetch}
 */
export function createNodeFetch({ ca, rejectUnauthorized = true, onHttpsRequest } = {}) {
  const agents = {
    "https:": new https.Agent({ keepAlive: true, rejectUnauthorized, ...(ca === undefined ? {} : { ca }) }),
    "http:": new http.Agent({ keepAlive: true }),
  };
  return /** @type {typeof fetch} */ (
    async (input, init = {}) => {
      const signal = init.signal ?? undefined;
      signal?.throwIfAborted();
      let url = urlOf(input);
      let method = (init.method ?? "GET").toUpperCase();
      const headers = headerObject(init.headers);
      let body = requestBody(init, method, headers);
      const redirect = init.redirect ?? "follow";
      for (let redirects = 0; ; redirects += 1) {
        if (url.protocol === "https:") onHttpsRequest?.(url);
        const answer = await exchange(agents, url, method, headers, body, signal);
        const location = answer.headers.location;
        if (!REDIRECT_STATUSES.has(answer.statusCode ?? 0) || location === undefined || redirect === "manual") {
          return responseOf(answer, method, url, signal, redirects > 0);
        }
        answer.resume();
        if (redirect === "error") throw fetchFailed(new Error(`unexpected redirect to ${location} (redirect: "error")`));
        if (redirects >= MAX_REDIRECTS) throw fetchFailed(new Error("redirect count exceeded"));
        const next = redirectTarget(location, url);
        ({ method, body } = redirectedRequest(answer.statusCode ?? 0, method, body, headers));
        // fetch drops the credentials when a redirect leaves the origin.
        if (next.origin !== url.origin) delete headers.authorization;
        url = next;
      }
    }
  );
}

/** @param {unknown} input */
function urlOf(input) {
  if (typeof input !== "string" && !(input instanceof URL)) {
    throw new TypeError(`this fetch takes a URL or URL string, got ${input === null ? "null" : typeof input}`);
  }
  const url = new URL(input);
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TypeError(`this fetch takes http: and https: URLs, got ${url.protocol}`);
  return url;
}

/**
 * Lower-cased header names → values, from anything Headers accepts.
 * @param {HeadersInit | undefined} init
 */
function headerObject(init) {
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [name, value] of new Headers(init)) headers[name] = value;
  headers.accept ??= "*/*";
  return headers;
}

/**
 * The body to send: bytes, a web stream, or undefined; sets Content-Length
 * (and, for a string, Content-Type) as fetch would.
 * @param {RequestInit} init
 * @param {string} method
 * @param {Record<string, string>} headers
 * @returns {Uint8Array | ReadableStream<Uint8Array> | undefined}
 */
function requestBody(init, method, headers) {
  const { body } = init;
  if (body === undefined || body === null) return undefined;
  if (method === "GET" || method === "HEAD") throw new TypeError("Request with GET/HEAD method cannot have body.");
  if (body instanceof ReadableStream) {
    if (/** @type {{ duplex?: string }} */ (init).duplex !== "half")
      throw new TypeError("RequestInit: duplex option is required when sending a body.");
    return body;
  }
  let bytes;
  if (typeof body === "string") {
    bytes = new TextEncoder().encode(body);
    headers["content-type"] ??= "text/plain;charset=UTF-8";
  } else if (body instanceof Uint8Array) {
    bytes = body;
  } else if (body instanceof ArrayBuffer) {
    bytes = new Uint8Array(body);
  } else {
    throw new TypeError(
      `this fetch sends a Uint8Array, ArrayBuffer, string or ReadableStream body, got ${Object.prototype.toString.call(body)}`,
    );
  }
  headers["content-length"] = String(bytes.byteLength);
  return bytes;
}

/** @param {string} location @param {URL} base */
function redirectTarget(location, base) {
  let next;
  try {
    next = new URL(location, base);
  } catch {
    throw fetchFailed(new Error(`the redirect Location ${JSON.stringify(location)} is not a URL`));
  }
  if (next.protocol !== "http:" && next.protocol !== "https:")
    throw fetchFailed(new Error(`a redirect to ${next.protocol} is not followed`));
  return next;
}

/**
 * The method and body after a redirect (fetch's rules: 303, and POST on 301/302, become a bodiless GET).
 * @param {number} status
 * @param {string} method
 * @param {Uint8Array | ReadableStream<Uint8Array> | undefined} body requestBody's
 * @param {Record<string, string>} headers the request's, edited in place
 * @returns {{ method: string, body: Uint8Array | ReadableStream<Uint8Array> | undefined }}
 */
function redirectedRequest(status, method, body, headers) {
  if (status === 303 ? method !== "HEAD" : (status === 301 || status === 302) && method === "POST") {
    for (const name of ["content-length", "content-type", "content-encoding", "content-language", "content-location"])
      delete headers[name];
    return { method: "GET", body: undefined };
  }
  if (body instanceof ReadableStream) throw fetchFailed(new Error(`a ${status} redirect cannot resend a streamed body`));
  return { method, body };
}

/** @param {unknown} cause */
function fetchFailed(cause) {
  return new TypeError("fetch failed", { cause });
}

/** @param {AbortSignal | undefined} signal */
function abortReason(signal) {
  return signal?.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/**
 * One request → the IncomingMessage, once its headers came.
 * @param {Record<string, http.Agent>} agents by URL protocol ("https:", "http:")
 * @param {URL} url
 * @param {string} method
 * @param {Record<string, string>} headers
 * @param {Uint8Array | ReadableStream<Uint8Array> | undefined} body requestBody's
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<http.IncomingMessage>}
 */
function exchange(agents, url, method, headers, body, signal) {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const request = transport.request(url, { method, headers, agent: agents[url.protocol] });
    let answered = false;
    const onAbort = () => {
      request.destroy();
      if (!answered) reject(abortReason(signal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    request.once("response", (answer) => {
      answered = true;
      signal?.removeEventListener("abort", onAbort);
      resolve(answer);
    });
    request.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      if (!answered) reject(signal?.aborted ? abortReason(signal) : fetchFailed(error));
    });
    if (body instanceof ReadableStream) {
      sendStream(request, body).catch((error) => {
        // A body that fails before the answer fails the fetch, with it as the cause.
        request.destroy(error);
      });
    } else {
      request.end(body);
    }
  });
}

/**
 * Writes a web stream to the request chunk by chunk, waiting for 'drain'
 * whenever the socket's buffer is full.
 * @param {http.ClientRequest} request
 * @param {ReadableStream<Uint8Array>} stream
 */
async function sendStream(request, stream) {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(value instanceof Uint8Array))
        throw new TypeError(`a request body stream must yield Uint8Array chunks, got ${typeof value}`);
      if (request.destroyed) throw new Error("the request was closed while its body was being sent");
      if (!request.write(value)) await drained(request);
    }
    request.end();
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  }
}

/**
 * Resolves on 'drain', or on 'close' (the next write then sees `destroyed`).
 * @param {http.ClientRequest} request
 * @returns {Promise<void>}
 */
function drained(request) {
  return new Promise((resolve) => {
    const done = () => {
      request.off("drain", done);
      request.off("close", done);
      resolve();
    };
    request.on("drain", done);
    request.on("close", done);
  });
}

/**
 * The WHATWG Response for a Node answer; its body is a web stream that
 * pauses the socket while nobody reads.
 * @param {http.IncomingMessage} answer
 * @param {string} method
 * @param {URL} url
 * @param {AbortSignal | undefined} signal
 * @param {boolean} redirected
 * @returns {Response}
 */
function responseOf(answer, method, url, signal, redirected) {
  const headers = new Headers();
  try {
    for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) headers.append(answer.rawHeaders[i], answer.rawHeaders[i + 1]);
  } catch (error) {
    answer.destroy();
    throw fetchFailed(error);
  }
  const status = answer.statusCode ?? 0;
  const nullBody = method === "HEAD" || NULL_BODY_STATUSES.has(status);
  if (nullBody) answer.resume();
  let response;
  try {
    response = new Response(nullBody ? null : webStreamOf(answer, signal), {
      status,
      statusText: answer.statusMessage ?? "",
      headers,
    });
  } catch (error) {
    answer.destroy();
    throw fetchFailed(error);
  }
  Object.defineProperty(response, "url", { value: url.href });
  Object.defineProperty(response, "redirected", { value: redirected });
  return response;
}

/**
 * @param {http.IncomingMessage} answer
 * @param {AbortSignal | undefined} signal
 * @returns {ReadableStream<Uint8Array>}
 */
function webStreamOf(answer, signal) {
  let settled = false;
  /** @type {() => void} */
  let onAbort = () => {};
  return new ReadableStream({
    start(controller) {
      const finish = (/** @type {unknown} */ error) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener("abort", onAbort);
        if (error === undefined) controller.close();
        else controller.error(error);
      };
      onAbort = () => {
        answer.destroy();
        finish(abortReason(signal));
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      answer.on("data", (chunk) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) answer.pause();
      });
      answer.once("end", () => finish(undefined));
      answer.once("error", (error) => finish(new TypeError("terminated", { cause: error })));
      answer.once("close", () => {
        if (!answer.complete)
          finish(
            new TypeError("terminated", {
              cause: Object.assign(new Error("the connection closed before the body ended"), { code: "UND_ERR_SOCKET" }),
            }),
          );
      });
    },
    pull() {
      answer.resume();
    },
    cancel() {
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      answer.destroy();
    },
  });
}
