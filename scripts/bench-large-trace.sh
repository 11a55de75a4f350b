#!/usr/bin/env bash
# Wall time and peak memory of reading a large wide trace, natively:
#   scripts/bench-large-trace.sh [LABEL] [BIN]
# generates (once) the 100,000-VM × 288-sample integer-percent wide trace of scripts/gen-wide-trace.py
# (seed 1, about 67 MB) in $LARGE_TRACE_DIR (default /tmp/packlab-large-trace), then runs with BIN (default
# target/release/packlab), RUNS times each (default 3):
#   packlab summary --trace T                            (parse + summary)
#   packlab placement pack --trace T --fit gpa:0.05      (parse + pack + evaluate one GPA point)
# and records, for each run, the wall time, the CPU time (user + system) and the peak resident set size
# ("Maximum resident set size" of GNU time -v). A block headed by LABEL and the commit is appended to results/bench/large-trace.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
LABEL=${1:-$(git rev-parse --short HEAD)}
BIN=$(realpath "${2:-target/release/packlab}")
RUNS=${RUNS:-3}
DIR=${LARGE_TRACE_DIR:-/tmp/packlab-large-trace}
TRACE=$DIR/wide-100k-288.tsv
mkdir -p "$DIR" results/bench
if [ ! -s "$TRACE" ]; then
  python3 scripts/gen-wide-trace.py "$TRACE.part" --vms 100000 --samples 288 --decimals 0 --seed 1
  mv "$TRACE.part" "$TRACE"
fi
OUT=results/bench/large-trace.txt
bytes=$(stat -c %s "$TRACE")
{
  echo "## $LABEL ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes'), $(date -u +%F))"
  echo "trace: $TRACE, $bytes bytes (scripts/gen-wide-trace.py --vms 100000 --samples 288 --decimals 0 --seed 1)"
  echo "machine: $(nproc) cores, $(uname -m), load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: wall > CPU when busy); runs: $RUNS"
} | tee -a "$OUT"
measure() {
  local what=$1; shift
  for _ in $(seq "$RUNS"); do
    local log
    log=$(mktemp)
    /usr/bin/time -v "$BIN" "$@" > /dev/null 2> "$log"
    local wall rss cpu
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    cpu=$(echo "$(sed -n 's/.*User time (seconds): //p' "$log") + $(sed -n 's/.*System time (seconds): //p' "$log")" | bc -l)
    rm -f "$log"
    printf '%-8s wall %-8s CPU %5.2f s  peak RSS %7.1f MB (%.2f × file)   packlab %s\n' "$what" "$wall" "$cpu" \
      "$(echo "$rss / 1000" | bc -l)" "$(echo "$rss * 1024 / $bytes" | bc -l)" "$*" | sed "s#$TRACE#T#"
  done
}
{
  measure summary summary --trace "$TRACE"
  measure pack placement pack --trace "$TRACE" --fit gpa:0.05
  echo
} | tee -a "$OUT"
