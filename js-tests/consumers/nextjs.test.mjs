// Next.js 16 app router with its default bundler (Turbopack): the packed
// tarball in a fresh project with no next.config, a server component that
// builds and queries a filter, `next build` then `next start` on
// 127.0.0.1 (port 0), the page checked over HTTP; and a client component
// ("use client", /client) whose effect uses the package in Chromium, its
// answers compared with the same computation in this process. Its own
// directory, not consumers.test.mjs's WORK (that file empties WORK when it starts).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ArtifactBloomFilter } from "artifact-bloom";
import { hasChromium, launchChromium } from "../browser/chromium.mjs";
import { REPO, TIMEOUT_MS, consumerRoot, freshProject, packPackage, run } from "./harness.mjs";

// Turbopack wants next/ itself inside the project root: a root with real
// files, and next run from it (the repository's next would load a second
// React beside the one the build resolved).
const root = consumerRoot({ realNodeModules: true });
const work = join(root, "consumers-next");
const NEXT = join(root, "node_modules", ".bin", "next");
const nextVersion = JSON.parse(readFileSync(join(REPO, "node_modules", "next", "package.json"), "utf8")).version;
const env = { NEXT_TELEMETRY_DISABLED: "1" };

let project;
let server;
let url;

before(async () => {
  rmSync(work, { recursive: true, force: true });
  const { tarball } = await packPackage(work);
  project = await freshProject("app-router", tarball, {
    files: {
      "app/layout.js": "next-app/layout.js",
      "app/page.js": "next-app/page.js",
      "app/client/page.js": "next-app/client-page.js",
    },
    work,
  });
});

after(() => {
  server?.kill();
  rmSync(work, { recursive: true, force: true });
});

/** `next start` on 127.0.0.1, port 0; resolves the URL it prints (bounded). */
function startNext(dir) {
  server = spawn(NEXT, ["start", "-H", "127.0.0.1", "-p", "0"], { cwd: dir, env: { ...process.env, ...env } });
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
  const built = await run(NEXT, ["build"], { cwd: project, env });
  t.diagnostic(
    built.stdout
      .trim()
      .split("\n")
      .filter((line) => /Turbopack|Compiled|Route|ƒ \//.test(line))
      .join("\n"),
  );
  assert.equal(built.code, 0, `${built.stdout}${built.stderr}`);
  assert.match(built.stdout, /Turbopack/, "the default bundler of Next.js 16 is Turbopack");
  url = await startNext(project);
  const response = await fetch(`${url}/`);
  const html = await response.text();
  assert.equal(response.status, 200, html.slice(0, 2000));
  assert.match(html, /members maybe: 100; outsider: absent/);
});

/** What client-page.js renders, computed here with the package under Node (SHA-256 by node:crypto). */
function expectedClientAnswer() {
  const digestOf = (text) => new Uint8Array(createHash("sha256").update(text).digest());
  const members = Array.from({ length: 200 }, (_, i) => digestOf(`client member:${i}`));
  const built = ArtifactBloomFilter.create(members, { expectedItemCount: 200, targetFalsePositiveRate: 0.05 });
  if (built.kind === "failure") throw new Error(built.error);
  const filter = built.value;
  const maybe = members.filter((digest) => filter.mightContain(digest)).length;
  const outsiders = Array.from({ length: 64 }, (_, i) =>
    filter.mightContain(digestOf(`client outsider:${i}`)) ? "m" : "a",
  ).join("");
  const bits = filter.getBitCount();
  filter.free();
  return `members maybe: ${maybe}; bits: ${bits}; outsiders: ${outsiders}; sha256(abc): ${createHash("sha256").update("abc").digest("hex")}`;
}

test("a client component uses the package in Chromium after hydration: the answers Node computes", {
  skip: !hasChromium && "no /usr/bin/chromium",
}, async () => {
  assert.ok(url, "next start is not running (the server-component test failed)");
  // The server renders the client component with its initial state: the answer is the browser's.
  const html = await (await fetch(`${url}/client`)).text();
  assert.match(html, /id="client-answer" data-state="pending"/, html.slice(0, 2000));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on("console", (message) => {
      // Chromium asks for /favicon.ico by itself (the app has none); Playwright reports that request only here.
      const favicon = /\/favicon\.ico$/.test(message.location().url ?? "");
      if (message.type() === "error" && !favicon) problems.push(`console: ${message.text()} (${message.location().url})`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    await page.goto(`${url}/client`, { timeout: TIMEOUT_MS });
    const answer = await page.waitForSelector('#client-answer:not([data-state="pending"])', { timeout: TIMEOUT_MS });
    assert.equal(await answer.getAttribute("data-state"), "done", await answer.textContent());
    assert.equal(await answer.textContent(), expectedClientAnswer());
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
