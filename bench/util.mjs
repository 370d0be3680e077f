// Shared helpers for bench/run.mjs: timing, statistics, forced GC, the
// digest corpus, and markdown rendering.

import { createHash } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Nanoseconds since an arbitrary origin (process.hrtime.bigint, as a Number). */
export function nowNs() {
  return Number(process.hrtime.bigint());
}

/** Runs `fn` once and returns [elapsed ns, its result]. */
export function timeNs(fn) {
  const started = process.hrtime.bigint();
  const result = fn();
  return [Number(process.hrtime.bigint() - started), result];
}

export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// A full collection between contenders, so one contender's garbage (1M
// digest strings, wasm views) is not collected on another's clock. The flag
// is set at runtime so `node bench/run.mjs` needs no --expose-gc.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc");
export function gc() {
  collect();
}

/**
 * Results are folded into this so no engine can prove a measured loop dead;
 * run.mjs prints it at the end.
 */
export const sink = { value: 0 };

export function sha256(text) {
  return createHash("sha256").update(text).digest();
}

/**
 * `count` digests of `prefix:i`: `packed` (N × 32 bytes), `list` (N separate
 * plain Uint8Arrays, as a caller of `create(digests[])` would hold them, not
 * views on one buffer) and `hex` (the string keys the npm peers take).
 */
export function digestCorpus(prefix, count, { listCount = count, hexCount = count } = {}) {
  const packed = new Uint8Array(count * 32);
  for (let i = 0; i < count; i += 1) packed.set(sha256(`${prefix}:${i}`), i * 32);
  // Object forms only as far as needed: a smaller JS heap makes every forced
  // GC (and its effect on whoever runs next) cheaper.
  return {
    packed,
    list: Array.from({ length: listCount }, (_, i) => packed.slice(i * 32, i * 32 + 32)),
    hex: Array.from({ length: hexCount }, (_, i) => Buffer.from(packed.buffer, i * 32, 32).toString("hex")),
  };
}

/**
 * The query mix shared with examples/native_bench.rs: query j is member
 * (j/2 mod n) when j is even, non-member `probe:(j/2)` when odd. `probes` must
 * hold at least count/2 entries.
 */
export function queryMix(members, probes, n, count) {
  const list = new Array(count);
  const hex = new Array(count);
  const packed = new Uint8Array(count * 32);
  for (let j = 0; j < count; j += 1) {
    const source = j % 2 === 0 ? members : probes;
    const index = j % 2 === 0 ? (j >> 1) % n : j >> 1;
    list[j] = source.list[index];
    hex[j] = source.hex[index];
    packed.set(list[j], j * 32);
  }
  return { list, hex, packed, count, members: Math.ceil(count / 2) };
}

export function formatNumber(value, digits = 3) {
  if (value === undefined || value === null || Number.isNaN(value)) return "—";
  if (typeof value === "string") return value;
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(digits);
}

export function ratio(a, b) {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return "—";
  return `${a / b >= 10 ? (a / b).toFixed(1) : (a / b).toFixed(2)}×`;
}

export function markdownTable(header, rows) {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map((_h, i) => (i < 3 ? "---" : "---:")).join("|")}|`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

/** `10000` → `10K`, `1000000` → `1M`. */
export function shortCount(n) {
  if (n >= 1e6 && n % 1e6 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 1e3 === 0) return `${n / 1e3}K`;
  return String(n);
}

/** Progress goes to stderr so stdout carries only the report. */
export function log(message) {
  process.stderr.write(`${message}\n`);
}
