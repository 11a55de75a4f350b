#!/bin/bash
# Issue 25 item 1 (a first, small search): the baseline rows of E1.1 (Grid-0.2/0.4/0.6, MA, SL; no training)
# over PM memory {288, 384, 480, 1536} GB × arrival order {subscriber, mixed}, on 100 PMs (paper: 500) and 30
# evaluation episodes (paper: 300), seed 1. Writes results/001/issue25/calibration/<mem>-<order>.json and
# results/001/issue25/calibration.md (PM-Hot-R beside Table 1, and the C-Hot-R / PM-Hot-R ratio of Table 5).
# Usage: scripts/seed001_issue25_calibration.sh target/release/packlab
set -euo pipefail
BIN=${1:-target/release/packlab}
OUT=results/001/issue25/calibration
mkdir -p "$OUT"
for mem in 288 384 480 1536; do
  for order in subscriber mixed; do
    echo "{\"model\":\"oversub\",\"seed\":1,\"oversub\":{\"preset\":\"E1.1\",\"pms\":100,\"pm_mem_gb\":$mem,\"arrival_order\":\"$order\",\"occupancy\":0.5,\"policies\":[\"grid:0.2\",\"grid:0.4\",\"grid:0.6\",\"ma\",\"sl\"],\"eval_episodes\":30}}" > "$OUT/$mem-$order.scenario.json"
    PACKLAB_THREADS=1 "$BIN" run "$OUT/$mem-$order.scenario.json" > "$OUT/$mem-$order.json"
  done
done
python3 - "$OUT" > results/001/issue25/calibration.md <<'PY'
import json, sys
d = sys.argv[1]
paper = {"grid:0.2": 30.9, "grid:0.4": 22.7, "grid:0.6": 0.0, "ma": 0.0, "sl": 0.2}
print("# E1.1 baseline rows vs seed 001 Table 1 (issue 25, first calibration search)\n")
print("100 PMs (paper: 500), 30 evaluation episodes (paper: 300), seed 1; other settings at their defaults.")
print("Command: `scripts/seed001_issue25_calibration.sh target/release/packlab`. Cells: PM-Hot-R % (C-Hot-R / PM-Hot-R);")
print("the paper's Table 5 ratio is 1.3–3.2. Squared error: Σ over the five rows of (ours − paper)² in points².\n")
print("| PM memory GB | arrival order | " + " | ".join(f"{p} (paper {v})" for p, v in paper.items()) + " | squared error |")
print("|---:|---|" + "---:|" * (len(paper) + 1))
for mem in (288, 384, 480, 1536):
    for order in ("subscriber", "mixed"):
        r = json.load(open(f"{d}/{mem}-{order}.json"))
        cells, err = [], 0.0
        for row in r["rows"]:
            pm, c = 100 * row["pm_hot_r"], 100 * row["c_hot_r"]
            ratio = f"{c / pm:.1f}" if pm > 0 else ("–" if c == 0 else "∞")
            cells.append(f"{pm:.1f} ({ratio})")
            err += (pm - paper[row["policy"]]) ** 2
        print(f"| {mem} | {order} | " + " | ".join(cells) + f" | {err:.0f} |")
PY
