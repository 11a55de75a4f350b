#!/usr/bin/env bash
# CPU time and peak memory of the lifetime model on the synthetic pool of ALGORITHMS.md §5.7 as it grows (the VMs
# grow with the hosts: ~910 per host over 7 weeks), every policy (best fit, LA-Binary, NILAS, LAVA), natively:
#   scripts/bench-lifetime-pool.sh LABEL=BIN [LABEL=BIN ...]
# For each HOSTS in $HOSTS (default "100 300 1000 2900"; 2,900 hosts are 2.6M VMs, near the synthetic pool's limit of 2.7M,
# 0.9 × 3M) runs `BIN lifetime run --workload synthetic:hosts=HOSTS,weeks=7 --json` under GNU time once per binary,
# prints user + sys CPU seconds (user alone beside them), wall seconds, peak RSS and the arrivals, and whether every binary's JSON is byte-identical to
# the first's. Appends the block to results/bench/lifetime-pool.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=results/bench/lifetime-pool.txt
mkdir -p results/bench
tmp=$(mktemp -d)
{
  echo "## $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) (commit $(git rev-parse --short HEAD))"
  for hosts in ${HOSTS:-100 300 1000 2900}; do
    first=""
    for arg in "$@"; do
      label=${arg%%=*}; bin=${arg#*=}
      json="$tmp/$label-$hosts.json"
      /usr/bin/time -f "%U %S %M %e" -o "$tmp/time" "$bin" lifetime run --workload "synthetic:hosts=$hosts,weeks=7" --json > "$json"
      read -r user sys rss wall < "$tmp/time"
      arrivals=$(grep -o '"arrivals":[0-9]*' "$json" | head -1 | cut -d: -f2)
      same="(reference)"
      if [ -n "$first" ]; then cmp -s "$first" "$json" && same="identical" || same="DIFFERENT"; else first=$json; fi
      printf 'hosts %-5s VMs %-8s %-8s CPU %7.2f s (user %7.2f)  wall %7.2f s  peak RSS %7.1f MB  %s\n' "$hosts" "$arrivals" \
        "$label" "$(echo "$user + $sys" | bc -l)" "$user" "$wall" "$(echo "$rss / 1000" | bc -l)" "$same"
    done
  done
  echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
} | tee -a "$OUT"
rm -rf "$tmp"
