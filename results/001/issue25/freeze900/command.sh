#!/bin/sh
# Issue 25, seventh session: the PM dual with λ held from f = 0.8, E1.1, 900 training episodes × 5 seeds, 100 evaluation.
# One scenario per α; each report's wall/CPU time beside it (.time).
set -e
d=results/001/issue25/freeze900
for s in $d/*.scenario.json; do
  r=${s%.scenario.json}
  [ -s $r.json ] || { /usr/bin/time -f "%e s wall %U s user" -o $r.time env PACKLAB_THREADS=2 nice -n 5 target/release/packlab run $s > $r.json; }
done
python3 scripts/seed001_issue25_eta.py --dir $d > $d/summary.md
