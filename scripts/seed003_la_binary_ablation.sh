#!/bin/bash
# Seed 003, issue 27 (a): why LA-Binary loses with the learned predictor. Runs LA-Binary (learned predictor,
# --size-with-alive, the E3.1 learned rows' setting) on pools 1-3 under ablations of its VM class and host
# class, and prints Δ empty hosts vs best fit per pool, their mean, the share of VMs classed long and the S hosts.
# The ablations are NOT engine features: apply results/003/la-binary-learned/ablation.patch first (it reads the
# environment variables ABL_LONG, ABL_STATIC and ABL_DEBUG), build, run this script, then revert the patch:
#   git apply results/003/la-binary-learned/ablation.patch && cargo build --release &&
#   scripts/seed003_la_binary_ablation.sh > results/003/la-binary-learned/ablation.txt; git apply -R ...
set -euo pipefail
BIN=${BIN:-target/release/packlab}
run() { # label, env...
  local label=$1; shift
  for s in 1 2 3; do
    env "$@" nice -n 10 "$BIN" lifetime run --policies la-binary --predictor learned --diagnostics --json \
      --stranding-h 0 --size-with-alive --seed "$s" 2>/dev/null
  done | python3 -c "
import json, sys, statistics as st
t = sys.stdin.read(); dec = json.JSONDecoder(); i = 0; rows = []
while (k := t.find('[', i)) >= 0:
    o, i = dec.raw_decode(t, k); rows.append(o)
d = [[r for r in rs if r['policy'] == 'la-binary'][0] for rs in rows]
v = [x['empty_hosts_pp_vs_best_fit'] for x in d]
print(f\"| $label | {' / '.join(f'{x:+.2f}' for x in v)} | {st.mean(v):+.2f} | \"
      f\"{st.mean(x['diagnostics']['long_vms'] for x in d):.3f} | {st.mean(x['diagnostics']['short_hosts'] for x in d):.3f} |\")
"
}
echo "| VM class / host class | Δ pp pools 1 / 2 / 3 | mean | VMs long | S hosts |"
echo "|---|---|---:|---:|---:|"
run "L̂ (geometric mean) > 2 h / dynamic (the engine)" ABL_NONE=1
run "L̂ > 2 h / static" ABL_STATIC=1
run "P(T > 2 h) ≥ 0.5 / static" ABL_LONG=p:0.5 ABL_STATIC=1
run "E[T] (arithmetic mean) > 2 h / static" ABL_LONG=mean ABL_STATIC=1
run "true T > 2 h / static" ABL_LONG=truth ABL_STATIC=1
run "random, 18% long / static" ABL_LONG=rand:0.18 ABL_STATIC=1
run "random, 28% long / static" ABL_LONG=rand:0.28 ABL_STATIC=1
run "cores ≥ 8 (12% of VMs) / static" ABL_LONG=cores:8 ABL_STATIC=1
run "cores ≥ 4 / static" ABL_LONG=cores:4 ABL_STATIC=1
echo
echo "Cores of the VMs in each class, pool 1 (learned L̂ > 2 h, then the true T > 2 h):"
for a in none truth; do
  ABL_DEBUG=1 ABL_LONG=$a "$BIN" lifetime run --policies la-binary --predictor learned --json --stranding-h 0 \
    --size-with-alive --seed 1 2>&1 >/dev/null | grep '^long' | tail -1
done
