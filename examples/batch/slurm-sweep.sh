#!/bin/bash
# One shard of a packlab sweep per Slurm array task; merge once every task has finished.
#   sbatch --array=0-3 examples/batch/slurm-sweep.sh                 # 4 shards (SLURM_ARRAY_TASK_COUNT = 4)
#   sbatch --dependency=afterok:<array job id> --wrap "packlab merge sweep-results"
# SWEEP (the sweep file), OUT (the shared results folder) and PACKLAB (the binary) may be set in the
# environment; each task runs its cells on the cores Slurm gives it.
#SBATCH --job-name=packlab-sweep
#SBATCH --array=0-3
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --output=packlab-sweep-%A_%a.log
set -euo pipefail
SWEEP=${SWEEP:-examples/sweeps/placement-capacity.json}
OUT=${OUT:-sweep-results}
PACKLAB=${PACKLAB:-packlab}
export PACKLAB_PROGRESS=${PACKLAB_PROGRESS:-lines} # progress lines in the task's log
export PACKLAB_THREADS=${SLURM_CPUS_PER_TASK:-${PACKLAB_THREADS:-}}
[ -n "$PACKLAB_THREADS" ] || unset PACKLAB_THREADS
"$PACKLAB" sweep "$SWEEP" --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" --out "$OUT"
