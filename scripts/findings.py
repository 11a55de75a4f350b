#!/usr/bin/env python3
"""One command for every paper's findings: runs the per-paper scripts (scripts/seed00N_findings.py), which call
the native CLI, store the raw results with their commands, seeds and engine version under results/<paper>/ and
write results/<paper>/tables.md, the tables results/README.md indexes (tests/integration/findings_tables.rs checks them against the stored runs);
after each paper, scripts/findings_links.py writes results/<paper>/links.json (the share link of each stored run).

Usage (from the repository root, after `make native`; `make findings PAPER=... SCALE=...` does both):
    python3 scripts/findings.py [--paper 000|001|002|003|004|all[,...]] [--scale quick|paper]

`--scale paper` (the default) runs each script at the scale docs/ and results/README.md report (for seed 000 the scale
FINDINGS_000_SCALE names, default `paper` = 1/10, about 40 minutes), and with it the paper's other committed scripts
whose outputs results/README.md indexes (EXTRAS: seed 001's Alibaba hot machines, seed 003's accuracy frontier and
synthetic pools). `--scale quick` runs every paper's quick scale (a small version of its experiments; with all
papers, the wall times are written to results/quick.md), stored separately in results/<paper>/quick/ (raw JSON
with commands, seeds and engine version, and tables.md); tests/integration/findings_tables.rs
re-runs the stored quick commands and checks that each quick tables.md is what `--scale quick --render` gives.
Each script prints its own wall time; this driver prints the total per paper.

The per-paper scripts share the helpers below (`from findings import engine, scale, emit`): the engine that made
a run, the --scale argument, writing (or with --stdout printing) a rendered tables.md, and the 95% Student-t
half-width of a mean over seeds (`half95`), and a stored CLI run (`stored_run`).
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# paper -> (script, arguments at the paper scale, arguments at the quick scale or None if it has one scale)
PAPERS = {
    # seed 000's paper tables are at the scale FINDINGS_000_SCALE names (default: paper = 1/10, stored in
    # results/000/; its script also has reduced = 1/20 in results/000/reduced/ and full = the paper's cluster)
    "000": ("scripts/seed000_findings.py", ["--scale", os.environ.get("FINDINGS_000_SCALE", "paper")],
            ["--scale", "quick"]),
    "001": ("scripts/seed001_findings.py", [], ["--scale", "quick"]),
    "002": ("scripts/seed002_findings.py", [], ["--scale", "quick"]),
    "003": ("scripts/seed003_findings.py", ["--seeds", "5"], ["--scale", "quick"]),
    "004": ("scripts/seed004_findings.py", ["--seeds", "10"], ["--scale", "quick"]),
}
# paper -> (scripts run before its findings script, scripts run after it), at the paper scale only: the other
# committed scripts whose outputs results/README.md or the findings tables include (wall times on the 2-core machine:
# seed001_alibaba_hot.py 0.9 s, no simulation, and seed001_findings.py reads its alibaba-hot.json;
# seed003_accuracy_frontier.py 11.7 s; seed003_synthetic.py 122 s, its stored `wall_time_s`)
EXTRAS = {
    "001": (["scripts/seed001_alibaba_hot.py"], []),
    "003": ([], ["scripts/seed003_accuracy_frontier.py", "scripts/seed003_synthetic.py"]),
}
BIN = "target/release/packlab"
# what each quick scale runs (results/quick.md, indexed by results/README.md)
QUICK_WHAT = {
    "000": "E0.1–E0.4 at 1/40 of §2.13 (C = 500 cores), R = 4 runs, 6 bisection steps",
    "001": "E1.1–E1.3 with C2MARL trained 10 episodes per α, 10 evaluation episodes per policy",
    "002": "E2.2 (GPA, c = 1 and 4, ρ = 0.1, 0.01, 0.001, aligned and resampled) and three E2.1 estimators on the "
           "bundled PlanetLab day",
    "003": "E3.1 and its App. F warm-up on pool 1 (oracle and noisy A = 0.9)",
    "004": "E4.1 seed 1 and E4.3 seed 1 on the real Azure load",
}


def engine():
    """The engine behind a run, stored with every raw result: {"version": `packlab --version`, "git": the commit
    (`git describe --always`), with "-dirty" when the engine's sources (src/, Cargo.toml, Cargo.lock) differ from
    it; results/ written earlier in the same `--scale quick` pass do not count}."""
    sh = lambda cmd: subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    dirty = sh(["git", "status", "--porcelain", "--", "src", "Cargo.toml", "Cargo.lock"])
    return {"version": sh([BIN, "--version"]), "git": sh(["git", "describe", "--always"]) + ("-dirty" if dirty else "")}


def scale(scales=("quick", "paper"), default="paper"):
    """The value of --scale in sys.argv (one of `scales`; exits with a message naming the flag otherwise)."""
    s = arg("--scale", default)
    if s not in scales:
        sys.exit(f"--scale must be one of {', '.join(scales)}, got '{s}'")
    return s


def emit(path, text):
    """Write a rendered tables.md to `path`, or print it when --stdout is given (tests/integration/findings_tables.rs compares
    the stored file with `--render --stdout`)."""
    if "--stdout" in sys.argv:
        sys.stdout.write(text)
        return
    with open(os.path.join(ROOT, path) if not os.path.isabs(path) else path, "w") as f:
        f.write(text)


def stored_run(bin_, out, tag, scenario, render_only=False, nice=10):
    """The report of `scenario` (a scenario dict) run by the CLI `bin_` on one thread, stored once as
    `out/<tag>.scenario.json` and `out/<tag>.json`: a stored report is read back, not re-run (and with
    `render_only` nothing is run). The calibration searches' runs (scripts/seed001_calibration*.py,
    scripts/seed001_e11_targets.py) go through it."""
    path = f"{out}/{tag}.json"
    if not render_only and not os.path.exists(path):
        with open(f"{out}/{tag}.scenario.json", "w") as f:
            json.dump(scenario, f)
        with open(path, "w") as f:
            subprocess.run(["nice", "-n", str(nice), bin_, "run", f"{out}/{tag}.scenario.json"], stdout=f, check=True,
                           env=dict(os.environ, PACKLAB_THREADS="1"))
    with open(path) as f:
        return json.load(f)


def arg(name, default):
    if name in sys.argv:
        i = sys.argv.index(name)
        if i + 1 >= len(sys.argv):
            sys.exit(f"findings: {name} needs a value")
        return sys.argv[i + 1]
    return default


# Two-sided 95% quantiles of Student's t, t_{0.975, df} for df = 1..30 (a constant table: the scripts run on the
# standard library alone); beyond 30 degrees of freedom the normal 1.960 (within 2% of t). The one table of the
# scripts: every script's t interval takes `t975` or `half95` from here.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(n):
    """t_{0.975} with n − 1 degrees of freedom (n samples ≥ 2): the half-width of a 95% CI of a mean is
    t975(n)·s/√n."""
    return T975[n - 2] if n - 1 <= len(T975) else 1.960


def half95(xs):
    """The half-width of the 95% Student-t CI of the mean of xs (0 with fewer than two values)."""
    import statistics
    n = len(xs)
    return t975(n) * statistics.stdev(xs) / n ** 0.5 if n > 1 else 0.0


def main():
    papers = arg("--paper", "all")
    sc = scale()
    wanted = list(PAPERS) if papers == "all" else [p.strip() for p in papers.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in PAPERS]
    if unknown:
        sys.exit(f"findings: unknown paper(s) {', '.join(unknown)} (expected {', '.join(PAPERS)} or all)")
    os.chdir(ROOT)
    if not os.path.exists("target/release/packlab"):
        sys.exit("findings: target/release/packlab is missing: run `make native` first (or `make findings`)")
    wall = {}
    for p in wanted:
        script, paper_args, quick_args = PAPERS[p]
        args = quick_args if sc == "quick" else paper_args
        before, after = EXTRAS.get(p, ([], [])) if sc != "quick" else ([], [])
        t0 = time.time()
        for cmd in [[sys.executable, x] for x in before] + [[sys.executable, script] + args] + \
                   [[sys.executable, x] for x in after]:
            print(f"findings: seed {p}: {' '.join(cmd)}", flush=True)
            t = time.time()
            subprocess.run(cmd, check=True)
            print(f"findings: seed {p}: {cmd[1]} done in {time.time() - t:.1f} s", flush=True)
        wall[p] = time.time() - t0
        out = f"results/{p}/quick" if sc == "quick" else f"results/{p}"
        print(f"findings: seed {p} done in {wall[p]:.1f} s -> {out}/tables.md", flush=True)
        if sc != "quick":
            # the share link of every stored run (no simulation; scripts/findings_links.py)
            subprocess.run([sys.executable, "scripts/findings_links.py", "--paper", p], check=True)
    if sc == "quick" and wanted == list(PAPERS):
        rows = [f"| {p} | {QUICK_WHAT[p]} | {wall[p]:.1f} | `results/{p}/quick/` |" for p in wanted]
        with open("results/quick.md", "w") as f:
            f.write("| seed | quick scale | wall time (s) | stored in |\n|---|---|---:|---|\n" + "\n".join(rows) +
                    f"\n\nWall times: each script as `python3 scripts/findings.py --scale quick` (= `make findings-quick`) "
                    f"ran it, {sum(wall.values()):.0f} s in all, on the 2-core machine shared with other jobs.\n")
        print("findings: wrote results/quick.md", flush=True)


if __name__ == "__main__":
    main()
