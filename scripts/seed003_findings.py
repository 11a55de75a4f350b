#!/usr/bin/env python3
"""Seed 003 (lifetime-aware allocation) experiments E3.1 and E3.2 on the Azure 2017 arrivals (test split).

Runs the native CLI (`target/release/packlab lifetime`, default pool: 20% of the tenant batches, 40-core /
128 GB hosts sized so the peak demand fills 95%) for several seeds (each seed = one pool instance), stores every
raw result as JSON under results/003/ and prints the Markdown tables the README includes.

Usage: python3 scripts/seed003_findings.py [--seeds 5]   (from the repository root, after `make native`)
"""
import json, statistics, subprocess, sys, os, time

BIN = "target/release/packlab"
OUT = "results/003"
POLICIES = ["best-fit", "la-binary", "nilas", "lava"]
PAPER_E31 = {  # seed 003 §6 (ALGORITHMS.md §5.9), Δ empty hosts in pp vs the production baseline
    ("oracle", "nilas"): "+9.5", ("oracle", "la-binary"): "+7.5", ("oracle", "lava"): "—",
    ("model", "lava"): "+6.5", ("model", "nilas"): "+6.1", ("model", "la-binary"): "+5.0",
}


def run(args):
    cmd = [BIN, "lifetime", "--json"] + args
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return " ".join(cmd), json.loads(out)


def mean_sd(xs):
    return statistics.mean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def main():
    seeds = 5
    if "--seeds" in sys.argv:
        seeds = int(sys.argv[sys.argv.index("--seeds") + 1])
    os.makedirs(OUT, exist_ok=True)
    t0 = time.time()
    raw = {"experiment": "E3.1/E3.2", "workload": "azure2017-arrivals (test split)", "runs": []}
    table = {}
    for pred, label in [("oracle", "oracle"), ("noisy:0.9", "model")]:
        for s in range(1, seeds + 1):
            cmd, rows = run(["--predictor", pred, "--seed", str(s)])
            raw["runs"].append({"command": cmd, "seed": s, "predictor": pred, "results": rows})
            for r in rows:
                table.setdefault((label, r["policy"]), []).append(r)
    acc = {}
    for a in [0.5, 0.7, 0.9, 1.0]:
        for s in range(1, min(seeds, 3) + 1):
            cmd, rows = run(["--predictor", f"noisy:{a}", "--policies", "nilas,lava", "--seed", str(s)])
            raw["runs"].append({"command": cmd, "seed": s, "predictor": f"noisy:{a}", "results": rows})
            for r in rows:
                acc.setdefault((a, r["policy"]), []).append(r["empty_hosts_pp_vs_best_fit"])
    # E3.3: NILAS against the optimum, and without reprediction (noisy A = 0.9 one-shot vs repredicted)
    e33 = {}
    for pred in ["oracle", "noisy:0.9", "one-shot:0.9"]:
        for s in range(1, min(seeds, 3) + 1):
            cmd, rows = run(["--predictor", pred, "--policies", "nilas", "--seed", str(s), "--stranding-h", "0"])
            raw["runs"].append({"command": cmd, "seed": s, "predictor": pred, "results": rows})
            r = rows[-1]
            e33.setdefault(pred, []).append((r["empty_hosts"], r["optimum_empty_hosts"], r["empty_hosts_pp_vs_best_fit"]))
    # E3.4: the NILAS host-exit cache refresh (noisy A = 0.9, with reprediction)
    e34 = {}
    for refresh in [0, 60, 900]:
        for s in range(1, min(seeds, 3) + 1):
            cmd, rows = run(["--predictor", "noisy:0.9", "--policies", "nilas", "--refresh-s", str(refresh),
                             "--seed", str(s), "--stranding-h", "0"])
            raw["runs"].append({"command": cmd, "seed": s, "refresh_s": refresh, "results": rows})
            e34.setdefault(refresh, []).append(rows[-1]["empty_hosts_pp_vs_best_fit"])
    # E3.5: LARS vs the start-time migration order on the same drain actions (oracle)
    e35 = {}
    for s in range(1, min(seeds, 3) + 1):
        cmd, rows = run(["--defrag", "--policies", "nilas", "--seed", str(s), "--stranding-h", "0"])
        raw["runs"].append({"command": cmd, "seed": s, "defrag": True, "results": rows})
        for r in rows:
            e35.setdefault(r["policy"], []).append(r)
    raw["wall_time_s"] = round(time.time() - t0, 1)
    with open(f"{OUT}/e31_e32.json", "w") as f:
        json.dump(raw, f, indent=1, sort_keys=True)

    lines = [f"E3.1 — Δ empty hosts vs best fit on the same arrivals (pp), mean ± s.d. over {seeds} pool instances (seeds 1–{seeds}); "
             "paper: 24 production pools, 7 weeks.", "",
             "| predictor | policy | paper Δ pp | packlab Δ pp | empty hosts % | optimum % | allocation % | failures (mean) | verdict |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for label in ["oracle", "model"]:
        for p in POLICIES:
            rs = table[(label, p)]
            d = mean_sd([r["empty_hosts_pp_vs_best_fit"] for r in rs])
            e = statistics.mean(r["empty_hosts"] for r in rs) * 100
            o = statistics.mean(r["optimum_empty_hosts"] for r in rs) * 100
            al = statistics.mean(r["allocation"] for r in rs) * 100
            fl = statistics.mean(r["failures"] for r in rs)
            paper = PAPER_E31.get((label, p), "0 (baseline)" if p == "best-fit" else "—")
            if p == "best-fit":
                verdict = "baseline"
            elif d[0] - 2 * d[1] / len(rs) ** 0.5 > 0:
                verdict = "direction reproduced, smaller" if paper not in ("—",) else "gain"
            elif d[0] + 2 * d[1] / len(rs) ** 0.5 < 0:
                verdict = "not reproduced (loss)"
            else:
                verdict = "not reproduced (no significant gain)"
            pl = "noisy A = 0.9 (stand-in for the model)" if label == "model" else "oracle"
            lines.append(f"| {pl} | {p} | {paper} | {d[0]:+.2f} ± {d[1]:.2f} | {e:.2f} | {o:.2f} | {al:.1f} | {fl:.0f} | {verdict} |")
    lines += ["", f"E3.2 — Δ empty hosts (pp) vs accuracy A of the App. G.1 noise model, with reprediction, mean over {min(seeds, 3)} pools; "
              "paper: LAVA degrades less than NILAS.", "",
              "| A | NILAS Δ pp | LAVA Δ pp |", "|---:|---:|---:|"]
    for a in [0.5, 0.7, 0.9, 1.0]:
        lines.append(f"| {a} | {statistics.mean(acc[(a, 'nilas')]):+.2f} | {statistics.mean(acc[(a, 'lava')]):+.2f} |")
    k = min(seeds, 3)
    lines += ["", f"E3.3 — NILAS against the theoretical optimum of empty hosts, and without reprediction, mean over {k} pools; "
              "paper: the ideal NILAS (oracle, no warm-up) is close to the optimum; without repredictions it is much worse.", "",
              "| predictor | NILAS empty hosts % | optimum % | NILAS Δ pp vs best fit |", "|---|---:|---:|---:|"]
    for pred, label in [("oracle", "oracle (our pool starts empty: every VM is placed by NILAS, as in the ideal run)"),
                        ("noisy:0.9", "noisy A = 0.9, repredicted"), ("one-shot:0.9", "noisy A = 0.9, no reprediction")]:
        xs = e33[pred]
        lines.append(f"| {label} | {100 * statistics.mean(x[0] for x in xs):.2f} | {100 * statistics.mean(x[1] for x in xs):.2f} | "
                     f"{statistics.mean(x[2] for x in xs):+.2f} |")
    lines += ["", f"E3.4 — NILAS host-exit cache refresh (noisy A = 0.9, repredicted), Δ empty hosts vs best fit (pp), mean over {k} pools; "
              "paper: caching does not hurt.", "", "| refresh | NILAS Δ pp |", "|---|---:|"]
    for refresh, label in [(0, "none (recomputed at every use)"), (60, "1 min"), (900, "15 min")]:
        lines.append(f"| {label} | {statistics.mean(e34[refresh]):+.2f} |")
    lines += ["", f"E3.5 — live migrations of the defragmentation (drain when < 5% of hosts are empty, up to 3 hosts, 3 concurrent "
              f"20-minute migrations), start-time order vs LARS on the same drain actions, oracle, summed over {k} pools; "
              "paper: 37,108 → 35,505 (−4.32%) and 36,307 → 34,655 (−4.55%) on two one-month traces.", "",
              "| scheduler | start order: migrations (saved) | drained hosts | LARS: migrations (saved) | drained hosts | change | VMs queued per drain: start / LARS | verdict |",
              "|---|---:|---:|---:|---:|---:|---:|---|"]
    for p in ["best-fit", "nilas"]:
        rs = e35[p]
        bm = sum(r["start_order"]["migrations"] for r in rs); bs = sum(r["start_order"]["migrations_saved"] for r in rs)
        bd = sum(r["start_order"]["drained_hosts"] for r in rs)
        lm = sum(r["migrations"] for r in rs); ls = sum(r["migrations_saved"] for r in rs); ld = sum(r["drained_hosts"] for r in rs)
        ch = 100.0 * (lm - bm) / bm if bm else 0.0
        verdict = "reproduced" if lm < bm else "not reproduced"
        lines.append(f"| {p} | {bm} ({bs}) | {bd} | {lm} ({ls}) | {ld} | {ch:+.1f}% | {(bm + bs) / max(bd, 1):.2f} / {(lm + ls) / max(ld, 1):.2f} | {verdict} |")
    lines += ["", f"Wall time {raw['wall_time_s']} s (`python3 scripts/seed003_findings.py --seeds {seeds}`)."]
    md = "\n".join(lines) + "\n"
    with open(f"{OUT}/tables.md", "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
