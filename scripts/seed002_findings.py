#!/usr/bin/env python3
"""Seed 002 (stochastic bin packing, Gaussian Percentile Approximation) experiments E2.1-E2.6 (ALGORITHMS.md §4.5)
on the real PlanetLab days, every arm beside the paper's number.

Instances: each of the 7 PlanetLab/CoMon days in ../shared/data/planetlab-cloudsim/ (898-1516 VMs x 288
five-minute samples) is one instance (the paper: 50 instances of 1000 Google tasks); tables give the mean over
the instances, their s.d. and the per-instance range. E2.3 (statistics from 5-minute averages vs from the
instantaneous usage) runs on the Azure 2019 readings, which carry both the average and the maximum of each
5-minute interval (../shared/data/azure-v2-20vm-cpu-readings-30d/): 30 one-day instances of 20 VMs.

Every run is the native CLI (`target/release/packlab placement pack --json`); each raw result is stored under
results/002/ (runs.json: command line, seed, engine version, result) with the trace statistics the
explanations use (trace-stats.json, computed here from the same files) and the E2.3 inputs' construction
(e23-azure.json). The Markdown tables, verdicts and explanation bullets are written to results/002/tables.md,
which results/README.md indexes (tests/integration/findings_tables.rs checks it against the stored runs).

Scales (--scale): paper (the default) = everything above, results/002/; quick = E2.2 (GPA, c = 1 and 4, ρ = 0.1,
0.01, 0.001, aligned and resampled) and three of E2.1's conservative estimators (c = 1) on the bundled PlanetLab day
static/traces/planetlab-20110303.tsv.gz, results/002/quick/ (CI re-runs every stored command; a few seconds).

Usage: python3 scripts/seed002_findings.py [--scale quick|paper] [--days 20110303,20110306,...] [--render [--stdout]]
(from the repository root, after `make native`; `make findings` does both). --render runs nothing: it writes the
scale's tables.md anew from its stored files (paper: runs.json, trace-stats.json, e23-azure.json; quick:
quick/runs.json), --stdout prints it instead. A full run renders its tables the same way, from the files it has
just stored, so tests/integration/findings_tables.rs can compare the committed tables.md with `--render --stdout`.
"""
import gzip
import hashlib
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

from findings import emit, engine, scale

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = "target/release/packlab"
OUT = "results/002"
DATA = "../shared/data/planetlab-cloudsim"
AZURE = "../shared/data/azure-v2-20vm-cpu-readings-30d/readings"
E23_DIR = "target/seed002-e23"  # generated inputs of E2.3 (rebuilt by this script; their hashes are stored)
DAYS = ["20110303", "20110306", "20110309", "20110322", "20110325", "20110403", "20110409"]
SEED = 1  # the resampling seed of every run (resampled mode draws R = 10,000 realisations per VM)
R = 10000
Z = {0.1: 1.2816, 0.05: 1.6449, 0.01: 2.3263, 0.001: 3.0902}

CAL = [("aligned", 1.0), ("resampled", 1.0), ("resampled", 0.5)]  # calibrated GPA settings (mode, l)
SUB_K, SUB_N = 500, 10  # random subsets as instances: SUB_N subsets of SUB_K VMs per day, subset seeds 1..SUB_N

# verdict rules (stated in tables.md)
FACTOR = 2.0  # a q within this factor of the paper's q is "reproduced"


def sh(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout.strip()


ENGINE = None  # the engine behind the runs (findings.engine()), set by main before any run
RUNS = []
CACHE = {}


def pack(inst, trace, fit, c, rule="bf", reb=True, ell=1.0, mode="aligned", fmt=None, tag="", subset=None):
    """One CLI run (cached by its configuration); `subset` = (K, seed): a random subset of K of the trace's VMs."""
    key = (inst, trace, fit, c, rule, reb, ell, mode, fmt) + ((subset,) if subset else ())
    if key in CACHE:
        CACHE[key]["experiments"].add(tag)
        return CACHE[key]["result"]
    args = [BIN, "placement", "pack", "--trace", trace, "--fit", fit, "--capacity", f"{c:g}", "--rule", rule,
            "--clairvoyance", f"{ell:g}", "--mode", mode, "--seed", str(SEED)]
    if mode == "resampled":
        args += ["--realisations", str(R)]
    if subset:
        args += ["--subset", str(subset[0]), "--subset-seed", str(subset[1])]
    if fmt:
        args += ["--format", fmt]
    if not reb:
        args.append("--no-rebalance")
    args.append("--json")
    out = json.loads(sh(args))
    qm = out.pop("q_per_machine")
    out["machines_with_overflow"] = sum(1 for x in qm if x > 0)
    out["q_max_machine"] = max(qm) if qm else 0.0
    run = {"instance": inst, "command": " ".join(args), "seed": SEED, "engine": ENGINE, "experiments": {tag},
           "result": out}
    CACHE[key] = run
    RUNS.append(run)
    return out


# ---------------------------------------------------------------------------------------------- verdicts
# E2.1: the paper's q̄ of the conservative estimators (§5.2, Fig. 7, c = 1)
PAPER_Q = {"cantelli:1": 3e-4, "cantelli:1.7": 2e-6, "cantelli:4.4": 0.0, "perc:99": 2e-8, "perc:95": 5e-6,
           "perc:90": 7e-5, "max": 0.0}


def e22_verdict(q, rho):
    """E2.2: reproduced if |q̄ − ρ|/ρ ≤ 60% (the paper's own largest error), direction only if q̄ > ρ beyond that."""
    err = (q - rho) / rho
    return "reproduced" if abs(err) <= 0.6 else ("direction only" if err > 0 else "not reproduced")


def e21_verdict(p, q, qg, res_q):
    """E2.1: q̄ `q` beside the paper's `p`: reproduced within FACTOR (or 0 where p is below one overflow in the
    instance, `res_q`), direction only if below GPA 0.001's q̄ `qg` (the paper's "very conservative")."""
    if (p == 0 and q == 0) or (p > 0 and (p / FACTOR <= q <= p * FACTOR or (q == 0 and p < res_q))):
        return "reproduced"
    return "direction only" if q < qg else "not reproduced"


def flag(words, name):
    """The value of `name` in a stored command line split into `words`, None if it is absent."""
    return words[words.index(name) + 1] if name in words else None


def write_runs(path, head, runs):
    """runs.json: the header fields, then one run per line."""
    with open(os.path.join(ROOT, path), "w") as f:
        f.write(json.dumps(head, sort_keys=True, ensure_ascii=False)[:-1] + ', "runs": [\n'
                + ",\n".join(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in runs) + "\n]}\n")


# ---------------------------------------------------------------------------------------------- statistics
def mean(xs):
    return statistics.mean(xs)


def sd(xs):
    return statistics.stdev(xs) if len(xs) > 1 else 0.0


def g(x):
    """q and similar small numbers: 3 significant digits, 0 as 0."""
    if x == 0:
        return "0"
    if abs(x) >= 0.01:
        return f"{x:.3g}"
    return f"{x:.2e}".replace("e-0", "e−").replace("e-", "e−")


def qcell(qs):
    return f"{g(mean(qs))} ± {g(sd(qs))} ({g(min(qs))}–{g(max(qs))})"


def pct(x):
    return f"{x:+.0%}".replace("-", "−")


def read_day(day):
    d = os.path.join(ROOT, DATA, day)
    vms = []
    for f in sorted(os.listdir(d)):
        with open(os.path.join(d, f)) as fh:
            vms.append([int(x) for x in fh.read().split()])
    return vms


def moments(xs):
    n = len(xs)
    m = sum(xs) / n
    v = sum((x - m) ** 2 for x in xs) / n
    if v == 0:
        return m, 0.0, None, None
    s = math.sqrt(v)
    sk = sum((x - m) ** 3 for x in xs) / n / s ** 3
    ku = sum((x - m) ** 4 for x in xs) / n / v ** 2 - 3
    return m, s, sk, ku


def trace_stats(days):
    """Per-VM shape of the PlanetLab days and the Gaussian 99.9% / 99% quantile of sums of N random VMs against
    the real sums (seed 002 §3.3, Fig. 6), aligned (real columns) and with each VM's columns shuffled (no
    cross-VM correlation). Pure Python on the same files the CLI reads."""
    rng = random.Random(SEED)
    out = {"days": {}, "groups": {}}
    sums = {}
    for day in days:
        vms = read_day(day)
        per = [moments(v) for v in vms]
        sk = sorted(p[2] for p in per if p[2] is not None)
        ku = sorted(p[3] for p in per if p[3] is not None)
        cv = sorted(p[1] / p[0] for p in per if p[0] > 0)
        out["days"][day] = {
            "vms": len(vms), "samples": len(vms[0]),
            "mean_usage": sum(p[0] for p in per) / len(per) / 100,
            "median_skewness": statistics.median(sk), "median_excess_kurtosis": statistics.median(ku),
            "median_cv": statistics.median(cv),
            "share_vms_max_over_0.5": sum(1 for v in vms if max(v) > 50) / len(vms),
            "share_vms_max_over_0.25": sum(1 for v in vms if max(v) > 25) / len(vms),
            "share_vms_constant": sum(1 for p in per if p[1] == 0) / len(vms),
        }
        T = len(vms[0])
        for n in (4, 8, 30, 100):
            for kind in ("aligned", "shuffled"):
                for _ in range(100):
                    grp = rng.sample(range(len(vms)), n)
                    cols = []
                    for i in grp:
                        v = vms[i]
                        if kind == "shuffled":
                            v = v[:]
                            rng.shuffle(v)
                        cols.append(v)
                    mu = sum(per[i][0] for i in grp)
                    sig = math.sqrt(sum(per[i][1] ** 2 for i in grp))
                    tot = [sum(col[t] for col in cols) for t in range(T)]
                    for rho in (0.01, 0.001):
                        thr = mu + Z[rho] * sig
                        exc = sum(1 for x in tot if x > thr) / T
                        sums.setdefault((n, kind, rho), []).append(exc)
    for (n, kind, rho), xs in sums.items():
        out["groups"][f"N={n} {kind} rho={rho}"] = {"n": n, "kind": kind, "rho": rho, "groups": len(xs),
                                                      "mean_exceedance": mean(xs)}
    out["groups_note"] = ("100 random groups of N VMs per day (random.Random(1)); exceedance = share of the 288 samples "
                          "whose group total exceeds mu + z_(1-rho)*sigma (the Gaussian quantile GPA uses)")
    return out


# ---------------------------------------------------------------------------------------------- E2.3 inputs
def azure_instances():
    """30 one-day instances of the 20 Azure VMs. For each day two wide files are written: [avg | max] (the first
    288 columns the 5-minute averages, the last 288 the 5-minute maxima) and [max | max]; packing with
    clairvoyance 0.5 takes the statistics from the first half and evaluates on the second, i.e. on the maxima
    (the closest this data has to instantaneous usage: the total of the maxima bounds the total at any instant)."""
    rows = {}
    order = []
    files = sorted(os.listdir(os.path.join(ROOT, AZURE)), key=lambda f: int(''.join(c for c in f if c.isdigit()) or 0))
    for f in files:
        with open(os.path.join(ROOT, AZURE, f)) as fh:
            for line in fh:
                p = line.rstrip("\n").split(",")
                if not p[0].isdigit():
                    continue
                t, vm = int(p[0]), p[1]
                if vm not in rows:
                    rows[vm] = {}
                    order.append(vm)
                rows[vm][t] = (p[3], p[4])  # max, avg as written (percent)
    common = sorted(set.intersection(*(set(r) for r in rows.values())))
    os.makedirs(os.path.join(ROOT, E23_DIR), exist_ok=True)
    insts = []
    for d in range(30):
        ts = [t for t in common if d * 86400 <= t < (d + 1) * 86400]
        if len(ts) < 200:
            continue
        files = {}
        for kind in ("avg-max", "max-max"):
            lines = [f"#packlab-wide v1 unit=percent interval_s=300 source=azure-v2-2019-readings-day{d}-{kind}"]
            for i, vm in enumerate(order):
                first = [rows[vm][t][1 if kind == "avg-max" else 0] for t in ts]
                second = [rows[vm][t][0] for t in ts]
                lines.append(f"vm{i}\t" + ",".join(first + second))
            text = ("\n".join(lines) + "\n").encode()
            path = os.path.join(E23_DIR, f"day{d:02d}-{kind}.tsv")
            with open(os.path.join(ROOT, path), "wb") as fh:
                fh.write(text)
            files[kind] = {"path": path, "sha256": hashlib.sha256(text).hexdigest()}
        tot_avg = sum(float(rows[vm][t][1]) for vm in order for t in ts)
        tot_max = sum(float(rows[vm][t][0]) for vm in order for t in ts)
        insts.append({"day": d, "samples": len(ts), "vms": len(order), "files": files,
                      "sum_max_over_sum_avg": tot_max / tot_avg})
    return insts


# ---------------------------------------------------------------------------------------------- main
QUICK_TRACE = "static/traces/planetlab-20110303.tsv.gz"  # the bundled day (in CI)
QUICK_E22 = [(c, rho, mode) for c in (1.0, 4.0) for rho in (0.1, 0.01, 0.001) for mode in ("aligned", "resampled")]
QUICK_E21 = ["gpa:0.001", "cantelli:1.7", "perc:99", "max"]  # GPA 0.001 is E2.1's reference


def quick():
    """The quick scale: run E2.2 and part of E2.1 on the bundled day, store results/002/quick/runs.json."""
    t0 = time.time()
    for c, rho, mode in QUICK_E22:
        pack("20110303", QUICK_TRACE, f"gpa:{rho}", c, mode=mode, tag="E2.2")
    for fit in QUICK_E21:
        pack("20110303", QUICK_TRACE, fit, 1.0, tag="E2.1")
    for r in RUNS:
        r["experiments"] = sorted(r["experiments"])
    os.makedirs(os.path.join(ROOT, OUT, "quick"), exist_ok=True)
    head = {"scale": "quick", "engine": ENGINE, "instances": ["20110303"], "seed": SEED, "realisations_resampled": R,
            "wall_time_s": round(time.time() - t0, 1)}
    write_runs(f"{OUT}/quick/runs.json", head, RUNS)


def render_quick(stored):
    """results/002/quick/tables.md from the stored quick runs.json `stored` (E2.2's and E2.1's verdict rules)."""

    def find(fit, c, mode="aligned"):
        for r in stored["runs"]:
            cmd = r["command"].split()
            if flag(cmd, "--fit") == fit and float(flag(cmd, "--capacity")) == c and flag(cmd, "--mode") == mode:
                return r["result"]
        sys.exit(f"results/002/quick/runs.json: no run of {fit} at c = {c:g} ({mode})")

    L = [f"Quick scale: the bundled PlanetLab day 20110303 (`{QUICK_TRACE}`), one instance, Best Fit with "
         f"rebalancing, seed {SEED}; resampled = {R:,} draws per VM. Wall time {stored['wall_time_s']} s for "
         "`python3 scripts/seed002_findings.py --scale quick`.", "",
         "E2.2 — GPA: q against ρ (paper Fig. 9). Verdict: reproduced if |q − ρ|/ρ ≤ 60%, direction only if q > ρ "
         "beyond that, else not reproduced.", "",
         "| paper figure | c | ρ | realisations | paper's q | packlab q | (q − ρ)/ρ | m_abs | verdict |",
         "|---|---:|---:|---|---:|---:|---:|---:|---|"]
    for c, rho, mode in QUICK_E22:
        r = find(f"gpa:{rho}", c, mode)
        paper = "1.6e−3 (+60%)" if rho == 0.001 else "—"
        L.append(f"| Fig. 9 | {c:g} | {rho:g} | {mode} | {paper} | {g(r['q'])} | {pct((r['q'] - rho) / rho)} | "
                 f"{r['m_abs']} | {e22_verdict(r['q'], rho)} |")
    qg = find("gpa:0.001", 1.0)["q"]
    L += ["", f"E2.1 — conservative estimators at c = 1 (paper §5.2, Fig. 7). Verdict: reproduced within a factor "
          f"{FACTOR:g} of the paper's q (or 0 where it is below one overflow, 1/(m_abs·288)), direction only if q is "
          f"below GPA 0.001's ({g(qg)}), else not reproduced.", "",
          "| paper figure | estimator | paper's q | packlab q | m_abs | verdict |", "|---|---|---:|---:|---:|---|"]
    for fit in QUICK_E21[1:]:
        r = find(fit, 1.0)
        p = PAPER_Q[fit]
        L.append(f"| §5.2, Fig. 7 | {fit} | {g(p) if p else '0'} | {g(r['q'])} | {r['m_abs']} | "
                 f"{e21_verdict(p, r['q'], qg, 1.0 / (r['m_abs'] * 288))} |")
    return "\n".join(L) + "\n"


# the paper scale's arms (ALGORITHMS.md §4.5): the GPA knobs, E2.1's estimators, E2.4's capacities and pairs, E2.5's
# clairvoyance grids and estimators, E2.3's estimators
GPA = [0.1, 0.05, 0.01, 0.001]
FITS = ["gpa:0.1", "gpa:0.05", "gpa:0.01", "gpa:0.001", "av:1", "av:1.25", "av:2", "perc:50", "perc:70",
        "perc:90", "perc:95", "perc:99", "cantelli:1", "cantelli:1.7", "cantelli:4.4", "max"]
CS = [0.5, 0.8, 1.0, 2.0, 4.0, 5.0, 8.0, 16.0]
PAIRS = [("gpa:0.001", "av:2"), ("gpa:0.1", "av:1.25")]
ELL = {"aligned": [0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.0], "resampled": [0.001, 0.01, 0.1, 0.3, 0.5, 0.8, 1.0]}
E25FITS = ["gpa:0.01", "gpa:0.001", "av:1.25", "av:2"]
E23FITS = ["gpa:0.1", "gpa:0.01", "gpa:0.001", "cantelli:1", "cantelli:1.7", "cantelli:4.4", "av:1", "av:1.25",
           "av:2", "perc:90", "perc:99", "max"]


def main():
    global ENGINE
    if "--render" not in sys.argv:
        ENGINE = engine()
    if scale() == "quick":
        if "--render" not in sys.argv:
            quick()
        with open(os.path.join(ROOT, OUT, "quick", "runs.json")) as f:
            stored = json.load(f)
        emit(f"{OUT}/quick/tables.md", render_quick(stored))
        print(f"seed 002 (quick): wall time {stored['wall_time_s']} s for the runs -> results/002/quick/tables.md",
              file=sys.stderr)
        return
    if "--render" not in sys.argv:
        days = DAYS
        if "--days" in sys.argv:
            days = sys.argv[sys.argv.index("--days") + 1].split(",")
        run_paper(days)
    # the tables are always rendered from the stored files, so --render reproduces a full run's tables.md
    emit(f"{OUT}/tables.md", render_paper(*load_paper()))
    print(f"seed 002 (paper) -> {OUT}/tables.md", file=sys.stderr)


def run_paper(days):
    """The paper scale: every CLI run of E2.1-E2.6 and calibrated GPA on `days`, stored in results/002/runs.json
    with trace-stats.json and e23-azure.json."""
    os.makedirs(os.path.join(ROOT, OUT), exist_ok=True)
    t0 = time.time()
    tr = {d: f"{DATA}/{d}" for d in days}

    # E2.2: GPA q vs rho
    for c in (1.0, 4.0):
        for rho in GPA:
            for d in days:
                for mode in ("aligned", "resampled"):
                    pack(d, tr[d], f"gpa:{rho}", c, mode=mode, tag="E2.2")
    # calibrated GPA (gpa-cal:rho: the knob rho' searched on O so that the packing overflows at most rho of the
    # time on the held-out half of O) beside GPA: aligned l = 1 (E2.2's protocol), resampled l = 1, and held
    # back: resampled l = 0.5 (E = the 5,000 draws not in O)
    for c in (1.0, 4.0):
        for rho in GPA:
            for d in days:
                for mode, ell in CAL:
                    pack(d, tr[d], f"gpa:{rho}", c, ell=ell, mode=mode, tag="calibrated GPA")
                    pack(d, tr[d], f"gpa-cal:{rho}", c, ell=ell, mode=mode, tag="calibrated GPA")
    # E2.2 and calibrated GPA on random subsets of each day's VMs as extra instances (aligned, l = 1)
    for d in days:
        for k in range(SUB_N):
            for c in (1.0, 4.0):
                for rho in GPA:
                    for fam in ("gpa", "gpa-cal"):
                        pack(f"{d}/subset{k + 1}", tr[d], f"{fam}:{rho}", c, tag="E2.2 subsets", subset=(SUB_K, k + 1))
    # E2.1: every estimator, FF and BF; E2.6: rebalancing off
    for c in (1.0, 4.0):
        for fit in FITS:
            for d in days:
                for rule in ("ff", "bf"):
                    pack(d, tr[d], fit, c, rule=rule, tag="E2.1")
                if fit.startswith(("gpa", "av")):
                    pack(d, tr[d], fit, c, reb=False, tag="E2.6")
    # E2.4: c sweep with and without rebalancing
    for c in CS:
        for pair in PAIRS:
            for fit in pair:
                for d in days:
                    for reb in (True, False):
                        pack(d, tr[d], fit, c, reb=reb, tag="E2.4")
    # E2.5: clairvoyance; aligned = the first l of the day (100 observations at l = 0.35), resampled = the first
    # l*10,000 of i.i.d. draws (the paper's grid: l = 0.01 is 100 observations)
    for mode, ells in ELL.items():
        for ell in ells:
            for fit in E25FITS:
                for d in days:
                    pack(d, tr[d], fit, 1.0, ell=ell, mode=mode, tag="E2.5")
    # E2.3: Azure avg vs max statistics, evaluated on the maxima
    azure = azure_instances()
    for inst in azure:
        for kind in ("avg-max", "max-max"):
            for fit in E23FITS:
                pack(f"azure-day{inst['day']:02d}", inst["files"][kind]["path"], fit, 1.0, ell=0.5, fmt="wide",
                     tag=f"E2.3 {kind}")
    wall_runs = time.time() - t0
    stats = trace_stats(days)
    wall = time.time() - t0

    # ---- store raw results
    for r in RUNS:
        r["experiments"] = sorted(r["experiments"])
    head = {"engine": ENGINE, "instances": days, "seed": SEED, "realisations_resampled": R,
            "wall_time_s": round(wall, 1), "wall_time_runs_s": round(wall_runs, 1)}
    write_runs(f"{OUT}/runs.json", head, RUNS)
    with open(os.path.join(ROOT, OUT, "trace-stats.json"), "w") as f:
        json.dump(stats, f, indent=1, sort_keys=True)
    with open(os.path.join(ROOT, OUT, "e23-azure.json"), "w") as f:
        json.dump({"source": AZURE, "construction": azure_instances.__doc__.strip(), "instances": azure}, f, indent=1,
                  sort_keys=True)


def load_paper():
    """The stored paper scale: results/002/runs.json (every run back into CACHE under the key `pack` gives it,
    parsed from its command line), trace-stats.json and e23-azure.json. Returns (days, stats, azure, wall,
    wall_runs, number of runs), the arguments of `render_paper`; exits naming the file if one is missing."""
    def load(name):
        path = os.path.join(ROOT, OUT, name)
        if not os.path.exists(path):
            sys.exit(f"{OUT}/{name}: missing; run python3 scripts/seed002_findings.py first")
        with open(path) as f:
            return json.load(f)

    stored = load("runs.json")
    CACHE.clear()
    RUNS.clear()
    for r in stored["runs"]:
        cmd = r["command"].split()
        val = lambda k: flag(cmd, k)
        key = (r["instance"], val("--trace"), val("--fit"), float(val("--capacity")), val("--rule"),
               "--no-rebalance" not in cmd, float(val("--clairvoyance")), val("--mode"), val("--format"))
        if "--subset" in cmd:
            key += ((int(val("--subset")), int(val("--subset-seed"))),)
        if key in CACHE:
            sys.exit(f"{OUT}/runs.json: two runs of `{r['command']}`")
        CACHE[key] = r
        RUNS.append(r)
    return (stored["instances"], load("trace-stats.json"), load("e23-azure.json")["instances"],
            stored["wall_time_s"], stored["wall_time_runs_s"], len(RUNS))


def render_paper(days, stats, azure, wall, wall_runs, nruns):
    """results/002/tables.md from the stored paper scale (`load_paper`): the tables, verdicts and explanation
    bullets of E2.1-E2.6 and calibrated GPA; every figure from the runs, the trace statistics and the E2.3 inputs."""
    tr = {d: f"{DATA}/{d}" for d in days}

    def res(fit, c, rule="bf", reb=True, ell=1.0, mode="aligned", insts=None):
        return [CACHE[(d, tr[d], fit, c, rule, reb, ell, mode, None)]["result"] for d in (insts or days)]

    def sres(fit, c):
        """The runs of `fit` at c on every random subset (aligned, l = 1), day by day."""
        return [CACHE[(f"{d}/subset{k + 1}", tr[d], fit, c, "bf", True, 1.0, "aligned", None, (SUB_K, k + 1))]["result"]
                for d in days for k in range(SUB_N)]

    def qs(*a, **k):
        return [r["q"] for r in res(*a, **k)]

    n = len(days)

    def ipm(fit, c, **k):
        return mean([mean(r["items_per_machine"]) for r in res(fit, c, **k)])
    L = []
    L += [f"Instances: the {n} PlanetLab days {days[0]}–{days[-1]} ({min(stats['days'][d]['vms'] for d in days)}–"
          f"{max(stats['days'][d]['vms'] for d in days)} VMs × 288 five-minute samples each; the paper: 50 instances of 1000 "
          "Google tasks × 10,000 samples). Best Fit with rebalancing unless stated; realisations aligned (the real columns) "
          f"unless stated; resampled = {R:,} independent draws per VM (seed {SEED}). Cells: mean ± s.d. over the instances "
          "(min–max). The smallest non-zero q of one instance is 1/(m_abs·288). "
          f"Verdicts: a q is *reproduced* within a factor {FACTOR:g} of the paper's, *direction only* when it is on the "
          "paper's side of the reference named in the row but further, else *not reproduced*; rows without a number in "
          "the paper are marked —.", ""]

    # ---- E2.2
    L += ["E2.2 — GPA: overflow frequency q against the SLO ρ (paper Fig. 9, c = 1, where it states a number only for "
          f"ρ = 0.001; packlab at c = 1 and at c = 4, where GPA places {ipm('gpa:0.001', 4.0):.0f}–{ipm('gpa:0.1', 4.0):.0f} "
          "VMs per machine, the paper's 1000/47 ≈ 21 to 1000/35 ≈ 29 tasks). Verdict: reproduced if |q̄ − ρ|/ρ ≤ 60% "
          "(the paper's own largest error), direction only if "
          "q̄ > ρ beyond that (Gaussian tails underestimated, the paper's direction), else not reproduced.", "",
          "| paper figure | c | ρ | realisations | paper's q | packlab q̄ | (q̄ − ρ)/ρ | m̄_abs | m̄ | verdict |",
          "|---|---:|---:|---|---:|---:|---:|---:|---:|---|"]
    for c in (1.0, 4.0):
        for rho in GPA:
            for mode in ("aligned", "resampled"):
                rr = res(f"gpa:{rho}", c, mode=mode)
                q = mean([r["q"] for r in rr])
                err = (q - rho) / rho
                v = e22_verdict(q, rho)
                paper = "1.6e−3 (+60%)" if rho == 0.001 else "—"
                L.append(f"| Fig. 9 | {c:g} | {rho:g} | {mode} | {paper} | {qcell([r['q'] for r in rr])} | {pct(err)} | "
                         f"{mean([r['m_abs'] for r in rr]):.1f} | {mean([r['m'] for r in rr]):.3f} | {v} |")
    L.append("")

    # ---- E2.2 on random subsets
    L += [f"E2.2 on random VM subsets as instances (the paper's protocol: 50 instances sampled from a pool of tasks): "
          f"{SUB_N} random subsets of {SUB_K} VMs of each day (subset seeds 1–{SUB_N}, `--subset {SUB_K} --subset-seed S`; "
          f"{SUB_N * n} instances), aligned, ℓ = 1, beside the per-day protocol above (one instance per day, all its VMs). "
          "Cells: mean ± s.d. over the instances (min–max). Verdict as in E2.2, on each protocol's q̄.", "",
          "| paper figure | c | ρ | paper's q | per-day q̄ (7 days) | verdict per day | subsets q̄ | (q̄ − ρ)/ρ | m̄_abs | verdict on subsets | verdict changes |",
          "|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|"]
    for c in (1.0, 4.0):
        for rho in GPA:
            dq = qs(f"gpa:{rho}", c)
            sr = sres(f"gpa:{rho}", c)
            sq = [r["q"] for r in sr]
            vd, vs = e22_verdict(mean(dq), rho), e22_verdict(mean(sq), rho)
            paper = "1.6e−3 (+60%)" if rho == 0.001 else "—"
            L.append(f"| Fig. 9 | {c:g} | {rho:g} | {paper} | {qcell(dq)} | {vd} | {qcell(sq)} | {pct((mean(sq) - rho) / rho)} | "
                     f"{mean([r['m_abs'] for r in sr]):.1f} | {vs} | {'yes' if vd != vs else 'no'} |")
    L.append("")

    # ---- calibrated GPA vs GPA
    def calq(r):
        return r["calibration"]

    L += ["Calibrated GPA vs GPA (issue 12; not in the paper). `gpa-cal:ρ` packs with GPA(ρ′), the knob ρ′ searched on the "
          "observation set O alone (bisection on ln ρ′ over [1e−10, 0.5], 20 steps): the means and variances come from "
          "O's even columns, and ρ′ is the largest knob found whose packing overflows at most ρ of the machine-samples "
          "on O's odd columns (held out of the statistics); if none does, the most conservative knob is used (\"met\" "
          "counts the instances where the target was met on the held-out half). q is measured on E as for GPA. "
          "Aligned and resampled with ℓ = 1 (E2.2's protocol: E = all columns, so half of E was used for the "
          "calibration); resampled with ℓ = 0.5: E = the 5,000 draws not in O, a truly held-back evaluation (GPA's "
          "figures there are its own at ℓ = 0.5). Per-day instances, and the random subsets above (aligned, ℓ = 1). "
          "Cells: q̄ ± s.d. over the instances (min–max); closer = |q̄_cal − ρ| < |q̄_GPA − ρ|.", "",
          "| c | target ρ | instances | realisations, ℓ | GPA q̄ | calibrated q̄ | (q̄ − ρ)/ρ GPA / calibrated | m̄_abs GPA / calibrated | m̄ GPA / calibrated | ρ′ median (min–max) | met | closer |",
          "|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for c in (1.0, 4.0):
        for rho in GPA:
            rows = [(f"{n} days", f"{mode}, {ell:g}", res(f"gpa:{rho}", c, ell=ell, mode=mode),
                     res(f"gpa-cal:{rho}", c, ell=ell, mode=mode)) for mode, ell in CAL]
            rows.append((f"{SUB_N * n} subsets", "aligned, 1", sres(f"gpa:{rho}", c), sres(f"gpa-cal:{rho}", c)))
            for inst_txt, set_txt, a, b in rows:
                qa_, qb_ = mean([r["q"] for r in a]), mean([r["q"] for r in b])
                rp = sorted(calq(r)["rho"] for r in b)
                met = sum(1 for r in b if calq(r)["met"])
                L.append(f"| {c:g} | {rho:g} | {inst_txt} | {set_txt} | {qcell([r['q'] for r in a])} | {qcell([r['q'] for r in b])} | "
                         f"{pct((qa_ - rho) / rho)} / {pct((qb_ - rho) / rho)} | {mean([r['m_abs'] for r in a]):.1f} / "
                         f"{mean([r['m_abs'] for r in b]):.1f} | {mean([r['m'] for r in a]):.3f} / {mean([r['m'] for r in b]):.3f} | "
                         f"{g(statistics.median(rp))} ({g(rp[0])}–{g(rp[-1])}) | {met}/{len(b)} | "
                         f"{'yes' if abs(qb_ - rho) < abs(qa_ - rho) else 'no'} |")
    L.append("")

    # ---- E2.1 conservative estimators and the others
    L += ["E2.1 — every estimator (paper Figs. 7, 8 and §5.2 at c = 1; packlab at c = 1 and 4). Verdict on q̄: reproduced within a factor "
          f"{FACTOR:g} of the paper's q̄ (or 0 where the paper's q̄ is below one overflow in the instance, "
          "1/(m_abs·288)); direction only if q̄ is on the conservative side of GPA 0.001's q̄ (fewer overflows than the "
          "most conservative GPA, as the paper's \"very conservative\") but not within the factor; else not reproduced.", "",
          "| paper figure | estimator | c | paper's q̄ | packlab q̄ | m̄_abs | m̄ | verdict |",
          "|---|---|---:|---:|---:|---:|---:|---|"]
    for c in (1.0, 4.0):
        qg = mean(qs("gpa:0.001", c))
        for fit in FITS:
            rr = res(fit, c)
            q = mean([r["q"] for r in rr])
            res_q = max(1.0 / (r["m_abs"] * 288) for r in rr)
            if fit in PAPER_Q:
                p = PAPER_Q[fit]
                v = e21_verdict(p, q, qg, res_q)
                ptxt = g(p) if p else "0"
                fig = "§5.2, Fig. 7"
            else:
                ptxt, v, fig = "—", "—", "Fig. 8"
            L.append(f"| {fig} | {fit} | {c:g} | {ptxt} | {qcell([r['q'] for r in rr])} | "
                     f"{mean([r['m_abs'] for r in rr]):.1f} | {mean([r['m'] for r in rr]):.3f} | {v} |")
    L.append("")

    # av 1 at the lower bound; GPA vs Cantelli machine ratios; Fig. 8 triples
    L += ["E2.1 — machines (paper §5.2, §7, c = 1 and 4). av 1: the paper packs 1000 tasks into m̄_abs = 28.0 machines, "
          "its lower bound Σ means is 27.4 (Table 1: 13.69 per 500 tasks), so m ≈ 1.0; verdict reproduced if m̄ ≤ 1.05. "
          "GPA vs Cantelli at a 95% SLO: the paper's machine ratio m_abs(Cantelli b)/m_abs(GPA 0.05) is 1.9 (b = 1.7) "
          "and 3.7 (b = 4.4); reproduced within ±20%, direction only if > 1. Fig. 8 triples: the paper calls "
          "their (m, q) comparable (no numbers); reproduced if the m̄ agree within 10% and the q̄ within a factor 2, "
          "direction only if one of the two holds.", "",
          "| paper figure | comparison | c | paper's number | packlab's number | verdict |", "|---|---|---:|---:|---|---|"]
    for c in (1.0, 4.0):
        mm = [r["m"] for r in res("av:1", c)]
        L.append(f"| §5.2 | av 1: m = m_abs/m_norm | {c:g} | 28.0/27.4 machines | m̄ = {mean(mm):.3f} ± {sd(mm):.3f} "
                 f"(m̄_abs {mean([r['m_abs'] for r in res('av:1', c)]):.1f}) | "
                 f"{'reproduced' if mean(mm) <= 1.05 else 'not reproduced'} |")
        for b, p in (("1.7", 1.9), ("4.4", 3.7)):
            ratios = [a["m_abs"] / b_["m_abs"] for a, b_ in zip(res(f"cantelli:{b}", c), res("gpa:0.05", c))]
            r_ = mean(ratios)
            v = "reproduced" if abs(r_ - p) / p <= 0.2 else ("direction only" if r_ > 1 else "not reproduced")
            L.append(f"| §7 | m_abs(Cantelli {b}) / m_abs(GPA 0.05) | {c:g} | {p} | {r_:.2f} ± {sd(ratios):.2f} | {v} |")
        for triple in (("perc:70", "av:1.25", "gpa:0.1"), ("perc:90", "av:2", "gpa:0.001")):
            ms = [mean([r["m"] for r in res(f, c)]) for f in triple]
            qq = [mean(qs(f, c)) for f in triple]
            m_ok = max(ms) / min(ms) <= 1.1
            q_ok = min(qq) > 0 and max(qq) / min(qq) <= 2
            v = "reproduced" if m_ok and q_ok else ("direction only" if m_ok or q_ok else "not reproduced")
            cells = "; ".join(f"{f} m̄ {m:.3f}, q̄ {g(q)}" for f, m, q in zip(triple, ms, qq))
            L.append(f"| Fig. 8 | {' ≈ '.join(triple)} | {c:g} | comparable (m, q) | {cells} | {v} |")
    L.append("")

    # FF vs BF
    L += ["E2.1 — First Fit vs Best Fit (paper §5.2: m_abs differs by at most 1, mean q by less than 1%). Verdict: "
          "reproduced if every instance's |Δm_abs| ≤ 1 and |q̄_BF − q̄_FF| < 1% of q̄_FF (or both 0), direction only "
          "if one of the two holds.", "",
          "| paper figure | estimator | c | paper's number | max \\|Δm_abs\\| | q̄ FF | q̄ BF | (q̄_BF − q̄_FF)/q̄_FF | verdict |",
          "|---|---|---:|---|---:|---:|---:|---:|---|"]
    for c in (1.0, 4.0):
        for fit in FITS:
            ff, bf = res(fit, c, rule="ff"), res(fit, c)
            dm = max(abs(a["m_abs"] - b["m_abs"]) for a, b in zip(ff, bf))
            qf, qb = mean([r["q"] for r in ff]), mean([r["q"] for r in bf])
            rel = (qb - qf) / qf if qf > 0 else (0.0 if qb == 0 else math.inf)
            ok_m, ok_q = dm <= 1, abs(rel) < 0.01
            v = "reproduced" if ok_m and ok_q else ("direction only" if ok_m or ok_q else "not reproduced")
            L.append(f"| §5.2 | {fit} | {c:g} | ≤ 1 machine, < 1% | {dm} | {g(qf)} | {g(qb)} | {pct(rel) if qf > 0 else '—'} | {v} |")
    L.append("")

    # ---- E2.4 c sweep
    L += ["E2.4 — q̄ across machine capacity c, with and without rebalancing (paper Fig. 11, c ∈ {0.5, 0.8, 1, 2, 5}; "
          "no numbers stated: GPA's q is stable across c, av's is not). Cells: q̄ ± s.d. over the instances [mean VMs "
          "per machine]. Verdict per pair and rebalancing: spread = max q̄ / min q̄ over c; reproduced if GPA's spread is "
          "smaller than av's and at most 3, direction only if smaller but above 3, else not reproduced.", ""]
    for reb in (True, False):
        head = "| c | " + " | ".join(f"{f}" for p in PAIRS for f in p) + " |"
        L += [f"Rebalancing {'on' if reb else 'off'}:", "", head, "|---:|" + "---:|" * 4]
        for c in CS:
            cells = []
            for p in PAIRS:
                for f in p:
                    rr = res(f, c, reb=reb)
                    vpm = mean([mean(r["items_per_machine"]) for r in rr])
                    xs = [r["q"] for r in rr]
                    cells.append(f"{g(mean(xs))} ± {g(sd(xs))} [{vpm:.1f}]")
            L.append(f"| {c:g} | " + " | ".join(cells) + " |")
        L += ["", "| paper figure | pair | paper's number | GPA spread | av spread | verdict |", "|---|---|---|---:|---:|---|"]
        for p in PAIRS:
            spreads = []
            for f in p:
                xs = [mean(qs(f, c, reb=reb)) for c in CS]
                spreads.append(max(xs) / min(xs) if min(xs) > 0 else math.inf)
            v = ("reproduced" if spreads[0] < spreads[1] and spreads[0] <= 3 else
                 "direction only" if spreads[0] < spreads[1] else "not reproduced")
            sp = ["∞ (q̄ = 0 at some c)" if math.isinf(s) else f"{s:.1f}" for s in spreads]
            L.append(f"| Fig. 11{'a/c' if reb else 'b/d'} | {p[0]} vs {p[1]} | GPA stable, av not (—) | {sp[0]} | {sp[1]} | {v} |")
        L.append("")

    # ---- E2.5 clairvoyance
    L += ["E2.5 — clairvoyance ℓ: statistics from the first ⌊ℓ·R⌋ realisations, q on the rest (paper Fig. 12, c = 1: "
          "100 observations reach the fully clairvoyant q). Aligned: R = 288, the first part of the day (100 observations "
          f"at ℓ = 0.35); resampled: R = {R:,} i.i.d. draws from each VM's day (100 observations at ℓ = 0.01, the "
          "paper's grid). Verdict: reproduced if q̄ at 100 observations is at most 1.5 × q̄ at ℓ = 1 (or both below one "
          "overflow per instance), direction only if at most 3 ×, else not reproduced.", ""]
    for mode, ells in ELL.items():
        L += [f"{mode.capitalize()}:", "", "| ℓ | observations | " + " | ".join(E25FITS) + " |", "|---:|---:|" + "---:|" * len(E25FITS)]
        for ell in ells:
            obs = math.floor(ell * (288 if mode == "aligned" else R)) if ell < 1 else (288 if mode == "aligned" else R)
            L.append(f"| {ell:g} | {obs} | " + " | ".join(f"{g(mean(qs(f, 1.0, ell=ell, mode=mode)))} ± {g(sd(qs(f, 1.0, ell=ell, mode=mode)))}"
                                                         for f in E25FITS) + " |")
        L.append("")
    L += ["| paper figure | realisations | estimator | paper's number | q̄ at 100 observations | q̄ at ℓ = 1 | verdict |",
          "|---|---|---|---|---:|---:|---|"]
    for mode, e100 in (("aligned", 0.35), ("resampled", 0.01)):
        for f in E25FITS:
            a, b = mean(qs(f, 1.0, ell=e100, mode=mode)), mean(qs(f, 1.0, mode=mode))
            tiny = 1.0 / (mean([r["m_abs"] for r in res(f, 1.0, mode=mode)]) * 288 * n)
            if a <= max(1.5 * b, tiny):
                v = "reproduced"
            elif a <= 3 * b:
                v = "direction only"
            else:
                v = "not reproduced"
            L.append(f"| Fig. 12 | {mode} | {f} | similar q (—) | {g(a)} | {g(b)} | {v} |")
    L.append("")

    # ---- E2.6 rebalancing
    L += ["E2.6 — rebalancing (paper Fig. 13: mean relative decrease of q about 7% for av and GPA; median m_abs 35 "
          "(GPA 0.1) to 47 (GPA 0.001), a ratio 1.34). Decrease = (q_off − q_on)/q_off per instance, averaged over the "
          "instances with q_off > 0. Verdict: reproduced within a factor 2 of 7%, direction only if > 0, else not "
          "reproduced; the m_abs ratio reproduced within ±10%.", "",
          "| paper figure | estimator | c | paper's number | q̄ off | q̄ on | mean decrease | m̄_abs off / on | verdict |",
          "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    allgain = {1.0: [], 4.0: []}
    for c in (1.0, 4.0):
        for fit in ["gpa:0.1", "gpa:0.05", "gpa:0.01", "gpa:0.001", "av:1", "av:1.25", "av:2"]:
            off, on = res(fit, c, reb=False), res(fit, c)
            gains = [(a["q"] - b["q"]) / a["q"] for a, b in zip(off, on) if a["q"] > 0]
            allgain[c] += gains
            gm = mean(gains) if gains else None
            v = "—" if gm is None else ("reproduced" if 0.035 <= gm <= 0.14 else "direction only" if gm > 0 else "not reproduced")
            L.append(f"| Fig. 13 | {fit} | {c:g} | ≈ 7% (all) | {g(mean([r['q'] for r in off]))} | {g(mean([r['q'] for r in on]))} | "
                     f"{'—' if gm is None else f'{gm:+.1%}'} | {mean([r['m_abs'] for r in off]):.1f} / {mean([r['m_abs'] for r in on]):.1f} | {v} |")
    for c in (1.0, 4.0):
        gm = mean(allgain[c])
        v = "reproduced" if 0.035 <= gm <= 0.14 else "direction only" if gm > 0 else "not reproduced"
        L.append(f"| Fig. 13 | all GPA and av above | {c:g} | ≈ 7% | | | {gm:+.1%} | | {v} |")
        m1 = statistics.median([r["m_abs"] for r in res("gpa:0.1", c)])
        m2 = statistics.median([r["m_abs"] for r in res("gpa:0.001", c)])
        v = "reproduced" if abs(m2 / m1 - 47 / 35) / (47 / 35) <= 0.1 else "not reproduced"
        L.append(f"| §5.6 | median m_abs GPA 0.1 → GPA 0.001 | {c:g} | 35 → 47 (×1.34) | | | | {m1:g} → {m2:g} (×{m2 / m1:.2f}) | {v} |")
    L.append("")

    # ---- E2.3 Azure
    ai = [f"azure-day{i['day']:02d}" for i in azure]

    def ares(fit, kind):
        return [CACHE[(a, i["files"][kind]["path"], fit, 1.0, "bf", True, 0.5, "aligned", "wide")]["result"]
                for a, i in zip(ai, azure)]

    L += [f"E2.3 — statistics from 5-minute averages vs from finer usage (paper Fig. 10, c = 1: with averages Cantelli's "
          "q is about 10× and GPA's 2–3× higher, av's similar; max with averages 5e−5). PlanetLab has only averages, so "
          f"this runs on the Azure 2019 readings of 20 VMs, which carry each interval's average and maximum: {len(azure)} "
          "one-day instances; statistics from the day's averages or from its maxima, q evaluated on the maxima (the total "
          "of the maxima bounds the total at any instant, so this q is an upper bound of the instantaneous one). "
          "Verdict on the ratio q̄_avg/q̄_max: reproduced within a factor 2 of the paper's ratio, direction only if > 1 "
          "(averages worse), else not reproduced; av: reproduced if within 0.5–2.", "",
          "| paper figure | estimator | paper's number | q̄ stats from max | q̄ stats from avg | ratio avg/max | m̄_abs max / avg | verdict |",
          "|---|---|---|---:|---:|---:|---:|---|"]
    PAPER_E23 = {"cantelli": ("≈ 10×", 10.0), "gpa": ("2–3×", 2.5), "av": ("≈ 1×", 1.0)}
    for fit in E23FITS:
        a, b = ares(fit, "max-max"), ares(fit, "avg-max")
        qa, qb = mean([r["q"] for r in a]), mean([r["q"] for r in b])
        fam = fit.split(":")[0]
        ratio = qb / qa if qa > 0 else (math.inf if qb > 0 else None)
        rtxt = "—" if ratio is None else ("∞" if math.isinf(ratio) else f"{ratio:.2f}")
        if fam in PAPER_E23 and not (fit == "cantelli:4.4"):
            ptxt, pr = PAPER_E23[fam]
            if ratio is None:
                v = "not reproduced (q = 0 both)"
            elif fam == "av":
                v = "reproduced" if 0.5 <= ratio <= 2 else "not reproduced"
            else:
                v = ("reproduced" if pr / 2 <= ratio <= pr * 2 else "direction only" if ratio > 1 else "not reproduced")
        elif fit == "cantelli:4.4":
            ptxt = "q̄ = 0 on both"
            v = "reproduced" if qa == 0 and qb == 0 else "not reproduced"
        elif fit == "max":
            ptxt = "avg: 5e−5; inst: 0"
            v = "direction only" if qb > qa else "not reproduced"
            if qa == 0 and 5e-5 / FACTOR <= qb <= 5e-5 * FACTOR:
                v = "reproduced"
        else:
            ptxt, v = "—", "—"
        L.append(f"| Fig. 10 | {fit} | {ptxt} | {g(qa)} | {g(qb)} | {rtxt} | {mean([r['m_abs'] for r in a]):.1f} / "
                 f"{mean([r['m_abs'] for r in b]):.1f} | {v} |")
    L.append("")

    # ---- explanations, every figure from the runs above and trace-stats.json
    st = stats["days"]
    sk = [st[d]["median_skewness"] for d in days]
    ku = [st[d]["median_excess_kurtosis"] for d in days]
    cv = [st[d]["median_cv"] for d in days]
    mu = [st[d]["mean_usage"] for d in days]
    o5 = [st[d]["share_vms_max_over_0.5"] for d in days]
    gr = stats["groups"]

    def ex(nn, kind, rho):
        return gr[f"N={nn} {kind} rho={rho}"]["mean_exceedance"]

    qa05, qa1, qa4 = (mean(qs("gpa:0.001", c)) for c in (0.5, 1.0, 4.0))
    qr1, qr4 = mean(qs("gpa:0.001", 1.0, mode="resampled")), mean(qs("gpa:0.001", 4.0, mode="resampled"))
    L += ["Gaussian quantile check (paper §3.3, Fig. 6, on the PlanetLab days; `results/002/trace-stats.json`): share "
          "of a day's 288 samples in which the total of N random VMs of that day exceeds the Gaussian quantile "
          "μ + z₁₋ρ·σ that GPA uses (μ, σ² = sums of the VMs' means and variances), mean over 100 random groups per N "
          "and day; shuffled = each VM's samples permuted independently (no cross-VM correlation, same marginals). "
          "A Gaussian sum would give ρ.", "",
          "| N | ρ = 0.01, aligned | ρ = 0.01, shuffled | ρ = 0.001, aligned | ρ = 0.001, shuffled |",
          "|---:|---:|---:|---:|---:|"]
    for nn in (4, 8, 30, 100):
        L.append(f"| {nn} | " + " | ".join(g(ex(nn, k, rho)) for rho in (0.01, 0.001) for k in ("aligned", "shuffled")) + " |")
    L.append("")
    def spread(xs):
        return max(xs) / min(xs) if min(xs) > 0 else math.inf

    def fx(x, d=1):
        return "∞" if math.isinf(x) else f"{x:.{d}f}"


    qg01_on = [mean(qs("gpa:0.1", c)) for c in CS]
    qg01_off = [mean(qs("gpa:0.1", c, reb=False)) for c in CS]
    big = [c for c in CS if c >= 1]
    g001_big = [mean(qs("gpa:0.001", c)) for c in big]
    rat = [i["sum_max_over_sum_avg"] for i in azure]
    corr = max(abs(a - b) / b for a, b in ((qr1, qa1), (qr4, qa4)))
    s01, s125 = spread(qg01_on), spread([mean(qs('av:1.25', c)) for c in CS])
    av_r = [mean([r["q"] for r in ares(f, "avg-max")]) / mean([r["q"] for r in ares(f, "max-max")]) for f in ("av:1", "av:2")]
    gpa_r = [mean([r["q"] for r in ares(f, "avg-max")]) / mean([r["q"] for r in ares(f, "max-max")]) for f in ("gpa:0.1", "gpa:0.001")]
    L += ["Reading the gaps (every figure from `results/002/runs.json`, `results/002/trace-stats.json` and "
          "`results/002/e23-azure.json`):", "",
          f"- Few VMs per machine (E2.2, E2.1). GPA 0.001 places {ipm('gpa:0.001', 0.5):.1f} VMs per machine at "
          f"c = 0.5, {ipm('gpa:0.001', 1.0):.1f} at c = 1 and {ipm('gpa:0.001', 4.0):.1f} at c = 4 (a PlanetLab VM uses "
          f"{min(mu):.3f}–{max(mu):.3f} of a VM on average, per day), and its q̄ falls with it: {g(qa05)}, {g(qa1)}, "
          f"{g(qa4)}. The paper's machines hold 1000/47 ≈ 21 to 1000/35 ≈ 29 tasks (its median m_abs), the regime "
          f"of c = 4 here. The conservative estimators show the same: perc 99 gives q̄ "
          f"{g(mean(qs('perc:99', 1.0)))} with {ipm('perc:99', 1.0):.1f} VMs per machine at c = 1 and "
          f"{g(mean(qs('perc:99', 4.0)))} with {ipm('perc:99', 4.0):.1f} at c = 4; Cantelli 1.7 "
          f"{g(mean(qs('cantelli:1.7', 1.0)))} and {g(mean(qs('cantelli:1.7', 4.0)))}. A sum of per-VM percentiles or "
          "of μ + bσ is only far above the percentile of the sum when a machine holds many VMs.",
          f"- Skewed, bursty VMs (E2.2). Per day, the median VM's usage has skewness {min(sk):.2f}–{max(sk):.2f}, "
          f"excess kurtosis {min(ku):.1f}–{max(ku):.1f} and a coefficient of variation {min(cv):.2f}–{max(cv):.2f}; "
          f"{min(o5):.1%}–{max(o5):.1%} of the VMs exceed 0.5 of a VM at least once in the day, so at c = 0.5 one VM "
          "alone overflows its machine, which no estimator built from μ and σ anticipates (the paper does not state its "
          "tasks' skewness; its s.d. trend line 0.015 + 0.36·mean gives a coefficient of variation of 0.91 at its mean "
          f"task size 0.0274). Even without cross-VM correlation the Gaussian 99.9% quantile of a sum of 30 VMs is "
          f"exceeded {ex(30, 'shuffled', 0.001) / 0.001:.1f} times as often as it should be (table above), close to "
          f"GPA 0.001's resampled q̄ at c = 4 ({g(qr4)}, {ipm('gpa:0.001', 4.0, mode='resampled'):.1f} VMs per machine); "
          f"the paper reports +60% for its tasks.",
          f"- Cross-VM correlation (E2.2, E2.4). At the packings' sizes it moves q̄ by at most {corr:.0%}: resampled (independent) "
          f"realisations give GPA 0.001 q̄ {g(qr1)} against {g(qa1)} aligned at c = 1 and {g(qr4)} against {g(qa4)} at "
          f"c = 4. In larger groups it keeps the tail heavy: the 99.9% quantile of 100 VMs is exceeded in "
          f"{g(ex(100, 'aligned', 0.001))} of the samples with the real columns and {g(ex(100, 'shuffled', 0.001))} "
          f"shuffled, and GPA 0.001's q̄ at c = 4, 8, 16 is {', '.join(g(mean(qs('gpa:0.001', c))) for c in (4.0, 8.0, 16.0))} "
          f"while the VMs per machine grow from {ipm('gpa:0.001', 4.0):.0f} to {ipm('gpa:0.001', 16.0):.0f}.",
          f"- Capacity (E2.4). GPA 0.1's q̄ stays within a factor {fx(s01)} over c = {CS[0]:g}–{CS[-1]:g} "
          f"while av 1.25's spans a factor {fx(s125, 0)}{', as the paper says' if s01 < s125 else ''}. "
          f"GPA 0.001 varies by a factor {fx(spread(g001_big))} over c = 1–{CS[-1]:g} and by {fx(spread([mean(qs('gpa:0.001', c)) for c in CS]))} "
          f"with c < 1, where single VMs overflow (second bullet). Without rebalancing GPA 0.1's q̄ grows with c ({g(qg01_off[CS.index(1.0)])} "
          f"at c = 1, {g(qg01_off[-1])} at c = {CS[-1]:g}; with it {g(qg01_on[CS.index(1.0)])} and {g(qg01_on[-1])}): the "
          "paper's explanation, the last machine absorbs more when it is larger.",
          f"- Rebalancing (E2.6) can only move load into the last machine, 1/m_abs of the capacity: "
          f"1/{mean([r['m_abs'] for r in res('gpa:0.1', 1.0)]):.0f} at c = 1 (mean decrease {mean(allgain[1.0]):+.1%}) "
          f"against 1/{mean([r['m_abs'] for r in res('gpa:0.1', 4.0)]):.0f} at c = 4 ({mean(allgain[4.0]):+.1%}) and the "
          "paper's 1/35–1/47.",
          f"- Clairvoyance (E2.5). 100 i.i.d. draws from each VM's day (resampled, ℓ = 0.01) give GPA 0.001 q̄ "
          f"{g(mean(qs('gpa:0.001', 1.0, ell=0.01, mode='resampled')))} against {g(mean(qs('gpa:0.001', 1.0, mode='resampled')))} "
          f"with all 10,000, as the paper finds; the first 100 five-minute samples of the day (aligned, ℓ = 0.35, "
          f"the first {0.35 * 24:.1f} h) give {g(mean(qs('gpa:0.001', 1.0, ell=0.35)))} on the rest of the day against "
          f"{g(qa1)} with the whole day: the day is not stationary, and 100 consecutive samples see only part of it.",
          f"- Averages vs finer usage (E2.3). PlanetLab values are 5-minute averages for the statistics and for q "
          f"alike (the paper builds and judges on 1-second samples). The Azure maxima are no stand-in for "
          f"instantaneous samples: per day the VMs' maxima sum to {min(rat):.2f}–{max(rat):.2f} times their averages, "
          "while the paper's inst and avg means agree (its Fig. 1), so statistics from averages underestimate even "
          f"the mean of what q is judged on, and av, which the paper finds insensitive, degrades too (q̄ ratio avg/max "
          f"{av_r[0]:.1f} for av 1 and {av_r[1]:.1f} for av 2, against {gpa_r[0]:.1f} for GPA 0.1 and {gpa_r[1]:.1f} for GPA 0.001). The "
          f"instances are also small (20 VMs, {mean([r['m_abs'] for r in ares('gpa:0.001', 'max-max')]):.1f} machines "
          "for GPA 0.001). E2.3 as the paper ran it needs instantaneous samples, which neither data set has.",
          ""]
    L.append(f"Wall time {wall:.0f} s ({nruns} CLI runs {wall_runs:.0f} s, trace statistics the rest) for "
             f"`python3 scripts/seed002_findings.py`.")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    main()
