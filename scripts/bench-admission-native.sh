#!/usr/bin/env bash
# Native CPU time of one 3-year SECOND run (benches/admit.rs, run 0 of master seed 1, the run that
# scripts/bench-admission-run.mjs times in wasm) for two or more built bench executables, alternated,
# ROUNDS rounds (default 2), with GNU time's user seconds: on a shared machine the user time moves far less
# than the wall time. The digest (benches/admit.rs, builds after issue 30's digest) is a hash of the whole
# result: equal digests mean bit-identical runs. Usage: scripts/bench-admission-native.sh LABEL=EXE [LABEL=EXE ...]
# (build one with `cargo bench --locked --bench admit --no-run` and copy target/release/deps/admit-<hash>).
set -euo pipefail
HOURS=${ADMIT_BENCH_HOURS:-26280}
echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $HOURS h, run 0 of master seed 1"
for r in $(seq "${ROUNDS:-2}"); do
  for arg in "$@"; do
    label=${arg%%=*}; exe=${arg#*=}
    log=$(mktemp)
    out=$(ADMIT_BENCH_RUN_OF=1 ADMIT_BENCH_HOURS=$HOURS /usr/bin/time -f "%U %S %e" -o "$log" "$exe")
    read -r user sys wall < "$log"; rm -f "$log"
    line=$(echo "$out" | head -1)
    digest=$(echo "$out" | sed -n 's/^result digest \([0-9a-f]*\).*/\1/p')
    printf '%-8s user %6.2f s  sys %5.2f s  wall %6.2f s  %s digest %s\n' "$label" "$user" "$sys" "$wall" \
      "$(echo "$line" | sed 's/.*(utilization/(utilization/; s/, curve refreshes.*/)/')" "${digest:-none}"
  done
done
echo "# load after $(cut -d' ' -f1-3 /proc/loadavg)"
