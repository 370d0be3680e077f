#!/usr/bin/env bash
# The registry demo in one command: installs docker-registry and skopeo if
# missing (scripts/setup.sh --registry), builds and links the package, then
# runs scripts/registry-demo.mjs (push A, publish the repository's snapshot,
# push B; the same two pushes with skopeo; the request table).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --registry
node scripts/build.mjs
bash js-tests/link-package.sh
node scripts/registry-demo.mjs
