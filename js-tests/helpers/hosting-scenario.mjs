// The poll-cost scenario of issue 33, shared by the hosting tests and
// bench/hosting.mjs: one catalog published version after version (+1 % of
// digests each, one Bloom layout sized for 1.2× the first version at
// p = 0.001) into one tree — `direct/catalog.abf1` (publish --out, the
// single-file way) and `layout/` (publish --layout, docs/layout.md) — served
// at once by every host under test, each client behind its own counting TCP
// proxy, so what a poll costs is the bytes on the wire both ways.
//
// Per host and mode (direct URL or manifest), two SnapshotHolders start
// from fetchSnapshot of v1 and poll by hand (injected timers: no clock):
//   idle          H1's poll with nothing new (the mean of two)
//   update        H1's poll after v2 (+1 %)
//   twoBehind     H2's poll after v4, holding v2
//   republish     H1's three polls after every file was rewritten with the
//                 same bytes (new mtimes: new ETags on most hosts)
// and at the end both must hold v4 bit for bit (`correct`).
import { spawn } from "node:child_process";
import { copyFile, mkdir, readFile, readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { packedDigests } from "./abf1.mjs";
import { startCountingProxy } from "./static-hosts.mjs";
import { manualTimers } from "./timers.mjs";

export const FPP = 0.001;
export const LAST_VERSION = 4;
const POLL_WAIT_MS = 120_000;

/** Digests of version v: the first items·(1 + 0.01·(v − 1)) of one sequence. */
export function countAt(items, version) {
  return Math.round(items * (1 + 0.01 * (version - 1)));
}

/** Runs `node CLI args` → stdout; throws with stderr on a non-zero exit. */
function runCli(cli, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (text) => {
      out += text;
    });
    child.stderr.setEncoding("utf8").on("data", (text) => {
      err += text;
    });
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited ${code}: ${err.trim()}`))));
  });
}

/** Every file below `dir` (relative paths). */
async function filesBelow(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)));
}

/**
 * The published tree at `root`, written through the CLI `cli` of the
 * package under test. `layout` is false when that package's publish has no
 * --layout (an older build): the manifest mode is then not measured.
 */
export async function publishedTree(root, { cli, items, layout }) {
  await mkdir(join(root, "direct"), { recursive: true });
  await mkdir(join(root, "layout"), { recursive: true });
  const all = packedDigests("hosting:", countAt(items, LAST_VERSION));
  const sizing = (version) => [
    "--catalog-version",
    String(version),
    "--expected-items",
    String(Math.round(items * 1.2)),
    "--fpp",
    String(FPP),
  ];
  // serve's digest list, beside the served tree: replaced (atomic rename)
  // before each snapshot, so it is complete when serve sees the snapshot.
  const catalog = `${root}.catalog.txt`;
  return {
    root,
    layout,
    catalog,
    async publish(version) {
      const packed = all.subarray(0, countAt(items, version) * 32);
      const lines = [];
      for (let offset = 0; offset < packed.length; offset += 32)
        lines.push(Buffer.from(packed.subarray(offset, offset + 32)).toString("hex"));
      await writeFile(`${catalog}.tmp`, `${lines.join("\n")}\n`);
      await rename(`${catalog}.tmp`, catalog);
      const list = `${root}.digests-v${version}.bin`;
      await writeFile(list, packed);
      const input = ["--input", list, "--binary", ...sizing(version)];
      await runCli(cli, ["publish", ...input, "--out", join(root, "direct", "catalog.abf1")]);
      if (layout) await runCli(cli, ["publish", ...input, "--layout", join(root, "layout")]);
      await rm(list);
    },
    /** Every served file rewritten with its own bytes (a redeploy): same content, new mtime and inode. */
    async republish() {
      for (const name of await filesBelow(root)) {
        const file = join(root, name);
        await copyFile(file, `${file}.republish`);
        await rename(`${file}.republish`, file);
      }
    },
  };
}

/**
 * Keeps `origins` (directories) copies of `root`, each file with another
 * mtime per origin (one hour apart), as two servers deployed separately:
 * nginx's ETag (mtime-size) and Last-Modified then differ between them.
 */
export function mirroredOrigins(root, origins) {
  const synced = new Map();
  return async function sync() {
    const now = Date.now() / 1000;
    const names = await filesBelow(root);
    for (const name of names) {
      const { mtimeMs } = await stat(join(root, name));
      if (synced.get(name) === mtimeMs) continue;
      synced.set(name, mtimeMs);
      for (const [index, origin] of origins.entries()) {
        const target = join(origin, name);
        await mkdir(join(target, ".."), { recursive: true });
        await copyFile(join(root, name), `${target}.sync`);
        await utimes(`${target}.sync`, now - 3600 * index, now - 3600 * index);
        await rename(`${target}.sync`, target);
      }
    }
    for (const origin of origins) {
      for (const name of await filesBelow(origin)) if (!names.includes(name)) await rm(join(origin, name), { force: true });
    }
  };
}

/**
 * A SnapshotHolder of `pkg` started from fetchSnapshot(url), polled by hand.
 * → { initialBytes, pollOnce() → { outcome, error?, bytes }, current(), stop() }
 * or { failed: message } when the first load fails (the mode is unsupported).
 */
async function startPoller(pkg, url, proxy) {
  const before = proxy.bytes().total;
  const initial = await pkg.fetchSnapshot(url);
  if (initial.kind !== "success") return { failed: `${initial.error}: ${initial.message}` };
  const initialBytes = proxy.bytes().total - before;
  const holder = new pkg.SnapshotHolder(initial.value);
  const timers = manualTimers();
  let settled = () => {};
  holder.startPolling(url, { intervalMs: 60_000, timers, onRefresh: (outcome) => settled(outcome) });
  return {
    initialBytes,
    current: () => holder.current(),
    stop: () => holder.stopPolling(),
    async pollOnce() {
      const start = proxy.bytes().total;
      const outcome = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no poll result from ${url} in ${POLL_WAIT_MS} ms`)), POLL_WAIT_MS);
        settled = (result) => {
          clearTimeout(timer);
          resolve(result);
        };
        timers.fireAll();
      });
      return { outcome: outcome.outcome, error: outcome.error, bytes: proxy.bytes().total - start };
    },
  };
}

/**
 * Runs the scenario, v1 published, on `hosts` ({ name, url, paths: { direct, layout },
 * settle?() } each: `settle` runs after every publish, e.g. to sync origins
 * or let a micro-cache entry expire) → one row per host and mode:
 * { host, mode, full, idle, update, twoBehind, republish: [first, second, third], correct, failures?, note? }
 * (`note`: why the mode was not measured; `failures`: the error of each poll that failed).
 * @param {{ pkg: object, tree: Awaited<ReturnType<typeof publishedTree>>, hosts: object[] }} options
 */
export async function measurePollCosts({ pkg, tree, hosts }) {
  const settleAll = async () => {
    for (const host of hosts) await host.settle?.();
    // Polls come minutes apart in use; here they would follow a publish
    // within its second, when a Last-Modified is a weak validator (RFC 9110
    // §8.8.2, "Comparison": the client never sends it) and an etag-less host would be
    // measured downloading what a real poller revalidates. 1.1 s puts the
    // answers' Date (whole seconds) at least one second past every mtime.
    await sleep(1100);
  };
  const clients = [];
  // The same wait before the first load: v1 was published just before, and
  // a load within its second gets a weak Last-Modified, which makes the
  // first idle poll a download on hosts without ETags.
  await sleep(1100);
  for (const host of hosts) {
    for (const mode of tree.layout ? ["direct", "layout"] : ["direct"]) {
      const proxy = await startCountingProxy(host.url);
      const url = `${proxy.url}${host.paths[mode]}`;
      const h1 = await startPoller(pkg, url, proxy);
      const h2 = h1.failed === undefined ? await startPoller(pkg, url, proxy) : h1;
      clients.push({ row: { host: host.name, mode, note: h1.failed ?? h2.failed }, proxy, h1, h2 });
    }
  }
  const live = () => clients.filter((client) => client.row.note === undefined);
  const poll = async (client, holder, field) => {
    const result = await client[holder].pollOnce();
    if (field !== undefined) client.row[field] = result.bytes;
    if (result.outcome === "failure") client.row.failures = [...(client.row.failures ?? []), result.error];
    return result;
  };
  try {
    // Two idle polls, averaged: behind a balancer they may alternate between origins.
    for (const client of live()) {
      const first = await poll(client, "h1");
      const second = await poll(client, "h1");
      client.row.idle = Math.round((first.bytes + second.bytes) / 2);
    }
    await tree.publish(2);
    await settleAll();
    for (const client of live()) {
      await poll(client, "h1", "update");
      await poll(client, "h2");
    }
    for (const version of [3, 4]) {
      await tree.publish(version);
      await settleAll();
      for (const client of live()) await poll(client, "h1");
    }
    for (const client of live()) await poll(client, "h2", "twoBehind");
    await tree.republish();
    await settleAll();
    for (const client of live()) {
      client.row.republish = [];
      for (let count = 0; count < 3; count += 1) client.row.republish.push((await poll(client, "h1")).bytes);
    }
    const last = new Uint8Array(await readFile(join(tree.root, "direct", "catalog.abf1")));
    for (const client of live()) {
      client.row.full = last.byteLength;
      client.row.correct = [client.h1, client.h2].every((holder) => sameBytes(pkg, holder.current(), last));
    }
  } finally {
    for (const client of clients) {
      if (client.row.note === undefined) {
        client.h1.stop();
        client.h2.stop();
      }
      await client.proxy.stop();
    }
  }
  return clients.map((client) => client.row);
}

/** Whether `snapshot` re-encodes to exactly `file`. */
function sameBytes(pkg, snapshot, file) {
  const encoded = pkg.encodeSnapshot(snapshot.filter, { catalogVersion: snapshot.catalogVersion });
  return encoded.byteLength === file.byteLength && Buffer.compare(Buffer.from(encoded), Buffer.from(file)) === 0;
}

/** Issue 33's bound on an idle poll: 1 KB, whatever the host. */
export const IDLE_POLL_BOUND = 1024;
/**
 * The fixed bytes a layout update costs on top of the delta itself: the
 * manifest's 200 (it lists up to K deltas, a few hundred bytes each) and
 * two requests' headers. At 1M digests this is ≈ 0.1 % of the file; at the
 * tests' 100k it is ≈ 1 %, so the tests add it to the percentage targets
 * instead of letting a smaller catalog fail a target met at full size.
 */
export const LAYOUT_FIXED_BOUND = 4096;

/**
 * Issue 33's targets for the manifest mode, for a full file of `full`
 * bytes: an idle poll ≤ 1 KB; a 1 % update ≤ 3.5 % of the file; two
 * versions behind ≤ 7 %; a byte-identical republish no more than one
 * manifest download per origin (its new mtime is a new validator there)
 * and then idle polls again. The delta's share of the file does not depend
 * on the catalog's size (+1 % digests sets the same share of the bit
 * array's free bits), so the percentages hold at the tests' smaller size;
 * LAYOUT_FIXED_BOUND is added once.
 * @param {number} full
 * @param {number} [origins] servers behind one URL, each with its own validators
 */
export function layoutBounds(full, origins = 1) {
  const republish = [0, 1, 2].map((poll) => (poll < origins ? LAYOUT_FIXED_BOUND : IDLE_POLL_BOUND));
  return {
    idle: IDLE_POLL_BOUND,
    update: Math.round(0.035 * full) + LAYOUT_FIXED_BOUND,
    twoBehind: Math.round(0.07 * full) + LAYOUT_FIXED_BOUND,
    republish,
  };
}
