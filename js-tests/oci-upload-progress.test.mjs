// Upload progress on standard error (issue 23 §4), driven by a hand-moved
// clock so nothing depends on timing: not a TTY (a CI log) gets a line per
// blob every interval while bytes move, with done/total and rate; a TTY gets
// one live line per blob in flight, redrawn as a block, so two uploads do not
// overwrite each other; "uploaded" only on committed(), "failed" otherwise.
import assert from "node:assert/strict";
import { test } from "node:test";

const { createUploadProgress, DEFAULT_INTERVAL_MS } = await import(
  new URL("./node_modules/artifact-bloom/cli/registry/upload-progress.mjs", import.meta.url).href
);

const MIB = 1024 * 1024;
const A = `sha256:${"a".repeat(64)}`;
const B = `sha256:${"b".repeat(64)}`;

function setup(isTTY, intervalMs) {
  const clock = { ms: 1_000_000 };
  const writes = [];
  const stream = { isTTY, write: (text) => writes.push(text) };
  const progress = createUploadProgress(stream, { now: () => clock.ms, ...(intervalMs === undefined ? {} : { intervalMs }) });
  return { clock, writes, progress, text: () => writes.join("") };
}

test("not a TTY: a line every interval while a large blob uploads, then 'uploaded' with its rate", () => {
  const { clock, writes, progress } = setup(false);
  assert.equal(DEFAULT_INTERVAL_MS, 5000);
  const blob = progress.start(A, 100 * MIB);
  blob.update(10 * MIB);
  clock.ms += 4999;
  blob.update(20 * MIB);
  assert.deepEqual(writes, [], "nothing before the interval passed");
  clock.ms += 1;
  blob.update(25 * MIB);
  assert.deepEqual(writes, ["uploading sha256:aaaaaaaaaaaa… 25.0/100.0 MiB (25%), 5.0 MiB/s\n"]);
  clock.ms += 2500;
  blob.update(50 * MIB);
  assert.equal(writes.length, 1, "the next line is due 5 s after the last one");
  clock.ms += 2500;
  blob.update(75 * MIB);
  assert.equal(writes[1], "uploading sha256:aaaaaaaaaaaa… 75.0/100.0 MiB (75%), 7.5 MiB/s\n");
  clock.ms += 6000;
  blob.update(100 * MIB);
  assert.equal(writes.length, 2, "all bytes sent is not 'uploaded': the registry has not committed yet");
  blob.committed();
  assert.equal(writes[2], "uploaded sha256:aaaaaaaaaaaa… 100.0 MiB in 16.0 s (6.3 MiB/s)\n");
  blob.committed();
  blob.failed("late");
  assert.equal(writes.length, 3, "a blob ends once");
});

test("not a TTY: a failed blob says so with the bytes sent and the code, never 'uploaded'", () => {
  const { clock, writes, progress } = setup(false, 1000);
  const blob = progress.start(B, 40 * MIB);
  clock.ms += 1000;
  blob.update(20 * MIB);
  blob.failed("digestMismatch");
  assert.deepEqual(writes, [
    "uploading sha256:bbbbbbbbbbbb… 20.0/40.0 MiB (50%), 20.0 MiB/s\n",
    "failed sha256:bbbbbbbbbbbb… after 20.0/40.0 MiB: digestMismatch\n",
  ]);
});

test("a TTY: two blobs in flight are two live lines, redrawn in place; a finished one's line stays above", () => {
  const { clock, writes, progress } = setup(true);
  const a = progress.start(A, 10 * MIB);
  const b = progress.start(B, 20 * MIB);
  writes.length = 0;
  clock.ms += 1000;
  a.update(5 * MIB);
  const block = writes.at(-1);
  assert.equal(
    block,
    "\x1b[2A\r"
      + "uploading sha256:aaaaaaaaaaaa… 5.0/10.0 MiB (50%), 5.0 MiB/s\x1b[K\n"
      + "uploading sha256:bbbbbbbbbbbb… 0.0/20.0 MiB (0%), 0.0 MiB/s\x1b[K\n\x1b[J",
    "cursor up over both lines, each rewritten and cleared to its end",
  );
  clock.ms += 50;
  b.update(MIB);
  assert.equal(writes.at(-1), block, "at most one redraw per 100 ms");
  clock.ms += 50;
  b.update(2 * MIB);
  assert.match(writes.at(-1), /bbbbbbbbbbbb… 2\.0\/20\.0 MiB/);
  a.committed();
  assert.equal(
    writes.at(-1),
    "\x1b[2A\r"
      + "uploaded sha256:aaaaaaaaaaaa… 10.0 MiB in 1.1 s (9.1 MiB/s)\x1b[K\n"
      + "uploading sha256:bbbbbbbbbbbb… 2.0/20.0 MiB (10%), 1.8 MiB/s\x1b[K\n\x1b[J",
  );
  b.failed("serverError");
  assert.equal(
    writes.at(-1),
    "\x1b[1A\rfailed sha256:bbbbbbbbbbbb… after 2.0/20.0 MiB: serverError\x1b[K\n\x1b[J",
    "no live line left",
  );
});
