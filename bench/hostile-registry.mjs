#!/usr/bin/env node
// Peak memory of `publish --from-registry` against a hostile registry
// (issue 21, D4): a 127.0.0.1 server that answers one response kind with a
// huge body, streamed lazily (1 MiB writes with backpressure, so the server
// itself stays small). The CLI runs under /usr/bin/time; the table gives its
// exit code, peak RSS, wall time, how many bytes the server got to write
// before the client hung up, and the CLI's last stderr line.
//
//   manifest   GET manifests/a answers a MIB-MiB manifest
//   error      GET manifests/a answers 404 with a MIB-MiB body
//   tags       GET tags/list answers a MIB-MiB tag page
//   token      the Bearer realm answers a MIB-MiB token response
//
// Usage: node bench/hostile-registry.mjs [--mib 1024] [--kinds manifest,error,tags,token] [--declare-length]
// (needs pkg/: node scripts/build.mjs; Linux, /usr/bin/time)
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sendJson, startScriptedServer, streamBody } from "../js-tests/helpers/fake-registry.mjs";

const CLI = new URL("../pkg/bin/artifact-bloom.mjs", import.meta.url);
if (!existsSync(CLI)) {
  console.error("bench/hostile-registry.mjs: pkg/ is not built; run: node scripts/build.mjs");
  process.exit(2);
}
const { values } = parseArgs({
  options: {
    mib: { type: "string", default: "1024" },
    kinds: { type: "string", default: "manifest,error,tags,token" },
    "declare-length": { type: "boolean", default: false },
  },
});
const total = Number(values.mib) * 1024 * 1024;
const declareLength = values["declare-length"];

/** The server for one kind → { server, written: Promise<number> } (bytes of the huge body written). */
async function hostile(kind) {
  let resolveWritten;
  const written = new Promise((resolve) => {
    resolveWritten = resolve;
  });
  const huge = (res, status, type) => streamBody(res, status, total, { declareLength, contentType: type }).then(resolveWritten);
  const server = await startScriptedServer((req, res, url) => {
    req.resume();
    if (kind === "token") {
      if (url.pathname === "/token") return huge(res, 200, "application/json");
      if (req.headers.authorization === undefined) {
        return sendJson(
          res,
          401,
          { errors: [{ code: "UNAUTHORIZED", message: "token" }] },
          {
            "www-authenticate": `Bearer realm="http://${req.headers.host}/token",service="bench"`,
          },
        );
      }
    }
    if (url.pathname === "/v2/app/tags/list") {
      if (kind === "tags") return huge(res, 200, "application/json");
      return sendJson(res, 200, { name: "app", tags: ["a"] });
    }
    if (url.pathname === "/v2/app/manifests/a") {
      if (kind === "manifest") return huge(res, 200, "application/vnd.oci.image.manifest.v1+json");
      if (kind === "error") return huge(res, 404, "application/json");
    }
    return sendJson(res, 404, { errors: [{ code: "NOT_FOUND", message: "no" }] });
  });
  return { server, written };
}

/** Runs the CLI under /usr/bin/time → { code, maxRssKiB, seconds, stderr }. */
function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "TIME %M %e", process.execPath, CLI.pathname, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text) => {
      stderr += text;
    });
    child.once("error", reject);
    child.once("close", (code) => {
      const match = /TIME (\d+) ([\d.]+)\s*$/.exec(stderr);
      resolve({
        code,
        maxRssKiB: Number(match?.[1]),
        seconds: Number(match?.[2]),
        stderr: stderr.slice(0, match?.index ?? stderr.length).trim(),
      });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "artifact-bloom-hostile-"));
console.log(`| response | body | Content-Length | exit | peak RSS | wall | server wrote | last stderr line |`);
console.log(`|---|---|---|---|---|---|---|---|`);
try {
  for (const kind of values.kinds.split(",")) {
    const { server, written } = await hostile(kind);
    const result = await run([
      "publish",
      "--catalog-version",
      "1",
      "--expected-items",
      "1000",
      "--fpp",
      "0.01",
      "--out",
      join(dir, `${kind}.abf1`),
      "--allow-empty",
      "--from-registry",
      server.url,
      "--repository",
      "app",
    ]);
    const wrote = await Promise.race([written, new Promise((resolve) => setTimeout(resolve, 5000, NaN))]);
    await server.stop();
    const lines = result.stderr.split("\n").filter((text) => !text.startsWith("Command exited with"));
    const line = lines.pop()?.slice(0, 160).replaceAll("|", "\\|");
    console.log(
      `| ${kind} | ${values.mib} MiB | ${declareLength ? "declared" : "absent (chunked)"} | ${result.code} | `
        + `${(result.maxRssKiB / 1024).toFixed(0)} MiB | ${result.seconds.toFixed(2)} s | ${(wrote / 1048576).toFixed(1)} MiB | ${line} |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
