#!/usr/bin/env bash
# Issue 30's benchmarks, before and after, in one run, side by side (natively on this machine, one thread):
#   scripts/bench-issue30.sh [BEFORE [AFTER]]
# BEFORE defaults to 51867ea, main when issue 30 was filed (the parent of the seventh session's first commit,
# 87c7304); AFTER to HEAD. Each commit is built once in a temporary worktree under $BENCH_DIR (default
# /tmp/packlab-bench-issue30; one shared target dir, kept, so a second run builds nothing): the CLI, the
# admission bench executable (benches/admit.rs) and the wasm module (that commit's scripts/build-wasm.sh).
# AFTER = HEAD with src/, benches/ and Cargo.* unchanged is built from this checkout instead (into the same
# target dir; the module lands in its www/pkg).
# Then, alternating the two builds row by row, one run each at a reduced but meaningful size:
#   placement   `packlab placement pack --fit gpa:0.05` on wide traces of 25k, 50k, 100k VMs × 24 samples
#               (scripts/gen-wide-trace.py, seed 1; the command's CPU, reading the trace included: a `summary`
#               row at 100k gives the read alone)
#   lifetime    `packlab lifetime [run] --share S --json`, every policy, bundled Azure 2017 arrivals, S = 0.01,
#               0.1, 0.5, 1: CPU and peak RSS (GNU time -v)
#   admission   the 3-year SECOND run (benches/admit.rs, run 0 of master seed 1, 26,280 h): CPU
#   oversub     `oversub-train --preset E1.1 --alpha 0.95 --episodes $OVERSUB_EPISODES` (default 150), one thread: CPU
#               (the subnormal moments build up late in training: 600 episodes take 62 s before, 55 s after; the
#               issue's full 1,800 took 522 s before, too long for this run)
#   wasm        the module's bytes raw, gzip -9, brotli quality $BROTLI_QUALITY (default 11, what is served;
#               scripts/brotli.mjs of this checkout for both)
# ROWS=LIST (comma-separated of placement, lifetime, admission, oversub, wasm; default all) runs only those.
# It writes the table, with the 1-minute load average at each row's start, to results/bench/issue30-before-after.txt.
# CPU = user + system seconds (moves far less than wall time on a shared machine). PACKLAB_THREADS=1 throughout.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BEFORE=$(git rev-parse --short "${1:-51867ea}")
AFTER=$(git rev-parse --short "${2:-HEAD}")
DIR=${BENCH_DIR:-/tmp/packlab-bench-issue30}
EPISODES=${OVERSUB_EPISODES:-150}
ROWS=${ROWS:-placement,lifetime,admission,oversub,wasm}
want() { [[ ",$ROWS," == *",$1,"* ]]; }
BQ=${BROTLI_QUALITY:-11}
OUT=${OUT:-results/bench/issue30-before-after.txt}
export PACKLAB_THREADS=1
mkdir -p "$DIR/bin" "$DIR/traces"
T0=$(date +%s)
cpu0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)

# build REV: $DIR/bin/REV/{packlab,admit,packlab_bg.wasm}, each built only when missing
build() {
  local rev=$1 bin=$DIR/bin/$1 src tgt=$DIR/target wt=""
  [ -x "$bin/packlab" ] && [ -x "$bin/admit" ] && [ -s "$bin/packlab_bg.wasm" ] && return 0
  mkdir -p "$bin"
  if [ "$rev" = "$(git rev-parse --short HEAD)" ] && git diff --quiet HEAD -- src benches Cargo.toml Cargo.lock; then
    src=$ROOT
  else
    src=$DIR/src-$rev; wt=1
    [ -d "$src" ] || git worktree add --detach "$src" "$rev" >&2
    [ -e "$src/.tools" ] || ln -s "$ROOT/.tools" "$src/.tools"
    [ -e "$src/node_modules" ] || ln -s "$ROOT/node_modules" "$src/node_modules"
  fi
  echo "bench-issue30: building $rev in $src" >&2
  if [ ! -x "$bin/packlab" ] || [ ! -x "$bin/admit" ]; then
    (cd "$src" && nice -n 10 cargo build --release --locked --bin packlab --target-dir "$tgt" >&2)
    cp "$tgt/release/packlab" "$bin/packlab"
    local exe
    exe=$(cd "$src" && nice -n 10 cargo bench --locked --bench admit --no-run --target-dir "$tgt" 2>&1 \
      | sed -n 's/.*Executable.*(\(.*\)).*/\1/p' | tail -1)
    case $exe in /*) ;; *) exe=$src/$exe ;; esac
    cp "$exe" "$bin/admit"
  fi
  if [ ! -s "$bin/packlab_bg.wasm" ]; then
    (cd "$src" && WASM_BROTLI_QUALITY=0 CARGO_TARGET_DIR="$tgt" nice -n 10 bash scripts/build-wasm.sh >&2)
    cp "$src/www/pkg/packlab_bg.wasm" "$bin/packlab_bg.wasm"
  fi
  [ -z "$wt" ] || git worktree remove --force "$src"
}
build "$BEFORE"
build "$AFTER"
B=$DIR/bin/$BEFORE
A=$DIR/bin/$AFTER

for n in 25000 50000 100000; do
  f=$DIR/traces/wide-$n-24.tsv
  [ -s "$f" ] || { python3 scripts/gen-wide-trace.py "$f.part" --vms "$n" --samples 24 --decimals 0 --seed 1; mv "$f.part" "$f"; }
done
rm -rf scripts/__pycache__

# timed BIN ARGS…: "CPU_s RSS_MB" of one run (stdout discarded)
timed() {
  local log
  log=$(mktemp)
  /usr/bin/time -f '%U %S %M' -o "$log" "$@" > /dev/null
  awk '{printf "%.2f %.1f", $1 + $2, $3 / 1000}' "$log"
  rm -f "$log"
}
lifetime_cmd() { if "$1" lifetime run --help > /dev/null 2>&1; then echo "$1 lifetime run"; else echo "$1 lifetime"; fi; }
LB=$(lifetime_cmd "$B/packlab")
LA=$(lifetime_cmd "$A/packlab")

rows=()
# row NAME UNIT BEFORE AFTER LOAD
row() {
  local ratio
  ratio=$(awk -v b="$3" -v a="$4" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')
  rows+=("$(printf '%-46s %-8s %14s %14s %12s %6s' "$1" "$2" "$3" "$4" "$ratio" "$5")")
  echo "${rows[-1]}" >&2
}
load() { cut -d' ' -f1 /proc/loadavg; }

want placement && for n in 25000 50000 100000; do
  f=$DIR/traces/wide-$n-24.tsv
  l=$(load)
  b=$(timed "$B/packlab" placement pack --trace "$f" --fit gpa:0.05); a=$(timed "$A/packlab" placement pack --trace "$f" --fit gpa:0.05)
  row "placement pack gpa:0.05, $n VMs" "CPU s" "${b% *}" "${a% *}" "$l"
done
want placement && {
l=$(load)
b=$(timed "$B/packlab" summary --trace "$DIR/traces/wide-100000-24.tsv"); a=$(timed "$A/packlab" summary --trace "$DIR/traces/wide-100000-24.tsv")
row "  (reading the 100k trace alone: summary)" "CPU s" "${b% *}" "${a% *}" "$l"
}
want lifetime && for s in 0.01 0.1 0.5 1; do
  l=$(load)
  # shellcheck disable=SC2086
  b=$(timed $LB --share "$s" --json); a=$(timed $LA --share "$s" --json)
  row "lifetime share $s, 4 policies" "CPU s" "${b% *}" "${a% *}" "$l"
  row "lifetime share $s, 4 policies" "RSS MB" "${b#* }" "${a#* }" "$l"
done
want admission && {
l=$(load)
b=$(ADMIT_BENCH_RUN_OF=1 ADMIT_BENCH_HOURS=26280 timed "$B/admit"); a=$(ADMIT_BENCH_RUN_OF=1 ADMIT_BENCH_HOURS=26280 timed "$A/admit")
row "admission SECOND, 3 years (26,280 h)" "CPU s" "${b% *}" "${a% *}" "$l"
}
want oversub && {
l=$(load)
b=$(timed "$B/packlab" oversub-train --preset E1.1 --alpha 0.95 --episodes "$EPISODES" --out "$DIR/oversub-$BEFORE.json")
a=$(timed "$A/packlab" oversub-train --preset E1.1 --alpha 0.95 --episodes "$EPISODES" --out "$DIR/oversub-$AFTER.json")
row "oversub E1.1 training, $EPISODES episodes" "CPU s" "${b% *}" "${a% *}" "$l"
}
sizes() {
  cp "$1" "$DIR/size.wasm"
  node scripts/brotli.mjs "$DIR/size.wasm" "$BQ" > /dev/null
  echo "$(stat -c %s "$1") $(gzip -9c "$1" | wc -c) $(stat -c %s "$DIR/size.wasm.br")"
  rm -f "$DIR/size.wasm" "$DIR/size.wasm.br"
}
want wasm && {
l=$(load)
read -r braw bgz bbr < <(sizes "$B/packlab_bg.wasm")
read -r araw agz abr < <(sizes "$A/packlab_bg.wasm")
row "wasm module raw" "bytes" "$braw" "$araw" "$l"
row "wasm module gzip -9" "bytes" "$bgz" "$agz" "$l"
row "wasm module brotli $BQ" "bytes" "$bbr" "$abr" "$l"
}

cpu1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
{
  echo "# issue 30, before ($BEFORE) and after ($AFTER), one run each, $(date -u +%FT%TZ)"
  echo "# command: ROWS=$ROWS OVERSUB_EPISODES=$EPISODES BROTLI_QUALITY=$BQ scripts/bench-issue30.sh $BEFORE $AFTER (PACKLAB_THREADS=1)"
  echo "# machine: $(nproc) cores, $(uname -m), shared; load = 1-minute load average at the row's start; CPU = user + system"
  echo "# placement: wide traces of scripts/gen-wide-trace.py --vms N --samples 24 --decimals 0 --seed 1; lifetime: bundled arrivals"
  printf '%-46s %-8s %14s %14s %12s %6s\n' "benchmark" "unit" "before" "after" "after/before" "load"
  printf '%s\n' "${rows[@]}"
  echo "# benchmarks' CPU (children of this script, builds included when they ran): $(( (cpu1 - cpu0) / $(getconf CLK_TCK) )) s; wall $(( $(date +%s) - T0 )) s"
  echo
} | tee -a "$OUT"
