// What a poll costs on static file hosts (issue 33's targets), bytes on the
// wire counted by a TCP proxy in front of each: Debian's nginx as it ships,
// with `gzip on` (application/octet-stream included), with `etag off`, two
// origins with different mtimes behind a round-robin balancer, and
// `python3 -m http.server` (Last-Modified only). One catalog of 100k
// digests (p = 0.001, sized for 120k, +1 % per version) published by the
// real CLI both ways — one file (publish --out) and the layout (publish
// --layout) — and polled by SnapshotHolders started from fetchSnapshot
// (js-tests/helpers/hosting-scenario.mjs says what each figure is).
//
// Manifest mode meets the targets on every host (bounds and their
// reasons: layoutBounds). Direct mode has no deltas on a static host, but
// stops wasting: an idle poll is one 304 whichever validator the host gives
// (If-Modified-Since where only Last-Modified came), and after a
// byte-identical republish one full download at most, then idle polls.
// Every client ends holding v4, bit for bit.
//
// Hosts on 127.0.0.1, free ports, temp dirs; all stopped in after().
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import * as pkg from "artifact-bloom";
import { CLI, tempDir } from "./helpers/cli.mjs";
import { HOSTS, startHosts } from "./helpers/hosting-hosts.mjs";
import { IDLE_POLL_BOUND, layoutBounds, measurePollCosts, publishedTree } from "./helpers/hosting-scenario.mjs";
import { findBinary, skipWithout } from "./helpers/static-hosts.mjs";

const ITEMS = 100_000;
const NAMES = ["nginx default", "nginx gzip on", "nginx etag off", "nginx × 2 origins", "python3 http.server"];

describe("poll costs on static hosts (100k digests, +1 % per version)", () => {
  const available = NAMES.filter((name) => findBinary(HOSTS[name].binary) !== undefined || process.env.CI === "true");
  let dir;
  let rows = [];
  before(async () => {
    if (available.length === 0) return;
    dir = await tempDir("hosting-static");
    const root = join(dir.path, "tree");
    const tree = await publishedTree(root, { cli: CLI, items: ITEMS, layout: true });
    await tree.publish(1);
    const running = await startHosts(available, { root, scratch: dir.path });
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
    const skip = skipWithout(HOSTS[name].binary);
    test(`${name}, manifest: idle ≤ 1 KB, 1 % update ≤ 3.5 %, two behind ≤ 7 %, republish ≈ idle`, { skip }, () => {
      const row = rowOf(name, "layout");
      const bound = layoutBounds(row.full, name.includes("2 origins") ? 2 : 1);
      const shown = JSON.stringify(row);
      assert.ok(row.idle <= bound.idle, `idle poll ${row.idle} B > ${bound.idle}: ${shown}`);
      assert.ok(row.update <= bound.update, `1 % update ${row.update} B > ${bound.update}: ${shown}`);
      assert.ok(row.twoBehind <= bound.twoBehind, `two behind ${row.twoBehind} B > ${bound.twoBehind}: ${shown}`);
      for (const [poll, bytes] of row.republish.entries()) {
        assert.ok(bytes <= bound.republish[poll], `republish poll ${poll + 1}: ${bytes} B > ${bound.republish[poll]}: ${shown}`);
      }
    });
    // Behind two origins a direct client meets two validators in turn (a
    // full download every other poll): the manifest mode is the answer there.
    if (name === "nginx × 2 origins") continue;
    test(`${name}, direct URL: idle polls are 304s, a republish costs one download at most`, { skip }, () => {
      const row = rowOf(name, "direct");
      const shown = JSON.stringify(row);
      assert.ok(row.idle <= IDLE_POLL_BOUND, `idle poll ${row.idle} B: ${shown}`);
      assert.ok(row.republish[2] <= IDLE_POLL_BOUND, `the third poll after a republish ${row.republish[2]} B: ${shown}`);
    });
  }
});
