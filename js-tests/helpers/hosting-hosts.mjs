// The hosts of issue 33's table, started over one published tree
// (./hosting-scenario.mjs): `artifact-bloom serve` (in-process, from the
// package under test), nginx as it ships (default), with `gzip on`, with
// `etag off`, two origins with different mtimes behind a round-robin
// balancer, `python3 -m http.server`, an nginx micro-cache in front of
// serve (it ignores Vary and Cache-Control and keeps each answer for 1 s)
// and varnish's default VCL in front of serve. Each has the URL path of the
// single file (direct) and of the manifest (layout).
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { mirroredOrigins } from "./hosting-scenario.mjs";
import { startNginx, startPythonHttp, startVarnish } from "./static-hosts.mjs";

const STATIC_PATHS = { direct: "/direct/catalog.abf1", layout: "/layout/manifest.json" };
const SERVE_PATHS = { direct: "/snapshot", layout: "/layout/manifest.json" };
// The micro-cache keeps an answer 1 s; nginx counts whole seconds, so an
// entry is surely expired 2.5 s after it was stored.
const MICRO_CACHE_VALID = "1s";
const MICRO_CACHE_EXPIRY_MS = 2500;

/**
 * name → { binary (what it needs installed), start(context) → host }.
 * A host: { url, paths, settle?(), stop() }.
 */
export const HOSTS = {
  serve: {
    binary: undefined,
    start: async ({ serve }) => ({ url: serve.url, paths: SERVE_PATHS, stop: async () => {} }),
  },
  "nginx default": {
    binary: "nginx",
    start: async ({ root }) => ({ ...(await startNginx({ root })), paths: STATIC_PATHS }),
  },
  "nginx gzip on": {
    binary: "nginx",
    start: async ({ root }) => ({ ...(await startNginx({ root, gzip: true })), paths: STATIC_PATHS }),
  },
  "nginx etag off": {
    binary: "nginx",
    start: async ({ root }) => ({ ...(await startNginx({ root, etag: false })), paths: STATIC_PATHS }),
  },
  "nginx × 2 origins": {
    binary: "nginx",
    start: async ({ root, scratch }) => {
      const origins = [join(scratch, "origin-a"), join(scratch, "origin-b")];
      for (const origin of origins) await mkdir(origin, { recursive: true });
      const sync = mirroredOrigins(root, origins);
      await sync();
      return { ...(await startNginx({ origins })), paths: STATIC_PATHS, settle: sync };
    },
  },
  "python3 http.server": {
    binary: "python3",
    start: async ({ root }) => ({ ...(await startPythonHttp({ root })), paths: STATIC_PATHS }),
  },
  "nginx micro-cache → serve": {
    binary: "nginx",
    start: async ({ serve }) => ({
      ...(await startNginx({ proxy: serve.url, cache: { valid: MICRO_CACHE_VALID, ignoreHeaders: true } })),
      paths: SERVE_PATHS,
      settle: () => sleep(MICRO_CACHE_EXPIRY_MS),
    }),
  },
  "varnish → serve": {
    binary: "varnishd",
    start: async ({ serve }) => ({ ...(await startVarnish({ backend: serve.url })), paths: SERVE_PATHS }),
  },
};

/**
 * Starts the named hosts over the tree at `root` (v1 already published
 * there), and serve if any needs it, with the `serve.mjs` module of the
 * package under test and the tree's digest list `catalog` (hosting-scenario's
 * publishedTree keeps it complete for the snapshot, as serve requires)
 * → { hosts: [{ name, …host }], stop() }.
 * @param {string[]} names
 * @param {{ root: string, scratch: string, serveModule?: string, catalog?: string }} context
 */
export async function startHosts(names, { root, scratch, serveModule, catalog }) {
  const started = [];
  let serve;
  const stop = async () => {
    for (const host of started) await host.stop();
    await serve?.close();
  };
  try {
    if (names.some((name) => name === "serve" || name.endsWith("→ serve"))) {
      if (serveModule === undefined || catalog === undefined) throw new Error("serve needs serveModule and catalog");
      const { startServer } = await import(serveModule);
      const running = await startServer({
        snapshot: join(root, "direct", "catalog.abf1"),
        catalog,
        port: 0,
        layout: join(root, "layout"),
      });
      serve = { url: running.url.replace(/\/$/, ""), close: () => running.close() };
    }
    for (const name of names) started.push({ name, ...(await HOSTS[name].start({ root, scratch, serve })) });
  } catch (error) {
    await stop();
    throw error;
  }
  return { hosts: started, stop };
}
