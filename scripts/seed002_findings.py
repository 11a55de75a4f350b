#!/usr/bin/env python3
"""Reproduces seed 002's experiments (ALGORITHMS.md §4.5, E2.1-E2.6) on the real PlanetLab day with the
packlab CLI and prints Markdown tables. Usage: make findings  (or: python3 scripts/seed002_findings.py [TRACE])."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "packlab")
TRACE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "static", "traces", "planetlab-20110303.tsv.gz")


def pack(fit, c=4.0, rule="bf", reb=True, ell=1.0, mode="aligned", r=10000, seed=1):
    args = [BIN, "pack", "--trace", TRACE, "--fit", fit, "--capacity", str(c), "--rule", rule,
            "--clairvoyance", str(ell), "--mode", mode, "--realisations", str(r), "--seed", str(seed), "--json"]
    if not reb:
        args.append("--no-rebalance")
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def table(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")
    print()


def main():
    print(f"Trace: {os.path.relpath(TRACE, ROOT)} (1052 VMs x 288 five-minute samples), Best Fit + rebalancing unless stated.\n")
    print("### E2.2: GPA q versus the SLO rho (aligned = real correlated columns; resampled = R = 10,000 independent draws per VM, seed 1)\n")
    rows = []
    for c in (1.0, 4.0):
        for rho in (0.1, 0.05, 0.01, 0.001):
            a = pack(f"gpa:{rho}", c=c)
            s = pack(f"gpa:{rho}", c=c, mode="resampled")
            rows.append((c, rho, a["m_abs"], f"{a['m']:.3f}", f"{a['q']:.4g}", f"{(a['q'] - rho) / rho:+.0%}",
                         s["m_abs"], f"{s['q']:.4g}", f"{(s['q'] - rho) / rho:+.0%}"))
    table(["c", "rho", "m_abs", "m", "q aligned", "(q-rho)/rho", "m_abs resampled", "q resampled", "(q-rho)/rho"], rows)

    print("### E2.1: First Fit versus Best Fit, every estimator (c = 4, aligned)\n")
    rows = []
    for fit in ("gpa:0.1", "gpa:0.01", "gpa:0.001", "av:1", "av:1.25", "av:2", "perc:70", "perc:90", "perc:95", "perc:99",
                "cantelli:1", "cantelli:1.7", "cantelli:4.4", "max"):
        f, b = pack(fit, rule="ff"), pack(fit, rule="bf")
        rows.append((fit, f["m_abs"], b["m_abs"], b["m_abs"] - f["m_abs"], f"{f['q']:.4g}", f"{b['q']:.4g}"))
    table(["fit", "m_abs FF", "m_abs BF", "BF-FF", "q FF", "q BF"], rows)

    print("### E2.4: q across machine capacity c (aligned, BF)\n")
    rows = []
    for c in (0.5, 1, 2, 4, 8, 16):
        rows.append((c,) + tuple(f"{pack(fit, c=c)['q']:.4g}" for fit in ("gpa:0.1", "av:1.25", "gpa:0.001", "av:2")))
    table(["c", "q gpa:0.1", "q av:1.25", "q gpa:0.001", "q av:2"], rows)

    print("### E2.5: clairvoyance (statistics from the first l of the day, evaluation on the rest; c = 4)\n")
    rows = []
    for ell in (0.05, 0.1, 0.3, 0.5, 0.8, 1.0):
        rows.append((ell,) + tuple(f"{pack(fit, ell=ell)['q']:.4g}" for fit in ("gpa:0.01", "gpa:0.001", "av:1.25", "av:2")))
    table(["l", "q gpa:0.01", "q gpa:0.001", "q av:1.25", "q av:2"], rows)

    print("### E2.6: rebalancing on versus off (c = 4, BF)\n")
    rows = []
    for fit in ("gpa:0.1", "gpa:0.05", "gpa:0.01", "gpa:0.001"):
        on, off = pack(fit), pack(fit, reb=False)
        gain = (off["q"] - on["q"]) / off["q"] if off["q"] > 0 else 0.0
        rows.append((fit, off["m_abs"], on["m_abs"], f"{off['q']:.4g}", f"{on['q']:.4g}", f"{gain:+.1%}"))
    table(["fit", "m_abs off", "m_abs on", "q off", "q on", "(q_off-q_on)/q_off"], rows)


if __name__ == "__main__":
    main()
