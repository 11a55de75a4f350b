"""Seed 001 E1.3 calibration search (issue 25): E1.3's baseline rows (Grid-0.2/0.4/0.6/1, MA, SL; the peak
predictor p95 and GPA 0.95 reported beside; no training) at the paper's 200 PMs over the settings the paper does
not state for its Azure experiment — the scale of the Azure fit's usage (`usage_scale`: the fit of
static/oversub/azure-e13.json has mean usage 0.12, §6.7 says Azure's is "much higher than the internal cloud"),
the predictors' target (`predictor_target`: MA/SL/peak rate = clip(prediction / target); 0 = β) and the
requested-core occupancy — scored against the paper's Table 3 (Azure): PM-Hot-R of Grid-0.2/0.4/0.6 100%, MA 0,
SL 0, and Grid-1 0 (§6.7: "When taking no oversubscription (i.e. Grid-1.0), the safety constraints are
satisfied"), plus S-Cores of MA (8.2%) and SL (7.6%), the rows whose S-Cores depend on the environment.
Score = Σ (PM-Hot-R ours − paper)² over the six rows + Σ (S-Cores ours − paper)² for MA and SL, points².
β = 0.6 (Table 4), 48 cores per PM, 424 GB (the fit's 2.19 GB per core: memory binds only below rate 0.25), the
fit's 9 subscribers, mixed arrival order, seed 1. Stage 1: every cell with 30 evaluation episodes (the paper:
300); stage 2: the best four again with 100. Runs already stored are reused.

Writes results/001/issue25/calibration-e13/<tag>.scenario.json and <tag>.json and results/001/calibration-e13.md.
Usage: python3 scripts/seed001_calibration_e13.py target/release/packlab [--render-only]
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from findings import stored_run  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/packlab"
RENDER_ONLY = "--render-only" in sys.argv
OUT = "results/001/issue25/calibration-e13"
EPISODES, EPISODES_2 = 30, 100
POLICIES = ["grid:0.2", "grid:0.4", "grid:0.6", "grid:1", "ma", "sl", "peak:p95", "gpa:0.95"]
SCORED = ["grid:0.2", "grid:0.4", "grid:0.6", "grid:1", "ma", "sl"]
# Table 3 (Azure): PM-Hot-R %, S-Cores %; Grid-1 from §6.7's text (safe, no S-Cores).
PAPER = {"grid:0.2": (100.0, 80.0), "grid:0.4": (100.0, 60.0), "grid:0.6": (100.0, 40.0), "grid:1": (0.0, 0.0),
         "ma": (0.0, 8.2), "sl": (0.0, 7.6)}
SCALE = [1.0, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5]
TARGET = [0.0, 0.5, 0.4]
OCC = [0.5, 0.8]


def scenario(scale, target, occ, episodes=EPISODES):
    return {"model": "oversub", "seed": 1, "oversub": {
        "preset": "E1.3", "usage_scale": scale, "predictor_target": target, "occupancy": occ,
        "policies": POLICIES, "eval_episodes": episodes}}


def run(tag, sc):
    rep = stored_run(BIN, OUT, tag, sc, RENDER_ONLY, nice=5)
    return {r["policy"]: (100 * r["pm_hot_r"], 100 * r["c_hot_r"], 100 * r["s_cores"]) for r in rep["rows"]}


def score(got):
    return (sum((got[p][0] - PAPER[p][0]) ** 2 for p in SCORED)
            + sum((got[p][2] - PAPER[p][1]) ** 2 for p in ("ma", "sl")))


def tag(key, episodes):
    scale, target, occ = key
    return (f"e{episodes}-" if episodes != EPISODES else "") + f"scale{scale}-target{target}-occ{occ}"


os.makedirs(OUT, exist_ok=True)
rows = []
for key in itertools.product(SCALE, TARGET, OCC):
    got = run(tag(key, EPISODES), scenario(*key))
    rows.append((score(got), key, got))
rows.sort(key=lambda r: r[0])
rows2 = []
for _, key, _ in rows[:4]:
    got = run(tag(key, EPISODES_2), scenario(*key, EPISODES_2))
    rows2.append((score(got), key, got))
rows2.sort(key=lambda r: r[0])
base = run(tag((1.0, 0.0, 0.5), EPISODES_2), scenario(1.0, 0.0, 0.5, EPISODES_2))
# B1 (a): a cap on every subscriber's hourly usage mean (`usage_cap`) at the best cell, 100 episodes each.
CAPS = [1.0, 0.9, 0.85, 0.8, 0.75, 0.7, 0.6, 0.5]
best_key = rows2[0][1]
caps = []
for cap in CAPS:
    sc = scenario(*best_key, EPISODES_2)
    if cap != 1.0:
        sc["oversub"]["usage_cap"] = cap
    caps.append((cap, run(tag(best_key, EPISODES_2) + (f"-cap{cap}" if cap != 1.0 else ""), sc)))


def ci95(pct, n=EPISODES_2):
    """Wilson 95% interval of a share `pct` % of n episodes, in %."""
    p, z = pct / 100, 1.96
    c, h = (p + z * z / (2 * n)) / (1 + z * z / n), z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return 100 * max(0.0, c - h), 100 * min(1.0, c + h)


def table(w, rows):
    head = " | ".join(f"{p}" + (f" (paper {PAPER[p][0]:g})" if p in PAPER else "") for p in POLICIES)
    w(f"| usage scale | predictor target | occupancy | {head} | S-Cores MA / SL (paper 8.2 / 7.6) | "
      f"S-Cores peak / GPA | score |")
    w("|---:|---:|---:|" + "---:|" * (len(POLICIES) + 3))
    for err, (scale, target, occ), got in rows:
        cs = " | ".join(f"{got[p][0]:.1f}" for p in POLICIES)
        w(f"| {scale:g} | {'β' if target == 0 else f'{target:g}'} | {occ:g} | {cs} | "
          f"{got['ma'][2]:.1f} / {got['sl'][2]:.1f} | {got['peak:p95'][2]:.1f} / {got['gpa:0.95'][2]:.1f} | {err:.0f} |")


def rows_vs_paper(w, got):
    w("| policy | PM-Hot-R % paper | PM-Hot-R % ours | C-Hot-R % ours | S-Cores % paper | S-Cores % ours |")
    w("|---|---:|---:|---:|---:|---:|")
    for p in POLICIES:
        pp = PAPER.get(p)
        w(f"| {p} | {'—' if pp is None else f'{pp[0]:g}'} | {got[p][0]:.1f} | {got[p][1]:.1f} | "
          f"{'—' if pp is None else f'{pp[1]:g}'} | {got[p][2]:.1f} |")


with open("results/001/calibration-e13.md", "w") as f:
    w = lambda s="": print(s, file=f)
    w("# Seed 001 calibration: E1.3's baseline rows vs the paper's Table 3 (Azure; issue 25)\n")
    w("Command: `python3 scripts/seed001_calibration_e13.py target/release/packlab` (stored runs in")
    w("results/001/issue25/calibration-e13/). E1.3 = the Azure fit (static/oversub/azure-e13.json: 9 subscribers,")
    w("mean usage 0.12), 200 PMs of 48 cores (Table 4), β = 0.6 (Table 4), 424 GB per PM, mixed arrival order,")
    w("seed 1. Knobs: `usage_scale` (the fit's usage mean and s.d. × k, mean clipped at 1), `predictor_target`")
    w("(MA/SL/peak rate = clip(prediction / target, 0.2, 1); β = the default), `occupancy`. Cells: PM-Hot-R %.")
    w("Score: Σ over Grid-0.2/0.4/0.6, Grid-1, MA, SL of (PM-Hot-R − paper)² + (S-Cores − paper)² for MA and SL,")
    w("points² (paper: Table 3; Grid-1 = 0 from §6.7's text). The peak predictor and GPA are not in the paper.\n")
    w("## The E1.3 of before (scale 1, target β, occupancy 0.5), 100 evaluation episodes\n")
    rows_vs_paper(w, base)
    w(f"\n## Stage 2: the best four cells of stage 1 with {EPISODES_2} evaluation episodes\n")
    table(w, rows2)
    w(f"\n## Stage 1: every cell, {EPISODES} evaluation episodes (a PM-Hot-R cell moves in steps of 3.3 points)\n")
    table(w, rows)
    err, (scale, target, occ), got = rows2[0]
    w(f"\n## Best cell: usage scale {scale:g}, predictor target {'β' if target == 0 else f'{target:g}'}, "
      f"occupancy {occ:g} ({EPISODES_2} evaluation episodes, score {err:.0f})\n")
    rows_vs_paper(w, got)
    w(f"\n## B1 (a): the best cell with the hourly usage mean capped (`usage_cap`), {EPISODES_2} evaluation episodes\n")
    w("Goal: Grid-1 safe at α = 0.95 (its PM-Hot-R 95% CI below 5%) while Grid-0.6 stays hot (Table 3: 100%). Cells:")
    w("PM-Hot-R % (Grid-1 with its Wilson 95% interval), S-Cores % of MA / SL / peak / GPA.\n")
    w("| usage cap | " + " | ".join(POLICIES) + " | Grid-1 95% CI | S-Cores MA / SL / peak / GPA |")
    w("|---:|" + "---:|" * (len(POLICIES) + 2))
    for cap, got in caps:
        lo, hi = ci95(got["grid:1"][0])
        w(f"| {cap:g} | " + " | ".join(f"{got[p][0]:.1f}" for p in POLICIES) + f" | [{lo:.1f}, {hi:.1f}] | "
          f"{got['ma'][2]:.1f} / {got['sl'][2]:.1f} / {got['peak:p95'][2]:.1f} / {got['gpa:0.95'][2]:.1f} |")
    w("""
* B1 (a): a cap of 0.75 on the hourly usage mean (after × 2.5; it only touches 0XnZZ8sM's peak hours) makes
  Grid-1 safe at α = 0.95 (0 of 100 episodes, 95% CI [0, 3.7]) with Grid-0.6 hot in 80% (Table 3: 100); 0.8 keeps
  Grid-0.6 at 89% but Grid-1's interval reaches 5.4%. MA / SL / peak / GPA save the same at every cap (they rate
  that subscriber 1 anyway) and are safe at 0.95 from 0.85 down (PM-Hot-R ≤ 1–4%). Adopted in the findings' E1.3
  since the tenth session (scripts/seed001_findings.py EXTRA): 0.75 is the largest cap searched whose Grid-1 interval
  stays below α = 0.95's 5% budget (the calibration row of the findings' verdicts), and of those the one with
  Grid-0.6 hottest (80%; 0.7: 70%). The E1.3 of before keeps its file (results/001/scenario-E1.3-9eb9813e.json).

## What can be met together, and what cannot
* Without a scale (the fit as measured, mean usage 0.12) the cluster is cool: Grid-0.4 is hot in 10% of the episodes
  and Grid-0.6 in none (Table 3: 100 and 100), and the predictors oversubscribe deeply (SL saves 59.2%, MA 69.9%;
  Table 3: 7.6 and 8.2). The cause is the data, not the cluster: the fit's 9 VMs are the busiest of 20 month-long
  VMs with one VM per subscription, and 8 of them average 0.08–0.14 (subscriber 0XnZZ8sM 0.30, peaking at 0.63).
  Occupancy does not change that (0.5 vs 0.8: within a cell's noise in every row); PM cores and memory were not
  searched (48 cores, Table 4's setting for both clouds is silent; the fit's 2.19 GB per core binds only below rate
  0.25).
* Grid-0.2/0.4/0.6 hot in (nearly) every episode needs the usage × 2.5 or more (Grid-0.6: 30% at × 1.5, 57% at
  × 1.75, 70% at × 2, 96–100% from × 2.5; 30 episodes); MA and SL at Table 3's S-Cores (8.2 / 7.6%) *and* safe need
  the predictors to aim below β (target 0.4 of a full PM instead of 0.6; with β, MA is hot in 43–97% of the episodes
  wherever it saves ≤ 30%).
* **Grid-1 safe (§6.7's text; PM-Hot-R 0) cannot be met together with Grid-0.6 at 100%**: one uniform scale lifts
  subscriber 0XnZZ8sM's peak hours (0.63 × k, clipped at 1) above β on PMs holding several of its VMs, so Grid-1 is
  hot in 3–7% of the episodes from × 1.5 on, while Grid-0.6 is only 30% hot there. The chosen cell keeps Grid-1 at
  4% (safe at every α, ≤ 5%), MA at 5% and SL at 3% (safe at every α; Table 3: 0), and SL saves 1.4% (Table 3: 7.6%).
  A PM-Hot-R floor of 3–5% for any policy leaves α = 0.95's budget (5%) almost no room: the paper's C2MARL-0.95
  is at 0%.
""")
