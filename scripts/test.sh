#!/usr/bin/env bash
# The full test run (README's second command). Installs what it needs
# (scripts/setup.sh, idempotent), builds pkg/, then runs every suite:
# Rust core (cargo test), the npm package through its public entry points
# (node:test), the TypeScript declarations (tsc --noEmit) and the browser
# tests in Debian's Chromium. Exits non-zero if any stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh --browser --registry || exit 2
node scripts/build.mjs || exit 2
bash js-tests/link-package.sh || exit 2

failed=()
stage() {
  local name=$1; shift
  printf '\n=== %s: %s\n' "$name" "$*"
  "$@" || failed+=("$name")
}

stage "rust" cargo test --quiet
stage "node" node --test --test-reporter=spec js-tests/*.test.mjs
stage "types" tsc --noEmit -p js-tests/types
stage "types-parity" node --test --test-reporter=spec js-tests/types/*.test.mjs
if compgen -G "js-tests/browser/*.test.mjs" >/dev/null; then
  stage "browser" node --test --test-reporter=spec js-tests/browser/*.test.mjs
fi

if [ ${#failed[@]} -gt 0 ]; then
  printf '\nFAILED stages: %s\n' "${failed[*]}"
  exit 1
fi
printf '\nall stages passed\n'
