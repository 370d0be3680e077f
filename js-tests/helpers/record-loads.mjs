// A preload (`node --import <this file's URL>`) that records what a process
// loads, for tests of "this command does not load the library": every module
// URL that goes through the ES-module loader (written by the hooks in
// record-loads-hooks.mjs as it loads) and every WebAssembly compile or
// instantiate call of the main thread, one line each, appended to the file
// named by ARTIFACT_BLOOM_LOAD_LOG. Appending synchronously, line by line,
// keeps the record whole however the process ends (exit codes, process.exit).
import { createHash } from "node:crypto";
import { appendFileSync } from "node:fs";
import { register } from "node:module";

const log = process.env.ARTIFACT_BLOOM_LOAD_LOG;
if (!log) throw new Error("record-loads.mjs needs ARTIFACT_BLOOM_LOAD_LOG (the file to append to)");

register("./record-loads-hooks.mjs", import.meta.url, { data: { log } });

const record = (what) => appendFileSync(log, `${what}\n`);

/**
 * What a compile was given: the SHA-256 of its bytes (so a test can tell the
 * package's own modules from a wasm Node compiles for itself — Node 22's
 * node:http compiles undici's llhttp at import), or "module" for an
 * already-compiled WebAssembly.Module.
 */
function identify(source) {
  if (source instanceof WebAssembly.Module) return "module";
  const view = ArrayBuffer.isView(source) ? source : source instanceof ArrayBuffer ? new Uint8Array(source) : undefined;
  if (view === undefined) return "unknown";
  return createHash("sha256")
    .update(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))
    .digest("hex");
}

// Proxies, not replacements: `x instanceof WebAssembly.Module` and the
// objects the engine returns stay the engine's own, so a recorded process
// behaves as an unrecorded one.
for (const name of ["compile", "compileStreaming", "instantiate", "instantiateStreaming"]) {
  const original = WebAssembly[name];
  if (typeof original !== "function") continue;
  WebAssembly[name] = new Proxy(original, {
    apply(target, self, args) {
      record(`wasm:${name} ${name.endsWith("Streaming") ? "stream" : identify(args[0])}`);
      return Reflect.apply(target, self, args);
    },
  });
}
for (const name of ["Module", "Instance"]) {
  WebAssembly[name] = new Proxy(WebAssembly[name], {
    construct(target, args, newTarget) {
      record(`wasm:new ${name} ${name === "Module" ? identify(args[0]) : "instance"}`);
      return Reflect.construct(target, args, newTarget);
    },
  });
}
