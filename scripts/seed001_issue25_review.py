#!/usr/bin/env python3
"""Issue 25, ninth session: the review's remaining C2MARL runs (NOTES.md "Eighth session, review items", B3 and B1 (b)).

B3  C2MARL trained with λ held at α = 0.85's settled λ (25; `eta_lambda` 0, no dual step) on E1.1, 900 training
    episodes × 3 seeds, on fresh scenario seeds 2 and 3 (new workloads, training and evaluation episodes), judged
    against α = 0.95's budget (PM-Hot-R ≤ 5%), beside SL at target 0.8 (the tuned SL of results/001/e11-targets.md,
    chosen on seed 1) and MA at 0.5 on the same evaluation episodes. A variant arm, not C2MARL-0.95.
B1b E1.3 as in the findings (usage × 2.5, MA/SL aiming at 0.4), α = 0.95: C2MARL with λ fixed (`eta_lambda` 0) at
    0 / 30 / 100 / 300 / 600 / 1,000, and with the PM dual at η_λ 0.5 / 1 / 2 (η_λ 5 is the findings' arm,
    results/001/e13.json), one training seed × 900 episodes each, 100 evaluation episodes, MA and Grid-1 beside.
    Does any λ give a policy safe at 5% that saves more than MA?

Every run goes through findings.stored_run (one thread, nice 10; a stored report is read back, not re-run) into
results/001/issue25/review9/<tag>.json; writes results/001/issue25/review9/summary.md.
Usage: python3 scripts/seed001_issue25_review.py target/release/packlab [--only b3|b1] [--render-only]
"""
import os
import resource
import statistics as st
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from findings import half95, stored_run  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "target/release/packlab"
RENDER_ONLY = "--render-only" in sys.argv
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
OUT = "results/001/issue25/review9"
HELD = {"eta_lambda": 0.0, "lambda_freeze_fraction": 0.5}  # no dual step, no greedy episodes: λ = lambda_init
B3_LAMBDA = 25.0  # α = 0.85's held λ at E1.1, 900 × 5 (22–25, results/001/issue25/freeze900/summary.md)
B1_LAMBDAS = [0.0, 30.0, 100.0, 300.0, 600.0, 1000.0]
B1_ETAS = [0.5, 1.0, 2.0]
E13 = {"preset": "E1.3", "usage_scale": 2.5, "predictor_target": 0.4}
WALL = {}


def run(tag, sc):
    t = time.time()
    rep = stored_run(BIN, OUT, tag, sc, RENDER_ONLY)
    WALL[tag] = time.time() - t
    return rep


def b3(seed):
    return run(f"b3-seed{seed}", {"model": "oversub", "seed": seed, "oversub": {
        "preset": "E1.1", "predictor_target": 0.8, "policies": ["grid:1", "sl", "c2marl:0.95"], "train_episodes": 900,
        "train_seeds": 3, "eval_episodes": 100,
        "c2marl": {**HELD, "lambda_init": B3_LAMBDA}}})


def b3_ma(seed):
    return run(f"b3-ma-seed{seed}", {"model": "oversub", "seed": seed, "oversub": {
        "preset": "E1.1", "predictor_target": 0.5, "policies": ["ma"], "eval_episodes": 100}})


def b1_lambda(lam):
    return run(f"b1-lambda{lam:g}", {"model": "oversub", "seed": 1, "oversub": {
        **E13, "policies": ["grid:1", "ma", "c2marl:0.95"], "train_episodes": 900, "train_seeds": 1,
        "eval_episodes": 100, "c2marl": {**HELD, "lambda_init": lam, "lambda_max": max(lam, 1000.0)}}})


def b1_eta(eta):
    return run(f"b1-eta{eta:g}", {"model": "oversub", "seed": 1, "oversub": {
        **E13, "policies": ["grid:1", "ma", "c2marl:0.95"], "train_episodes": 900, "train_seeds": 1,
        "eval_episodes": 100, "c2marl": {"eta_lambda": eta}}})


def row(rep, pol):
    return [r for r in rep["rows"] if r["policy"] == pol]


def ci(xs):
    xs = [100 * x for x in xs]
    return f"{st.mean(xs):.1f}" if len(xs) < 2 else f"{st.mean(xs):.1f} ± {half95(xs):.1f}"


def hot(r):
    return f"{100 * r['pm_hot_r']:.0f} [{100 * r['pm_hot_r_lo']:.0f}, {100 * r['pm_hot_r_hi']:.0f}]"


os.makedirs(OUT, exist_ok=True)
lines = []
w = lines.append
w("# Issue 25, ninth session: B3 (E1.1, λ held at 0.85's, fresh seeds) and B1 (b) (E1.3 at α = 0.95, λ swept)")
w("")
w(f"Command: `python3 scripts/seed001_issue25_review.py target/release/packlab` (stored runs in {OUT}/, one")
w("thread each; scenario beside each report). PM-Hot-R % [95% CI over evaluation episodes]; mean ± 95% t-interval")
w("over training seeds where there are several. Paper: seed 001 Tables 1 and 3.")
CPU_AT = len(lines)
if ONLY in (None, "b3"):
    w("")
    w(f"## B3: E1.1, C2MARL trained with λ held at {B3_LAMBDA:g} (α = 0.85's settled λ; `eta_lambda` 0) — a variant, "
      "not C2MARL-0.95")
    w("")
    w("900 training episodes × 3 seeds; scenario seeds 2 and 3 (fresh workloads, training and evaluation episodes; the")
    w("λ and SL's target 0.8 / MA's 0.5 were chosen on seed 1); judged against α = 0.95's budget (PM-Hot-R ≤ 5%).")
    w("")
    w("| scenario seed | arm | S-Cores % | PM-Hot-R % | per seed S-Cores / PM-Hot-R % | C-Hot-R % | safe at 0.95 |")
    w("|---:|---|---:|---:|---|---:|---|")
    for seed in (2, 3):
        rep = b3(seed)
        ma = row(b3_ma(seed), "ma")[0]
        arm = row(rep, "c2marl:0.95")
        w(f"| {seed} | C2MARL, λ held at {B3_LAMBDA:g} | {ci([r['s_cores'] for r in arm])} | "
          f"{ci([r['pm_hot_r'] for r in arm])} | "
          + ", ".join(f"{100 * r['s_cores']:.1f} / {100 * r['pm_hot_r']:.0f}" for r in arm)
          + f" | {ci([r['c_hot_r'] for r in arm])} | {sum(r['safe'][2] for r in arm)} of {len(arm)} seeds |")
        for name, r in [("SL, target 0.8", row(rep, "sl")[0]), ("MA, target 0.5", ma), ("Grid-1", row(rep, "grid:1")[0])]:
            w(f"| {seed} | {name} | {100 * r['s_cores']:.1f} | {hot(r)} | — | {100 * r['c_hot_r']:.0f} | "
              f"{'yes' if r['safe'][2] else 'no'} |")
    w("")
    w("Paper (Table 1, α = 0.95): C2MARL 59.9% at PM-Hot-R 3.5%; MA 49.2% at 0; SL 49.9% at 0.2%.")
if ONLY in (None, "b1"):
    w("")
    w("## B1 (b): E1.3 at α = 0.95 (findings' scenario: usage × 2.5, MA/SL aiming at 0.4), one training seed × 900")
    w("")
    w("| C2MARL | S-Cores % | PM-Hot-R % | C-Hot-R % | safe at 0.95 | λ at the end | MA S-Cores % at PM-Hot-R % | Grid-1 PM-Hot-R % |")
    w("|---|---:|---:|---:|---|---:|---|---:|")
    for label, rep in [(f"λ fixed at {lam:g}", b1_lambda(lam)) for lam in B1_LAMBDAS] + \
                      [(f"PM dual, η_λ {eta:g}", b1_eta(eta)) for eta in B1_ETAS]:
        r = row(rep, "c2marl:0.95")[0]
        ma, g1 = row(rep, "ma")[0], row(rep, "grid:1")[0]
        lam = rep["training"][0]["log"][-1]["lambda"]
        w(f"| {label} | {100 * r['s_cores']:.1f} | {hot(r)} | {100 * r['c_hot_r']:.0f} | {'yes' if r['safe'][2] else 'no'} | "
          f"{lam:.1f} | {100 * ma['s_cores']:.1f} at {hot(ma)} | {hot(g1)} |")
    w("")
    w("The findings' arm (PM dual, η_λ 5, 900 × 3, results/001/e13.json): 4.4 ± 3.3% S-Cores at 5.0% PM-Hot-R (seeds 4, 4,")
    w("7%). Paper (Table 3, α = 0.95): C2MARL 10.4% at 0; MA 8.2% at 0; SL 7.6% at 0.")
if not RENDER_ONLY:
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    lines.insert(CPU_AT, f"CPU time of the runs made by this invocation: {cpu:.0f} s; wall {sum(WALL.values()):.0f} s.")
name = f"{OUT}/summary{'-' + ONLY if ONLY else ''}.md"
with open(name, "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
