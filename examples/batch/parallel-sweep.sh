#!/bin/bash
# All shards of a packlab sweep as parallel processes on one big machine, then the merge:
#   bash examples/batch/parallel-sweep.sh SWEEP.json OUT_DIR [SHARDS=number of cores]
# Each process runs one shard with PACKLAB_THREADS=1 (one core each). With GNU parallel instead of xargs:
#   parallel -j "$N" packlab sweep SWEEP.json --shard {}/"$N" --out OUT_DIR ::: $(seq 0 $((N - 1)))
set -euo pipefail
SWEEP=$1
OUT=$2
N=${3:-$(nproc)}
PACKLAB=${PACKLAB:-packlab}
seq 0 $((N - 1)) | PACKLAB_THREADS=1 xargs -P "$N" -I{} "$PACKLAB" sweep "$SWEEP" --shard "{}/$N" --out "$OUT"
"$PACKLAB" merge "$OUT"
