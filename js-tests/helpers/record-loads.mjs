// A preload (`node --import <this file's URL>`) that records what a process
// loads, for tests of "this command does not load the library": every module
// URL that goes through the ES-module loader (written by the hooks in
// record-loads-hooks.mjs as it loads) and every WebAssembly compile or
// instantiate call of the main thread, one line each, appended to the file
// named by ARTIFACT_BLOOM_LOAD_LOG. Appending synchronously, line by line,
// keeps the record whole however the process ends (exit codes, process.exit).
import { appendFileSync } from "node:fs";
import { register } from "node:module";

const log = process.env.ARTIFACT_BLOOM_LOAD_LOG;
if (!log) throw new Error("record-loads.mjs needs ARTIFACT_BLOOM_LOAD_LOG (the file to append to)");

register("./record-loads-hooks.mjs", import.meta.url, { data: { log } });

const record = (what) => appendFileSync(log, `${what}\n`);

// Proxies, not replacements: `x instanceof WebAssembly.Module` and the
// objects the engine returns stay the engine's own, so a recorded process
// behaves as an unrecorded one.
for (const name of ["compile", "compileStreaming", "instantiate", "instantiateStreaming"]) {
  const original = WebAssembly[name];
  if (typeof original !== "function") continue;
  WebAssembly[name] = new Proxy(original, {
    apply(target, self, args) {
      record(`wasm:${name}`);
      return Reflect.apply(target, self, args);
    },
  });
}
for (const name of ["Module", "Instance"]) {
  WebAssembly[name] = new Proxy(WebAssembly[name], {
    construct(target, args, newTarget) {
      record(`wasm:new ${name}`);
      return Reflect.construct(target, args, newTarget);
    },
  });
}
