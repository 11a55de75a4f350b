#!/usr/bin/env python3
"""One command for every paper's findings: runs the per-paper scripts (scripts/seed00N_findings.py), which call
the native CLI, store the raw results with their commands, seeds and engine version under results/<paper>/ and
write results/<paper>/tables.md, the tables the README includes verbatim (tests/findings_tables.rs checks them);
after each paper, scripts/findings_links.py writes results/<paper>/links.json (the share link of each stored run).

Usage (from the repository root, after `make native`; `make findings PAPER=... SCALE=...` does both):
    python3 scripts/findings.py [--paper 000|001|002|003|004|all[,...]] [--scale quick|paper]

`--scale paper` (the default) runs each script at the scale the README reports (for seed 000 the scale
FINDINGS_000_SCALE names, default `reduced`). `--scale quick` is passed to the scripts that have a quick scale
(seed 000: the CI-sized cluster, stored separately in results/000/quick/); the others have one scale and run it.
Each script prints its own wall time; this driver prints the total per paper.
"""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# paper -> (script, arguments at the paper scale, arguments at the quick scale or None if it has one scale)
PAPERS = {
    # seed 000's README tables are at the scale FINDINGS_000_SCALE names (default: reduced, the one stored in
    # results/000/; its script also has paper = 1/10 and full = the paper's cluster, which take longer)
    "000": ("scripts/seed000_findings.py", ["--scale", os.environ.get("FINDINGS_000_SCALE", "reduced")],
            ["--scale", "quick"]),
    "001": ("scripts/seed001_findings.py", [], None),
    "002": ("scripts/seed002_findings.py", [], None),
    "003": ("scripts/seed003_findings.py", ["--seeds", "5"], None),
    "004": ("scripts/seed004_findings.py", ["--seeds", "5"], None),
}


def arg(name, default):
    if name in sys.argv:
        i = sys.argv.index(name)
        if i + 1 >= len(sys.argv):
            sys.exit(f"findings: {name} needs a value")
        return sys.argv[i + 1]
    return default


def main():
    papers = arg("--paper", "all")
    scale = arg("--scale", "paper")
    if scale not in ("quick", "paper"):
        sys.exit(f"findings: --scale must be quick or paper, got '{scale}'")
    wanted = list(PAPERS) if papers == "all" else [p.strip() for p in papers.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in PAPERS]
    if unknown:
        sys.exit(f"findings: unknown paper(s) {', '.join(unknown)} (expected {', '.join(PAPERS)} or all)")
    os.chdir(ROOT)
    if not os.path.exists("target/release/packlab"):
        sys.exit("findings: target/release/packlab is missing: run `make native` first (or `make findings`)")
    for p in wanted:
        script, paper_args, quick_args = PAPERS[p]
        args = quick_args if scale == "quick" and quick_args is not None else paper_args
        if scale == "quick" and quick_args is None:
            print(f"findings: seed {p} has a single scale; running it", flush=True)
        cmd = [sys.executable, script] + args
        print(f"findings: seed {p}: {' '.join(cmd)}", flush=True)
        t0 = time.time()
        subprocess.run(cmd, check=True)
        print(f"findings: seed {p} done in {time.time() - t0:.1f} s -> results/{p}/tables.md", flush=True)
        # the share link of every stored run (no simulation; scripts/findings_links.py)
        subprocess.run([sys.executable, "scripts/findings_links.py", "--paper", p], check=True)


if __name__ == "__main__":
    main()
