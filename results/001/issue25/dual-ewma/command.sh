#!/bin/sh
# Issue 25, eleventh session (i25g): the exponentially weighted PM dual (dual_cost pm_ewma, dual_eval_episodes 100 =
# its effective sample size, η_λ 5, λ held from 0.8·M), E1.1, 900 training episodes × 5 seeds, 100 evaluation
# episodes, one scenario per α; the settings of ../dual-calibrated/ but the dual cost (check-*: seeds 1–2 at
# α = 0.85, run first to choose the dual). Each report's wall/CPU time beside it (.time).
set -e
d=results/001/issue25/dual-ewma
for s in $d/check-*.scenario.json $d/e11-ewma-a0.85-*.scenario.json $d/e11-ewma-a0.95-*.scenario.json $d/e11-ewma-a0.75-*.scenario.json; do
  r=${s%.scenario.json}
  [ -s $r.json ] || { /usr/bin/time -f "%e s wall %U s user" -o $r.time env PACKLAB_THREADS=1 nice -n 10 target/release/packlab run $s > $r.json; }
done
python3 scripts/seed001_issue25_eta.py --dir $d > $d/summary.md
rm -rf scripts/__pycache__
