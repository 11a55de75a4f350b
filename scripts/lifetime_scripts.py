#!/usr/bin/env python3
"""Issue 31: the lifetime hook's starters beside NILAS on the default lifetime scenario (Azure 2017 arrivals,
split 'test', 20% share), seeds 1..N, oracle and noisy (A = 0.7, repredicted) predictors. Writes
results/policies/lifetime-scripts.txt: every run's rows (`packlab lifetime run --json`) and the mean Δ empty
hosts vs best fit (pp) per policy with a 95% t interval over the seeds.

    python3 scripts/lifetime_scripts.py [--seeds 3] [--bin target/release/packlab]
"""
import argparse, json, statistics, subprocess, datetime

from findings import half95

ap = argparse.ArgumentParser()
ap.add_argument("--seeds", type=int, default=3)
ap.add_argument("--bin", default="target/release/packlab")
ap.add_argument("--out", default="results/policies/lifetime-scripts.txt")
a = ap.parse_args()
policies = "nilas,lava,script:examples/policies/lifetime-nilas.rhai,script:examples/policies/lifetime-nilas-aligned.rhai"
lines = [f"# packlab lifetime run --policies {policies} --predictor P --seed S --json",
         f"# (python3 scripts/lifetime_scripts.py --seeds {a.seeds}; defaults: Azure 2017 arrivals, split test, share 0.2; {datetime.date.today()})"]
for pred in ["oracle", "noisy:0.7"]:
    by = {}
    for s in range(1, a.seeds + 1):
        out = subprocess.run([a.bin, "lifetime", "run", "--policies", policies, "--predictor", pred,
                              "--seed", str(s), "--json"], check=True, capture_output=True, text=True).stdout
        for r in json.loads(out):
            by.setdefault(r["policy"], []).append(r)
            lines.append(f"{pred} seed {s} {r['policy']:<30} empty {100*r['empty_hosts']:6.2f}%  "
                         f"Δpp_vs_bf {r['empty_hosts_pp_vs_best_fit']:6.2f}  failures {r['failures']}"
                         + (f"  error: {r['error']}" if r.get('error') else ""))
    lines.append(f"## {pred}: Δ empty hosts vs best fit, pp, mean [95% t CI] over {a.seeds} seeds")
    for p, rs in by.items():
        d = [r["empty_hosts_pp_vs_best_fit"] for r in rs]
        m = statistics.mean(d)
        h = half95(d) if len(d) > 1 else float("nan")
        lines.append(f"{pred:<10} {p:<30} {m:6.2f} [{m-h:6.2f}, {m+h:6.2f}]")
open(a.out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
