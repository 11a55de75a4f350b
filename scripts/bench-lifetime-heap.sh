#!/usr/bin/env bash
# Peak heap of the lifetime model against the pool's share, natively (issue 30):
#   scripts/bench-lifetime-heap.sh [LABEL] [BIN]
# (REV=COMMIT names the commit BIN was built from, when it is not this checkout's HEAD; SHARES overrides
# "0.01 0.1 0.5 1") runs `packlab lifetime run --share S --json` (every policy, bundled Azure 2017 arrivals)
# under heaptrack once per share and appends, per share, heaptrack_print's three largest peak consumers and
# its totals to results/bench/arrivals-memory.txt in a block headed by LABEL and the commit.
set -euo pipefail
cd "$(dirname "$0")/.."
LABEL=${1:-$(git rev-parse --short HEAD)}
BIN=$(realpath "${2:-target/release/packlab}")
OUT=results/bench/arrivals-memory.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  echo
  echo "## $LABEL (${REV:-$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo '+changes')}, $(date -u +%F))"
  echo "# command: heaptrack -o OUT BIN lifetime run --share S --json > /dev/null; heaptrack_print OUT.zst (the three largest peak consumers and the totals); load $(cut -d' ' -f1-3 /proc/loadavg)"
  for share in ${SHARES:-0.01 0.1 0.5 1}; do
    heaptrack -o "$tmp/h$share" "$BIN" lifetime run --share "$share" --json > /dev/null 2> "$tmp/err"
    echo "### share $share"
    heaptrack_print "$tmp/h$share.zst" 2> /dev/null |
      awk '/^PEAK MEMORY CONSUMERS/ {p = 1; next} p && /peak memory consumed over/ {n++; print; getline; print; if (n == 3) p = 0}
           /^peak heap memory consumption/ || /^peak RSS/ {print}'
  done
} | tee -a "$OUT"
