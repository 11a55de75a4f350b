#!/usr/bin/env python3
"""Seed 000 diagnostics of the reduced-scale E0.2/E0.3 findings (issue 12), stored in results/000/diagnostics/.

1. m5-scan.json: FIRST+MARGINAL m=5 of E0.2 evaluated at fixed thresholds 700-850 (`packlab admission tune --scan`) on the
   R = 8 runs of the reduced scale (C = 1,000, 0.05 arrivals/h, seed 1): failure counts per run, 95% bounds and
   the SLA verdict at each threshold (feasibility is not monotone in the threshold).
2. m5-tune.json: the same arm tuned alone (`packlab admission tune --arm`) with the search of this engine version
   (bisection, upward probes, isotonic fit; ALGORITHMS.md §2.8).
3. second-m5-scan.json: SECOND+MARGINAL m=5 at two thresholds, with the MARGINAL counts (arrivals marginal
   somewhere on the look-ahead, admissions the heuristic changed; seed 000 Def. 6.1).
Each file holds {"command": [...], "output": <the command's JSON>}. About 4 minutes on 2 cores.
Usage: python3 scripts/seed000_diagnostics.py   (from the repository root, after `make native`)
"""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "results/000/diagnostics")
BASE = ["target/release/packlab", "admission", "tune", "--preset", "E0.2", "--runs", "8", "--seed", "1",
        "--capacity", "1000", "--arrival-rate", "0.05"]
SCAN = [700, 720, 730, 740, 742.1875, 746.09375, 750, 760, 770, 780, 790, 800, 810, 820, 830, 840, 850]
JOBS = {
    "m5-scan.json": BASE + ["--arm", "FIRST+MARGINAL m=5", "--scan", ",".join(f"{x:g}" for x in SCAN)],
    "m5-tune.json": BASE + ["--arm", "FIRST+MARGINAL m=5", "--iterations", "8", "--json"],
    "second-m5-scan.json": BASE + ["--arm", "SECOND+MARGINAL m=5", "--scan", "0.05,0.124"],
}

os.makedirs(OUT, exist_ok=True)
for name, cmd in JOBS.items():
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    with open(os.path.join(OUT, name), "w") as f:
        json.dump({"command": cmd, "output": json.loads(out)}, f, indent=1)
        f.write("\n")
    print(name)
