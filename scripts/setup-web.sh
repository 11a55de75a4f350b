#!/usr/bin/env bash
# Web prerequisites, idempotent (each step is skipped when already satisfied):
#   rustup target wasm32-unknown-unknown; wasm-bindgen-cli pinned to Cargo.lock's wasm-bindgen into .tools/ (from the
#   machine's tool cache, scripts/install-tool.sh);
#   Debian chromium; `npm ci` (playwright-core, which drives the system chromium).
# Only crates.io, Debian packages and the npm registry are needed (../shared/TOOLCHAIN.md).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'setup-web: %s\n' "$*"; }

# 1. the wasm target
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen-cli at exactly the version the crate links (Cargo.lock; Cargo.toml's "=X.Y.Z" pin as fallback)
[ -f Cargo.lock ] || cargo generate-lockfile
WB=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$WB" ] || WB=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
[ -n "$WB" ] || { echo "setup-web: cannot find the wasm-bindgen version in Cargo.lock" >&2; exit 1; }
if [ "$(.tools/bin/wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WB" ]; then
  log "wasm-bindgen-cli $WB into .tools/ (built once per machine: a few minutes, scripts/install-tool.sh)"
  # only the wasm-bindgen executable (the binding's tests run in tests/e2e/ on the built module, without
  # wasm-bindgen-test-runner), without the default feature rustls-tls (ureq's TLS, used by the test runner alone)
  # at opt-level 0: its build takes 93 s of CPU instead of 247 s at cargo install's opt-level 3 (most of it on one
  # core), and the executable's output is byte-identical; it runs 2.3 s instead of 0.6 s on the full module
  # (results/bench/ci-stages.txt, sixteenth session)
  CARGO_PROFILE_RELEASE_OPT_LEVEL=0 \
    bash scripts/install-tool.sh wasm-bindgen-cli "$WB" wasm-bindgen -- --no-default-features --bin wasm-bindgen
fi

# 3. chromium from Debian (playwright's browser download is not reachable here)
if ! command -v chromium >/dev/null; then
  log "apt-get install chromium"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium
fi

# 4. node modules (playwright-core, axe-core, typescript), re-installed when package-lock.json changed
command -v npm >/dev/null || { echo "setup-web: node/npm not found" >&2; exit 1; }
STAMP=node_modules/.packlab-lock.sha256
if [ "$(cat "$STAMP" 2>/dev/null)" != "$(sha256sum package-lock.json | cut -d' ' -f1)" ] || [ ! -d node_modules/playwright-core ]; then
  log "npm ci"
  npm ci --no-audit --no-fund
  sha256sum package-lock.json | cut -d' ' -f1 > "$STAMP"
fi
log "ok (wasm-bindgen $WB, $(chromium --version 2>/dev/null | head -1), node $(node --version))"
