#!/usr/bin/env python3
"""Seed 003 (lifetime-aware allocation) E3.1 and E3.3 on synthetic pools (ALGORITHMS.md §5.7): the lifetime
mixture fitted to the paper's anchors, Poisson arrivals at 80% target CPU allocation (Little's law), C2-like
shapes of 4 GB per vCPU, pools of 60 vCPU / 240 GB hosts, 7 weeks (the paper's trace length).

Runs the native CLI (`target/release/packlab lifetime run --workload synthetic:hosts=H,weeks=W,… --json`) for a few
pool sizes and seeds (each seed = one synthetic pool), stores every raw result with its command, seed and engine
version (findings.engine(), and the scale tag "paper") as JSON (results/003/synthetic.json) and renders the Markdown tables with the paper's numbers beside
packlab's (results/003/synthetic.md).

- E3.1: best fit, LA-Binary, NILAS, LAVA with the oracle and with the App. G.1 noisy predictor at A = 0.9
  (the stand-in for the paper's model), the pool in its steady state from the start, the default 2-day warm-up.
- E3.3: NILAS with the oracle in the "ideal" setting of App. G.2 (the pool starts empty, no warm-up: every VM is
  placed by NILAS) against the theoretical optimum of empty hosts (§5.8), beside best fit; and NILAS with noisy
  A = 0.9 predictions with and without reprediction (steady start, default warm-up).

Stranding (inflation, §5.8, every 6 h: the CLI default) is measured in the E3.1 runs and off (`--stranding-h 0`)
in the E3.3 runs.

Usage: python3 scripts/seed003_synthetic.py [--seeds 3] [--weeks 7] [--hosts 100,400]
       python3 scripts/seed003_synthetic.py --render [--stdout]
       (from the repository root, after `cargo build --release`; --render writes synthetic.md anew from the stored
       synthetic.json without running anything, --stdout prints it instead; tests/integration/findings_tables.rs compares)
"""
import json, os, statistics, subprocess, sys, time

from findings import emit, engine, half95

BIN = "target/release/packlab"
OUT = "results/003"
POLICIES = ["best-fit", "la-binary", "nilas", "lava"]
PAPER_E31 = {  # seed 003 §6 (ALGORITHMS.md §5.9), Δ empty hosts in pp vs the production baseline, 24 C2 pools
    ("oracle", "nilas"): "+9.5", ("oracle", "la-binary"): "+7.5", ("oracle", "lava"): "—",
    ("model", "lava"): "+6.5", ("model", "nilas"): "+6.1", ("model", "la-binary"): "+5.0",
}


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def engine_text(eng):
    """The engine as synthetic.md names it: "packlab X (commit C)" from findings.engine()'s {"version", "git"}
    (runs stored before it, with the engine as that one string, give it unchanged)."""
    return eng if isinstance(eng, str) else f"{eng['version']} (commit {eng['git']})"


def run(spec, seed, args, stranding=False):
    cmd = [BIN, "lifetime", "run", "--json", "--workload", f"synthetic:{spec},seed={seed}", "--seed", str(seed)] + \
        ([] if stranding else ["--stranding-h", "0"]) + args
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return " ".join(cmd), json.loads(out)


def mean_sd(xs):
    return statistics.mean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def verdict(xs, paper):
    """Direction of the mean of per-pool Δs xs against 0: its 95% Student-t CI above 0, below 0, or containing it."""
    m, h = statistics.mean(xs), half95(xs)
    if m - h > 0:
        return "direction reproduced, smaller" if paper != "—" else "gain"
    if m + h < 0:
        return "not reproduced (loss)"
    return "not reproduced (no significant gain)"


def run_all():
    """Every run (E3.1 and E3.3 per pool size and seed), stored in results/003/synthetic.json; returns the raw
    results."""
    seeds = int(arg("--seeds", "3"))
    weeks = float(arg("--weeks", "7"))
    sizes = [int(h) for h in arg("--hosts", "100,400").split(",")]
    os.makedirs(OUT, exist_ok=True)
    t0 = time.time()
    eng = engine()
    raw = {"experiment": "E3.1/E3.3 on synthetic pools (ALGORITHMS.md §5.7)", "scale": "paper", "engine": eng,
           "runs": []}
    for h in sizes:
        for s in range(1, seeds + 1):
            # E3.1 from three starts: steady (the stationary VMs at age 0, placed by the policy under test),
            # stationary (App. F: the alive set with its ages, placed first by best fit, the same for every
            # policy) and empty (App. G.2's ideal: the pool ramps up, every VM placed by the policy)
            for start, extra, strand in [("steady", [], True),
                                         ("stationary", ["--split", "synthetic", "--alive-at-start"], True),
                                         ("empty", [], False)]:
                for pred in ["oracle", "noisy:0.9"]:
                    spec = f"hosts={h},weeks={weeks:g}" + ("" if start == "steady" else f",start={start}")
                    cmd, rows = run(spec, s, ["--predictor", pred] + extra, stranding=strand)
                    raw["runs"].append({"command": cmd, "engine": eng, "experiment": "E3.1", "hosts": h, "seed": s,
                                        "predictor": pred, "start": start, "results": rows})
            # E3.3: the ideal NILAS (empty start, no warm-up, oracle) beside best fit, against the optimum
            spec = f"hosts={h},weeks={weeks:g},start=empty"
            cmd, rows = run(spec, s, ["--predictor", "oracle", "--policies", "nilas", "--warmup-h", "0"])
            raw["runs"].append({"command": cmd, "engine": eng, "experiment": "E3.3 ideal", "hosts": h, "seed": s,
                                "predictor": "oracle", "results": rows})
            for pred in ["noisy:0.9", "one-shot:0.9"]:
                spec = f"hosts={h},weeks={weeks:g}"
                cmd, rows = run(spec, s, ["--predictor", pred, "--policies", "nilas"])
                raw["runs"].append({"command": cmd, "engine": eng, "experiment": "E3.3 reprediction", "hosts": h,
                                    "seed": s, "predictor": pred, "results": rows})
    raw["wall_time_s"] = round(time.time() - t0, 1)
    raw["wall_time_note"] = "measured on a loaded 2-core machine shared with other work"
    with open(f"{OUT}/synthetic.json", "w") as f:
        json.dump(raw, f, indent=1, sort_keys=True)
    return raw


def render(raw):
    """results/003/synthetic.md from the stored raw results `raw` (synthetic.json): the pool sizes, seeds and
    weeks are read back from its runs (`hosts`, `seed`, the workload spec's `weeks=` in the command)."""
    sizes = list(dict.fromkeys(r["hosts"] for r in raw["runs"]))
    seeds = max(r["seed"] for r in raw["runs"])
    weeks = float(raw["runs"][0]["command"].split("weeks=")[1].split(",")[0])
    eng = engine_text(raw["engine"])
    e31, e33 = {}, {}
    for run_ in raw["runs"]:
        h, rows = run_["hosts"], run_["results"]
        if run_["experiment"] == "E3.1":
            label = "oracle" if run_["predictor"] == "oracle" else "model"
            for r in rows:
                e31.setdefault((h, run_.get("start", "steady"), label, r["policy"]), []).append(r)
        elif run_["experiment"] == "E3.3 ideal":
            e33.setdefault((h, "ideal"), []).append(rows)
        else:
            e33.setdefault((h, run_["predictor"]), []).append(rows)

    cmdline = f"python3 scripts/seed003_synthetic.py --seeds {seeds} --weeks {weeks:g} --hosts {','.join(map(str, sizes))}"
    lines = [f"Synthetic pools (ALGORITHMS.md §5.7; `{cmdline}`, {eng}; raw results in results/003/synthetic.json): "
             f"60 vCPU / 240 GB hosts, {weeks:g} weeks, Poisson arrivals at 80% target CPU allocation, lifetimes from the "
             "mixture fitted to the paper's anchors, every VM its own batch.", "",
             f"E3.1 on synthetic pools — Δ empty hosts vs best fit on the same arrivals (pp), mean ± s.d. over {seeds} pools "
             "per size, 2-day warm-up; paper: 24 production C2 pools, 7 weeks. Starts: *stationary* = App. F's reconstructed "
             "alive set (the stationary VMs with their ages, placed first by best fit: the same initial state for every policy), "
             "*steady* = the stationary VMs at age 0 placed by the policy under test, *empty* = App. G.2's ideal (the pool "
             "ramps up, every VM placed by the policy). CI = 95% Student-t interval of the mean Δ (n − 1 degrees of freedom).", "",
             "| hosts | start | predictor | policy | paper Δ pp | packlab Δ pp | CI (pp) | empty hosts % | optimum % | allocation % | failures (mean) | verdict |",
             "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    starts = [x for x in ["stationary", "steady", "empty"] if any(k[1] == x for k in e31)]
    for h in sizes:
      for start in starts:
        for label in ["oracle", "model"]:
            for p in POLICIES:
                rs = e31[(h, start, label, p)]
                xs = [r["empty_hosts_pp_vs_best_fit"] for r in rs]
                d = mean_sd(xs)
                e = 100 * statistics.mean(r["empty_hosts"] for r in rs)
                o = 100 * statistics.mean(r["optimum_empty_hosts"] for r in rs)
                al = 100 * statistics.mean(r["allocation"] for r in rs)
                fl = statistics.mean(r["failures"] for r in rs)
                paper = PAPER_E31.get((label, p), "0 (baseline)" if p == "best-fit" else "—")
                v = "baseline" if p == "best-fit" else verdict(xs, paper)
                pl = "noisy A = 0.9 (stand-in for the model)" if label == "model" else "oracle"
                h95 = half95(xs)
                ci = "—" if p == "best-fit" else f"[{d[0] - h95:+.2f}, {d[0] + h95:+.2f}]"
                lines.append(f"| {h} | {start} | {pl} | {p} | {paper} | {d[0]:+.2f} ± {d[1]:.2f} | {ci} | {e:.2f} | {o:.2f} | {al:.1f} | {fl:.0f} | {v} |")
    strand_starts = [x for x in starts if all(r.get("stranding_samples", 0) > 0 for k, rs in e31.items() if k[1] == x for r in rs)]
    if strand_starts:
        lines += ["", f"Stranding on synthetic pools (§5.8 inflation every 6 h), {seeds} pools per size; Δ = policy − best fit per pool, "
                  "mean ± 95% CI half-width, and relative to best fit's stranding. Paper (E3.7, NILAS in production): CPU −3%, "
                  "memory −2%.", "",
                  "| hosts | start | predictor | policy | stranded CPU % | Δ CPU pp | Δ CPU relative | stranded memory % | Δ memory pp | "
                  "Δ memory relative | verdict (CPU / memory) |",
                  "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
        for h in sizes:
          for start in strand_starts:
            for label in ["oracle", "model"]:
                base = e31[(h, start, label, "best-fit")]
                for p in POLICIES:
                    rs = e31[(h, start, label, p)]
                    cells, vs = [], []
                    for f in ["stranded_cpu", "stranded_mem"]:
                        x = 100 * statistics.mean(r[f] for r in rs)
                        if p == "best-fit":
                            cells += [f"{x:.2f}", "—", "—"]
                            continue
                        dd = [100 * (a[f] - b[f]) for a, b in zip(rs, base)]
                        d = statistics.mean(dd)
                        h95 = half95(dd)
                        b = 100 * statistics.mean(r[f] for r in base)
                        cells += [f"{x:.2f}", f"{d:+.2f} ± {h95:.2f}", f"{100 * d / b:+.1f}%" if b > 0 else "—"]
                        vs.append("direction reproduced (less stranding)" if d < -h95 else
                                  "not reproduced (more stranding)" if d > h95 else "not reproduced (no significant change)")
                    pl = "noisy A = 0.9" if label == "model" else "oracle"
                    v = "baseline" if p == "best-fit" else " / ".join(vs)
                    lines.append(f"| {h} | {start} | {pl} | {p} | " + " | ".join(cells) + f" | {v} |")
    lines += ["", f"E3.3 on synthetic pools — NILAS against the theoretical optimum of empty hosts (§5.8), mean over {seeds} pools "
              "per size; paper (App. G.2, Fig. 16): the ideal NILAS (oracle, highest priority, no warm-up) is close to the "
              "optimum; without repredictions NILAS is much worse.", "",
              "| hosts | run | NILAS empty hosts % | best fit empty hosts % | optimum % | NILAS gap to optimum (pp) | best fit gap (pp) | allocation % | verdict |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for h in sizes:
        for key, label in [("ideal", "ideal: oracle, pool starts empty, no warm-up"),
                           ("noisy:0.9", "noisy A = 0.9, repredicted (steady start, warm-up)"),
                           ("one-shot:0.9", "noisy A = 0.9, no reprediction (steady start, warm-up)")]:
            runs = e33[(h, key)]
            bf = [rows[0] for rows in runs]
            ni = [rows[-1] for rows in runs]
            n_e = 100 * statistics.mean(r["empty_hosts"] for r in ni)
            b_e = 100 * statistics.mean(r["empty_hosts"] for r in bf)
            opt = 100 * statistics.mean(r["optimum_empty_hosts"] for r in ni)
            al = 100 * statistics.mean(r["allocation"] for r in ni)
            if key == "ideal":
                # per pool (same seed): NILAS's gap to the optimum, and NILAS − best fit, each with its 95% CI
                gg = [100 * (r["optimum_empty_hosts"] - r["empty_hosts"]) for r in ni]
                dd = [100 * (a["empty_hosts"] - b["empty_hosts"]) for a, b in zip(ni, bf)]
                g, g95, d, d95 = statistics.mean(gg), half95(gg), statistics.mean(dd), half95(dd)
                said = (f"NILAS {g:.2f} ± {g95:.2f} pp below the optimum, NILAS − best fit {d:+.2f} ± {d95:.2f} pp; "
                        "paper: about equal to the optimum")
                v = (f"reproduced ({said})" if g - g95 <= 0 else
                     f"direction only (closer to the optimum than best fit: {said})" if d - d95 > 0 else
                     f"not reproduced ({said})")
            elif key == "one-shot:0.9":
                # per pool (same seed): one-shot NILAS's empty hosts minus the repredicted one's, with its 95% CI
                dd = [100 * (a[-1]["empty_hosts"] - b[-1]["empty_hosts"]) for a, b in zip(runs, e33[(h, "noisy:0.9")])]
                d, h95 = statistics.mean(dd), half95(dd)
                v = (f"direction reproduced, smaller ({d:+.2f} ± {h95:.2f} pp vs repredicted; paper: much worse)"
                     if d + h95 < 0 else
                     f"not reproduced ({'no significant loss' if d - h95 <= 0 else 'a gain'} without reprediction: "
                     f"{d:+.2f} ± {h95:.2f} pp vs repredicted)")
            else:
                v = "reference"
            lines.append(f"| {h} | {label} | {n_e:.2f} | {b_e:.2f} | {opt:.2f} | {opt - n_e:.2f} | {opt - b_e:.2f} | {al:.1f} | {v} |")
    return "\n".join(lines) + "\n"


def main():
    if "--render" in sys.argv:
        with open(f"{OUT}/synthetic.json") as f:
            raw = json.load(f)
    else:
        raw = run_all()
    emit(f"{OUT}/synthetic.md", render(raw))
    print(f"wall time {raw['wall_time_s']} s (loaded machine) -> {OUT}/synthetic.md", file=sys.stderr)


if __name__ == "__main__":
    main()
