#!/bin/sh
# Issue 25, twelfth session (the lead, after i25h): pm_ewma with λ held at the mean of the later half of the dual's
# iterates only (lambda_tail_fraction 0.5; the frequencies bias-corrected as in ../dual-ewma/), E1.1, 900 training
# episodes × 5 seeds, 100 evaluation episodes, one scenario per α: the settings of ../dual-ewma/ plus the tail
# (i25h's v2 alone; ../dual-lag-check/ ran it at α = 0.95 seeds 1–2). Each report's wall/CPU time beside it (.time).
# PACKLAB overrides the binary (default target/release/packlab).
set -e
d=results/001/issue25/dual-ewma-tail
for a in 0.95 0.85 0.75; do
  r=$d/e11-ewma-tail-a$a-900x5
  [ -s $r.json ] || { /usr/bin/time -f "%e s wall %U s user" -o $r.time env PACKLAB_THREADS=1 nice -n 5 ${PACKLAB:-target/release/packlab} run $r.scenario.json > $r.json; }
done
python3 scripts/seed001_issue25_eta.py --dir $d > $d/summary.md
rm -rf scripts/__pycache__
