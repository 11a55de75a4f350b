#!/bin/sh
# Issue 25, twelfth session (i25h): pm_ewma's lag at α = 0.95, E1.1 seeds 1–2, 900 training episodes, 100
# evaluation episodes, the settings of ../dual-ewma/ but α = 0.95 and the option tried: tail = λ held at the
# mean of the later half of the dual's iterates (lambda_tail_fraction 0.5); both = that and the exponentially
# weighted frequencies without bias correction (ewma_bias_correction false). Each report's wall/CPU time beside
# it (.time). PACKLAB overrides the binary (default target/release/packlab).
set -e
d=results/001/issue25/dual-lag-check
for v in tail both; do
  r=$d/check-$v-a0.95-900x2
  [ -s $r.json ] || { /usr/bin/time -f "%e s wall %U s user" -o $r.time env PACKLAB_THREADS=1 nice -n 5 ${PACKLAB:-target/release/packlab} run $r.scenario.json > $r.json; }
done
python3 scripts/seed001_issue25_eta.py --dir $d > $d/summary.md
rm -rf scripts/__pycache__
