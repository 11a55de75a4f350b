#!/usr/bin/env bash
# Issue 30's benchmarks, before and after, in one run, side by side (natively and in node on this machine, one thread):
#   scripts/bench-issue30.sh [BEFORE [AFTER]]
# BEFORE defaults to 51867ea, main when issue 30 was filed (the parent of the seventh session's first commit,
# 87c7304); AFTER to HEAD. Each commit is built once in a temporary worktree under $BENCH_DIR (default
# /tmp/packlab-bench-issue30; one shared target dir, kept, so a second run builds nothing): the CLI, the
# admission bench executable (benches/admit.rs) and the wasm modules with their JS (that commit's scripts/build-wasm.sh:
# the full module and, since the fifteenth session, the page's first module, placement alone).
# AFTER = HEAD with src/, benches/ and Cargo.* unchanged is built from this checkout instead (into its own
# target dir; the module lands in its www/pkg).
# Then, alternating the two builds row by row, one run each (the issue's filing's figures, at its sizes where
# they fit the run):
#   placement   `packlab placement pack --fit gpa:0.05` and `placement frontier` (GPA alone, every family) on wide
#               traces of $PACK_SIZES VMs × 24 samples (default 12500 25000 50000 100000; scripts/gen-wide-trace.py,
#               seed 1; the command's CPU, reading the trace included: a `summary` row at the largest gives the read
#               alone). 1M VMs (pack-scaling.txt's largest) is PACK_SIZES="… 1000000": ~2 min before, not by default
#   lifetime    `packlab lifetime [run] --share S --json`, every policy, bundled Azure 2017 arrivals, S in $SHARES
#               (default 0.01 0.2 0.5 1): CPU and peak RSS (GNU time)
#   admission   the 3-year SECOND run (benches/admit.rs, run 0 of master seed 1, 26,280 h): native CPU; then
#               scripts/bench-admission-run.mjs with that build's module in node: wasm and native wall, wasm/native
#   oversub     `oversub-train --preset E1.1 --alpha 0.95 --episodes $OVERSUB_EPISODES` (default 1800, the issue's
#               figure), one thread: CPU
#   ratios      scripts/bench-frontier-run.mjs $FRONTIER_REPS (default 9): placement's default day and resampled 3000,
#               wasm in node against the CLI on one thread, interleaved, medians of wall time
#   firstrun    scripts/bench-warm.mjs 2 per case of $WARM_CASES (default placement placement+warm-up admission
#               lifetime oversub): a fresh engine's first run of the default scenario against its second; the placement
#               cases on the module the page loads first (after: the first module; before: its only one), the warm-up
#               as the page's worker makes it (www/placement/warm-up.js's passes)
#   wasm        each module's bytes raw, gzip -9, brotli quality $BROTLI_QUALITY (default 11, what is served;
#               scripts/brotli.mjs of this checkout for both): the module the page loads first (before: its only
#               one) and the full one; then the page's first load and reload in Chromium (scripts/page-weight.sh,
#               bytes on the wire and requests) for a build whose module is this checkout's www/pkg (AFTER = HEAD
#               built here) and that has the script; "(none before)" for a commit without it
#   ci          not re-run: the filing's 1,266 s against the last fresh-clone total in results/bench/ci-stages.txt
# The node rows load each build's module through the scripts' overrides (ADMIT_BENCH_PKG, PACKLAB_CLI,
# ADMIT_BENCH_BIN); a row a build cannot run says "failed" (the error in $BENCH_DIR/stderr.log).
# ROWS=LIST (comma-separated of the names above; default all) runs only those.
# It appends the table, with the 1-minute load average at each row's start, to results/bench/issue30-before-after.txt.
# CPU = user + system seconds (moves far less than wall time on a shared machine). PACKLAB_THREADS=1 throughout.
# Run it under `nice -n 10` on a shared machine (~12–20 min with the builds cached; a build of both modules ~13 min).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BEFORE=$(git rev-parse --short "${1:-51867ea}")
AFTER=$(git rev-parse --short "${2:-HEAD}")
DIR=${BENCH_DIR:-/tmp/packlab-bench-issue30}
EPISODES=${OVERSUB_EPISODES:-1800}
ROWS=${ROWS:-placement,lifetime,admission,oversub,ratios,firstrun,wasm,ci}
PACK_SIZES=${PACK_SIZES:-12500 25000 50000 100000}
SHARES=${SHARES:-0.01 0.2 0.5 1}
FRONTIER_REPS=${FRONTIER_REPS:-9}
WARM_CASES=${WARM_CASES:-placement placement+warm-up admission lifetime oversub}
want() { [[ ",$ROWS," == *",$1,"* ]]; }
BQ=${BROTLI_QUALITY:-11}
OUT=${OUT:-results/bench/issue30-before-after.txt}
export PACKLAB_THREADS=1
mkdir -p "$DIR/bin" "$DIR/traces"
T0=$(date +%s)
cpu0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)

# has_first REV: whether that commit's scripts/build-wasm.sh writes the page's first module (fifteenth session)
has_first() { git show "$1:scripts/build-wasm.sh" 2> /dev/null | grep -q '_first_bg\.wasm'; }
# build REV: $DIR/bin/REV/{packlab,admit,packlab_bg.wasm,pkg/} (pkg: that build's wasm-bindgen output, for the
# node rows) and, when the commit makes one, packlab_first_bg.wasm with pkg-first/ (the same JS, the first module as
# packlab_bg.wasm, as the page instantiates it), each built only when missing
build() {
  local rev=$1 bin=$DIR/bin/$1 src tgt=$DIR/target wt="" first=""
  has_first "$rev" && first=1
  [ -x "$bin/packlab" ] && [ -x "$bin/admit" ] && [ -s "$bin/packlab_bg.wasm" ] && [ -s "$bin/pkg/packlab.js" ] \
    && { [ -z "$first" ] || [ -s "$bin/pkg-first/packlab_bg.wasm" ]; } && return 0
  mkdir -p "$bin"
  if [ "$rev" = "$(git rev-parse --short HEAD)" ] && git diff --quiet HEAD -- src benches Cargo.toml Cargo.lock; then
    src=$ROOT; tgt=$ROOT/target # this checkout's own target dir, current after `make native`
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
  if [ ! -s "$bin/packlab_bg.wasm" ] || [ ! -s "$bin/pkg/packlab.js" ] || { [ -n "$first" ] && [ ! -s "$bin/pkg-first/packlab_bg.wasm" ]; }; then
    (cd "$src" && WASM_BROTLI_QUALITY=0 CARGO_TARGET_DIR="$tgt" nice -n 10 bash scripts/build-wasm.sh >&2)
    rm -rf "$bin/pkg" "$bin/pkg-first"; mkdir -p "$bin/pkg"
    cp "$src/www/pkg/packlab.js" "$src/www/pkg/packlab_bg.wasm" "$bin/pkg/"
    cp "$src/www/pkg/packlab_bg.wasm" "$bin/packlab_bg.wasm"
    if [ -n "$first" ]; then
      mkdir -p "$bin/pkg-first"
      cp "$src/www/pkg/packlab.js" "$bin/pkg-first/"
      cp "$src/www/pkg/packlab_first_bg.wasm" "$bin/pkg-first/packlab_bg.wasm"
      cp "$src/www/pkg/packlab_first_bg.wasm" "$bin/packlab_first_bg.wasm"
    fi
  fi
  [ -z "$wt" ] || git worktree remove --force "$src"
}
build "$BEFORE"
build "$AFTER"
B=$DIR/bin/$BEFORE
A=$DIR/bin/$AFTER

for n in $PACK_SIZES; do
  f=$DIR/traces/wide-$n-24.tsv
  [ -s "$f" ] || { python3 scripts/gen-wide-trace.py "$f.part" --vms "$n" --samples 24 --decimals 0 --seed 1; mv "$f.part" "$f"; }
done
rm -rf scripts/__pycache__
BIG=$DIR/traces/wide-$(echo "$PACK_SIZES" | tr ' ' '\n' | sort -n | tail -1)-24.tsv

# timed BIN ARGS…: "CPU_s RSS_MB WALL_s" of one run (stdout discarded); cpu / rss / wall pick one
cpu() { cut -d' ' -f1 <<< "$1"; }
rss() { cut -d' ' -f2 <<< "$1"; }
wall() { echo "$(cut -d' ' -f3 <<< "$1")/$(cut -d' ' -f3 <<< "$2")"; }
timed() {
  local log
  log=$(mktemp)
  if ! /usr/bin/time -f '%U %S %M %e' -o "$log" "$@" > /dev/null 2>> "$DIR/stderr.log"; then
    echo "failed failed failed"; rm -f "$log"; return 0
  fi
  awk '{printf "%.2f %.1f %.2f", $1 + $2, $3 / 1000, $4}' "$log"
  rm -f "$log"
}
lifetime_cmd() { if "$1" lifetime run --help > /dev/null 2>&1; then echo "$1 lifetime run"; else echo "$1 lifetime"; fi; }
LB=$(lifetime_cmd "$B/packlab")
LA=$(lifetime_cmd "$A/packlab")

rows=()
# row NAME UNIT BEFORE AFTER LOAD [WALL]: after/before when both are numbers; WALL "before/after" seconds
row() {
  local ratio
  ratio=$(awk -v b="$3" -v a="$4" 'BEGIN { if (b ~ /^[0-9.]+$/ && a ~ /^[0-9.]+$/ && b > 0) printf "%.3f", a / b; else print "-" }')
  rows+=("$(printf '%-50s %-9s %14s %14s %12s %6s  %s' "$1" "$2" "$3" "$4" "$ratio" "$5" "${6:-}")")
  echo "${rows[-1]}" >&2
}
load() { cut -d' ' -f1 /proc/loadavg; }
# field JSON PATH: a number from a script's JSON line (PATH like a.b.c), or "failed" when the script did not run
field() { node -e 'try { let v = JSON.parse(process.argv[1]); for (const k of process.argv[2].split(".")) v = v[k]; console.log(v ?? "failed"); } catch { console.log("failed"); }' "$1" "$2"; }
# on BUILD CMD…: CMD with that build's wasm-bindgen output and CLI (the node scripts' overrides), its stdout's last
# line, or nothing when it failed (its stderr in $DIR/stderr.log)
on() { local x=$1; shift; ADMIT_BENCH_PKG=$x/pkg PACKLAB_CLI=$x/packlab ADMIT_BENCH_BIN=$x/admit "$@" 2>> "$DIR/stderr.log" | tail -1 || true; }

want placement && for n in $PACK_SIZES; do
  f=$DIR/traces/wide-$n-24.tsv
  l=$(load)
  b=$(timed "$B/packlab" placement pack --trace "$f" --fit gpa:0.05); a=$(timed "$A/packlab" placement pack --trace "$f" --fit gpa:0.05)
  row "placement pack gpa:0.05, $n VMs" "CPU s" "$(cpu "$b")" "$(cpu "$a")" "$l" "$(wall "$b" "$a")"
done
# the issue's filing timed the frontier (every knob of a family, rebalancing on): GPA alone and every family
want placement && for fam in gpa all; do for n in $PACK_SIZES; do
  f=$DIR/traces/wide-$n-24.tsv
  l=$(load)
  if [ "$fam" = all ]; then set -- ; else set -- --families "$fam"; fi
  b=$(timed "$B/packlab" placement frontier --trace "$f" "$@"); a=$(timed "$A/packlab" placement frontier --trace "$f" "$@")
  row "placement frontier $fam, $n VMs" "CPU s" "$(cpu "$b")" "$(cpu "$a")" "$l" "$(wall "$b" "$a")"
done; done
want placement && {
l=$(load)
b=$(timed "$B/packlab" summary --trace "$BIG"); a=$(timed "$A/packlab" summary --trace "$BIG")
row "  (reading the ${BIG##*wide-} trace alone: summary)" "CPU s" "$(cpu "$b")" "$(cpu "$a")" "$l" "$(wall "$b" "$a")"
}
want lifetime && for s in $SHARES; do
  l=$(load)
  # shellcheck disable=SC2086
  b=$(timed $LB --share "$s" --json); a=$(timed $LA --share "$s" --json)
  row "lifetime share $s, 4 policies" "CPU s" "$(cpu "$b")" "$(cpu "$a")" "$l" "$(wall "$b" "$a")"
  row "lifetime share $s, 4 policies" "RSS MB" "$(rss "$b")" "$(rss "$a")" "$l"
done
want admission && {
l=$(load)
b=$(ADMIT_BENCH_RUN_OF=1 ADMIT_BENCH_HOURS=26280 timed "$B/admit"); a=$(ADMIT_BENCH_RUN_OF=1 ADMIT_BENCH_HOURS=26280 timed "$A/admit")
row "admission SECOND, 3 years (26,280 h), native" "CPU s" "$(cpu "$b")" "$(cpu "$a")" "$l" "$(wall "$b" "$a")"
# scripts/bench-admission-run.mjs: one wasm run in node, then the same run natively (the bench executable), wall
l=$(load)
jb=$(on "$B" node scripts/bench-admission-run.mjs 26280 0.01 1); ja=$(on "$A" node scripts/bench-admission-run.mjs 26280 0.01 1)
row "admission SECOND 3 years, wasm in node (wall)" "s" "$(field "$jb" admission_run_bench.wasm_s)" "$(field "$ja" admission_run_bench.wasm_s)" "$l"
row "admission SECOND 3 years, native (wall)" "s" "$(field "$jb" admission_run_bench.native_s)" "$(field "$ja" admission_run_bench.native_s)" "$l"
row "admission SECOND 3 years, wasm/native" "ratio" "$(field "$jb" admission_run_bench.ratio)" "$(field "$ja" admission_run_bench.ratio)" "$l"
row "  (wasm and native reports identical)" "bool" "$(field "$jb" admission_run_bench.identical)" "$(field "$ja" admission_run_bench.identical)" "$l"
}
want oversub && {
l=$(load)
b=$(timed "$B/packlab" oversub-train --preset E1.1 --alpha 0.95 --episodes "$EPISODES" --out "$DIR/oversub-$BEFORE.json")
a=$(timed "$A/packlab" oversub-train --preset E1.1 --alpha 0.95 --episodes "$EPISODES" --out "$DIR/oversub-$AFTER.json")
row "oversub E1.1 training, $EPISODES episodes" "CPU s" "$(cpu "$b")" "$(cpu "$a")" "$l" "$(wall "$b" "$a")"
}
# scripts/bench-frontier-run.mjs: placement's bundled day (default scenario) and resampled 3000, wasm in node
# against `packlab run` on one thread, interleaved, median of $FRONTIER_REPS (wall, process start and trace parse in)
want ratios && {
l=$(load)
jb=$(on "$B" node scripts/bench-frontier-run.mjs "$FRONTIER_REPS"); ja=$(on "$A" node scripts/bench-frontier-run.mjs "$FRONTIER_REPS")
for c in default resampled3000; do
  row "placement $c, wasm in node (median, wall)" "ms" "$(field "$jb" frontier_run_bench.$c.wasm_ms)" "$(field "$ja" frontier_run_bench.$c.wasm_ms)" "$l"
  row "placement $c, native 1 thread (median, wall)" "ms" "$(field "$jb" frontier_run_bench.$c.native_ms)" "$(field "$ja" frontier_run_bench.$c.native_ms)" "$l"
  row "placement $c, wasm/native" "ratio" "$(field "$jb" frontier_run_bench.$c.ratio)" "$(field "$ja" frontier_run_bench.$c.ratio)" "$l"
done
}
# scripts/bench-warm.mjs: a fresh node process per case loads the engine and runs the model's default scenario
# twice (node's default V8 flags); first/second of the two runs. placement+warm-up exists only after (tenth session).
# The placement cases load the module the page starts on (pkg-first when the build has one: www/common/engine.js),
# the others the full module (the page's other views load it).
# a bench-warm.mjs line "… runs 0.29 0.08 s, first/second 3.62": the two runs, the ratio
runs() { sed -n 's/.*runs \([0-9.]*\) \([0-9.]*\) s.*/\1 \2/p' <<< "$1"; }
ratio() { sed -n 's/.*first\/second \([0-9.]*\).*/\1/p' <<< "$1"; }
want firstrun && for c in $WARM_CASES; do
  l=$(load)
  pb=$B/pkg pa=$A/pkg
  case $c in placement*) [ -d "$B/pkg-first" ] && pb=$B/pkg-first; [ -d "$A/pkg-first" ] && pa=$A/pkg-first ;; esac
  if [ "$c" = placement+warm-up ]; then rb="(none before)"; else
    rb=$(ADMIT_BENCH_PKG=$pb WARM_CASES=$c WARM_FLAGS=default node scripts/bench-warm.mjs 2 2>> "$DIR/stderr.log" | sed -n 2p || true)
  fi
  ra=$(ADMIT_BENCH_PKG=$pa WARM_CASES=$c WARM_FLAGS=default node scripts/bench-warm.mjs 2 2>> "$DIR/stderr.log" | sed -n 2p || true)
  row "first run / second, fresh wasm engine: $c" "ratio" "$(ratio "$rb" | grep . || echo "${rb:-failed}")" "$(ratio "$ra" | grep . || echo failed)" "$l"
  row "  (runs 1 and 2, s)" "s" "$(runs "$rb" | tr ' ' / | grep . || echo -)" "$(runs "$ra" | tr ' ' / | grep . || echo -)" "$l"
done
sizes() {
  cp "$1" "$DIR/size.wasm"
  node scripts/brotli.mjs "$DIR/size.wasm" "$BQ" > /dev/null
  echo "$(stat -c %s "$1") $(gzip -9c "$1" | wc -c) $(stat -c %s "$DIR/size.wasm.br")"
  rm -f "$DIR/size.wasm" "$DIR/size.wasm.br"
}
# first_wasm BIN: the module the page loads first (the first module, else the build's only one)
first_wasm() { if [ -s "$1/packlab_first_bg.wasm" ]; then echo "$1/packlab_first_bg.wasm"; else echo "$1/packlab_bg.wasm"; fi; }
# page_weight REV BIN: scripts/page-weight.sh's JSON line (Chromium: the page's first load and a reload over
# scripts/serve.py) when REV has the script and this checkout's www/pkg holds BIN's first module (REV = HEAD built
# here; the brotli copy the page is sent made at quality $BQ, as build-wasm.sh makes it, if it is not there), else
# why not
page_weight() {
  local rev=$1 bin=$2 f=www/pkg/packlab_first_bg.wasm key
  git cat-file -e "$rev:scripts/page-weight.sh" 2> /dev/null || { echo "(none before)"; return 0; }
  [ -s "$bin/packlab_first_bg.wasm" ] && cmp -s "$f" "$bin/packlab_first_bg.wasm" || { echo "(not built here)"; return 0; }
  key="$(sha256sum < "$f" | cut -c1-64) quality $BQ"
  if [ ! -f "$f.br" ] || [ "$(cat "$f.br.key" 2> /dev/null)" != "$key" ]; then
    node scripts/brotli.mjs "$f" "$BQ" > /dev/null && echo "$key" > "$f.br.key"
  fi
  OUT=$DIR/page-weight-$rev.json bash scripts/page-weight.sh 2>> "$DIR/stderr.log" | tail -1 | grep '^{' || echo failed
}
# pw JSON KEY: a page_* figure, or the reason page_weight gave
pw() { case $1 in '{'*) field "$1" "$2" ;; *) echo "$1" ;; esac; }
want wasm && {
l=$(load)
read -r braw bgz bbr < <(sizes "$(first_wasm "$B")")
read -r araw agz abr < <(sizes "$(first_wasm "$A")")
row "wasm the page loads first (before: its only one) raw" "bytes" "$braw" "$araw" "$l"
row "wasm the page loads first, gzip -9 (aim < 600 KB)" "bytes" "$bgz" "$agz" "$l"
row "wasm the page loads first, brotli $BQ (served)" "bytes" "$bbr" "$abr" "$l"
l=$(load)
read -r braw bgz bbr < <(sizes "$B/packlab_bg.wasm")
read -r araw agz abr < <(sizes "$A/packlab_bg.wasm")
row "wasm full module (every model) raw" "bytes" "$braw" "$araw" "$l"
row "wasm full module gzip -9" "bytes" "$bgz" "$agz" "$l"
row "wasm full module brotli $BQ" "bytes" "$bbr" "$abr" "$l"
l=$(load)
jb=$(page_weight "$BEFORE" "$B"); ja=$(page_weight "$AFTER" "$A")
row "page first load on the wire (Chromium)" "bytes" "$(pw "$jb" page_first_load_bytes)" "$(pw "$ja" page_first_load_bytes)" "$l"
row "  (its requests)" "count" "$(pw "$jb" page_first_load_requests)" "$(pw "$ja" page_first_load_requests)" "$l"
row "  (of which the wasm module, compressed)" "bytes" "$(pw "$jb" page_wasm_wire_bytes)" "$(pw "$ja" page_wasm_wire_bytes)" "$l"
row "page reload on the wire (validators: 304s)" "bytes" "$(pw "$jb" page_reload_bytes)" "$(pw "$ja" page_reload_bytes)" "$l"
row "  (reload's body bytes)" "bytes" "$(pw "$jb" page_reload_body_bytes)" "$(pw "$ja" page_reload_body_bytes)" "$l"
}
# CI is not re-run here (a fresh clone's `.ci/run` takes ~16 min of a quiet machine): before is the issue's filing
# (1,266 s on a fresh machine, quoted in results/bench/issue30.md), after the last total stored in
# results/bench/ci-stages.txt
want ci && {
ci=$(grep -E '^# \| total' results/bench/ci-stages.txt | tail -1 | sed -n 's/[^*]*\*\*\([0-9,]*\) s\*\*.*/\1/p' | tr -d ,)
row "CI, fresh clone (not re-run: ci-stages.txt)" "wall s" 1266 "${ci:-unread}" "-"
}

cpu1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
{
  echo "# issue 30, before ($BEFORE) and after ($AFTER), one run each, $(date -u +%FT%TZ)"
  echo "# command: ROWS=$ROWS OVERSUB_EPISODES=$EPISODES PACK_SIZES='$PACK_SIZES' SHARES='$SHARES' FRONTIER_REPS=$FRONTIER_REPS WARM_CASES='$WARM_CASES' BROTLI_QUALITY=$BQ scripts/bench-issue30.sh $BEFORE $AFTER (PACKLAB_THREADS=1, nice $(nice))"
  echo "# machine: $(nproc) cores, $(uname -m), shared; load = 1-minute load average at the row's start; CPU = user + system"
  echo "# placement: wide traces of scripts/gen-wide-trace.py --vms N --samples 24 --decimals 0 --seed 1; lifetime: bundled arrivals"
  printf '%-50s %-9s %14s %14s %12s %6s  %s\n' "benchmark" "unit" "before" "after" "after/before" "load" "wall s before/after"
  printf '%s\n' "${rows[@]}"
  echo "# benchmarks' CPU (children of this script, builds included when they ran): $(( (cpu1 - cpu0) / $(getconf CLK_TCK) )) s; wall $(( $(date +%s) - T0 )) s"
  echo
} | tee -a "$OUT"
