#!/usr/bin/env bash
# Scaling of placement's packing, indexed against the scan of every open bin (issue 30), natively:
#   scripts/bench-pack-scaling.sh [LABEL]
# generates (once) wide traces of 10k, 30k, 100k, 300k and 1M VMs × 24 samples with scripts/gen-wide-trace.py
# (seed 1; 24 samples instead of 288 keep the 1M file at ~65 MB: packing time depends on the VMs, not the
# samples) in $PACK_TRACE_DIR (default /tmp/packlab-pack-scaling), runs benches/pack_scaling.rs on them (the
# scan up to SCAN_MAX VMs, default 1,000,000) and appends a block headed by LABEL and the commit to
# results/bench/pack-scaling.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
LABEL=${1:-$(git rev-parse --short HEAD)}
DIR=${PACK_TRACE_DIR:-/tmp/packlab-pack-scaling}
SCAN_MAX=${SCAN_MAX:-1000000}
mkdir -p "$DIR" results/bench
traces=()
for n in 10000 30000 100000 300000 1000000; do
  f=$DIR/wide-$n-24.tsv
  if [ ! -s "$f" ]; then
    python3 scripts/gen-wide-trace.py "$f.part" --vms "$n" --samples 24 --decimals 0 --seed 1
    mv "$f.part" "$f"
  fi
  traces+=("$f")
done
OUT=results/bench/pack-scaling.txt
{
  echo "## $LABEL ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src benches || echo '+changes'), $(date -u +%F))"
  echo "traces: scripts/gen-wide-trace.py --vms N --samples 24 --decimals 0 --seed 1; default placement parameters (c = 4), no rebalancing"
  echo "machine: $(nproc) cores, $(uname -m), load average $(cut -d' ' -f1-3 /proc/loadavg) (shared)"
  cargo bench --locked --bench pack_scaling -- --scan-max "$SCAN_MAX" "${traces[@]}"
  echo
} | tee -a "$OUT"
