// A Web-standard handler as a `node:http` request listener, for
// http.createServer, Express (`app.use("/catalog", toNodeListener(h))`
// strips the mount path: use `basePath: "/"` there) and Fastify's raw
// request: the IncomingMessage becomes a Request (its body streamed, never
// read whole here), the Response is written back as it streams. lib/ is
// checked against the web platform's types only, so the Node objects are
// described by the little this uses.

/**
 * What toNodeListener uses of an IncomingMessage and a ServerResponse.
 *
 * @typedef {AsyncIterable<Uint8Array> & {
 *   method?: string; url?: string; headers: Record<string, string | string[] | undefined>;
 *   socket?: unknown;
 * }} NodeRequest
 * @typedef {{
 *   writeHead(status: number, headers: Record<string, string>): unknown;
 *   write(chunk: Uint8Array): boolean;
 *   end(): unknown;
 *   once(event: "drain" | "close", listener: () => void): unknown;
 *   destroy(error?: Error): unknown;
 *   writableEnded?: boolean;
 *   destroyed?: boolean;
 * }} NodeResponse
 */

/**
 * `handler` as a node:http listener.
 *
 * @param {(request: Request) => Promise<Response>} handler
 * @returns {(request: NodeRequest, response: NodeResponse) => void}
 */
export function toNodeListener(handler) {
  if (typeof handler !== "function") throw new TypeError("toNodeListener: expected a (request) => Promise<Response> handler");
  return (incoming, outgoing) => {
    serve(handler, incoming, outgoing).catch((error) => outgoing.destroy(error));
  };
}

/**
 * @param {(request: Request) => Promise<Response>} handler
 * @param {NodeRequest} incoming
 * @param {NodeResponse} outgoing
 */
async function serve(handler, incoming, outgoing) {
  const method = incoming.method ?? "GET";
  const host = String(incoming.headers.host ?? "localhost");
  // (A TLSSocket has `encrypted: true`; the type says `unknown` so that
  // node:http's Socket, which shares no declared property with it, fits.)
  const encrypted = /** @type {{ encrypted?: boolean } | undefined} */ (incoming.socket)?.encrypted;
  const url = `${encrypted ? "https" : "http"}://${host}${incoming.url ?? "/"}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = method !== "GET" && method !== "HEAD";
  const controller = new AbortController();
  outgoing.once("close", () => controller.abort());
  /** @type {RequestInit & { duplex?: "half" }} */
  const init = { method, headers, signal: controller.signal };
  if (hasBody) {
    init.body = streamOf(incoming);
    init.duplex = "half";
  }
  const response = await handler(new Request(url, init));
  /** @type {Record<string, string>} */
  const out = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  outgoing.writeHead(response.status, out);
  if (response.body === null || method === "HEAD") {
    await response.body?.cancel();
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (outgoing.destroyed) throw new Error("the client went away");
      if (!outgoing.write(value)) await new Promise((resolve) => outgoing.once("drain", () => resolve(undefined)));
    }
    outgoing.end();
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
}

/**
 * The request body as a web stream, pulled as the handler reads it.
 *
 * @param {AsyncIterable<Uint8Array>} incoming
 * @returns {ReadableStream<Uint8Array>}
 */
function streamOf(incoming) {
  const iterator = incoming[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(new Uint8Array(value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
