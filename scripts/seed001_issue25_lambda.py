#!/usr/bin/env python3
"""Issue 25, sixth session: what sets a PM-dual C2MARL arm's result: λ at the last training episode against the
evaluated S-Cores and PM-Hot-R, over every arm-seed of the stored PM-dual runs (window 20, η_λ 5) at E1.1.

Usage: python3 scripts/seed001_issue25_lambda.py > results/001/issue25/alpha900/lambda.md
Prints one markdown table (one row per arm-seed, ordered by final λ) and the Pearson correlations.
"""
import json
import math
import statistics as st

RUNS = [
    "results/001/issue25/alpha900/e11-pm-w20-eta5-a0.75-900x3.json",
    "results/001/issue25/alpha900/e11-pm-w20-eta5-a0.85-900x3.json",
    "results/001/issue25/alpha900/e11-pm-w20-eta5-a0.95-900x3.json",
    "results/001/issue25/eta/e11-pm-w20-eta5-300x3.json",
    "results/001/issue25/eta/e11-pm-w20-eta5-alpha-300x2.json",
]
SAFE = {"c2marl:0.75": 25, "c2marl:0.85": 15, "c2marl:0.95": 5}


def corr(a, b):
    ma, mb = st.mean(a), st.mean(b)
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / math.sqrt(
        sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))


def main():
    pts = []
    for f in RUNS:
        rep = json.load(open(f))
        for c in rep["training"]:
            lam = [l["lambda"] for l in c["log"]]
            row = [r for r in rep["rows"] if r["policy"] == c["policy"] and r["train_seed"] == c["train_seed"]][0]
            pts.append((c["policy"], len(lam), c["train_seed"] + 1, lam[-1], st.mean(lam[-50:]),
                        100 * row["s_cores"], 100 * row["pm_hot_r"]))
    pts.sort(key=lambda p: (p[3], -p[5]))
    print("| arm | training episodes | seed | final λ | mean λ, last 50 | S-Cores % | PM-Hot-R % | safe at its α |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for p in pts:
        print(f"| {p[0]} | {p[1]} | {p[2]} | {p[3]:.0f} | {p[4]:.0f} | {p[5]:.1f} | {p[6]:.0f} | "
              f"{'yes' if p[6] <= SAFE[p[0]] else 'no'} |")
    print()
    print(f"Pearson r over {len(pts)} arm-seeds: final λ vs S-Cores {corr([p[3] for p in pts], [p[5] for p in pts]):.2f}, "
          f"final λ vs PM-Hot-R {corr([p[3] for p in pts], [p[6] for p in pts]):.2f}, "
          f"mean λ of the last 50 vs S-Cores {corr([p[4] for p in pts], [p[5] for p in pts]):.2f}.")


main()
