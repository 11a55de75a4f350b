#!/usr/bin/env python3
"""Seed 001 E1.1–E1.3: the calibration score of each preset with the baselines' `predictor_target` as a searched
setting, and the untuned C2MARL verdicts each target would give (review s11 R1.2; issue 25). Stored runs only, no
simulation.

The score is the calibrations' (results/001/calibration.md, calibration-e12.md, calibration-e13.md): Σ over the
paper's Grid-x rows, Grid-1 (paper 0: §6.7) and MA, SL of (PM-Hot-R − paper)², plus (S-Cores − paper)² for MA and
SL, in points². The Grid rows come from the findings run (results/001/e1N.json; they do not depend on the target),
MA and SL from the tuned-baseline search on the findings' scenario (seed001_findings.targets_dir, one run per
target, seed 1, the findings' 100 evaluation episodes; its target 0 = β must give the findings' MA/SL rows to the
digit, checked). The verdicts are seed001_findings.verdict's for every C2MARL row with MA/SL replaced by the
target's rows.

Writes results/001/issue25/target-score.md.
Usage: python3 scripts/seed001_target_score.py [--stdout]   (from the repository root)
"""
import copy
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from findings import emit  # noqa: E402
from seed001_findings import ALPHAS, tuned_rows, verdict  # noqa: E402

OUT = "results/001/issue25/target-score.md"
# the target each preset's findings use (seed001_findings.EXTRA; 0 = β)
USED = {"E1.1": 0.0, "E1.2": 0.5, "E1.3": 0.4}


def score(rows, paper):
    """The calibration score (points²) of the report rows `rows` ({policy: row}) against the paper's rows."""
    s = 0.0
    for pol in [p for p in paper if p.startswith("grid:")] + ["grid:1", "ma", "sl"]:
        if pol not in rows:
            continue
        ref = paper.get(pol, {"pm_hot_r": 0.0, "s_cores": None})
        s += (100 * (rows[pol]["pm_hot_r"] - ref["pm_hot_r"])) ** 2
        if pol in ("ma", "sl"):
            s += (100 * (rows[pol]["s_cores"] - ref["s_cores"])) ** 2
    return s


def main():
    lines = ["# Seed 001: the calibration score with `predictor_target` searched (review s11 R1.2)", "",
             "`python3 scripts/seed001_target_score.py` (stored runs only). Score: Σ over the paper's Grid-x rows, "
             "Grid-1 (paper 0) and MA, SL of (PM-Hot-R − paper)² + (S-Cores − paper)² for MA and SL, points² (the "
             "calibrations' score). MA/SL cells: PM-Hot-R % / S-Cores %. Verdicts: the untuned tables' rule "
             "(seed001_findings.verdict) for each C2MARL row with MA/SL at that target; counts over the seeds.", ""]
    scores = {}
    for preset in ("E1.1", "E1.2", "E1.3"):
        run = json.load(open(f"results/001/e1{preset[3]}.json"))
        rep = run["report"]
        paper = {p["policy"]: p for p in rep["paper"]}
        got = tuned_rows(preset, run["scenario"]["oversub"])
        base = {r["policy"]: r for r in rep["rows"]}
        used = USED[preset]
        for pol in ("ma", "sl"):
            a, b = got[used][pol], base[pol]
            if (a["pm_hot_r"], a["s_cores"]) != (b["pm_hot_r"], b["s_cores"]):
                sys.exit(f"{preset}: the search's {pol} at target {used:g} is not the findings' row (a different world)")
        lines.append(f"## {preset} (findings' target: {'β' if used == 0 else f'{used:g}'})")
        lines.append("")
        lines.append("| target | MA | SL | score | MA / SL verdicts | " + " | ".join(f"C2MARL-{a} verdicts" for a in ALPHAS) + " |")
        lines.append("|---|---|---|---:|---|" + "---|" * len(ALPHAS))
        best = None
        for t in sorted(got):
            rows = dict(base)
            rows["ma"], rows["sl"] = got[t]["ma"], got[t]["sl"]
            sc = score(rows, paper)
            best = (sc, t) if best is None or sc < best[0] else best
            r2 = copy.deepcopy(rep)
            r2["rows"] = [rows[r["policy"]] if r["policy"] in ("ma", "sl") else r for r in rep["rows"]]
            cells = []
            for a in ALPHAS:
                c = Counter(verdict(r2, r, paper[r["policy"]]) for r in r2["rows"] if r["policy"] == f"c2marl:{a}")
                cells.append(", ".join(f"{n} {v}" for v, n in sorted(c.items())))
            cell = lambda r: f"{100 * r['pm_hot_r']:.0f} / {100 * r['s_cores']:.1f}"
            name = ("β" if t == 0 else f"{t:g}") + (" (findings)" if t == used else "")
            mv = " / ".join(verdict(r2, rows[k], paper[k]) for k in ("ma", "sl"))
            scores.setdefault(t, {})[preset] = sc
            lines.append(f"| {name} | {cell(rows['ma'])} | {cell(rows['sl'])} | {sc:.0f} | {mv} | " + " | ".join(cells) + " |")
        lines.append("")
        lines.append(f"Best score: target {'β' if best[1] == 0 else f'{best[1]:g}'} ({best[0]:.0f} points²).")
        lines.append("")
    # the internal cloud's presets share the paper's MA/SL rows (Tables 1 and 2 give the same figures)
    joint = sorted((v["E1.1"] + v["E1.2"], t) for t, v in scores.items() if "E1.1" in v and "E1.2" in v)
    lines.append("## One target for the internal cloud (E1.1 + E1.2)")
    lines.append("")
    lines.append("Summed score over E1.1 and E1.2 per target, best first: " + "; ".join(
        f"{'β' if t == 0 else f'{t:g}'} {v:.0f}" for v, t in joint[:4]) + ".")
    lines.append("")
    emit(OUT, "\n".join(lines))


if __name__ == "__main__":
    main()
