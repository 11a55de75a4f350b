#!/usr/bin/env python3
"""Issue 25: where C-Hot-R's gap to seed 001 Table 5 comes from (E1.1, 500 PMs, seed 1, 100 evaluation episodes).

Evaluates Grid-0.2/0.4/0.6, MA, SL and the bundled pretrained C2MARL arm (static/oversub/c2marl-e11.json.gz, the
default scenario's c2marl:0.95; its policy is read out of the file into a temporary policy file) on the same
episodes, and prints per row: PM-Hot-R (max over PMs of the share of episodes with hot_k ≥ δ), the share of
episodes with at least one unsafe PM (App. B.2's wording: "the probability of the cluster has hot PM"), C-Hot-R
as ALGORITHMS.md §3.5 and eq. 4 define it (≥ δ·T hours in which some PM is hot), the mean number of unsafe PMs
per episode, and hot PM-hours / hours with a hot PM per episode, beside Table 5.

Usage: python3 scripts/seed001_c_hot_r.py [target/release/packlab] > results/001/issue25/c-hot-r/summary.md
(the raw rows go to results/001/issue25/c-hot-r/rows.json).
"""
import gzip, json, os, subprocess, sys, tempfile

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/packlab"
OUT = "results/001/issue25/c-hot-r"
TABLE5 = {"grid:0.2": (30.9, 97.2), "grid:0.4": (22.7, 72.7), "grid:0.6": (0.0, 0.0), "ma": (0.0, 0.0),
          "sl": (0.2, 0.6), "c2marl:0.95": (3.5, 4.7)}

os.makedirs(OUT, exist_ok=True)
policy = json.load(gzip.open("static/oversub/c2marl-e11.json.gz"))["policy"]
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump(policy, f)
cmd = [BIN, "oversub", "run", "--preset", "E1.1", "--seed", "1", "--eval-episodes", "100", "--json",
       "--policies", f"grid:0.2,grid:0.4,grid:0.6,ma,sl,c2marl:{f.name}"]
rows = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True,
                                 env={**os.environ, "PACKLAB_THREADS": "2"}).stdout)
os.unlink(f.name)
for r in rows:
    if r["policy"].startswith("c2marl:"):
        r["policy"] = "c2marl:0.95"
json.dump(rows, open(f"{OUT}/rows.json", "w"), indent=1)
print("| row | PM-Hot-R % | episodes with an unsafe PM % | C-Hot-R % (§3.5, eq. 4) | paper PM-Hot-R / C-Hot-R % "
      "| unsafe PMs per episode | hot PM-hours per episode | hours with a hot PM per episode |")
print("|---|---:|---:|---:|---|---:|---:|---:|")
for r in rows:
    p = TABLE5.get(r["policy"])
    print(f"| {r['policy']} | {100 * r['pm_hot_r']:.0f} | {100 * r['any_pm_unsafe_r']:.0f} | {100 * r['c_hot_r']:.0f} | "
          f"{f'{p[0]} / {p[1]}' if p else '—'} | {r['unsafe_pms']:.2f} | {r['hot_pm_hours']:.1f} | {r['cluster_hot_hours']:.1f} |")
print()
print(f"Command: `python3 scripts/seed001_c_hot_r.py {BIN}` (E1.1 at the defaults, seed 1, 100 evaluation "
      "episodes; C2MARL = the bundled pretrained arm, α 0.95).")
