#!/bin/sh
# Issue 25, tenth session (i25d): the calibrated PM dual (dual_cost pm_calibrated, dual_eval_episodes 100, window 20,
# η_λ 5, λ held from 0.8·M), E1.1, 900 training episodes × 5 seeds, 100 evaluation episodes, one scenario per α
# (check-*: the first seed alone at α = 0.95, run first). Each report's wall/CPU time beside it (.time).
set -e
d=results/001/issue25/dual-calibrated
for s in $d/check-*.scenario.json $d/e11-*.scenario.json; do
  r=${s%.scenario.json}
  [ -s $r.json ] || { /usr/bin/time -f "%e s wall %U s user" -o $r.time env PACKLAB_THREADS=2 nice -n 10 target/release/packlab run $s > $r.json; }
done
python3 scripts/seed001_issue25_eta.py --dir $d > $d/summary.md
