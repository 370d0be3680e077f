// What a poll costs through the caches teams put in front of
// `artifact-bloom serve` (issue 33's targets), bytes on the wire counted by
// a TCP proxy in front of each: serve itself, varnish with its default VCL,
// and an nginx micro-cache that ignores Vary and Cache-Control and keeps
// every answer 1 s. serve runs with --layout over the tree that publish
// --layout writes; clients are SnapshotHolders started from fetchSnapshot
// of /layout/manifest.json (manifest mode) or /snapshot (direct, RFC 3229).
// 100k digests, p = 0.001, sized for 120k, +1 % per version
// (js-tests/helpers/hosting-scenario.mjs says what each figure is).
//
// Manifest mode meets the targets through every cache (bounds and
// their reasons: layoutBounds): the immutable delta files pass any cache,
// where serve's 226 cannot (a cache drops If-None-Match on a miss). Every
// client ends holding v4, bit for bit. The micro-cache's entries must expire
// after each publish: that test waits 2.5 s per version (≈ 15 s).
//
// Hosts on 127.0.0.1, free ports, temp dirs; all stopped in after().
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import * as pkg from "artifact-bloom";
import { CLI, tempDir } from "./helpers/cli.mjs";
import { HOSTS, startHosts } from "./helpers/hosting-hosts.mjs";
import { IDLE_POLL_BOUND, layoutBounds, measurePollCosts, publishedTree } from "./helpers/hosting-scenario.mjs";
import { findBinary, skipWithout } from "./helpers/static-hosts.mjs";

const SERVE = fileURLToPath(new URL("node_modules/artifact-bloom/cli/serve/serve.mjs", import.meta.url));
const ITEMS = 100_000;
const NAMES = ["serve", "varnish → serve", "nginx micro-cache → serve"];

describe("poll costs through caches in front of serve (100k digests, +1 % per version)", () => {
  const available = NAMES.filter(
    (name) => HOSTS[name].binary === undefined || findBinary(HOSTS[name].binary) !== undefined || process.env.CI === "true",
  );
  let dir;
  let rows = [];
  before(async () => {
    dir = await tempDir("hosting-caches");
    const root = join(dir.path, "tree");
    const tree = await publishedTree(root, { cli: CLI, items: ITEMS, layout: true });
    await tree.publish(1);
    const running = await startHosts(available, { root, scratch: dir.path, serveModule: SERVE, catalog: tree.catalog });
    try {
      rows = await measurePollCosts({ pkg, tree, hosts: running.hosts });
    } finally {
      await running.stop();
    }
  });
  after(async () => {
    await dir?.remove();
  });

  const rowOf = (host, mode) => {
    const row = rows.find((entry) => entry.host === host && entry.mode === mode);
    assert.ok(row !== undefined, `no measurement for ${host}, ${mode}`);
    assert.equal(row.note, undefined, `${host}, ${mode}: ${row.note}`);
    assert.deepEqual(row.failures ?? [], [], `${host}, ${mode}: failed polls`);
    assert.equal(row.correct, true, `${host}, ${mode}: a client does not hold v4 bit for bit`);
    return row;
  };

  for (const name of NAMES) {
    const skip = HOSTS[name].binary === undefined ? false : skipWithout(HOSTS[name].binary);
    test(`${name}, manifest: idle ≤ 1 KB, 1 % update ≤ 3.5 %, two behind ≤ 7 %, republish ≈ idle`, { skip }, () => {
      const row = rowOf(name, "layout");
      const bound = layoutBounds(row.full);
      const shown = JSON.stringify(row);
      assert.ok(row.idle <= bound.idle, `idle poll ${row.idle} B > ${bound.idle}: ${shown}`);
      assert.ok(row.update <= bound.update, `1 % update ${row.update} B > ${bound.update}: ${shown}`);
      assert.ok(row.twoBehind <= bound.twoBehind, `two behind ${row.twoBehind} B > ${bound.twoBehind}: ${shown}`);
      for (const [poll, bytes] of row.republish.entries()) {
        assert.ok(bytes <= bound.republish[poll], `republish poll ${poll + 1}: ${bytes} B > ${bound.republish[poll]}: ${shown}`);
      }
    });
    test(`${name}, direct URL: every client loads and ends on v4; idle polls ≤ 1 KB`, { skip }, () => {
      const row = rowOf(name, "direct");
      assert.ok(row.idle <= IDLE_POLL_BOUND, `idle poll ${row.idle} B: ${JSON.stringify(row)}`);
    });
  }
});
