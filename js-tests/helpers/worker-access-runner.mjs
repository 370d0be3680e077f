// Runs a Worker (one ES module bundled by esbuild) that mounts
// artifact-bloom/server's createTenantHandler — two tenants over one R2
// bucket binding, bearer tokens, a rate limit and a CORS allow-list — in
// Miniflare 4 (Node ≥ 22: server-access-worker.test.mjs starts this with
// the repo's Node 22). It uploads each tenant's published layout under its
// prefix (immutable files first, manifest last), asks the Worker as a
// client would, and prints one JSON line of what it saw.
//
//   node22 worker-access-runner.mjs WORKER_JS LAYOUTS_DIR PKG_DIR TOKEN_A MEMBER_A_HEX STRANGER_HEX
//
// LAYOUTS_DIR holds one directory per tenant. workerd listens on 127.0.0.1,
// port 0; `cf: false` keeps Miniflare off the network.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startLayoutWorker } from "./miniflare-worker.mjs";

const [worker, layouts, pkgDir, token, member, stranger] = process.argv.slice(2);
const mf = startLayoutWorker(worker);
const result = {};
/** Status, headers but the date, and body: what a prober compares. */
const observed = async (response) => ({
  status: response.status,
  headers: [...response.headers].filter(([name]) => name !== "date"),
  body: await response.text(),
});
try {
  const bucket = await mf.getR2Bucket("LAYOUT");
  for (const tenant of readdirSync(layouts)) {
    const root = join(layouts, tenant);
    const files = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
      .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(root.length + 1));
    files.sort((a, b) => (a === "manifest.json") - (b === "manifest.json"));
    for (const name of files) await bucket.put(`${tenant}/${name}`, readFileSync(join(root, name)));
  }
  const url = new URL("/", await mf.ready).href;
  const pkg = await import(pathToFileURL(join(pkgDir, "node.mjs")).href);
  const authorization = `Bearer ${token}`;
  const loaded = await pkg.fetchSnapshot(`${url}a/manifest.json`, { headers: { authorization } });
  result.load = loaded.kind === "success" ? { catalogVersion: loaded.value.catalogVersion } : { error: loaded.error };
  const anonymous = await pkg.fetchSnapshot(`${url}a/manifest.json`);
  result.anonymousLoad = anonymous.kind;
  const other = await observed(await fetch(`${url}b/manifest.json`, { headers: { authorization } }));
  const unknown = await observed(await fetch(`${url}zzz/manifest.json`, { headers: { authorization } }));
  result.otherTenant = other.status;
  result.unknownLikeOther = JSON.stringify(unknown) === JSON.stringify(other);
  const head = (hex) => fetch(`${url}a/blobs/sha256/${hex}?catalogVersion=1`, { method: "HEAD" });
  result.unauthorizedAlike =
    JSON.stringify(await observed(await head(member))) === JSON.stringify(await observed(await head(stranger)));
  const digest = (hex) => Uint8Array.from(Buffer.from(hex, "hex"));
  const repository = new pkg.HttpArtifactRepository(`${url}a/`, {
    fetch: (target, init = {}) => fetch(target, { ...init, headers: { ...init.headers, authorization } }),
  });
  result.exists = await repository.existsManyAtVersionAsync([digest(member), digest(stranger)], 1);
  const limited = await fetch(`${url}a/blobs:findMissing`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ catalogVersion: 1, digests: [member, stranger] }),
  });
  result.limited = { status: limited.status, retryAfter: Number(limited.headers.get("retry-after")) };
  await limited.arrayBuffer();
  const preflight = await fetch(`${url}a/blobs:findMissing`, { method: "OPTIONS", headers: { origin: "https://app.example" } });
  result.preflight = { status: preflight.status, allowHeaders: preflight.headers.get("access-control-allow-headers") };
} catch (error) {
  result.thrown = String(error?.stack ?? error);
} finally {
  await mf.dispose();
}
console.log(JSON.stringify(result));
