#!/bin/sh
# Issue 25, twelfth session (the lead): the playground's default arm (E1.1, C2MARL-0.95 trained 200 episodes, the
# default scenario's length; seed 1 is the bundled arm's training) with each PM dual, 5 training seeds, 100
# evaluation episodes, SL beside: set 16's `pm` (the scenario without a c2marl section), `pm_ewma`, `pm_ewma` with
# λ held at the later half's mean, `pm_calibrated`. Each report's wall/CPU time beside it (.time). PACKLAB overrides
# the binary (default target/release/packlab).
set -e
d=results/001/issue25/default-arm
for s in $d/default-*.scenario.json; do
  r=${s%.scenario.json}
  [ -s $r.json ] || { /usr/bin/time -f "%e s wall %U s user" -o $r.time env PACKLAB_THREADS=1 nice -n 10 ${PACKLAB:-target/release/packlab} run $s > $r.json; }
done
python3 scripts/seed001_issue25_eta.py --dir $d > $d/summary.md
rm -rf scripts/__pycache__
