#!/usr/bin/env bash
# Web tests: (1) wasm-bindgen tests of the binding layer in headless Chromium (tests/wasm_bindings.rs);
# (2) end to end with node's test runner + playwright-core driving Debian's chromium (tests/e2e/), which
# compare the page and the wasm engine with the native CLI (target/release/packlab, built by `make native`).
# Expects `make setup-web`, `make native` and `make wasm` to have run (the Makefile's test-web target does).
# `scripts/test-web.sh build` only compiles (1) (the Makefile runs it beside the wasm build, whose LTO keeps one
# core busy: the two use different profile directories of target/, so neither waits for the other's lock).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# the runner's limit covers the whole suite (default 20 s); the debug-build suite takes about 28 s since the
# admission search makes 3 more evaluations per arm, so the limit is raised (a hang still fails, after 300 s)
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-300}"
# No debug info in this debug build (a failing test prints its panic message either way): on a clean target dir
# 81 s of compile CPU instead of 105 s, and 532 MB of target/wasm32-unknown-unknown/debug instead of 1.2 GB
# (results/bench/ci-stages.txt). The build and the run must agree on it (or the run rebuilds).
export CARGO_PROFILE_DEV_DEBUG=0
# --no-default-features --features full: the whole engine without the `cli` feature, so neither the CLI nor its
# dependencies (clap) are compiled for wasm32
wasm_bindgen_tests() { cargo test --locked --target wasm32-unknown-unknown --no-default-features --features full --test wasm_bindings "$@"; }
if [ "${1:-}" = build ]; then
  wasm_bindgen_tests --no-run
  exit 0
fi
[ -x target/release/packlab ] || { echo "test-web: target/release/packlab missing (make native)" >&2; exit 1; }
[ -f www/pkg/packlab_bg.wasm ] || { echo "test-web: www/pkg missing (make wasm)" >&2; exit 1; }
mkdir -p test-artifacts

echo "== wasm-bindgen tests (headless Chromium)"
# no -q: the test runner rejects --quiet (TOOLCHAIN.md trap 3)
wasm_bindgen_tests

echo "== the TypeScript declarations: every pinned report against src/wasm/reports.d.ts (tsc --strict)"
node scripts/check-report-types.mjs

# Two test files at a time (E2E_CONCURRENCY): a file mostly waits on one busy thread (a run in the page's worker, the
# CLI, a page load), so two of them fill the machine's two cores (the browser stage on a fresh clone: see
# results/bench/ci-stages.txt). Each file has its own server port, browser and temporary folders; the shared
# test-artifacts/metrics.json is written under a lock (tests/e2e/helpers.mjs recordMetrics). The timings it records
# are taken beside another file's runs, as before beside the fuzz build: figures to read, never asserted.
# The longest files start first (scripts/e2e-run.mjs: `node --test` would start them by name, the tab tour among
# the last, alone on one core at the end; results/bench/web-suite.txt).
echo "== end-to-end tests (Chromium via playwright-core), ${E2E_CONCURRENCY:-2} files at a time, the longest first"
rm -rf test-artifacts/metrics.json.lock
node scripts/e2e-run.mjs "${E2E_CONCURRENCY:-2}"

RAW=$(stat -c %s www/pkg/packlab_bg.wasm); GZ=$(gzip -9c www/pkg/packlab_bg.wasm | wc -c)
node -e '
const fs = require("fs"); const p = "test-artifacts/metrics.json";
let m = {}; try { m = JSON.parse(fs.readFileSync(p, "utf8")); } catch {}
m.wasm_bytes_raw = +process.argv[1]; m.wasm_bytes_gzip = +process.argv[2];
fs.writeFileSync(p, JSON.stringify(m, null, 2) + "\n"); console.log("metrics:", JSON.stringify(m));
' "$RAW" "$GZ"
