#!/usr/bin/env bash
# Native CPU time of one 3-year SECOND run (benches/admit.rs, run 0 of master seed 1, the run that
# scripts/bench-admission-run.mjs times in wasm) for two or more built bench executables, alternated,
# ROUNDS rounds (default 2), with GNU time's user seconds: on a shared machine the user time moves far less
# than the wall time. Usage: scripts/bench-admission-native.sh LABEL=EXE [LABEL=EXE ...]
# (build one with `cargo bench --locked --bench admit --no-run` and copy target/release/deps/admit-<hash>).
set -euo pipefail
HOURS=${ADMIT_BENCH_HOURS:-26280}
echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $HOURS h, run 0 of master seed 1"
for r in $(seq "${ROUNDS:-2}"); do
  for arg in "$@"; do
    label=${arg%%=*}; exe=${arg#*=}
    log=$(mktemp)
    line=$(ADMIT_BENCH_RUN_OF=1 ADMIT_BENCH_HOURS=$HOURS /usr/bin/time -f "%U %e" -o "$log" "$exe")
    read -r user wall < "$log"; rm -f "$log"
    printf '%-8s user %6.2f s  wall %6.2f s  %s\n' "$label" "$user" "$wall" "$(echo "$line" | sed 's/.*(utilization/(utilization/; s/, curve refreshes.*/)/')"
  done
done
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
