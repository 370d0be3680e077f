#!/usr/bin/env bash
# The main job (README's first command): set up, build the package, publish a
# deterministic 200,000-artifact sample catalog, serve it on 127.0.0.1, run a
# Node precheck through ArtifactExistenceService and print the table and the
# metrics, then keep serving the browser page until Ctrl-C.
# Extra arguments go to scripts/demo.mjs (e.g. --no-serve, --port 0).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
node scripts/build.mjs
exec node scripts/demo.mjs "$@"
