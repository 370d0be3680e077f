#!/usr/bin/env bash
# The full test run (README's second command). Installs what it needs
# (scripts/setup.sh, idempotent), builds pkg/, then runs every stage:
# formatting and lints (Biome for JS, checkJs over the shipped JS, cargo fmt,
# clippy for the host and for the three wasm32 builds), the Rust core (cargo test), the npm package through its public
# entry points (node:test; on the machine's Node, Node 22 and Node 24), the TypeScript declarations (tsc --noEmit), the
# browser tests in Debian's Chromium, and the consumers test (the packed
# tarball in each toolchain, attw, publint, the TypeScript matrix). Exits
# non-zero if any stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh --browser --registry --hosting --postgres || exit 2
node scripts/build.mjs || exit 2
bash js-tests/link-package.sh || exit 2

failed=()
# Each stage prints its wall time, so the CI log shows where the minutes go.
stage() {
  local name=$1; shift
  local started=$SECONDS
  printf '\n=== %s: %s\n' "$name" "$*"
  "$@" || failed+=("$name")
  printf '=== %s: %d s\n' "$name" "$((SECONDS - started))"
}

# The JS side first (seconds): Biome's formatter and linter over every JS/TS
# file (biome.jsonc), then checkJs over the shipped JavaScript that
# emit-types.mjs does not check (the entries and the page not yet strictly;
# bin/ and cli/ strictly, against the built package's own declarations).
stage "biome" biome ci --error-on-warnings .
stage "types-shipped" tsc -p tsconfig.shipped.json
stage "types-cli" node scripts/check-cli-types.mjs
stage "types-www" tsc -p tsconfig.www.json
stage "fmt" cargo fmt --check
stage "clippy" cargo clippy --all-targets --quiet -- -D warnings
# wasm32: the library only (the dev-dependencies do not build for wasm32),
# once per shipped module: the main entry's features, the variants' and the
# delta encoder's.
stage "clippy-wasm32" cargo clippy --target wasm32-unknown-unknown --lib --quiet -- -D warnings
stage "clippy-wasm32-variants" cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features variants --quiet -- -D warnings
stage "clippy-wasm32-delta" cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features delta --quiet -- -D warnings
# The embedded modules' LZMA decoder: its own crate (no_std, shipped for
# wasm32), with host tests against liblzma (its dev-dependency xz2).
stage "fmt-lzma-unpack" cargo fmt --check --manifest-path tools/lzma-unpack/Cargo.toml
stage "clippy-lzma-unpack" cargo clippy --manifest-path tools/lzma-unpack/Cargo.toml --release --target wasm32-unknown-unknown --quiet -- -D warnings
stage "clippy-lzma-unpack-tests" cargo clippy --manifest-path tools/lzma-unpack/Cargo.toml --tests --quiet -- -D warnings
stage "lzma-unpack" cargo test --quiet --manifest-path tools/lzma-unpack/Cargo.toml
stage "rust" cargo test --quiet
stage "node" node --test --test-reporter=spec js-tests/*.test.mjs
# The same suite on the maintained LTS lines (Node 22 and 24 from
# tools/node-runtimes, pinned; the machine's node stays the oldest version
# engines allows). ≈ 1.5–2 min each on the shared 2-vCPU machine.
stage "node-22" tools/node-runtimes/node_modules/node22/bin/node --test --test-reporter=spec js-tests/*.test.mjs
stage "node-24" tools/node-runtimes/node_modules/node24/bin/node --test --test-reporter=spec js-tests/*.test.mjs
stage "types" tsc --noEmit -p js-tests/types
stage "types-parity" node --test --test-reporter=spec js-tests/types/*.test.mjs
if compgen -G "js-tests/browser/*.test.mjs" >/dev/null; then
  stage "browser" node --test --test-reporter=spec js-tests/browser/*.test.mjs
fi
stage "consumers" node --test --test-reporter=spec js-tests/consumers/*.test.mjs

if [ ${#failed[@]} -gt 0 ]; then
  printf '\nFAILED stages: %s\n' "${failed[*]}"
  exit 1
fi
printf '\nall stages passed\n'
