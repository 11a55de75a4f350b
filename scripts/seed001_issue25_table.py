"""Issue 25: renders results/001/issue25/alpha.md from the stored reports alpha-eta{1,10}.json (every arm,
and λ's trajectory of each C2MARL arm every 25 episodes). Usage: python3 scripts/seed001_issue25_table.py DIR"""
import json
import sys

d = sys.argv[1]
print("# C2MARL's dual step at a reduced scale (issue 25)\n")
print("E1.1 on 20 PMs (paper: 500), 300 training episodes (paper: 1,800), 1 training seed (paper: 3), 20")
print("evaluation episodes (paper: 300), seed 1. Command: `scripts/seed001_issue25_alpha.sh target/release/packlab`.")
print("Intervals are not shown: with one training seed and 20 episodes the C2MARL rows are single runs.\n")
for eta in (1, 10):
    r = json.load(open(f"{d}/alpha-eta{eta}.json"))
    print(f"## η_λ = {eta} (per episode, dual steps from episode 150, λ ≤ 100)\n")
    print("| policy | S-Cores % | PM-Hot-R % | C-Hot-R % | hot PM-hours / episode |")
    print("|---|---:|---:|---:|---:|")
    for row in r["rows"]:
        print(f"| {row['policy']} | {100*row['s_cores']:.1f} | {100*row['pm_hot_r']:.1f} | {100*row['c_hot_r']:.1f} | {row['hot_pm_hours']:.1f} |")
    print()
    print("| arm | " + " | ".join(f"λ after ep. {e}" for e in range(149, 300, 25)) + " | mean greedy hot fraction, last 50 ep. |")
    print("|---|" + "---:|" * (len(range(149, 300, 25)) + 1))
    for t in r["training"]:
        log = t["log"]
        g = [e["greedy_cost"] for e in log[-50:] if e["greedy_cost"] is not None]
        print(f"| {t['policy']} | " + " | ".join(f"{log[e]['lambda']:.1f}" for e in range(149, 300, 25)) + f" | {sum(g)/len(g):.3f} |")
    print()
