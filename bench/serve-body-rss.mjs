// Peak RSS (VmHWM) of `serve` under 8 concurrent 60 MiB findMissing bodies (issue 21, D6).
// node bench/serve-body-rss.mjs PKG_DIR [extra serve args…]   (PKG_DIR: e.g. pkg; Linux /proc only)
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "node:http";
const [pkg, ...extra] = process.argv.slice(2);
const d = mkdtempSync(join(tmpdir(), "serve-body-rss-"));
writeFileSync(`${d}/c.txt`, `${"a".repeat(64)}\n`);
execFileSync(process.execPath, [
  `${pkg}/bin/artifact-bloom.mjs`,
  "publish",
  "--catalog-version",
  "1",
  "--expected-items",
  "10",
  "--fpp",
  "0.01",
  "--input",
  `${d}/c.txt`,
  "--out",
  `${d}/c.abf1`,
]);
const child = spawn(
  process.execPath,
  [`${pkg}/bin/artifact-bloom.mjs`, "serve", "--snapshot", `${d}/c.abf1`, "--catalog", `${d}/c.txt`, "--port", "0", ...extra],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const base = await new Promise((ok) => {
  let o = "";
  child.stdout.on("data", (c) => {
    o += c;
    const m = /listening on (http:\/\/\S+?)\/?\s/.exec(o);
    if (m) ok(m[1]);
  });
});
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) / 1024;
const start = hwm();
const json = JSON.stringify({ catalogVersion: 1, digests: ["b".repeat(64)] });
const body = Buffer.from(`${json.slice(0, -1)}${" ".repeat(60 * 1024 * 1024 - json.length)}}`);
const statuses = await Promise.all(
  Array.from(
    { length: 8 },
    () =>
      new Promise((ok) => {
        const r = request(
          `${base}/blobs:findMissing`,
          { method: "POST", headers: { "content-type": "application/json", "content-length": body.length } },
          (res) => {
            res.resume();
            res.on("end", () => ok(res.statusCode));
          },
        );
        r.on("error", (e) => ok(e.code));
        r.end(body);
      }),
  ),
);
console.log(JSON.stringify({ pkg, extra, startMiB: Math.round(start), peakMiB: Math.round(hwm()), statuses }));
child.kill("SIGKILL");
rmSync(d, { recursive: true, force: true });
