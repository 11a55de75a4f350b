#!/bin/sh
# Issue 25, eighth session: the default learner (set 15: PM dual, window 20, η_λ 5, λ held from f = 0.8), E1.1 at the
# paper's 1,800 training episodes × 3 seeds, 100 evaluation episodes; one scenario per α (0.95 first); each report's
# wall/CPU time beside it (.time). Beside freeze900/ (900 × 5). (The eighth session ran the three α one after the
# other with this same command line; α = 0.75's report was written to a scratch file first and copied here.)
set -e
d=results/001/issue25/freeze1800
for a in 0.95 0.85 0.75; do
  s=$d/e11-pm-w20-eta5-freeze0.8-a$a-1800x3.scenario.json
  r=${s%.scenario.json}
  [ -s $r.json ] || { /usr/bin/time -f "%e s wall %U s user" -o $r.time env PACKLAB_THREADS=2 nice -n 5 target/release/packlab run $s > $r.json; }
done
python3 scripts/seed001_issue25_eta.py --dir $d > $d/summary.md
