#!/bin/bash
# Issue 25: C2MARL's normalised dual step at a reduced scale (E1.1, 20 PMs instead of 500, 300 training
# episodes instead of 1,800, 3 training seeds, 30 evaluation episodes, seed 1), α ∈ {0.75, 0.85, 0.95} beside
# Grid-x, MA and SL, in two environments: the defaults (1,536 GB per PM, arrivals subscriber by subscriber)
# and the calibrated one (384 GB, mixed arrivals). Writes results/001/issue25/alpha-<env>.json (the reports,
# with every episode's λ and greedy cost) and results/001/issue25/alpha.md.
# 384-mixed-creation is 384-mixed with the delayed cost credit (c2marl.cost_credit = creation: each VM's hot
# shares credited to the hour that created it); the -l1000 variants raise λ's bound to 1,000 (η_λ = 20).
# Usage: scripts/seed001_issue25_alpha.sh target/release/packlab [ENV ...]   (about 2 min of CPU per
# environment; default: all three)
set -euo pipefail
BIN=${1:-target/release/packlab}
OUT=results/001/issue25
mkdir -p "$OUT"
rm -f "$OUT"/alpha-eta*.json
ENVS=("${@:2}")
[ ${#ENVS[@]} -gt 0 ] || ENVS=(default 384-mixed 384-mixed-creation 384-mixed-l1000 384-mixed-creation-l1000)
for env in "${ENVS[@]}"; do
  case $env in
    default) extra="\"pm_mem_gb\":1536,\"arrival_order\":\"subscriber\",\"occupancy\":0.5,\"c2marl\":{\"eta_lambda\":2}," ;;
    384-mixed-creation) extra="\"pm_mem_gb\":384,\"arrival_order\":\"mixed\",\"occupancy\":0.5,\"c2marl\":{\"eta_lambda\":2,\"cost_credit\":\"creation\"}," ;;
    384-mixed-l1000) extra="\"pm_mem_gb\":384,\"arrival_order\":\"mixed\",\"occupancy\":0.5,\"c2marl\":{\"eta_lambda\":20,\"lambda_max\":1000}," ;;
    384-mixed-creation-l1000) extra="\"pm_mem_gb\":384,\"arrival_order\":\"mixed\",\"occupancy\":0.5,\"c2marl\":{\"eta_lambda\":20,\"lambda_max\":1000,\"cost_credit\":\"creation\"}," ;;
    384-mixed) extra="\"pm_mem_gb\":384,\"arrival_order\":\"mixed\",\"occupancy\":0.5,\"c2marl\":{\"eta_lambda\":2}," ;;
  esac
  cat > "$OUT/alpha-$env.scenario.json" <<EOT
{"model":"oversub","seed":1,"oversub":{"preset":"E1.1","pms":20,$extra"policies":["grid:0.2","grid:0.4","grid:0.6","grid:1","ma","sl","c2marl:0.75","c2marl:0.85","c2marl:0.95"],"train_episodes":300,"train_seeds":3,"eval_episodes":30}}
EOT
  PACKLAB_THREADS=1 "$BIN" run "$OUT/alpha-$env.scenario.json" > "$OUT/alpha-$env.json"
done
python3 scripts/seed001_issue25_table.py "$OUT" > "$OUT/alpha.md"
