// A small HTTP proxy in front of a test registry, on 127.0.0.1 port 0:
//
//   auth "basic"   every request needs Authorization: Basic (users map), else
//                  401 + WWW-Authenticate: Basic realm=…
//   auth "bearer"  every request needs a token with the right scope (pull for
//                  HEAD/GET, pull,push otherwise), else 401 + WWW-Authenticate:
//                  Bearer realm="<proxy>/token",service=…,scope=…; GET /token
//                  checks Basic credentials (anonymous gets pull only);
//                  POST /token with grant_type=refresh_token (OAuth2, docker's
//                  identity token) accepts the refreshTokens { token: user }
//   tagPageSize N  answers GET …/tags/list itself, N tags a page in lexical
//                  order with `Link: <…?n=N&last=T>; rel="next"` (the spec's
//                  pagination; Debian's registry 2.8 returns one page)
//   cors true      answers preflights and adds Access-Control-* headers (for
//                  a registry started without them)
//   fault(req)     a hook per request: return { status } to answer that
//                  instead, { digestHeader } to forward but rewrite the
//                  answer's Docker-Content-Digest, { hang: true } to never
//                  answer, or undefined to forward untouched
//
// The Host header is forwarded as is, so the registry's upload Locations
// point back at the proxy.
import { request as httpRequest, createServer } from "node:http";

export async function startProxy(
  target,
  {
    auth = "none",
    users = {},
    refreshTokens = {},
    service = "test-registry",
    tokenSeconds = 300,
    tagPageSize,
    cors = false,
    fault,
  } = {},
) {
  const targetUrl = new URL(target);
  const stats = {
    requests: 0,
    challenges: 0,
    tokens: 0,
    forwarded: 0,
    inFlightHeads: 0,
    maxInFlightHeads: 0,
    log: [],
    refreshForms: [],
  };
  const tokens = new Map(); // token → { actions: Set }
  const hanging = new Set();
  let url;

  const basicUser = (header) => {
    const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
    if (!match) return undefined;
    const [name, ...rest] = Buffer.from(match[1], "base64").toString("utf8").split(":");
    return users[name] !== undefined && users[name] === rest.join(":") ? name : undefined;
  };

  const repositoryOf = (path) => /^\/v2\/(.+?)\/(?:blobs|manifests|tags)\//.exec(path)?.[1];

  const issueToken = (req, res, form) => {
    stats.tokens += 1;
    const query = form ?? new URL(req.url, "http://proxy").searchParams;
    const refreshed = form === undefined ? undefined : refreshTokens[form.get("refresh_token") ?? ""];
    const user = form === undefined ? basicUser(req.headers.authorization) : refreshed;
    if ((req.headers.authorization || form !== undefined) && user === undefined) {
      res
        .writeHead(401, { "content-type": "application/json" })
        .end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED", message: "bad credentials" }] }));
      return;
    }
    const actions = new Set();
    for (const scope of query.getAll("scope").flatMap((value) => value.split(" "))) {
      for (const action of (scope.split(":")[2] ?? "").split(",")) {
        if (action === "pull" || user !== undefined) actions.add(action);
      }
    }
    const token = `token-${stats.tokens}-${[...actions].sort().join("+")}`;
    tokens.set(token, { actions });
    // An OAuth2 answer to the refresh grant names it access_token.
    const answer =
      form === undefined
        ? { token, expires_in: tokenSeconds }
        : { access_token: token, token_type: "Bearer", expires_in: tokenSeconds };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  };

  /** undefined when allowed, else the 401 to send. */
  const challenge = (req) => {
    if (auth === "basic") {
      return basicUser(req.headers.authorization) === undefined
        ? { "www-authenticate": 'Basic realm="test-registry"' }
        : undefined;
    }
    if (auth === "bearer") {
      const needed = req.method === "HEAD" || req.method === "GET" ? "pull" : "push";
      const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
      if (token !== undefined && tokens.get(token)?.actions.has(needed)) return undefined;
      const repository = repositoryOf(new URL(req.url, "http://proxy").pathname);
      const scope =
        repository === undefined ? "" : `,scope="repository:${repository}:${needed === "pull" ? "pull" : "pull,push"}"`;
      return { "www-authenticate": `Bearer realm="${url}/token",service="${service}"${scope}` };
    }
    return undefined;
  };

  const paginateTags = async (req, res) => {
    const asked = new URL(req.url, "http://proxy");
    const upstream = await fetch(new URL(asked.pathname, target));
    const body = await upstream.json();
    if (upstream.status !== 200) {
      res.writeHead(upstream.status, { "content-type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    const size = Math.min(Number(asked.searchParams.get("n") ?? tagPageSize), tagPageSize);
    const last = asked.searchParams.get("last");
    const all = [...(body.tags ?? [])].sort();
    const rest = last === null ? all : all.filter((tag) => tag > last);
    const page = rest.slice(0, size);
    const headers = { "content-type": "application/json" };
    if (rest.length > size) headers.link = `<${asked.pathname}?n=${size}&last=${encodeURIComponent(page.at(-1))}>; rel="next"`;
    res.writeHead(200, headers).end(JSON.stringify({ name: body.name, tags: page }));
  };

  const corsHeaders = {
    "access-control-allow-origin": "*",
    "access-control-expose-headers": "Docker-Content-Digest, WWW-Authenticate, Link, Location, Range",
  };
  const server = createServer((req, res) => {
    if (cors) {
      if (req.method === "OPTIONS") {
        req.resume();
        res
          .writeHead(204, {
            ...corsHeaders,
            "access-control-allow-methods": "HEAD, GET, OPTIONS",
            "access-control-allow-headers": "Authorization, Accept",
          })
          .end();
        return;
      }
      for (const [name, value] of Object.entries(corsHeaders)) res.setHeader(name, value);
    }
    stats.requests += 1;
    stats.log.push({ method: req.method, path: req.url, authorization: req.headers.authorization });
    if (auth === "bearer" && req.url.startsWith("/token")) {
      if (req.method !== "POST") {
        req.resume();
        issueToken(req, res);
        return;
      }
      const chunks = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.once("end", () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
        stats.refreshForms.push({ query: new URL(req.url, "http://proxy").search, form: Object.fromEntries(form) });
        if (form.get("grant_type") !== "refresh_token") {
          res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "unsupported_grant_type" }));
          return;
        }
        issueToken(req, res, form);
      });
      return;
    }
    const refusal = challenge(req);
    if (refusal !== undefined) {
      stats.challenges += 1;
      req.resume();
      res
        .writeHead(401, { "content-type": "application/json", ...refusal })
        .end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] }));
      return;
    }
    if (tagPageSize !== undefined && req.method === "GET" && /\/tags\/list(\?|$)/.test(req.url)) {
      req.resume();
      paginateTags(req, res).catch((error) => res.writeHead(502).end(String(error)));
      return;
    }
    const action = fault?.(req) ?? {};
    if (action.hang) {
      hanging.add(res);
      req.resume();
      return;
    }
    if (action.status !== undefined) {
      req.resume();
      const headers = { "content-type": "application/json", ...action.headers };
      res
        .writeHead(action.status, headers)
        .end(
          req.method === "HEAD"
            ? undefined
            : JSON.stringify({ errors: [{ code: "INJECTED", message: `injected ${action.status}` }] }),
        );
      return;
    }
    const isHead = req.method === "HEAD";
    if (isHead) {
      stats.inFlightHeads += 1;
      stats.maxInFlightHeads = Math.max(stats.maxInFlightHeads, stats.inFlightHeads);
    }
    const upstream = httpRequest(
      { host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        stats.forwarded += 1;
        const headers = { ...answer.headers };
        if (action.digestHeader !== undefined) headers["docker-content-digest"] = action.digestHeader;
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
        answer.once("end", () => {
          if (isHead) stats.inFlightHeads -= 1;
        });
      },
    );
    upstream.once("error", (error) => {
      if (isHead) stats.inFlightHeads -= 1;
      if (!res.headersSent) res.writeHead(502).end(String(error));
    });
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  url = `http://127.0.0.1:${port}`;
  return {
    url,
    host: `127.0.0.1:${port}`,
    stats,
    async stop() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A "registry" that is down: it accepts TCP connections and resets them
 * (no HTTP answer ever), on 127.0.0.1 port 0 — deterministic, unlike a
 * released port that another process could take.
 */
export async function startDeadRegistry({ resetOn = "request" } = {}) {
  const { createServer: createTcpServer } = await import("node:net");
  // resetOn "request": RST once the request's first bytes are in, so the
  // client is surely reading and sees ECONNRESET. resetOn "accept": RST at
  // once — Node 20's fetch can then miss the reset (its connect callback runs
  // after the socket already closed; traced with NODE_DEBUG=net,fetch) and
  // wait until the caller's time limit.
  const server = createTcpServer((socket) => {
    if (resetOn === "accept") socket.resetAndDestroy();
    else socket.once("data", () => socket.resetAndDestroy());
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}
