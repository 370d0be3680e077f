// Next.js 16 app router with its default bundler (Turbopack): the packed
// tarball in a fresh project with no next.config, a server component that
// builds and queries a filter, `next build` then `next start` on
// 127.0.0.1 (port 0), the page checked over HTTP. Its own directory, not
// consumers.test.mjs's WORK (that file empties WORK when it starts).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BIN, REPO, TIMEOUT_MS, freshProject, packPackage, run } from "./harness.mjs";

const work = join(REPO, "test-output", "consumers-next");
const nextVersion = JSON.parse(readFileSync(join(REPO, "node_modules", "next", "package.json"), "utf8")).version;
const env = { NEXT_TELEMETRY_DISABLED: "1" };

let project;
let server;

before(async () => {
  rmSync(work, { recursive: true, force: true });
  const { tarball } = await packPackage(work);
  project = await freshProject("app-router", tarball, {
    files: { "app/layout.js": "next-app/layout.js", "app/page.js": "next-app/page.js" },
    work,
  });
});

after(() => {
  server?.kill();
  rmSync(work, { recursive: true, force: true });
});

/** `next start` on 127.0.0.1, port 0; resolves the URL it prints (bounded). */
function startNext(dir) {
  server = spawn(join(BIN, "next"), ["start", "-H", "127.0.0.1", "-p", "0"], { cwd: dir, env: { ...process.env, ...env } });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`next start printed no URL: ${output}`)), TIMEOUT_MS);
    const listen = (chunk) => {
      output += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(output)?.[0];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    server.stdout.on("data", listen);
    server.stderr.on("data", listen);
    server.on("exit", (code) => reject(new Error(`next start exited ${code}: ${output}`)));
  });
}

test(`Next.js ${nextVersion} (Turbopack), app router: a server component answers over HTTP after next build + next start`, async (t) => {
  const built = await run(join(BIN, "next"), ["build"], { cwd: project, env });
  t.diagnostic(built.stdout.trim().split("\n").filter((line) => /Turbopack|Compiled|Route|ƒ \//.test(line)).join("\n"));
  assert.equal(built.code, 0, `${built.stdout}${built.stderr}`);
  assert.match(built.stdout, /Turbopack/, "the default bundler of Next.js 16 is Turbopack");
  const url = await startNext(project);
  const response = await fetch(`${url}/`);
  const html = await response.text();
  assert.equal(response.status, 200, html.slice(0, 2000));
  assert.match(html, /members maybe: 100; outsider: absent/);
});
