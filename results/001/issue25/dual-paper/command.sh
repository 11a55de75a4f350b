#!/bin/sh
# Issue 25, thirteenth session: the exponentially weighted PM dual (the settings of ../dual-ewma/: dual_cost pm_ewma,
# dual_eval_episodes 100, η_λ 5, λ held from 0.8·M) at the paper's scale, the findings' E1.1 scenario
# (results/001/scenario-E1.1.json at 1,800 training episodes × 3 seeds, 300 evaluation episodes) but the dual; one
# scenario per α (0.95 first). Beside the default PM dual of the same scale (results/001/e11.json). Each report's
# wall/CPU time beside it (.time). PACKLAB overrides the binary (default target/release/packlab).
set -e
d=results/001/issue25/dual-paper
for a in 0.95 0.85 0.75; do
  s=$d/e11-ewma-a$a-1800x3.scenario.json
  r=${s%.scenario.json}
  [ -s $r.json ] || { /usr/bin/time -f "%e s wall %U s user" -o $r.time env PACKLAB_THREADS=1 nice -n 10 ${PACKLAB:-target/release/packlab} run $s > $r.json; }
done
python3 scripts/seed001_issue25_eta.py --dir $d > $d/summary.md
rm -rf scripts/__pycache__
