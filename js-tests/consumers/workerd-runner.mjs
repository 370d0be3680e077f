// Runs a Worker that `wrangler deploy --dry-run --outdir DIR` bundled, in
// Miniflare 4 (workerd from npm), sends it the requests named on the command
// line one after another, in one isolate, and prints one JSON line:
// `{ answers: { [path]: body } }`. Run with Node ≥ 22 (Miniflare's engines);
// workerd.test.mjs starts it with the repo's Node 22.
//
//   node22 workerd-runner.mjs DIR COMPATIBILITY_DATE PATH[=BODY_FILE] …
//
// The bundle's modules are listed explicitly, as wrangler's upload does:
// every .js an ES module, every .wasm a compiled module (wrangler's default
// rule, so `import mod from "./x.wasm"` is a WebAssembly.Module). workerd
// listens on 127.0.0.1, port 0; `cf: false` keeps Miniflare from fetching
// its Request.cf data from the network.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Miniflare } from "miniflare";

const [dir, compatibilityDate, ...requests] = process.argv.slice(2);
if (!dir || !compatibilityDate || requests.length === 0) {
  console.error("usage: workerd-runner.mjs DIR COMPATIBILITY_DATE PATH[=BODY_FILE] …");
  process.exit(2);
}

const TYPES = { ".js": "ESModule", ".mjs": "ESModule", ".wasm": "CompiledWasm" };
const files = readdirSync(dir).filter((name) => Object.keys(TYPES).some((ext) => name.endsWith(ext)));
// The entry first: workerd takes the first module as the Worker's main one.
files.sort((a, b) => (a === "index.js" ? -1 : b === "index.js" ? 1 : a.localeCompare(b)));
const modules = files.map((name) => ({ type: TYPES[name.slice(name.lastIndexOf("."))], path: join(dir, name) }));

const mf = new Miniflare({
  modules,
  modulesRoot: dir,
  compatibilityDate,
  host: "127.0.0.1",
  port: 0,
  cf: false,
  log: undefined,
});
const answers = {};
try {
  for (const request of requests) {
    const [path, bodyFile] = request.split("=");
    const init = bodyFile === undefined ? {} : { method: "POST", body: readFileSync(bodyFile) };
    const response = await mf.dispatchFetch(`http://127.0.0.1${path}`, init);
    const text = await response.text();
    try {
      answers[path] = JSON.parse(text);
    } catch {
      answers[path] = { ok: false, error: `HTTP ${response.status}, not JSON: ${text.slice(0, 500)}` };
    }
  }
} finally {
  await mf.dispose();
}
console.log(JSON.stringify({ modules: files, answers }));
