// A Chromium page that sees the built package (pkg/) at ORIGIN, routed by
// Playwright (no server): for the tests that run the browser build's code
// next to the same code in Node and compare the answers.
import { existsSync, readFileSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const PKG = fileURLToPath(new URL("../../pkg", import.meta.url));
export const ORIGIN = "http://artifact-bloom.test";
const MIME = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm" };

/**
 * A new page of `browser` at ORIGIN/ (an empty document titled `title`)
 * whose other paths are pkg/'s files; `errors` collects its page errors.
 * @param {import("playwright-core").Browser} browser
 * @param {string} title
 */
export async function openPackagePage(browser, title) {
  const page = await browser.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/") return route.fulfill({ contentType: "text/html", body: `<!doctype html><title>${title}</title>` });
    const file = normalize(join(PKG, decodeURIComponent(path)));
    if (!file.startsWith(PKG + sep) || !existsSync(file)) return route.fulfill({ status: 404, body: "" });
    return route.fulfill({ contentType: MIME[extname(file)] ?? "application/octet-stream", body: readFileSync(file) });
  });
  await page.goto(`${ORIGIN}/`);
  return { page, errors };
}
