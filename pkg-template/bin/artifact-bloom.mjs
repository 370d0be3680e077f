#!/usr/bin/env node
// The artifact-bloom command line: publish, inspect, check, merge, serve.
// Exit codes: one table for every command, in cli/exit-codes.mjs.
import { readFileSync } from "node:fs";
import { EXIT_OK, EXIT_USAGE, UsageError } from "../cli/common.mjs";
import { EXIT_CODES_HELP, RegistryFailure, exitCodeOf } from "../cli/exit-codes.mjs";

const COMMANDS = {
  publish: () => import("../cli/publish.mjs").then((m) => m.publish),
  inspect: () => import("../cli/inspect.mjs").then((m) => m.inspect),
  check: () => import("../cli/check.mjs").then((m) => m.check),
  merge: () => import("../cli/merge.mjs").then((m) => m.merge),
  serve: () => import("../cli/serve/serve.mjs").then((m) => m.serve),
  push: () => import("../cli/registry/push.mjs").then((m) => m.push),
};

const HELP = `Usage: artifact-bloom <command> [options]
       artifact-bloom --version

Absence-first precheck of SHA-256 artifact digests with ABF1 Bloom-filter
snapshots. "absent" is definite; "maybe" must be confirmed by the repository
at the snapshot's catalogVersion.

Commands:
  publish   build a snapshot from a digest list and replace the old one atomically
  inspect   show a snapshot's header, fill ratio, FPP and checksum verdict
  check     precheck files or hex digests against a snapshot
  merge     OR-merge partial snapshots built with the same layout
  serve     serve a snapshot, the existence API and the browser precheck page
  push      push an OCI image layout to a registry, prechecked against its snapshot

Run "artifact-bloom <command> --help" for a command's options.

${EXIT_CODES_HELP}`;

/** The installed package's version (its package.json, beside bin/). */
function version() {
  return JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
}

/** @param {string[]} argv the arguments after the program's name */
async function main(argv) {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${HELP}\n`);
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    process.stdout.write(`${version()}\n`);
    return EXIT_OK;
  }
  // Own names only: "constructor" or "toString" is an unknown command, not Object's.
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[/** @type {keyof typeof COMMANDS} */ (name)] : undefined;
  if (load === undefined) throw new UsageError(`unknown command "${name}"\n\n${HELP}`);
  // Every command runs the filter in WebAssembly: say so once, before the
  // engine's bare ReferenceError does (node --jitless has none). Before the
  // command's module loads, too: on Node 22 a module that touches fetch makes
  // undici compile its own wasm, an uncaught ReferenceError even for --help.
  if (typeof WebAssembly === "undefined") {
    throw new UsageError(`this runtime has no WebAssembly (node --jitless, or an engine built without it); ${name} needs it`);
  }
  return (await load())(rest);
}

/**
 * The one line a failure prints: a usage or registry error's message; for
 * anything else (an allocation that failed, a bug) its first line, since
 * every CLI failure is one line — the stack only with ARTIFACT_BLOOM_DEBUG=1.
 * @param {unknown} error
 */
function failureLine(error) {
  if (error instanceof UsageError || error instanceof RegistryFailure) return error.message;
  if (process.env.ARTIFACT_BLOOM_DEBUG === "1") return String(/** @type {Error} */ (error)?.stack ?? error);
  const message = error instanceof Error ? error.message : String(error);
  const code = /** @type {{ code?: unknown }} */ (error)?.code;
  const first = message.split("\n")[0];
  return typeof code === "string" && !first.includes(code) ? `${first} (${code})` : first;
}

// A pending command keeps the process alive. The library's request limits
// are unref()ed (a library must not hold a process open), so a request whose
// socket went away without an answer (Node 20's fetch can miss a reset at
// connect) left nothing to wait for: the process exited 0, silently, with the
// command unfinished. Held, the request's limit ends it as a timeout.
const pending = setInterval(() => {}, 2 ** 31 - 1);
main(process.argv.slice(2))
  .then(
    (code) => {
      // serve returns undefined and keeps running until a signal.
      if (code !== undefined) process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`artifact-bloom: ${failureLine(error)}\n`);
      process.exitCode = exitCodeOf(error);
    },
  )
  .finally(() => clearInterval(pending));
