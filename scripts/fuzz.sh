#!/usr/bin/env bash
# Long-running reliability checks, kept OUT of the default test run
# (scripts/test.sh). See docs/reliability.md for what each one proves.
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET[:SECONDS]...]
#       Coverage-guided fuzzing (cargo fuzz / libFuzzer) of every decoder,
#       ONE target at a time with -jobs=1 (the machine has 2 cores and other
#       work runs). Default: 60 s for each of the seven targets. A TARGET may
#       carry its own time, e.g.
#         bash scripts/fuzz.sh 120 abf1_decode:600 abf1_stream:600 \
#           tlbf_decode mergeable_decode delta_decode scalable_decode delta_apply
#       Each target starts from its committed seeds (fuzz/corpus/seed-<target>/)
#       plus what earlier runs found (fuzz/corpus/<target>/, git-ignored).
#       Ends with a table of executions and coverage per target (libFuzzer's
#       final "#N DONE cov: X ft: Y" line). Exit 1 if any target crashed;
#       the crashing input is in fuzz/target/artifacts/<target>/.
#
#   bash scripts/fuzz.sh crash [RUNS]
#       Randomized crash-safety run of `artifact-bloom publish` (default 200
#       runs): each run starts a publish over an existing snapshot, SIGKILLs it
#       at a random moment, and checks the target file is the old snapshot
#       byte for byte or the complete new one. Needs pkg/ built.
#
# Installs what it needs, idempotently: the nightly toolchain (rustup, minimal
# profile) and cargo-fuzz (crates.io).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$HOME/.cargo/bin:$PATH"

ALL_TARGETS=(abf1_decode abf1_stream tlbf_decode mergeable_decode delta_decode scalable_decode delta_apply)

say() { printf '[fuzz] %s\n' "$*" >&2; }

# ---------------------------------------------------------------------------
# crash mode
# ---------------------------------------------------------------------------
if [ "${1:-}" = "crash" ]; then
  runs=${2:-200}
  [ -f pkg/package.json ] || { say "pkg/ is not built: run node scripts/build.mjs"; exit 2; }
  exec node --input-type=module - "$ROOT" "$runs" <<'NODE'
// Randomized SIGKILL of `artifact-bloom publish`. Invariant after every kill:
// the snapshot path holds v1 byte for byte or the complete v2 (which loads as
// catalogVersion 2); the only other leftovers are `.catalog.abf1.tmp-*` files.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";

const [root, runsText] = process.argv.slice(2);
const runs = Number(runsText);
const CLI = join(root, "pkg", "bin", "artifact-bloom.mjs");
const { loadSnapshot } = await import(pathToFileURL(join(root, "pkg", "node.mjs")).href);
const COUNT = 300_000;
// Each 64 KiB chunk of the write sleeps this long (a test hook in
// cli/publish.mjs), so the write window is wide enough to land kills in;
// the seeded PRNG also picks runs with no delay (the real-speed path).
const DELAYS = ["0", "5", "20"];
const dir = mkdtempSync(join(tmpdir(), "artifact-bloom-crash-"));
const at = (name) => join(dir, name);
const TARGET = "catalog.abf1";
const isTemp = (name) => name.startsWith(`.${TARGET}.tmp-`);

let seed = Number(process.env.CRASH_SEED ?? 20241129) >>> 0;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
};

function run(args, env = {}) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c) => { stderr += c; });
  const exit = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal, stderr })));
  return { child, exit };
}

const v2Args = (out) => ["publish", "--catalog-version", "2", "--expected-items", String(COUNT), "--fpp", "0.001", "--binary", "--input", at("v2.bin"), "--out", out];
try {
  writeFileSync(at("v1.txt"), Array.from({ length: 1000 }, (_, i) => (i.toString(16).padStart(8, "0")).repeat(8)).join("\n") + "\n");
  let r = await run(["publish", "--catalog-version", "1", "--expected-items", "1000", "--fpp", "0.01", "--input", at("v1.txt"), "--out", at(TARGET)]).exit;
  if (r.code !== 0) throw new Error(`v1 publish failed: ${r.stderr}`);
  const v1 = readFileSync(at(TARGET));
  const words = new Uint32Array(COUNT * 8);
  for (let i = 0; i < words.length; i += 1) words[i] = Math.floor(random() * 2 ** 32);
  writeFileSync(at("v2.bin"), new Uint8Array(words.buffer));
  const fullMs = {};
  let v2;
  for (const delay of DELAYS) {
    const started = performance.now();
    r = await run(v2Args(at("reference.abf1")), { ARTIFACT_BLOOM_TEST_WRITE_DELAY_MS: delay }).exit;
    fullMs[delay] = performance.now() - started;
    if (r.code !== 0) throw new Error(`v2 publish failed: ${r.stderr}`);
    const bytes = readFileSync(at("reference.abf1"));
    if (v2 !== undefined && Buffer.compare(v2, bytes) !== 0) throw new Error("publish is not deterministic");
    v2 = bytes;
  }
  rmSync(at("reference.abf1"));

  const tally = { v1: 0, v2: 0, killed: 0, exited: 0, strayTemps: 0 };
  const failures = [];
  for (let i = 0; i < runs; i += 1) {
    for (const name of readdirSync(dir)) if (isTemp(name)) rmSync(at(name));
    writeFileSync(at(TARGET), v1);
    const delay = DELAYS[Math.floor(random() * DELAYS.length)];
    // Kill anywhere from process start to 10 % past a full publish.
    const killAt = Math.round(random() * fullMs[delay] * 1.1);
    const { child, exit } = run(v2Args(at(TARGET)), { ARTIFACT_BLOOM_TEST_WRITE_DELAY_MS: delay });
    await sleep(killAt);
    child.kill("SIGKILL");
    const { code, signal, stderr } = await exit;
    if (signal === "SIGKILL") tally.killed += 1;
    else if (code === 0) tally.exited += 1;
    else failures.push(`run ${i}: publish failed on its own (exit ${code}): ${stderr.trim()}`);
    const names = readdirSync(dir);
    const others = names.filter((n) => !isTemp(n)).sort();
    if (others.join(",") !== [TARGET, "v1.txt", "v2.bin"].sort().join(",")) failures.push(`run ${i}: files ${others}`);
    let bytes;
    try {
      bytes = readFileSync(at(TARGET));
    } catch (error) {
      failures.push(`run ${i} (delay ${delay} ms/chunk, kill at ${killAt} ms): ${TARGET} missing: ${error.code}`);
      continue;
    }
    if (Buffer.compare(bytes, v1) === 0) tally.v1 += 1;
    else if (Buffer.compare(bytes, v2) === 0) {
      const loaded = loadSnapshot(new Uint8Array(bytes));
      if (loaded.kind !== "success" || loaded.value.catalogVersion !== 2) failures.push(`run ${i}: v2 does not load`);
      else loaded.value.filter.free();
      tally.v2 += 1;
    } else {
      failures.push(`run ${i} (delay ${delay} ms/chunk, kill at ${killAt} ms): ${TARGET} is neither v1 nor v2 (${bytes.byteLength} bytes)`);
    }
    tally.strayTemps += names.filter(isTemp).length;
    if ((i + 1) % 25 === 0) console.error(`[crash] ${i + 1}/${runs}: ${JSON.stringify(tally)}`);
  }
  console.log(`crash-safety: ${runs} runs, full publish ${Object.entries(fullMs).map(([d, ms]) => `${Math.round(ms)} ms at ${d} ms/chunk`).join(", ")}`);
  console.log(`  killed: ${tally.killed}, finished before the kill: ${tally.exited}`);
  console.log(`  target afterwards: old v1 ${tally.v1}, complete v2 ${tally.v2}, anything else ${failures.length}`);
  console.log(`  stray temp files left by SIGKILL (expected, never read): ${tally.strayTemps}`);
  for (const failure of failures) console.log(`  FAIL ${failure}`);
  console.log(`${runs - failures.length} passed, ${failures.length} failed`);
  process.exitCode = failures.length === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
NODE
fi

# ---------------------------------------------------------------------------
# fuzz mode
# ---------------------------------------------------------------------------
seconds=60
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
for spec in "${targets[@]}"; do
  name=${spec%%:*}
  [[ " ${ALL_TARGETS[*]} " == *" $name "* ]] || { say "unknown target '$name' (known: ${ALL_TARGETS[*]})"; exit 2; }
done

# 1. The nightly toolchain (cargo fuzz needs -Z flags) and cargo-fuzz.
if ! rustup toolchain list | grep '^nightly' >/dev/null; then
  say "installing the nightly toolchain (minimal profile)"
  rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz >/dev/null; then
  say "installing cargo-fuzz from crates.io (a few minutes)"
  cargo install cargo-fuzz --locked
fi

# 2. Build every target once: release, debug assertions, AddressSanitizer
#    (cargo fuzz's defaults).
say "building fuzz targets"
(cd fuzz && cargo +nightly fuzz build >&2)
BIN="$ROOT/fuzz/target/x86_64-unknown-linux-gnu/release"
LOGS="$ROOT/fuzz/target/logs"
mkdir -p "$LOGS"

# 3. One target at a time. -jobs=1 runs the fuzzer in one child process whose
#    output libFuzzer writes to fuzz-0.log in the current directory.
rows=()
status=0
for spec in "${targets[@]}"; do
  name=${spec%%:*}
  secs=$seconds
  [[ $spec == *:* ]] && secs=${spec#*:}
  corpus="$ROOT/fuzz/corpus/$name"
  seeds="$ROOT/fuzz/corpus/seed-$name"
  artifacts="$ROOT/fuzz/target/artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  work=$(mktemp -d)
  say "$name: ${secs} s, seeds $(ls "$seeds" | wc -l), corpus so far $(ls "$corpus" | wc -l)"
  started=$(date +%s)
  set +e
  (cd "$work" && "$BIN/$name" "$corpus" "$seeds" \
      -jobs=1 -workers=1 -max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" >/dev/null 2>&1)
  code=$?
  set -e
  elapsed=$(( $(date +%s) - started ))
  log="$LOGS/$name.log"
  cp "$work/fuzz-0.log" "$log" 2>/dev/null || : > "$log"
  rm -rf "$work"
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  last_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true)
  line=${done_line:-$last_line}
  execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$line")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$line")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$line")
  corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$line")
  rate=$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}' | tail -1)
  peak=$(grep -E '^stat::peak_rss_mb' "$log" | awk '{print $2}' | tail -1)
  if [ -n "$done_line" ] && ! grep -qE 'ERROR: (libFuzzer|AddressSanitizer)|panicked at|Test unit written to' "$log"; then
    result=ok
  else
    result="CRASH (exit $code; see $log, $artifacts)"
    status=1
  fi
  rows+=("$(printf '| %-16s | %7s | %12s | %8s | %5s | %6s | %6s | %7s | %s |' \
    "$name" "$elapsed" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${peak:-?}" "$result")")
  say "$name: ${line:-no stats line}"
done

{
  printf '\nfuzz results (%s, %s)\n\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$(cargo +nightly --version)"
  printf '| %-16s | %7s | %12s | %8s | %5s | %6s | %6s | %7s | %s |\n' \
    target seconds executions exec/s cov ft corpus rss_mb result
  printf '|%s|\n' '------------------|--------:|-------------:|---------:|------:|-------:|-------:|--------:|--------'
  printf '%s\n' "${rows[@]}"
} | tee "$LOGS/summary-$(date -u +%Y%m%dT%H%M%SZ).md"
exit $status
