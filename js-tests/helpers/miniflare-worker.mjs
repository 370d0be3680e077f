// The Worker the runners start in Miniflare 4 (run by the repo's Node 22):
// one ES module with an R2 binding LAYOUT, on 127.0.0.1, port 0, and
// `cf: false` so Miniflare stays off the network.
import { dirname } from "node:path";
import { Miniflare } from "miniflare";

/** @param {string} worker the Worker's bundled ES module */
export function startLayoutWorker(worker) {
  return new Miniflare({
    // One ES module, named relative to its folder (workerd refuses paths that leave it).
    modules: [{ type: "ESModule", path: worker }],
    modulesRoot: dirname(worker),
    compatibilityDate: "2026-07-01",
    r2Buckets: ["LAYOUT"],
    host: "127.0.0.1",
    port: 0,
    cf: false,
  });
}
