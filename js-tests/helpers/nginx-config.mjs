// The nginx.conf that js-tests/helpers/static-hosts.mjs starts nginx with:
// one process (`daemon off; master_process off;`, so it is the test's own
// child and never switches user), everything it writes in the temp dir, the
// listeners on 127.0.0.1 only, and a readiness path that answers a token.

/**
 * @typedef {{
 *   root?: string,
 *   origins?: string[],
 *   proxy?: string,
 *   cache?: { valid?: string, ignoreHeaders?: boolean, forwardConditionals?: boolean, uncachedPaths?: string[] },
 *   gzip?: boolean,
 *   etag?: boolean,
 *   cacheControl?: boolean,
 *   headers?: Record<string, string>,
 * }} NginxOptions
 *   root: the directory served as static files; origins: two or more such
 *   directories, each behind its own server, with a round-robin balancer on
 *   the first port; proxy: a backend URL ("http://127.0.0.1:PORT") proxied
 *   instead, with `cache` a proxy_cache in front of it (`ignoreHeaders`:
 *   proxy_ignore_headers Vary Cache-Control Expires, the misconfigured cache;
 *   `valid`: proxy_cache_valid for 200 and 226, default 1m;
 *   `forwardConditionals`: the client's If-None-Match and A-IM reach the
 *   backend on a miss; `uncachedPaths`: exact paths proxied with
 *   `proxy_cache off`, docs/hosting.md's setting for serve's /snapshot);
 *   gzip: `gzip on` for every type served here; etag: false for `etag off`;
 *   cacheControl: docs/hosting.md's Cache-Control per file kind;
 *   headers: add_header lines on every answer (e.g. CORS).
 */

/** `add_header` lines (always: on every status). */
function addHeaders(headers) {
  return Object.entries(headers).map(([name, value]) => `add_header ${name} ${JSON.stringify(value)} always;`);
}

/** The static-file locations for `root`: one, or one per file kind with its Cache-Control. */
function staticLocations(root, { cacheControl = false, headers = {} }) {
  const common = [`root ${root};`, ...addHeaders(headers)];
  if (!cacheControl) return [`location / { ${common.join(" ")} }`];
  return [
    `location / { ${common.join(" ")} }`,
    `location ~ \\.(abf1|abd1)$ { ${common.join(" ")} add_header Cache-Control "public, max-age=31536000, immutable" always; }`,
    `location ~ /manifest\\.json$ { ${common.join(" ")} add_header Cache-Control "no-cache" always; }`,
  ];
}

/** The proxy location, with the cache settings asked for. */
function proxyLocations(backend, cache, headers) {
  const pass = [`proxy_pass ${backend};`, "proxy_http_version 1.1;", 'proxy_set_header Connection "";', ...addHeaders(headers)];
  if (cache === undefined) return [`location / { ${pass.join(" ")} }`];
  const valid = cache.valid ?? "1m";
  const cached = [
    ...pass,
    "proxy_cache hosting;",
    `proxy_cache_valid 200 226 ${valid};`,
    ...(cache.ignoreHeaders ? ["proxy_ignore_headers Vary Cache-Control Expires;"] : []),
    // With proxy_cache on, nginx drops If-None-Match on the way to the
    // backend; the misconfiguration of issue 33 forwards it (and A-IM).
    ...(cache.forwardConditionals ? ["proxy_set_header If-None-Match $http_if_none_match;"] : []),
  ];
  return [
    `location / { ${cached.join(" ")} }`,
    ...(cache.uncachedPaths ?? []).map((path) => `location = ${path} { ${pass.join(" ")} proxy_cache off; }`),
  ];
}

/**
 * The whole config.
 * @param {NginxOptions & { dir: string, ports: number[], token: string }} options
 */
export function nginxConfig({ dir, ports, token, root, origins, proxy, cache, gzip, etag, cacheControl, headers = {} }) {
  const ready = `location = /__ready { return 200 "${token}"; }`;
  const servers = [];
  if (origins !== undefined) {
    const upstream = origins.map((_, index) => `server 127.0.0.1:${ports[index + 1]};`);
    servers.push(`upstream origins { ${upstream.join(" ")} }`);
    servers.push(
      `server { listen 127.0.0.1:${ports[0]}; ${ready} ${proxyLocations("http://origins", undefined, {}).join(" ")} }`,
    );
    origins.forEach((originRoot, index) => {
      const locations = staticLocations(originRoot, { cacheControl, headers });
      servers.push(`server { listen 127.0.0.1:${ports[index + 1]}; ${locations.join(" ")} }`);
    });
  } else if (proxy !== undefined) {
    servers.push(`server { listen 127.0.0.1:${ports[0]}; ${ready} ${proxyLocations(proxy, cache, headers).join(" ")} }`);
  } else {
    if (root === undefined) throw new Error("startNginx needs root, origins or proxy");
    servers.push(
      `server { listen 127.0.0.1:${ports[0]}; ${ready} ${staticLocations(root, { cacheControl, headers }).join(" ")} }`,
    );
  }
  return [
    "daemon off;",
    "master_process off;",
    "worker_processes 1;",
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    "events { worker_connections 256; }",
    "http {",
    "  log_format wire '$request $status $bytes_sent $request_length';",
    `  access_log ${dir}/access.log wire;`,
    `  client_body_temp_path ${dir}/client_body;`,
    `  proxy_temp_path ${dir}/proxy;`,
    `  fastcgi_temp_path ${dir}/fastcgi;`,
    `  uwsgi_temp_path ${dir}/uwsgi;`,
    `  scgi_temp_path ${dir}/scgi;`,
    "  types { application/json json; text/html html; application/octet-stream abf1 abd1; }",
    "  default_type application/octet-stream;",
    "  sendfile on;",
    ...(gzip ? ["  gzip on;", "  gzip_min_length 1;", "  gzip_types application/octet-stream application/json;"] : []),
    ...(etag === false ? ["  etag off;"] : []),
    ...(cache === undefined
      ? []
      : [`  proxy_cache_path ${dir}/cache levels=1:2 keys_zone=hosting:1m max_size=64m inactive=10m;`]),
    ...servers.map((server) => `  ${server}`),
    "}",
    "",
  ].join("\n");
}
