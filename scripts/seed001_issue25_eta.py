#!/usr/bin/env python3
"""Issue 25: C2MARL's dual step at E1.1 from the stored runs of one directory (default results/001/issue25/eta:
fifth session, α = 0.95, 300 training episodes × 3 seeds, 100 evaluation episodes, SL beside it; one run at
α = 0.75 / 0.85 × 2 seeds. results/001/issue25/alpha900: sixth session, the PM dual at α = 0.75 / 0.85 / 0.95,
900 training episodes × 3 seeds; window/: window 60; freeze/: λ held at its mean from 0.8·M, 300 episodes × 3
seeds; freeze900/: the same at 900 episodes × 5 seeds, one scenario per α, seventh session).

Usage: python3 scripts/seed001_issue25_eta.py [--dir DIR] [--run target/release/packlab] > DIR/summary.md
  --dir DIR  the directory of `*.scenario.json` and their reports (default results/001/issue25/eta).
  --run BIN  first runs every `*.scenario.json` there whose report is missing (`PACKLAB_THREADS=2 BIN run S > R`).
Prints one markdown table: per run and C2MARL arm, SL's S-Cores, C2MARL's S-Cores / PM-Hot-R / C-Hot-R (mean ±
95% t-interval over the training seeds, and each seed), the paper's C2MARL row (Table 1), λ's range over the last
50 episodes and its mean there (± 95% t over the seeds), and λ at the end (with `lambda_freeze_fraction` < 1: the
held λ). Reports whose rows carry `any_pm_unsafe_r` (the share of episodes with an unsafe PM) get a second table:
per report file and arm, PM-Hot-R, that share and C-Hot-R, and the mean number of unsafe PMs per episode.
"""
import glob
import json
import os
import statistics as st
import subprocess
import sys

from findings import half95


def ci(xs):
    if len(xs) < 2:
        return f"{xs[0]:.1f}"
    return f"{st.mean(xs):.1f} ± {half95(xs):.1f}"


def main():
    d = sys.argv[sys.argv.index("--dir") + 1] if "--dir" in sys.argv else "results/001/issue25/eta"
    if "--run" in sys.argv:
        binary = sys.argv[sys.argv.index("--run") + 1]
        for s in sorted(glob.glob(f"{d}/*.scenario.json")):
            out = s.replace(".scenario.json", ".json")
            if not os.path.exists(out) or os.path.getsize(out) == 0:
                with open(out, "w") as f:
                    subprocess.run([binary, "run", s], stdout=f, check=True, env={**os.environ, "PACKLAB_THREADS": "2"})
    print("| run (`oversub.c2marl`) | arm | SL S-Cores % | C2MARL S-Cores % | PM-Hot-R % | C-Hot-R % | paper PM-Hot-R / C-Hot-R / S-Cores % "
          "| per seed S-Cores / PM-Hot-R % | λ last 50 episodes: range, mean | final λ |")
    print("|---|---|---:|---:|---:|---:|---|---|---|---|")
    for s in sorted(glob.glob(f"{d}/*.scenario.json")):
        path = s.replace(".scenario.json", ".json")
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            continue
        rep = json.load(open(path))
        cfg = json.load(open(s))["oversub"].get("c2marl", {})
        rows = rep["rows"]
        sl = [r for r in rows if r["policy"] == "sl"][0]
        paper = {p["policy"]: p for p in rep.get("paper", [])}
        name = json.dumps(cfg) if cfg else "the defaults of the run's engine"
        for pol in dict.fromkeys(r["policy"] for r in rows if r["policy"].startswith("c2marl:")):
            arm = [r for r in rows if r["policy"] == pol]
            pct = lambda k: [100 * r[k] for r in arm]
            seeds = ", ".join(f"{100 * r['s_cores']:.1f} / {100 * r['pm_hot_r']:.0f}" for r in arm)
            lams = [[l["lambda"] for l in c["log"]] for c in rep["training"] if c["policy"] == pol]
            last = f"{min(min(l[-50:]) for l in lams):.0f}–{max(max(l[-50:]) for l in lams):.0f}, {ci([st.mean(l[-50:]) for l in lams])}"
            final = ", ".join(f"{l[-1]:.0f}" for l in lams)
            p = paper.get(pol)
            pap = f"{100 * p['pm_hot_r']:.1f} / {PAPER_C_HOT_R.get(pol, '—')} / {100 * p['s_cores']:.1f}" if p else "—"
            print(f"| `{name}` | {pol} | {100 * sl['s_cores']:.1f} | {ci(pct('s_cores'))} | {ci(pct('pm_hot_r'))} | "
                  f"{ci(pct('c_hot_r'))} | {pap} | {seeds} | {last} | {final} |")


    # per report file (a check run and the full run of one α have the same settings but are separate samples)
    runs = []
    for s in sorted(glob.glob(f"{d}/*.scenario.json")):
        path = s.replace(".scenario.json", ".json")
        if os.path.exists(path) and os.path.getsize(path) > 0:
            rows = [r for r in json.load(open(path))["rows"] if "any_pm_unsafe_r" in r]
            if rows:
                runs.append((os.path.basename(path)[:-len(".json")], rows))
    if runs:
        print()
        print("| run | arm | PM-Hot-R % | episodes with an unsafe PM % | C-Hot-R % | unsafe PMs per episode | paper PM-Hot-R / C-Hot-R % |")
        print("|---|---|---:|---:|---:|---:|---|")
        for run, rows in runs:
            for pol in dict.fromkeys(r["policy"] for r in rows):
                arm = [r for r in rows if r["policy"] == pol]
                pct = lambda k: [100 * r[k] for r in arm]
                pap = PAPER_TABLE5.get(pol, "—")
                print(f"| {run} | {pol} | {ci(pct('pm_hot_r'))} | {ci(pct('any_pm_unsafe_r'))} | {ci(pct('c_hot_r'))} | "
                      f"{ci([r['unsafe_pms'] for r in arm])} | {pap} |")


# Seed 001 Table 5 (PM-Hot-R / C-Hot-R %), every row.
PAPER_TABLE5 = {"grid:0.2": "30.9 / 97.2", "grid:0.4": "22.7 / 72.7", "grid:0.6": "0 / 0", "ma": "0 / 0",
                "sl": "0.2 / 0.6", "c2marl:0.75": "9.8 / 21.9", "c2marl:0.85": "6.6 / 13.9", "c2marl:0.95": "3.5 / 4.7"}

# Seed 001 Table 5 (E1.1's C2MARL rows reported on the cluster criterion), in %.
PAPER_C_HOT_R = {"c2marl:0.75": "21.9", "c2marl:0.85": "13.9", "c2marl:0.95": "4.7"}

main()
