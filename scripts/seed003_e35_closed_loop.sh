#!/bin/bash
# Seed 003 E3.5: why the closed-loop LARS run migrates about half as many VMs as the start order (maintenance
# drains, best fit, pools 1-3, the findings' setting). Needs the measurement-only patch
# results/003/e35-closed-loop/debug.patch applied (it prints, for every closed-loop run, its drains, the VMs they
# queued, migrations started and saved, abandoned drains and the VMs left queued at the end; with a closed loop in
# a random order beside the two): git apply it, cargo build --release, run this script, git apply -R it.
set -euo pipefail
BIN=${BIN:-target/release/packlab}
for s in 1 2 3; do
  echo "pool $s"
  DBG_MIG=1 nice -n 10 "$BIN" lifetime run --policies best-fit --defrag --maintenance --json --stranding-h 0 \
    --size-with-alive --seed "$s" 2>&1 >/dev/null | grep '^closed loop'
done
