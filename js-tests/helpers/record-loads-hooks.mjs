// Module hooks for record-loads.mjs: they run on Node's loader thread and
// append each URL the ES-module loader loads to the log file it was given.
import { appendFileSync } from "node:fs";

let log;

export function initialize(data) {
  log = data.log;
}

export async function load(url, context, nextLoad) {
  appendFileSync(log, `module:${url}\n`);
  return nextLoad(url, context);
}
