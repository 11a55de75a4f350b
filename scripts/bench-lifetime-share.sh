#!/usr/bin/env bash
# Wall time, CPU time and peak memory of the lifetime model against the pool's share, natively:
#   scripts/bench-lifetime-share.sh [LABEL] [BIN]
# (REV=COMMIT names the commit BIN was built from, when it is not this checkout's HEAD)
# runs `packlab lifetime run --share S --json` (every policy) and `--policies best-fit` (the baseline alone)
# at shares 0.01, 0.1, 0.2, 0.5 and 1 on the bundled Azure 2017 arrivals under GNU time -v, once each, and appends
# a block headed by LABEL and the commit to results/bench/lifetime-share.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
LABEL=${1:-$(git rev-parse --short HEAD)}
BIN=$(realpath "${2:-target/release/packlab}")
OUT=results/bench/lifetime-share.txt
mkdir -p results/bench
{
  echo "## $LABEL (${REV:-$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes')}, $(date -u +%F))"
  echo "machine: $(nproc) cores, $(uname -m), load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: wall > CPU when busy)"
  for policies in best-fit,la-binary,nilas,lava best-fit; do
    for share in 0.01 0.1 0.2 0.5 1; do
      log=$(mktemp)
      /usr/bin/time -v "$BIN" lifetime run --share "$share" --policies "$policies" --json > /dev/null 2> "$log"
      wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log")
      rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
      cpu=$(echo "$(sed -n 's/.*User time (seconds): //p' "$log") + $(sed -n 's/.*System time (seconds): //p' "$log")" | bc -l)
      rm -f "$log"
      printf 'share %-4s wall %-8s CPU %5.2f s  peak RSS %6.1f MB   --policies %s\n' "$share" "$wall" "$cpu" \
        "$(echo "$rss / 1000" | bc -l)" "$policies"
    done
  done
  echo
} | tee -a "$OUT"
