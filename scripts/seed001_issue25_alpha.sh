#!/bin/bash
# Issue 25: C2MARL's dual step and learner at a reduced scale (E1.1, 20 PMs instead of 500, 300 training
# episodes instead of 1,800, one training seed, 20 evaluation episodes, seed 1), α ∈ {0.75, 0.85, 0.95} beside
# Grid-x, MA and SL, at the default η_λ (1 per episode) and at η_λ = 10. Writes
# results/001/issue25/alpha-eta{1,10}.json (the reports, with every episode's λ and greedy cost).
# Usage: scripts/seed001_issue25_alpha.sh target/release/packlab   (about 30 s of CPU per η_λ)
set -euo pipefail
BIN=${1:-target/release/packlab}
OUT=results/001/issue25
mkdir -p "$OUT"
for eta in 1 10; do
  cat > "$OUT/alpha-eta$eta.scenario.json" <<EOT
{"model":"oversub","seed":1,"oversub":{"preset":"E1.1","pms":20,"policies":["grid:0.2","grid:0.4","grid:0.6","grid:1","ma","sl","c2marl:0.75","c2marl:0.85","c2marl:0.95"],"train_episodes":300,"eval_episodes":20,"c2marl":{"eta_lambda":$eta}}}
EOT
  PACKLAB_THREADS=1 "$BIN" run "$OUT/alpha-eta$eta.scenario.json" > "$OUT/alpha-eta$eta.json"
done
python3 scripts/seed001_issue25_table.py "$OUT" > "$OUT/alpha.md"
