#!/usr/bin/env python3
"""Seed 003 (lifetime-aware allocation) experiments E3.1–E3.5 on the Azure 2017 arrivals (test split), E3.1 with
App. F's warm-up (--alive-at-start), E3.5 on the start-order run's own trajectory beside the closed loop, the
diagnostics behind LA-Binary's and E3.2's results (--diagnostics), and the learned predictor: its model metrics
(§5.8, E3.6) against the Kaplan–Meier predictor, and E3.1 with it.

Runs the native CLI (`target/release/packlab lifetime run`, default pool: 20% of the tenant batches, 40-core /
128 GB hosts sized so the peak demand fills 95%) for several seeds (each seed = one pool instance), stores every
raw result as JSON under results/003/ (e31_e32.json, model-metrics.json) and prints the Markdown tables the
results/README.md indexes (results/003/tables.md).

Scales (--scale): paper (the default) = everything above over --seeds pools (default 5; E3.2-E3.5 and the learned
predictor on the first 3), results/003/; quick = E3.1 and its App. F warm-up on pool 1 (seed 1), results/003/quick/
(CI re-runs it). Verdicts: E3.1's rule (`e31_verdict`), stated under its tables; E3.5 its own.

Usage: python3 scripts/seed003_findings.py [--scale quick|paper] [--seeds 5] [--render [--stdout] | --metrics-only]
(from the repository root, after `make native`; --render writes tables.md anew from the stored JSON, --stdout prints
it; --metrics-only re-runs the model metrics alone and renders with the stored simulations)
"""
import json, statistics, subprocess, sys, os, time

from findings import emit, engine, half95, scale

BIN = "target/release/packlab"
OUT = "results/003"
POLICIES = ["best-fit", "la-binary", "nilas", "lava"]
ACCURACIES = [0.5, 0.7, 0.9, 1.0]
ALT_ESTIMATE = "median"  # the noisy predictor's other estimate run beside the default (§5.2's capped posterior mean)  # E3.2's accuracies A of the App. G.1 noise model
# LA-Binary against the pool: (label, extra CLI arguments); the first is the default pool (the E3.1 oracle runs)
LAB_POOLS = [("default (share 0.2, 40 cores / 128 GB)", []), ("share 0.5", ["--share", "0.5"]),
             ("hosts of 20 cores / 64 GB", ["--host-cores", "20", "--host-memory", "64"]),
             ("hosts of 80 cores / 256 GB", ["--host-cores", "80", "--host-memory", "256"])]
# E3.3's "ideal ≈ optimum": NILAS's empty hosts within this many pp of the optimum (ALGORITHMS.md §5.9)
CLOSE_OPT_PP = 1.0
# E3.6 (seed 003 §6, ALGORITHMS.md §5.9): F1 of the long class 0.8 with no uptime, > 0.9 from the 8th uptime quantile; "close" = within
PAPER_F1_Q0, PAPER_F1_LATE, PAPER_F1_FROM, CLOSE_F1 = 0.8, 0.9, 8, 0.1
# the paper's production model (seed 003 App. B, ALGORITHMS.md §5.2): C-index and precision at 70% recall of the
# > 7 days class; "close" = within CLOSE_MODEL (as E3.6's F1)
PAPER_C_INDEX, PAPER_PRECISION_AT_70, CLOSE_MODEL = 0.84, 0.99, 0.1
PAPER_E31 = {  # seed 003 §6 (ALGORITHMS.md §5.9), Δ empty hosts in pp vs the production baseline
    ("oracle", "nilas"): "+9.5", ("oracle", "la-binary"): "+7.5", ("oracle", "lava"): "—",
    ("model", "lava"): "+6.5", ("model", "nilas"): "+6.1", ("model", "la-binary"): "+5.0",
}


def run(args):
    cmd = [BIN, "lifetime", "run", "--json"] + args
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return " ".join(cmd), json.loads(out)


def pool_hosts(args):
    """The number of hosts of the pool `args` make (the table output's header; the JSON rows carry it only with
    --alive-at-start), from a best-fit-only run."""
    import re
    out = subprocess.run([BIN, "lifetime", "run", "--policies", "best-fit"] + args, check=True, capture_output=True,
                         text=True).stdout
    return int(re.search(r"; (\d+) hosts,", out).group(1))


# model metrics: the default learned model, then the sensitivity to its choices (every run trains on dev and
# evaluates on every VM of test; the label names the change)
METRIC_RUNS = [
    ("default (features: all but day of week; proportional hazards)", []),
    ("+ day of week", ["--features", "all"]),
    ("flavour and batch only", ["--features", "flavour,batch_size,batch_position"]),
    ("effects per segment (≤ 0, 15 min, 1 h, 6 h, 24 h, beyond)", ["--segments-h", "0,0.25,1,6,24"]),
]


def model_metrics(args):
    cmd = [BIN, "lifetime", "run", "--model-metrics"] + args
    p = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return " ".join(cmd), json.loads(p.stdout), p.stderr.strip().splitlines()


def fmt(x, d=3):
    return "—" if x is None else f"{x:.{d}f}"


def mean_sd(xs):
    """Mean and sample s.d. of xs (the s.d. None with one value: no spread to report)."""
    return statistics.mean(xs), (statistics.stdev(xs) if len(xs) > 1 else None)


# the verdict of every row measured on a single pool (the quick scale): one value has no CI, so no significance
ONE_POOL = "one pool: no verdict"


def half(xs):
    """The 95% Student-t CI half-width of the mean of xs (`findings.half95`), None with fewer than two values
    (half95's 0 would print a zero-width interval and turn one pool's sign into a verdict)."""
    return half95(xs) if len(xs) > 1 else None


def pmh(m, h):
    """"mean ± spread" (pp) as the tables print it; "mean ± —" when the spread is None (one pool)."""
    return f"{m:+.2f} ± {'—' if h is None else f'{h:.2f}'}"


def collect(seeds, out, quick):
    """Run every experiment (quick: E3.1 and its App. F warm-up on pool 1 only) and store the raw results with
    their commands, seeds, engine version (findings.engine()) and scale tag ("quick" or "paper"); returns (raw,
    metrics), metrics None at the quick scale. The model-metrics runs store `"seed": null`: they train and evaluate
    on every VM of the splits and draw nothing at random (no --seed)."""
    eng = engine()
    t0 = time.time()
    sc = "quick" if quick else "paper"
    raw = {"experiment": "E3.1/E3.2", "workload": "azure2017-arrivals (test split)", "scale": sc, "engine": eng,
           "runs": []}

    def add(args, **tags):
        # every empty-start pool is sized as its warm-up run's (the window's VMs and App. F's alive set): the two
        # settings compare on the same pool. Not E3.5's drains: its 5%-empty-hosts rule never fires in the larger
        # pool, which stays above 5% empty hosts throughout
        if "--alive-at-start" not in args and "--hosts" not in args and "--defrag" not in args:
            args = args + ["--size-with-alive"]
        cmd, rows = run(args)
        raw["runs"].append({"command": cmd, "seed": int(args[args.index("--seed") + 1]), "engine": eng, **tags,
                            "results": rows})

    for pred in ["oracle", "noisy:0.9"]:
        for s in range(1, seeds + 1):
            add(["--predictor", pred, "--seed", str(s), "--diagnostics"], predictor=pred)
    # E3.1 with the warm-up of App. F: the VMs alive at the window's start placed first by best fit
    for pred in ["oracle", "noisy:0.9"]:
        for s in range(1, seeds + 1):
            add(["--predictor", pred, "--seed", str(s), "--alive-at-start", "--diagnostics"], predictor=pred,
                alive_at_start=True)
    k = min(seeds, 3)
    if not quick:
        # LA-Binary against the pool: a larger share (more hosts) and smaller hosts (fewer VMs per host), oracle
        for name, extra in LAB_POOLS[1:]:
            for s in range(1, k + 1):
                add(["--policies", "la-binary", "--seed", str(s), "--stranding-h", "0", "--diagnostics"] + extra,
                    la_binary_pool=name)
        for a in ACCURACIES:
            for s in range(1, k + 1):
                add(["--predictor", f"noisy:{a}", "--policies", "nilas,lava", "--seed", str(s), "--diagnostics"],
                    predictor=f"noisy:{a}", accuracy=a)
        # E3.3: NILAS against the optimum, and without reprediction (noisy A = 0.9 one-shot vs repredicted)
        for pred in ["oracle", "noisy:0.9", "one-shot:0.9"]:
            for s in range(1, k + 1):
                add(["--predictor", pred, "--policies", "nilas", "--seed", str(s), "--stranding-h", "0"],
                    predictor=pred, e33=True)
        # E3.4: the NILAS host-exit cache refresh (noisy A = 0.9, with reprediction)
        for refresh in [0, 60, 900]:
            for s in range(1, k + 1):
                add(["--predictor", "noisy:0.9", "--policies", "nilas", "--refresh-s", str(refresh), "--seed", str(s),
                     "--stranding-h", "0"], refresh_s=refresh)
        # a fuller pool (review item 12): the peak demand fills the whole pool (--peak-allocation 1.0), then pools
        # of 90% and 80% of those hosts (80%: failures), oracle, beside the default 95%
        for s in range(1, k + 1):
            args = ["--peak-allocation", "1.0", "--seed", str(s), "--stranding-h", "0"]
            hosts = pool_hosts(args + ["--size-with-alive"])
            add(args, predictor="oracle", fuller="peak demand fills 100%", hosts=hosts)
            for f in (0.9, 0.8):
                add(["--hosts", str(int(f * hosts)), "--seed", str(s), "--stranding-h", "0"], predictor="oracle",
                    fuller=f"{f:.0%} of those hosts", hosts=int(f * hosts))
        # E3.5: LARS vs the start-time migration order on the same drain actions (oracle)
        for s in range(1, k + 1):
            add(["--defrag", "--policies", "nilas", "--seed", str(s), "--stranding-h", "0"], defrag=True)
        # E3.5 with App. H's maintenance drains: the fullest hosts, 3 at a time, each once
        for s in range(1, k + 1):
            add(["--defrag", "--maintenance", "--policies", "nilas", "--seed", str(s), "--stranding-h", "0"],
                defrag=True, maintenance=True)
        # the noisy predictor's posterior median (sets 9–10's default) instead of §5.2's mean: E3.1, E3.2, E3.3 arms
        for s in range(1, seeds + 1):
            add(["--predictor", "noisy:0.9", "--noisy-estimate", ALT_ESTIMATE, "--seed", str(s), "--stranding-h", "0"],
                predictor="noisy:0.9", estimate=ALT_ESTIMATE, e31_mean=True)
        for a in [x for x in ACCURACIES if x < 1]:
            for s in range(1, k + 1):
                add(["--predictor", f"noisy:{a}", "--noisy-estimate", ALT_ESTIMATE, "--policies", "nilas,lava", "--seed",
                     str(s), "--stranding-h", "0"], predictor=f"noisy:{a}", accuracy=a, estimate=ALT_ESTIMATE)
        for pred in ["noisy:0.9", "one-shot:0.9"]:
            for s in range(1, k + 1):
                add(["--predictor", pred, "--noisy-estimate", ALT_ESTIMATE, "--policies", "nilas", "--seed", str(s),
                     "--stranding-h", "0"], predictor=pred, e33=True, estimate=ALT_ESTIMATE)
        # E3.1 with the learned (and the feature-free Kaplan–Meier) predictor on the first 3 pools
        for pred in ["distributional", "learned"]:
            for s in range(1, k + 1):
                add(["--predictor", pred, "--seed", str(s)], predictor=pred)
    raw["wall_time_s"] = round(time.time() - t0, 1)
    with open(f"{out}/e31_e32.json", "w") as f:
        json.dump(raw, f, indent=1, sort_keys=True)
    if quick:
        return raw, None
    return raw, collect_metrics(out, eng)


def collect_metrics(out, eng):
    """The model-metrics runs (METRIC_RUNS), stored in out/model-metrics.json; returns them."""
    metrics = {"experiment": "model metrics (§5.8, E3.6): train on dev, evaluate on every VM of test", "scale": "paper",
               "engine": eng, "runs": []}
    for label, args in METRIC_RUNS:
        cmd, res, log = model_metrics(args)
        metrics["runs"].append({"label": label, "command": cmd, "seed": None, "engine": eng, "result": res,
                                "stderr": log})
    with open(f"{out}/model-metrics.json", "w") as f:
        json.dump(metrics, f, indent=1, sort_keys=True)
    return metrics


def ci(xs):
    """The 95% Student-t interval of the mean of per-pool values xs (pp); "—" with one pool."""
    m, h = statistics.mean(xs), half(xs)
    return "—" if h is None else f"[{m - h:+.2f}, {m + h:+.2f}]"


def pm(xs):
    """Mean ± the 95% Student-t CI half-width of per-pool values (pp), as the tables print them."""
    return pmh(statistics.mean(xs), half(xs))


def paired(a, b):
    """Mean of the per-pool differences a − b (lists in the same pool order) and its 95% Student-t CI half-width
    (None with one pool)."""
    d = [x - y for x, y in zip(a, b)]
    return statistics.mean(d), half(d)


def e31_verdict(xs, paper):
    """E3.1's verdict on per-pool Δs xs beside the paper's Δ (a string, "—" = none): the paper's direction (a
    gain) when the 95% CI of the mean Δ lies above 0, reproduced when the paper's Δ is inside it; ONE_POOL with
    one pool."""
    if len(xs) < 2:
        return ONE_POOL
    d, h = statistics.mean(xs), half95(xs)
    if d - h > 0:  # a significant gain first: a CI holding both 0 and the paper's Δ reproduces nothing
        if paper == "—":
            return "gain"
        if abs(d - float(paper)) <= h:
            return "reproduced"
        return "direction reproduced, " + ("smaller" if d < float(paper) else "larger")
    if d + h < 0:
        return "not reproduced (loss)"
    return "not reproduced (no significant gain)"


def stranding_verdict(d, h95):
    """Stranding's verdict on a paired Δ (pp, mean and its 95% CI half-width, None with one pool) beside the paper's
    reduction."""
    if h95 is None:
        return ONE_POOL
    if d < -h95:
        return "direction reproduced (less stranding)"
    if d > h95:
        return "not reproduced (more stranding)"
    return "not reproduced (no significant change)"


def lava_vs_nilas_verdict(d, h):
    """The verdict on "LAVA ≥ NILAS" (seed 003 §6: LAVA +6.5 pp vs NILAS +6.1 with the production model) from the
    paired per-pool LAVA − NILAS Δ (pp, mean and its 95% CI half-width, None with one pool): significance first."""
    if h is None:
        return ONE_POOL
    if d + h < 0:
        return "not reproduced (LAVA below NILAS)"
    if d - h > 0:
        return "reproduced (LAVA above NILAS)"
    return "not distinguishable (the CI holds 0)"


def lava_vs_nilas_lines(table, alive, over):
    """The paired LAVA − NILAS Δ empty hosts per pool (review-27-s4 item 4) with an empty start and with App. F's
    warm-up, beside the paper's +6.5 − 6.1 = +0.4 pp (production model; the paper gives no oracle LAVA row)."""
    lines = ["", f"LAVA ≥ NILAS (seed 003 §6: LAVA +6.5 pp, NILAS +6.1 pp with the production model) — the paired per-pool "
             f"LAVA − NILAS Δ empty hosts (pp), mean ± 95% CI half-width over the E3.1 pools:", "",
             "| start | predictor | LAVA − NILAS pp | 95% CI | paper | verdict |", "|---|---|---:|---:|---:|---|"]
    for start, runs in [("empty", table), ("warm-up (App. F)", alive)]:
        for label in ["oracle", "model"]:
            if (label, "lava") not in runs or (label, "nilas") not in runs:
                continue
            xs = [a["empty_hosts_pp_vs_best_fit"] - b["empty_hosts_pp_vs_best_fit"]
                  for a, b in zip(runs[(label, "lava")], runs[(label, "nilas")])]
            d, h = statistics.mean(xs), half(xs)
            pl = "noisy A = 0.9" if label == "model" else "oracle"
            paper = "+0.4" if label == "model" else "—"
            lines.append(f"| {start} | {pl} | {pmh(d, h)} | {ci(xs)} | {paper} | {lava_vs_nilas_verdict(d, h)} |")
    lines += ["", "Verdict (LAVA ≥ NILAS), on the paired CI: *reproduced (LAVA above NILAS)* = the CI lies above 0; "
              "*not distinguishable* = it holds 0 (the paper gives no spread for its +0.4 pp); "
              "*not reproduced (LAVA below NILAS)* = it lies below 0."]
    return lines


def fuller_lines(raw, table, alive):
    """The fuller-pool ablation (review-27-s4 item 12): E3.1 oracle in the default pool (peak demand fills 95%), a
    pool whose peak demand fills all of it, and one of 90% of those hosts (failures), Δ empty hosts vs best fit
    (pp), mean ± 95% CI half-width over the same pools."""
    runs = [r for r in raw["runs"] if "fuller" in r]
    if not runs:  # runs stored before the ablation
        return []
    by, hosts = {}, {}
    for r in runs:
        by.setdefault(r["fuller"], []).append(r["results"])
        hosts.setdefault(r["fuller"], []).append(r["hosts"])
    n = len(next(iter(by.values())))
    lines = ["", f"A fuller pool (oracle, empty start, pools 1–{n}; review item 12): the default pool is sized so the peak "
             "demand of the window's VMs and App. F's alive set fills 95% of it (the pool of the warm-up runs; the "
             "empty-start runs do not place the alive set, so their own peak fills less); here that peak fills 100%, and "
             "then 90% and 80% of those hosts take the same arrivals (at 80% VMs fail). Δ empty hosts vs best fit (pp), "
             "mean ± 95% CI half-width; paper (oracle): NILAS +9.5, LA-Binary +7.5.", "",
             "| pool | hosts | allocation % | best fit empty % | optimum % | LA-Binary Δ pp | NILAS Δ pp | LAVA Δ pp | "
             "failures best fit / LA-Binary / NILAS / LAVA (mean) | NILAS verdict |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    pools = [("default (peak demand fills 95%)", [[table[("oracle", p)][i] for p in POLICIES] for i in range(n)],
              [r["hosts"] for r in alive[("oracle", "best-fit")][:n]])]
    pools += [(name, rs, hosts[name]) for name, rs in by.items()]
    unequal = False
    for name, rs, hs in pools:
        get = lambda p: [next(x for x in rows if x["policy"] == p) for rows in rs]
        bf = get("best-fit")
        cells = [pm([x["empty_hosts_pp_vs_best_fit"] for x in get(p)]) for p in ["la-binary", "nilas", "lava"]]
        fails = " / ".join(f"{statistics.mean(x['failures'] for x in get(p)):.0f}" for p in POLICIES)
        v = e31_verdict([x["empty_hosts_pp_vs_best_fit"] for x in get("nilas")], PAPER_E31[("oracle", "nilas")])
        fn, fb = [x["failures"] for x in get("nilas")], [x["failures"] for x in bf]
        if fn != fb:  # issue 27 item 6: seed 003 compares at equal failures; a VM never placed leaves its host's space free
            d, h = paired(fn, fb)
            v += (f" — at unequal failures: NILAS {statistics.mean(fn):.0f} VMs per pool never placed, best fit "
                  f"{statistics.mean(fb):.0f} ({d:+.0f} ± {'—' if h is None else f'{h:.0f}'}); not a comparison at equal failures")
            unequal = True
        lines.append(f"| {name} | {statistics.mean(hs):.0f} | "
                     f"{100 * statistics.mean(x['allocation'] for x in bf):.1f} | "
                     f"{100 * statistics.mean(x['empty_hosts'] for x in bf):.2f} | "
                     f"{100 * statistics.mean(x['optimum_empty_hosts'] for x in bf):.2f} | " + " | ".join(cells) +
                     f" | {fails} | {v} |")
    if unequal:
        lines += ["", "Where the policies' failures differ, the Δ empty hosts is measured at unequal failures (issue 27 item 6): "
                  "NILAS and best fit do not place the same VMs, and a VM never placed occupies no host, so part of NILAS's Δ "
                  "there may come from the VMs it failed to place rather than from its packing; the paper's Δs compare "
                  "policies serving the same VMs. The Δ is not re-measured at equal failures (no policy has a knob that "
                  "equalises them), so that row's verdict holds only with this caveat (the difference in failures, mean ± 95% "
                  "CI half-width per pool, is in its verdict)."]
    return lines


def failure_lines(table, alive):
    """The note under E3.1's tables on the VMs no host could take (review item 6): per start and predictor, each
    policy's mean failures per pool, with its paired per-pool difference from best fit (mean ± 95% CI
    half-width), and the largest share of a pool's arrivals they are."""
    out, sig, untested = [], [], False
    share = 0.0
    for start, runs in [("an empty start", table), ("App. F's warm-up", alive)]:
        for label in ["oracle", "model"]:
            if (label, "best-fit") not in runs:
                continue
            pl = "noisy A = 0.9" if label == "model" else "oracle"
            f = {p: [r["failures"] for r in runs[(label, p)]] for p in POLICIES}
            share = max(share, max(100 * statistics.mean(r["failures"] / max(r["arrivals"], 1) for r in runs[(label, p)])
                                   for p in POLICIES))
            if not any(any(x) for x in f.values()):
                out.append(f"{start}, {pl}: none")
                continue
            cells = [f"best-fit {statistics.mean(f['best-fit']):.1f}"]
            for p in POLICIES[1:]:
                d, h = paired(f[p], f["best-fit"])
                cells.append(f"{p} {statistics.mean(f[p]):.1f} ({d:+.1f} ± {'—' if h is None else f'{h:.1f}'})")
                if h is None:
                    untested = True
                elif abs(d) > h:
                    sig.append(f"{p} ({start}, {pl})")
            out.append(f"{start}, {pl}: " + ", ".join(cells))
    return ["", "Failures (VMs no host could take; the failures columns), mean per pool, and in brackets the paired per-pool "
            "difference from best fit (mean ± 95% CI half-width): " + "; ".join(out) + ". Each failure is a VM never placed; "
            f"the largest mean is {share:.2f}% of a pool's arrivals; "
            + ("one pool: the differences from best fit have no CI and no test" if untested else
               f"the differences from best fit that exclude 0: {', '.join(sig)}" if sig else
               "every difference from best fit holds 0 in its CI")
            + ". The Δ empty hosts is not re-measured at equal failures (no policy has a knob that equalises them)."]


def stranding_lines(table, alive, over):
    """The stranding table (§5.8 inflation, CPU and memory) of E3.1 with an empty start and with App. F's warm-up:
    every policy beside best fit on the same pools, Δ in pp and relative to best fit, beside the paper's
    production figures (E3.7: CPU −3%, memory −2%)."""
    lines = ["", f"Stranding (§5.8: at sample times every 6 h the pool is inflated with shapes of the recent arrivals by best fit "
             f"until 100 consecutive failures; stranded = free capacity left / all capacity), {over}; Δ = policy − best fit per pool, "
             "mean ± 95% CI half-width; relative = Δ / best fit's stranding. Paper (E3.7, NILAS in production): CPU stranding −3%, "
             "memory stranding −2%.", "",
             "| start | predictor | policy | stranded CPU % | Δ CPU pp | Δ CPU relative | stranded memory % | Δ memory pp | "
             "Δ memory relative | verdict (CPU / memory) |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for start, runs in [("empty", table), ("warm-up (App. F)", alive)]:
        for label in ["oracle", "model"]:
            base = runs.get((label, "best-fit"))
            if not base:
                continue
            for p in POLICIES:
                rs = runs[(label, p)]
                cells, vs = [], []
                for f in ["stranded_cpu", "stranded_mem"]:
                    x = statistics.mean(r[f] for r in rs) * 100
                    if p == "best-fit":
                        cells += [f"{x:.2f}", "—", "—"]
                        continue
                    d, h95 = paired([100 * r[f] for r in rs], [100 * r[f] for r in base])
                    b = statistics.mean(r[f] for r in base) * 100
                    rel = f"{100 * d / b:+.1f}%" if b > 0 else "—"
                    cells += [f"{x:.2f}", pmh(d, h95), rel]
                    vs.append(stranding_verdict(d, h95))
                pl = "noisy A = 0.9" if label == "model" else "oracle"
                v = "baseline" if p == "best-fit" else ONE_POOL if set(vs) == {ONE_POOL} else " / ".join(vs)
                lines.append(f"| {start} | {pl} | {p} | " + " | ".join(cells) + f" | {v} |")
    return lines


def classify(raw):
    """The stored runs by experiment (their tags; the E3.2 / E3.3 runs by their own tags or, in runs stored before
    the tags, by their --policies): (table, alive, lab, acc, accd, e33, e34, e35), each in the order run."""
    table, alive, lab, acc, accd, e33, e34, e35 = {}, {}, {}, {}, {}, {}, {}, {}
    label = {"oracle": "oracle", "noisy:0.9": "model", "distributional": "distributional", "learned": "learned"}
    for run_ in raw["runs"]:
        if run_.get("estimate") == ALT_ESTIMATE or "fuller" in run_:  # `mean_arms`, `fuller_lines`
            continue
        cmd, rows = run_["command"], run_["results"]
        pol = cmd.split("--policies ")[1].split()[0] if "--policies " in cmd else None
        if run_.get("alive_at_start"):
            for r in rows:
                alive.setdefault((label[run_["predictor"]], r["policy"]), []).append(r)
        elif "la_binary_pool" in run_:
            lab.setdefault(run_["la_binary_pool"], []).append(rows)
        elif "refresh_s" in run_:
            e34.setdefault(run_["refresh_s"], []).append(rows[-1]["empty_hosts_pp_vs_best_fit"])
        elif run_.get("defrag"):
            for r in rows:
                e35.setdefault(("maintenance " if run_.get("maintenance") else "") + r["policy"], []).append(r)
        elif pol == "nilas,lava":
            a = float(run_["predictor"].split(":")[1])
            for r in rows:
                acc.setdefault((a, r["policy"]), []).append(r["empty_hosts_pp_vs_best_fit"])
                accd.setdefault((a, r["policy"]), []).append(r)
        elif pol == "nilas":
            r = rows[-1]
            e33.setdefault(run_["predictor"], []).append((r["empty_hosts"], r["optimum_empty_hosts"],
                                                          r["empty_hosts_pp_vs_best_fit"]))
        else:
            for r in rows:
                table.setdefault((label[run_["predictor"]], r["policy"]), []).append(r)
    return table, alive, lab, acc, accd, e33, e34, e35


def main():
    if "--help" in sys.argv or "-h" in sys.argv:  # usage only: any other argument list runs or renders
        print(__doc__)
        return
    quick = scale() == "quick"
    out = "results/003/quick" if quick else OUT
    seeds = 1 if quick else 5
    if "--seeds" in sys.argv:
        seeds = int(sys.argv[sys.argv.index("--seeds") + 1])
    os.makedirs(out, exist_ok=True)
    if "--render" in sys.argv or "--metrics-only" in sys.argv:
        raw = json.load(open(f"{out}/e31_e32.json"))
        metrics = None if quick else (collect_metrics(out, engine()) if "--metrics-only" in sys.argv
                                      else json.load(open(f"{out}/model-metrics.json")))
    else:
        raw, metrics = collect(seeds, out, quick)
    emit(f"{out}/tables.md", render(raw, metrics, quick))
    print(f"seed 003 ({'quick' if quick else 'paper'}): wall time {raw['wall_time_s']} s for the simulations -> "
          f"{out}/tables.md", file=sys.stderr)


def render(raw, metrics, quick):
    table, alive, lab, acc, accd, e33, e34, e35 = classify(raw)
    seeds = len(table[("oracle", "best-fit")])
    s3 = k = min(seeds, 3)
    over = f"mean ± s.d. over {seeds} pool instances (seeds 1–{seeds})" if seeds > 1 else "one pool instance (seed 1; no s.d.)"
    lines = [f"E3.1 — Δ empty hosts vs best fit on the same arrivals (pp), {over}; "
             "paper: 24 production pools, 7 weeks.", "",
             "| predictor | policy | paper Δ pp | packlab Δ pp (± s.d.) | 95% CI (Student t) | empty hosts % | optimum % | allocation % | failures (mean) | verdict |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for label in ["oracle", "model"]:
        for p in POLICIES:
            rs = table[(label, p)]
            xs = [r["empty_hosts_pp_vs_best_fit"] for r in rs]
            d = mean_sd(xs)
            e = statistics.mean(r["empty_hosts"] for r in rs) * 100
            o = statistics.mean(r["optimum_empty_hosts"] for r in rs) * 100
            al = statistics.mean(r["allocation"] for r in rs) * 100
            fl = statistics.mean(r["failures"] for r in rs)
            paper = PAPER_E31.get((label, p), "0 (baseline)" if p == "best-fit" else "—")
            verdict = "baseline" if p == "best-fit" else e31_verdict(xs, paper)
            pl = "noisy A = 0.9 (stand-in for the model)" if label == "model" else "oracle"
            lines.append(f"| {pl} | {p} | {paper} | {pmh(*d)} | {ci(xs) if p != 'best-fit' else '—'} | {e:.2f} | {o:.2f} | {al:.1f} | {fl:.0f} | {verdict} |")
    a1 = alive[("oracle", "nilas")]
    lines += ["", f"E3.1 with the warm-up of App. F — the VMs alive at the window's start (the `dev` VMs still running at the `test` cut, "
              f"thinned by batches like the pool: {statistics.mean(r['alive_at_start'] for r in a1):,.0f} per pool, every exit drawn from the "
              "Kaplan–Meier lifetimes beyond their age) placed first by best fit, then every VM of the window by the policy; "
              f"Δ empty hosts vs best fit (pp), {over}; beside it the default (the pool starts empty, App. G.2's ideal):", "",
              "| predictor | policy | paper Δ pp | warm-up (App. F) Δ pp (± s.d.) | 95% CI | empty hosts % | hosts | failures (mean) | empty start Δ pp (± s.d.) | empty start 95% CI | verdict (warm-up) |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for label in ["oracle", "model"]:
        for p in POLICIES:
            rs = alive[(label, p)]
            xs = [r["empty_hosts_pp_vs_best_fit"] for r in rs]
            xs0 = [r["empty_hosts_pp_vs_best_fit"] for r in table[(label, p)]]
            d, d0 = mean_sd(xs), mean_sd(xs0)
            pl = "noisy A = 0.9" if label == "model" else "oracle"
            if p == "best-fit":  # the baseline: its failures beside the policies'
                paper, v, c, c0 = "0 (baseline)", "baseline", "—", "—"
            else:
                paper = PAPER_E31.get((label, p), "—")
                v, c, c0 = ("—" if paper == "—" else e31_verdict(xs, paper)), ci(xs), ci(xs0)
            lines.append(f"| {pl} | {p} | {paper} | {pmh(*d)} | {c} | "
                         f"{100 * statistics.mean(r['empty_hosts'] for r in rs):.2f} | {statistics.mean(r['hosts'] for r in rs):.0f} | "
                         f"{statistics.mean(r['failures'] for r in rs):.0f} | {pmh(*d0)} | {c0} | {v} |")
    lines += failure_lines(table, alive)
    if not quick:
        lines += ["", "Why NILAS gains a third of the paper's +9.5 pp and LAVA stays below NILAS with the oracle: the ablations of "
                  "the metric, the baseline scorer, NILAS's cost scale, the pool and LAVA's rules in "
                  "`results/003/nilas-gap/gap.md` (`python3 scripts/seed003_nilas_gap.py --seeds 5`)."]
    lines += lava_vs_nilas_lines(table, alive, over)
    lines += stranding_lines(table, alive, over)
    lines += ["", "Verdicts (E3.1, both tables): *reproduced* = the paper's Δ inside the 95% CI of the mean Δ over the pools "
              "(Student t with n − 1 degrees of freedom, as every CI and ± below); *direction reproduced, smaller* (or *larger*) = "
              "a gain over best fit (the CI above 0) but not the paper's; *not reproduced (no significant gain)* = the CI "
              "contains 0; *not reproduced (loss)* = below; rows without a paper number: *gain* or —."
              + (f" With one pool (this scale) no row has a CI, so every verdict (E3.1, LAVA ≥ NILAS, stranding) reads *{ONE_POOL}*; "
                 "the paper scale (`results/003/tables.md`) gives them over 5 pools." if seeds < 2 else "")]
    if quick:  # the quick scale runs E3.1 (and its warm-up) only
        return finish(lines, raw, "--scale quick")
    lines += ["", f"E3.2 — Δ empty hosts (pp) vs accuracy A of the App. G.1 noise model, with reprediction, mean over {min(seeds, 3)} pools; "
              "paper: LAVA degrades less than NILAS.", "",
              "| A | NILAS Δ pp (± 95% CI) | LAVA Δ pp (± 95% CI) | NILAS loss from A = 1 (pp) | LAVA loss from A = 1 (pp) | LAVA − NILAS loss (pp, ± 95% CI) | paper | verdict |",
              "|---:|---:|---:|---:|---:|---:|---|---|"]
    top = max(ACCURACIES)
    for a in ACCURACIES:
        loss = {p: [hi - lo for hi, lo in zip(acc[(top, p)], acc[(a, p)])] for p in ("nilas", "lava")}
        if a == top:
            cells, paper, v = "— | — | —", "—", "reference"
        else:
            d, h95 = paired(loss["lava"], loss["nilas"])
            cells, paper = (f"{statistics.mean(loss['nilas']):+.2f} | {statistics.mean(loss['lava']):+.2f} | {pmh(d, h95)}",
                             "LAVA degrades less")
            v = (ONE_POOL if h95 is None else "reproduced" if d < -h95 else "not reproduced (LAVA degrades more)" if d > h95
                 else "not reproduced (no significant difference)")
        lines.append(f"| {a} | {pm(acc[(a, 'nilas')])} | {pm(acc[(a, 'lava')])} | {cells} | "
                     f"{paper} | {v} |")
    lines += ["", f"Verdict (E3.2): a policy's loss at A is its Δ at A = {top:g} minus its Δ at A, per pool; *reproduced* = LAVA's loss "
              "below NILAS's with the 95% CI of the per-pool difference (LAVA loss − NILAS loss) below 0; *not reproduced "
              "(LAVA degrades more)* = the CI above 0; *not reproduced (no significant difference)* = the CI contains 0."]
    k = min(seeds, 3)
    lines += ["", f"E3.3 — NILAS against the theoretical optimum of empty hosts, and without reprediction, mean over {k} pools; "
              "paper: the ideal NILAS (oracle, no warm-up) is close to the optimum; without repredictions it is much worse.", "",
              "| predictor | NILAS empty hosts % | optimum % | NILAS Δ pp vs best fit (± 95% CI) | paper | verdict |", "|---|---:|---:|---:|---|---|"]
    for pred, label in [("oracle", "oracle (our pool starts empty: every VM is placed by NILAS, as in the ideal run)"),
                        ("noisy:0.9", "noisy A = 0.9, repredicted"), ("one-shot:0.9", "noisy A = 0.9, no reprediction")]:
        xs = e33[pred]
        nilas, opt, delta = (100 * statistics.mean(x[0] for x in xs), 100 * statistics.mean(x[1] for x in xs),
                             statistics.mean(x[2] for x in xs))
        if pred == "oracle":
            # best fit's empty hosts on the same runs: NILAS's minus its Δ; "closer to the optimum than best fit" is
            # NILAS's Δ > 0, read on its 95% CI like every other row: over E3.1's pools when these runs are E3.1's
            # first pools (the same simulations), else over these pools alone
            gap, bf_gap = opt - nilas, opt - (nilas - delta)
            own = [x[2] for x in xs]
            e31 = [r["empty_hosts_pp_vs_best_fit"] for r in table[("oracle", "nilas")]]
            ev, where = (e31, f"E3.1's {len(e31)} pools") if e31[:len(own)] == own else (own, f"these {len(own)} pools")
            d, h = statistics.mean(ev), half(ev)
            paper = "≈ optimum"
            pos = f"{gap:.2f} pp below the optimum, best fit {bf_gap:.2f}"
            v = (f"reproduced ({gap:.2f} pp below)" if gap <= CLOSE_OPT_PP else ONE_POOL if h is None else
                 f"direction only ({pos}; closer than best fit on {where}: NILAS − best fit {d:+.2f} {ci(ev)})" if d - h > 0 else
                 f"not reproduced ({pos}; on {where} NILAS − best fit {d:+.2f} {ci(ev)}: not closer than best fit)")
        elif pred == "one-shot:0.9":
            d, h95 = paired([x[2] for x in e33["noisy:0.9"]], [x[2] for x in xs])
            paper = "much worse than repredicted"
            v = (ONE_POOL if h95 is None else
                 f"{'reproduced' if d > h95 else 'direction only'} ({d:.2f} ± {h95:.2f} pp worse)" if d > 0 else
                 f"not reproduced ({-d:.2f} ± {h95:.2f} pp better)")
        else:
            paper, v = "—", "reference"
        lines.append(f"| {label} | {nilas:.2f} | {opt:.2f} | {pm([x[2] for x in xs])} | {paper} | {v} |")
    xs = alive[("oracle", "nilas")][:k]
    lines.append(f"| oracle, warm-up of App. F (alive VMs placed first by best fit) | {100 * statistics.mean(r['empty_hosts'] for r in xs):.2f} | "
                 f"{100 * statistics.mean(r['optimum_empty_hosts'] for r in xs):.2f} | {pm([r['empty_hosts_pp_vs_best_fit'] for r in xs])} | "
                 "— (not the ideal setting) | — |")
    xs = [x[2] for x in e33["oracle"]]
    lines += ["", f"Verdicts (E3.3): ideal run — *reproduced* = NILAS's empty hosts within {CLOSE_OPT_PP:g} pp of the optimum; "
              "*direction only* = farther, but closer to it than best fit, i.e. the 95% CI of NILAS's Δ vs best fit above 0 (E3.1's "
              + (f"rule); *not reproduced* = otherwise. The ideal run's {len(xs)} pools are E3.1's oracle pools 1–{len(xs)} (the same "
                 f"simulations), so the CI is read over E3.1's {seeds} pools; on these {len(xs)} alone NILAS − best fit is "
                 f"{pm(xs)} pp, {ci(xs)}. " if [r["empty_hosts_pp_vs_best_fit"] for r in table[("oracle", "nilas")]][:len(xs)] == xs
                 else f"rule), over these {len(xs)} pools; *not reproduced* = otherwise. ") +
              "No reprediction — *reproduced* = its Δ below the repredicted Δ, the 95% CI of the per-pool "
              "difference above 0; *direction only* = below, the CI containing 0; *not reproduced* = not below.",
              "", "The noisy predictor's reprediction is the posterior of ALGORITHMS.md §5.2 (a point mass at L̂ with weight A, and a "
              "3-decade log-normal around L̂ capped at 14 days with weight 1 − A, each conditioned on T > u); its estimate is the "
              "posterior mean of T − u (the default, `capped-mean`). The ablation without reprediction, max(R̂(0) − u, 0) with the "
              "same model, starts from the same estimate and differs only in the update. At A = 1 the posterior is the oracle "
              "(same numbers as the oracle rows). The posterior median of sets 9–10 (T uncapped; R̂(0) = L̂) "
              "variant is in its own table below."]
    lines += ["", f"E3.4 — NILAS host-exit cache refresh (noisy A = 0.9, repredicted), Δ empty hosts vs best fit (pp), mean over {k} pools; "
              "paper: caching does not hurt.", "", "| refresh | NILAS Δ pp | change vs none (pp) | paper | verdict |",
              "|---|---:|---:|---|---|"]
    for refresh, label in [(0, "none (recomputed at every use)"), (60, "1 min"), (900, "15 min")]:
        if refresh == 0:
            ch, paper, v = "—", "—", "reference"
        else:
            d, h95 = paired(e34[refresh], e34[0])
            ch, paper = pmh(d, h95), "does not hurt"
            # the paper claims no effect: a CI holding 0 does not refute it, it does not show it either
            v = (ONE_POOL if h95 is None else "not reproduced (hurts)" if d < -h95 else "reproduced (helps)" if d > h95 else
                 "not refuted (no significant change)")
        lines.append(f"| {label} | {pm(e34[refresh])} | {ch} | {paper} | {v} |")
    lines += ["", "Verdict (E3.4): the Δ column is mean ± 95% CI half-width over the pools; change = the refresh's Δ minus the uncached Δ, per pool, mean ± 95% CI half-width; "
              "*not refuted (no significant change)* = the CI holds 0 (absence of evidence over the pools, not a proof of no "
              "effect); *reproduced (helps)* = the CI above 0; *not reproduced (hurts)* = the CI below 0."]
    lines += ["", f"E3.5 — live migrations of the defragmentation (drain when < 5% of hosts are empty, up to 3 hosts, 3 concurrent "
              f"20-minute migrations), oracle, summed over {k} pools; paper: 37,108 → 35,505 (−4.32%) and 36,307 → 34,655 (−4.55%) on two "
              "one-month traces. Same trajectory (the paper's method, §6.3): the start-order run chooses the drains; both orders are "
              "counted on its drains (same hosts, same times, same VMs), only the queue order differs, every queue run to completion "
              "(past the trace's end); beside them a random order. Closed loop: those drain actions "
              "replayed in two whole simulations, each choosing its own migration targets (cut at the trace's end). Rows *maintenance*: "
              "App. H's maintenance drains instead of the 5%-empty-hosts rule (`--maintenance`: the fullest hosts not yet drained, "
              "3 at a time, each once).", "",
              "| scheduler | drained hosts | VMs queued per drain | start order: migrations (saved) | LARS: migrations (saved) | change | paper | "
              "drains LARS reorders | queued VMs that wait for a slot (start / LARS) | verdict | random order: migrations (saved) | LARS vs random | closed loop: start → LARS (saved) | closed-loop change | drained hosts (closed loop) | change per pool (% ± 95% CI) | "
              "VM failures (start-order run) | migrations without a target |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in ["best-fit", "nilas", "maintenance best-fit", "maintenance nilas"]:
        if p not in e35:  # runs stored before the maintenance drains
            continue
        rs = e35[p]
        tot = lambda key, f: sum(r[key][f] for r in rs)
        bm, bs, bd = tot("start_order", "migrations"), tot("start_order", "migrations_saved"), tot("start_order", "drained_hosts")
        lm, ls = sum(r["migrations"] for r in rs), sum(r["migrations_saved"] for r in rs)
        ch = 100.0 * (lm - bm) / bm if bm else 0.0
        cm, cs = tot("closed_loop_start_order", "migrations"), tot("closed_loop_start_order", "migrations_saved")
        clm, cls = tot("closed_loop_lars", "migrations"), tot("closed_loop_lars", "migrations_saved")
        cld = tot("closed_loop_lars", "drained_hosts")
        cch = 100.0 * (clm - cm) / cm if cm else 0.0
        # the verdict reads the per-pool changes' 95% CI (review-27-s4 item 3): a sum that falls by less than
        # the spread across pools is no change
        per_pool = [100.0 * (r['migrations'] - r['start_order']['migrations']) / max(r['start_order']['migrations'], 1)
                    for r in rs]
        pd, ph = statistics.mean(per_pool), half(per_pool)
        verdict = ("not reproduced (no change)" if lm == bm else ONE_POOL if ph is None else
                   ("reproduced" if pd + ph <= -4.0 else "direction reproduced, smaller") if pd + ph < 0 else
                   "not reproduced (more)" if pd - ph > 0 else "not reproduced (no significant change)")
        if all(r.get("random_order") for r in rs):
            rm, rsv = tot("random_order", "migrations"), tot("random_order", "migrations_saved")
            rnd, rch = f"{rm} ({rsv})", (f"{100.0 * (lm - rm) / rm:+.1f}%" if rm else "—")
        else:  # runs stored before the random order
            rnd, rch = "—", "—"
        lines.append(f"| {p} | {bd} | {(bm + bs) / max(bd, 1):.2f} | {bm} ({bs}) | {lm} ({ls}) | {ch:+.1f}% | −4.32% / −4.55% | "
                     f"{tot('lars', 'reordered_drains')} | {tot('start_order', 'waited')} / {tot('lars', 'waited')} | {verdict} | "
                     f"{rnd} | {rch} | {cm} ({cs}) → {clm} ({cls}) | {cch:+.1f}% | {cld} | "
                     f"{pm([100.0 * (r['migrations'] - r['start_order']['migrations']) / max(r['start_order']['migrations'], 1) for r in rs])} | "
                     f"{sum(r['failures'] for r in rs)} | {sum(r['migration_failures'] for r in rs)} |")
    lines += ["", "Verdict (E3.5, same trajectory), on the per-pool change and its 95% CI: *reproduced* = the CI lies at or below "
              "−4%; *direction reproduced, smaller* = below 0, not all below −4%; *not reproduced (no significant change)* = the CI "
              "holds 0; *not reproduced (no change)* = as many migrations; *not reproduced (more)* = the CI lies above 0. "
              "The closed-loop change is not a verdict: it replays the hosts the start-order run chose into a trajectory that has "
              "diverged from it, where those hosts are no longer the fullest — the replayed maintenance drains of pool 1 hold "
              "2,034 VMs in the start order's own run, 1,004 in LARS's and 1,078 in a random order's, no drain abandoned "
              "(`results/003/e35-closed-loop/closed-loop.txt`): the halving is the replay's selection effect, not the order. "
              "VM failures: arrivals no host could take in the start-order run, summed over the pools (the same-trajectory "
              "orders share it; the closed-loop runs' own failures are not stored); migrations without a target: queued "
              "migrations no host could take, each abandoning its drain."]
    # diagnostics: LA-Binary's classes on this trace, and LAVA / NILAS against prediction noise
    def dmean(rs, f):
        return statistics.mean(f(r["diagnostics"]) for r in rs)
    lines += ["", f"Why LA-Binary gains nothing here — its classes on this trace (E3.1 oracle runs, mean over {seeds} pools, after the warm-up; "
              "L = predicted > 2 h; an L host: the longest remaining one-shot predicted time of its VMs > 2 h, an S host: a non-empty host otherwise):", "",
              "| policy | VMs predicted L % | core-hours of L VMs % | L hosts % | S hosts % | empty hosts % | placements on a same-class host % | "
              "on the other class % | on an empty host % | S VMs placed on an L host (% of S VMs) |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in ["best-fit", "la-binary"]:
        rs = table[("oracle", p)]
        def share(d, i):
            return 100.0 * d["by_tier"][i] / max(d["placements"], 1)
        if p == "la-binary":
            same, other, empty = dmean(rs, lambda d: share(d, 0)), dmean(rs, lambda d: share(d, 1)), dmean(rs, lambda d: share(d, 2))
        else:  # best fit: the class match of its choices
            same = dmean(rs, lambda d: 100.0 * (d["by_tier"][0] - d["short_on_long"] - d["long_on_short"]) / max(d["placements"], 1))
            other = dmean(rs, lambda d: 100.0 * (d["short_on_long"] + d["long_on_short"]) / max(d["placements"], 1))
            empty = dmean(rs, lambda d: share(d, 3))
        sl = dmean(rs, lambda d: 100.0 * d["short_on_long"] / max(d["placements"] * (1 - d["long_vms"]), 1))
        lines.append(f"| {p} | {dmean(rs, lambda d: 100 * d['long_vms']):.1f} | {dmean(rs, lambda d: 100 * d['long_core_hours']):.1f} | "
                     f"{dmean(rs, lambda d: 100 * d['long_hosts']):.1f} | {dmean(rs, lambda d: 100 * d['short_hosts']):.2f} | "
                     f"{100 * statistics.mean(r['empty_hosts'] for r in rs):.1f} | {same:.1f} | {other:.1f} | {empty:.2f} | {sl:.1f} |")
    lines += ["", f"LA-Binary against the pool (oracle, pools 1–{k}): Δ empty hosts vs best fit (pp, mean ± 95% CI half-width), and the S hosts and S-on-L placements it gets:", "",
              "| pool | LA-Binary Δ pp | S hosts % | S VMs placed on an L host % |", "|---|---:|---:|---:|"]
    for name, _ in LAB_POOLS:
        if name in lab:
            rs = [next(r for r in rows if r["policy"] == "la-binary") for rows in lab[name]]
        else:
            rs = table[("oracle", "la-binary")][:k]
        sl = dmean(rs, lambda d: 100.0 * d["short_on_long"] / max(d["placements"] * (1 - d["long_vms"]), 1))
        lines.append(f"| {name} | {pm([r['empty_hosts_pp_vs_best_fit'] for r in rs])} | {dmean(rs, lambda d: 100 * d['short_hosts']):.2f} | {sl:.1f} |")
    lines += ["", f"E3.2 explained — how the policies react to noise (same runs as E3.2, mean over {k} pools; counts per 1,000 measured placements):", "",
              "| A | NILAS Δ pp | NILAS mean temporal cost | NILAS cost-0 placements % | LAVA Δ pp | LAVA RECYCLING hosts % | "
              "LAVA class raises at a deadline | raises by a longer VM | class drops | LAVA placements: recycling longer class / open same class / other non-empty / empty % |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for a in ACCURACIES:
        n, l = accd[(a, "nilas")], accd[(a, "lava")]
        per = lambda f: dmean(l, lambda d: 1000.0 * d[f] / max(d["placements"], 1))
        tiers = " / ".join(f"{dmean(l, lambda d: 100.0 * d['by_tier'][i] / max(d['placements'], 1)):.1f}" for i in range(4))
        lines.append(f"| {a} | {statistics.mean(acc[(a, 'nilas')]):+.2f} | {dmean(n, lambda d: d['mean_temporal_cost']):.3f} | "
                     f"{dmean(n, lambda d: 100 * d['zero_cost']):.1f} | {statistics.mean(acc[(a, 'lava')]):+.2f} | "
                     f"{dmean(l, lambda d: 100 * d['recycling_hosts']):.1f} | {per('class_up_deadline'):.2f} | {per('class_up_longer_vm'):.2f} | "
                     f"{per('class_down'):.2f} | {tiers} |")
    # model metrics
    base = metrics["runs"][0]
    m0 = base["result"]
    fit = m0["fit"]
    lines += ["", f"Model metrics (ALGORITHMS.md §5.8, E3.6) on every VM of the test split ({m0['learned']['vms']:,} VMs, "
              f"{m0['learned']['censored']:,} censored), trained on the dev split ({m0['training_vms']:,} VMs; "
              f"{fit['parameters']} parameters, {fit['iterations']} Newton iterations); long class: T > {m0['long_h']:g} h "
              f"({m0['learned']['long']:,} of {m0['learned']['labelled']:,} VMs with a known label); `{base['command']}`.", "",
              "| predictor | precision | recall | F1 | precision at 70% recall (paper: 0.99 for T > 168 h) | C-index (paper: 0.84) | "
              "median abs log10 error | mean abs log10 error |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for k in ["learned", "distributional"]:
        m = m0[k]
        name = "learned (discrete-time hazards)" if k == "learned" else "distributional (Kaplan–Meier, no features)"
        lines.append(f"| {name} | {fmt(m['precision'])} | {fmt(m['recall'])} | {fmt(m['f1'])} | "
                     f"{fmt(m.get('precision_at_recall'))} | {fmt(m['c_index'])} | "
                     f"{m['median_abs_log10_error']:.3f} | {m['mean_abs_log10_error']:.3f} |")
    lines += ["", "Precision at 70% recall is threshold-free: the highest threshold on L̂ whose recall of the long class reaches "
              "70% (tied L̂ on the same side), as the paper reads its model (§6.4). The paper's class is T > 168 h; here "
              f"T > {m0['long_h']:g} h (see E3.6)."]
    lines += model_verdict_lines(m0)
    lines += ["", "Calibration of the learned distributions: mean predicted P(T > h) over the test VMs against the Kaplan–Meier "
              "estimate of their own lifetimes (and of the dev split's, the distributional predictor's answer):", "",
              "| h (hours) | " + " | ".join(f"{c['h']:g}" for c in m0["calibration"]) + " |",
              "|---|" + "---:|" * len(m0["calibration"]),
              "| learned, mean P(T > h) | " + " | ".join(f"{c['learned']:.3f}" for c in m0["calibration"]) + " |",
              "| test split, Kaplan–Meier | " + " | ".join(f"{c['kaplan_meier']:.3f}" for c in m0["calibration"]) + " |",
              "| dev split, Kaplan–Meier | " + " | ".join(f"{c['training_kaplan_meier']:.3f}" for c in m0["calibration"]) + " |"]
    lines += ["", "F1 of the long class by uptime quantile q (uptime = q/20 of the lifetime; paper: 0.8 at q = 0, > 0.9 from q = 8):", "",
              "| q | " + " | ".join(str(q) for q in range(20)) + " | paper | verdict |",
              "|---|" + "---:|" * 20 + "---|---|"]
    for k in ["learned", "distributional"]:
        f1 = m0[k]["f1_by_uptime_quantile"]
        at0, late = abs(f1[0] - PAPER_F1_Q0) <= CLOSE_F1, all(x > PAPER_F1_LATE for x in f1[PAPER_F1_FROM:])
        v = "reproduced" if at0 and late else "partly (q = 0 only)" if at0 else f"partly (q ≥ {PAPER_F1_FROM} only)" if late \
            else "not reproduced"
        lines.append(f"| {k} | " + " | ".join(f"{x:.2f}" for x in f1) +
                     f" | {PAPER_F1_Q0:g} at q = 0; > {PAPER_F1_LATE:g} from q = {PAPER_F1_FROM} | {v} |")
    lines += ["", f"Verdict (E3.6, F1): *reproduced* = F1 at q = 0 within {CLOSE_F1:g} of the paper's {PAPER_F1_Q0:g} and above "
              f"{PAPER_F1_LATE:g} at every q ≥ {PAPER_F1_FROM}; *partly* = one of the two; *not reproduced* = neither. The paper's "
              f"long class is T > 168 h; here it is T > {m0['long_h']:g} h, because 168 h cannot be observed in the 5.7-day Azure "
              "test window (nor learned from the 3.5-day dev split)."]
    lines += ["", "Sensitivity of the learned model (same split; the default first):", "",
              "| learned model | parameters | distinct distributions | precision | recall | F1 | C-index | median abs log10 error |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in metrics["runs"]:
        m, f_ = r["result"]["learned"], r["result"]["fit"]
        lines.append(f"| {r['label']} | {f_['parameters']} | {r['result']['learned_distributions']:,} | {fmt(m['precision'])} | "
                     f"{fmt(m['recall'])} | {fmt(m['f1'])} | {fmt(m['c_index'])} | {m['median_abs_log10_error']:.3f} |")
    lines += ["", f"E3.1 with the learned predictor — Δ empty hosts vs best fit (pp), mean ± 95% CI half-width over pools 1–{s3} (seeds 1–{s3}), "
              "every predictor on the same pools. The learned and distributional rows are a verdict on our predictors (the "
              "discrete-time hazards model of the table above, C-index 0.66 against the paper's 0.84, and Kaplan–Meier without "
              "features), not on LA-Binary, NILAS or LAVA: the paper's model rows (+5.0, +6.1, +6.5) are compared with the "
              "noisy A = 0.9 stand-in in E3.1.", "",
              "| predictor | LA-Binary Δ pp | NILAS Δ pp | LAVA Δ pp | failures NILAS / LAVA (mean) | paper (LA-Binary / NILAS / LAVA) | "
              "verdict (LA-Binary / NILAS / LAVA) |",
              "|---|---:|---:|---:|---:|---|---|"]
    for label, name in [("oracle", "oracle"), ("model", "noisy A = 0.9"), ("distributional", "distributional (Kaplan–Meier)"),
                        ("learned", "learned (our hazards model)")]:
        cells, vs, papers = [], [], []
        # the learned model against the paper's production-model rows; the oracle and noisy rows are E3.1's arms on
        # fewer pools (their verdicts are E3.1's), the feature-free Kaplan–Meier a reference with no paper row
        paper_label = {"oracle": "oracle", "model": "model", "learned": "model"}.get(label)
        for p in ["la-binary", "nilas", "lava"]:
            xs = [r["empty_hosts_pp_vs_best_fit"] for r in table[(label, p)][:s3]]
            cells.append(pm(xs))
            paper = PAPER_E31.get((paper_label, p), "—") if paper_label else "—"
            papers.append(paper)
            vs.append(e31_verdict(xs, paper))
        fl = [statistics.mean(r["failures"] for r in table[(label, p)][:s3]) for p in ["nilas", "lava"]]
        v = " / ".join(vs) if label == "learned" else "—"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {fl[0]:.0f} / {fl[1]:.0f} | {' / '.join(papers)} | {v} |")
    lines += ["", f"Verdict (E3.1 with the learned predictor): E3.1's rule on the per-pool Δs of pools 1–{s3}, the learned row "
              f"against the paper's production-model rows; the oracle and noisy rows are E3.1's arms on fewer pools (their "
              f"verdicts are E3.1's, over {seeds} pools), Kaplan–Meier a reference without features (no paper row)."]
    lines += fuller_lines(raw, table, alive)
    lines += mean_arms(raw, table, e33, acc, k)
    lines += ["", "E3.7 — the paper's production A/B test of NILAS (seed 003 §6, ALGORITHMS.md §5.9): no run.", "",
              "| experiment | reported | paper | packlab | verdict |", "|---|---|---|---|---|",
              "| E3.7 production A/B (NILAS vs the production scheduler) | Δ empty hosts; CPU and memory stranding | "
              "+2.3 to +9.2 pp; CPU stranding −3%, memory stranding −2% | — | not reproducible here: it needs a production "
              "fleet serving live traffic with NILAS in one arm; packlab replays traces (E3.1 is the trace-driven counterpart) |"]
    return finish(lines, raw, f"--seeds {seeds}")


def model_verdict_lines(m0):
    """The learned model's C-index and precision at 70% recall beside the paper's production model (seed 003 App. B,
    ALGORITHMS.md §5.2: C-index 0.84; 99% precision at 70% recall for T > 7 days), with their verdicts (CLOSE_MODEL),
    and why E3.6 and the accuracy frontier carry no CI."""
    learned, km = m0["learned"], m0["distributional"]
    out = ["", "The learned model against the paper's (seed 003 App. B: a GBDT on production features; ALGORITHMS.md §5.2), "
           "the Kaplan–Meier predictor (no features) as the reference of a model that knows nothing of the VM:", "",
           "| metric | paper | learned | distributional (reference) | verdict |", "|---|---:|---:|---:|---|"]
    for name, paper, key, note in [("C-index", PAPER_C_INDEX, "c_index", ""),
                                   ("precision at 70% recall of the long class", PAPER_PRECISION_AT_70,
                                    "precision_at_recall", f"; the paper's class T > 168 h, ours T > {m0['long_h']:g} h")]:
        x = learned.get(key)
        d = x - paper
        v = ("reproduced" if abs(d) <= CLOSE_MODEL else "not reproduced (" + ("below" if d < 0 else "above") +
             f" by {abs(d):.2f}{note})")
        out.append(f"| {name} | {paper:g} | {fmt(x)} | {fmt(km.get(key))} | {v} |")
    out += ["", f"Verdicts (model metrics): *reproduced* = within {CLOSE_MODEL:g} of the paper's figure; *not reproduced "
            "(below / above)* otherwise. E3.6's tables (these metrics, the calibration and F1 by uptime) and the accuracy "
            "frontier (`results/003/accuracy-frontier/frontier.md`) carry no CI: the model is fitted once on the dev split and "
            "evaluated once on every VM of the test split, deterministically (no seed, no pool instances to repeat over; the "
            "variation that matters, other trace windows, cannot be drawn from one 5.7-day trace), and the frontier is the "
            "default scenario's one pool (seed 1), the run the playground's frontier reproduces; E3.2 above is the frontier "
            "over 3 pools with its CIs."]
    return out


def mean_arms(raw, table, e33, acc, k):
    """The noisy predictor's other estimate (ALT_ESTIMATE, the posterior median) beside §5.2's posterior mean (the
    default) on the same pools: E3.1 (A = 0.9), E3.2's accuracies and E3.3's reprediction ablation; Δ empty hosts vs
    best fit, mean ± 95% CI half-width (pp)."""
    runs = [r for r in raw["runs"] if r.get("estimate") == ALT_ESTIMATE]
    if not runs:  # runs stored before the mean arms
        return []
    m31, m32, m33 = {}, {}, {}
    for r in runs:
        if r.get("e31_mean"):
            for x in r["results"]:
                m31.setdefault(x["policy"], []).append(x["empty_hosts_pp_vs_best_fit"])
        elif r.get("e33"):
            m33.setdefault(r["predictor"], []).append(r["results"][-1]["empty_hosts_pp_vs_best_fit"])
        else:
            for x in r["results"]:
                m32.setdefault((r["accuracy"], x["policy"]), []).append(x["empty_hosts_pp_vs_best_fit"])
    n31 = len(m31["nilas"])
    lines = ["", "The noisy predictor's estimate: §5.2's posterior mean with the wrong component capped at 14 days (the default, "
             "`capped-mean`) against the posterior median with T uncapped (`--noisy-estimate median`, the default of defaults "
             "sets 9–10), Δ empty hosts vs best fit (pp), mean ± 95% CI half-width, same pools. At u = 0 both report L̂ "
             "itself (App. G.1 noises the label), so LA-Binary and the no-reprediction rows are the same simulations; they "
             "differ in the repredictions at u > 0, where the capped mean adds the wrong component's (1 − A)-weighted tail "
             "(at A = 0.9, 1 s after arrival, 11.1 h for L̂ = 2 h, 4.6 h for L̂ = 3 min).", "",
             "| experiment | policy | capped mean (default) | median |", "|---|---|---:|---:|"]
    for p in POLICIES[1:]:
        lines.append(f"| E3.1, noisy A = 0.9, {n31} pools | {p} | {pm([r['empty_hosts_pp_vs_best_fit'] for r in table[('model', p)][:n31]])} | "
                     f"{pm(m31[p])} |")
    for a in sorted({a for a, _ in m32}):
        for p in ["nilas", "lava"]:
            lines.append(f"| E3.2, A = {a:g}, {len(m32[(a, p)])} pools | {p} | {pm(acc[(a, p)][:len(m32[(a, p)])])} | {pm(m32[(a, p)])} |")
    for pred, label in [("noisy:0.9", "repredicted"), ("one-shot:0.9", "no reprediction")]:
        lines.append(f"| E3.3, A = 0.9, {label}, {len(m33[pred])} pools | nilas | {pm([x[2] for x in e33[pred]][:len(m33[pred])])} | "
                     f"{pm(m33[pred])} |")
    return lines


def finish(lines, raw, args):
    lines += ["", f"Wall time {raw['wall_time_s']} s for the simulations (`python3 scripts/seed003_findings.py {args}`)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
