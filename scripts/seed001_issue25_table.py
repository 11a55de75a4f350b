"""Issue 25: renders results/001/issue25/alpha.md from the stored reports alpha-<env>.json (every arm; the
C2MARL arms as mean ± 95% t-interval over the training seeds; λ's trajectory of each arm every 25 episodes,
and whether it settles). Usage: python3 scripts/seed001_issue25_table.py DIR"""
import json
import statistics as st
import sys

from findings import half95

d = sys.argv[1]


def ci(xs):
    m = st.mean(xs)
    if len(xs) < 2:
        return f"{m:.1f}"
    return f"{m:.1f} ± {half95(xs):.1f}"


print("# C2MARL's normalised dual step at a reduced scale (issue 25)\n")
print("E1.1 on 20 PMs (paper: 500), 300 training episodes (paper: 1,800), 3 training seeds, 30 evaluation")
print("episodes (paper: 300), seed 1. Dual step once per episode from episode 150 (ε decayed), on Û = the mean")
print("hot fraction of the last 10 greedy episodes: `λ ← min(λ_max, max(0, λ − η_λ·clip((c − Û)/c, −1, 1)))` (λ_max = 100, η_λ = 2 unless the section says),")
print("c = (1 − α)·δ. Command: `scripts/seed001_issue25_alpha.sh target/release/packlab`. C2MARL cells: mean ±")
print("95% t-interval over the 3 training seeds; baselines: one run (30 episodes). Û of a baseline = its")
print("cluster-hot hours / 120, the quantity the dual step compares with c (0.00625 / 0.00375 / 0.00125).\n")
for env, title in (("default", "defaults sets 4–8 (1,536 GB per PM, occupancy 0.5, arrivals subscriber by subscriber)"),
                   ("384-mixed", "384 GB per PM, mixed arrivals, occupancy 0.5 (set 9 has occupancy 0.4)"),
                   ("384-mixed-creation", "384 GB per PM, mixed arrivals, occupancy 0.5, delayed cost credit "
                    "(`cost_credit: creation`)"),
                   ("384-mixed-l1000", "384 GB per PM, mixed arrivals, occupancy 0.5, λ ≤ 1,000 (η_λ = 20)"),
                   ("384-mixed-creation-l1000", "384 GB per PM, mixed arrivals, occupancy 0.5, delayed cost credit, "
                    "λ ≤ 1,000 (η_λ = 20)")):
    try:
        r = json.load(open(f"{d}/alpha-{env}.json"))
    except FileNotFoundError:
        continue
    print(f"## {title}\n")
    print("| policy | S-Cores % | PM-Hot-R % | C-Hot-R % | Û (cluster-hot hours / T) % |")
    print("|---|---:|---:|---:|---:|")
    arms = {}
    for row in r["rows"]:
        if row["policy"].startswith("c2marl"):
            arms.setdefault(row["policy"], []).append(row)
            continue
        print(f"| {row['policy']} | {100*row['s_cores']:.1f} | {100*row['pm_hot_r']:.1f} | "
              f"{100*row['c_hot_r']:.1f} | {100*row['cluster_hot_hours']/120:.2f} |")
    for p, rows in arms.items():
        print(f"| {p} ({len(rows)} seeds) | {ci([100*x['s_cores'] for x in rows])} | "
              f"{ci([100*x['pm_hot_r'] for x in rows])} | {ci([100*x['c_hot_r'] for x in rows])} | "
              f"{ci([100*x['cluster_hot_hours']/120 for x in rows])} |")
    print()
    marks = list(range(149, 300, 25))
    print("| arm | seed | " + " | ".join(f"λ ep. {e}" for e in marks) +
          " | λ mean ± s.d., last 100 ep. | greedy Û %, last 100 ep. |")
    print("|---|---:|" + "---:|" * (len(marks) + 2))
    for t in r["training"]:
        log = t["log"]
        lam = [e["lambda"] for e in log[-100:]]
        g = [e["greedy_cost"] for e in log[-100:] if e["greedy_cost"] is not None]
        print(f"| {t['policy']} | {t['train_seed']} | " + " | ".join(f"{log[e]['lambda']:.0f}" for e in marks) +
              f" | {st.mean(lam):.1f} ± {st.pstdev(lam):.1f} | {100*st.mean(g):.2f} |")
    print()
