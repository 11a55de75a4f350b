#!/usr/bin/env python3
"""Issue 31: the reservation hook's starters beside the papers' policies on the default era scenario (E4.3 at
the scenario's defaults: a 100,000-core datacenter, ERA's 20%, one scheduled day beside the real Azure 2017
load, κ_use 0.6 … 1), seeds 1..N. Writes results/policies/era-scripts.txt: every cell (`packlab era run
--json`) and, per policy and κ_use, value efficiency, accepted revenue and late jobs as the mean [95% t CI]
over the seeds.

    python3 scripts/era_scripts.py [--seeds 5] [--bin target/release/packlab]
"""
import argparse, json, statistics, subprocess, datetime

from findings import half95

ap = argparse.ArgumentParser()
ap.add_argument("--seeds", type=int, default=5)
ap.add_argument("--bin", default="target/release/packlab")
ap.add_argument("--out", default="results/policies/era-scripts.txt")
a = ap.parse_args()
policies = ("on-demand,greedy,basic-econ:linear,basic-econ:linear:penalty,basic-econ:lp,basic-econ:lp:penalty,"
            "script:examples/policies/era-greedy.rhai,script:examples/policies/era-scarcity.rhai")
cmd = ["era", "run", "--preset", "E4.3", "--datacenter-cores", "100000", "--policies", policies]
lines = [f"# packlab {' '.join(cmd)} --seed S --json",
         f"# (python3 scripts/era_scripts.py --seeds {a.seeds}; the scenario's E4.3 defaults; {datetime.date.today()})"]
by = {}
for s in range(1, a.seeds + 1):
    out = subprocess.run([a.bin, *cmd, "--seed", str(s), "--json"], check=True, capture_output=True, text=True).stdout
    for c in json.loads(out):
        by.setdefault((c["policy"], c["kappa"]), []).append(c)
        lines.append(f"seed {s} {c['policy']:<26} κ {c['kappa']:.2f}  value_eff {100*c['value_efficiency']:6.2f}%  "
                     f"revenue {c['revenue']:10.0f}  late {c['late_pct']:6.2f}%  accepted {c['accepted']}/{c['requests']}"
                     + (f"  error: {c['error']}" if c.get("error") else ""))


def ci(xs):
    m = statistics.mean(xs)
    h = half95(xs) if len(xs) > 1 else float("nan")
    return f"{m:8.2f} [{m - h:8.2f}, {m + h:8.2f}]"


lines.append(f"## per policy and κ_use, mean [95% t CI] over {a.seeds} seeds: value efficiency %, revenue ($, units "
             "of p_full per core-minute), late jobs % of accepted")
for (p, k), cs in by.items():
    lines.append(f"{p:<26} κ {k:.2f}  value_eff {ci([100 * c['value_efficiency'] for c in cs])}  "
                 f"revenue {ci([c['revenue'] for c in cs])}  late {ci([c['late_pct'] for c in cs])}")
open(a.out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
