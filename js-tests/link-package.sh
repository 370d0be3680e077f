#!/usr/bin/env bash
# Makes the built package resolvable by name from js-tests/, exactly as a
# user's project sees it after `npm install artifact-bloom`:
#
#   js-tests/node_modules/artifact-bloom -> ../../pkg
#
# A symlink (not a copy) so a rebuild of pkg/ is picked up without relinking,
# and Node's realpath resolution makes `import` and `require` land on the same
# files (one wasm instance). Idempotent: `ln -sfn` replaces an existing link.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$here/node_modules"
ln -sfn ../../pkg "$here/node_modules/artifact-bloom"
if [ ! -f "$here/../pkg/package.json" ]; then
  echo "link-package.sh: pkg/ is not built yet; run: node scripts/build.mjs" >&2
  exit 1
fi
