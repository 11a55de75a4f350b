#!/usr/bin/env bash
# The five models' wasm/native ratios in one run (issue 30): the five benchmarks one after the other, with the
# sizes the issue was measured at, each printing its own native and wasm times (interleaved or best-of as the
# script does), the 1-minute load average before and after each. Placement twice: native on every core (as the
# issue's filing) and on one thread (PACKLAB_THREADS=1, what node's single-threaded wasm runs on). Writes
# results/bench/ratios-<date>.txt (or OUT=…; a second run the same day is appended). After `make native wasm`. Usage: bash scripts/bench-ratios.sh
# A benchmark, not a test: the figures are only comparable on a quiet machine; the load is printed beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-results/bench/ratios-$(date -u +%F).txt}"
load() { cut -d' ' -f1-3 /proc/loadavg; }
# the native admission bench built first, so its compile is not inside a timed row
ADMIT_BENCH_BIN="$(cargo bench --locked --bench admit --no-run --message-format=json 2>/dev/null \
  | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const l of s.split("\n")){try{const m=JSON.parse(l);if(m.executable&&m.target&&m.target.name==="admit")console.log(m.executable)}catch{}}})')"
[ -x "$ADMIT_BENCH_BIN" ] || { echo "bench-ratios: the admit bench did not build" >&2; exit 1; }
export ADMIT_BENCH_BIN BENCH_PRINT_ONLY=1
row() { # label, command…
  local label="$1"; shift
  echo "## $label: \`$*\`"
  echo "# load before: $(load)"
  local t0; t0=$(date +%s)
  "$@" 2>&1
  echo "# load after: $(load); wall $(( $(date +%s) - t0 )) s"
  echo
}
{
  echo "# wasm/native of the five models, one run of scripts/bench-ratios.sh at $(git rev-parse --short HEAD), $(date -u '+%F %H:%M') UTC"
  echo "# node $(node --version), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')); the machine is shared, the load is beside each row"
  echo
  row "placement, native on every core" node scripts/bench-frontier-run.mjs 9
  row "placement, native on one thread" env PACKLAB_THREADS=1 node scripts/bench-frontier-run.mjs 9
  row "admission, 3-year SECOND run" node scripts/bench-admission-run.mjs 26280 0.01 1
  row "lifetime" node scripts/bench-lifetime.mjs 2
  row "era" node scripts/bench-era.mjs 3
  row "oversub" node scripts/bench-oversub.mjs 3
} | tee -a "$OUT"
