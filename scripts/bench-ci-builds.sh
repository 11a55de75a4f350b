#!/usr/bin/env bash
# Compile time of two CI builds on a clean target dir, each setting side by side (issue 30):
#   scripts/bench-ci-builds.sh [wasm-test|fuzz|tools|all]
# wasm-test: the wasm-bindgen test build of scripts/test-web.sh (tests/wasm_bindings.rs, wasm32 debug) with the
#            dev profile's debug info and without it (CARGO_PROFILE_DEV_DEBUG=0, what test-web.sh uses);
# fuzz:      the nightly build of the fuzz smoke (scripts/fuzz.sh with FUZZ_SMOKE=1 FUZZ_BUILD_ONLY=1: no sanitizer,
#            no debug info, opt-level 1; a plain cargo build with cargo-fuzz's flags);
# tools:     `cargo install wasm-bindgen-cli` at Cargo.lock's version (what a fresh machine's set-up builds) with its
#            default features and with --no-default-features (scripts/setup-web.sh).
# Each build runs under nice in its own fresh target dir below $TMPDIR (removed afterwards) and prints GNU time's
# wall, user and system seconds with the load average; on a shared machine compare the user seconds. Appends a
# block to results/bench/ci-stages.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PATH"
WHAT=${1:-all}
OUT=results/bench/ci-stages.txt
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run() { # label, env assignments..., -- command...
  local label=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  rm -rf "$T/target"
  local t
  t=$( { /usr/bin/time -f "%e s wall %U s user %S s sys" nice -n 10 env CARGO_TARGET_DIR="$T/target" "${envs[@]}" "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
  printf '%-44s %s  (%s of target dir; load %s)\n' "$label" "$t" "$(du -sh "$T/target" | cut -f1)" "$(cut -d' ' -f1-3 /proc/loadavg)"
}
{
  echo "## $(git rev-parse --short HEAD), $(date -u +%FT%TZ), $(nproc) cores"
  if [ "$WHAT" = all ] || [ "$WHAT" = wasm-test ]; then
    run "wasm-bindgen tests, dev profile" CARGO_PROFILE_DEV_DEBUG=2 -- \
      cargo test --locked --target wasm32-unknown-unknown --no-default-features --features full --test wasm_bindings --no-run
    run "wasm-bindgen tests, dev profile, debug = 0" CARGO_PROFILE_DEV_DEBUG=0 -- \
      cargo test --locked --target wasm32-unknown-unknown --no-default-features --features full --test wasm_bindings --no-run
  fi
  if [ "$WHAT" = all ] || [ "$WHAT" = fuzz ]; then
    run "fuzz smoke build (plain cargo, opt-level 1)" FUZZ_SMOKE=1 FUZZ_BUILD_ONLY=1 -- bash scripts/fuzz.sh
  fi
  if [ "$WHAT" = all ] || [ "$WHAT" = tools ]; then
    WB=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
    run "cargo install wasm-bindgen-cli $WB" -- cargo install wasm-bindgen-cli --version "$WB" --root "$T/root" --force
    run "  the same, --no-default-features" -- \
      cargo install wasm-bindgen-cli --version "$WB" --root "$T/root" --force --no-default-features
  fi
  echo
} | tee -a "$OUT"
