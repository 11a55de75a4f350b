#!/usr/bin/env bash
# CI as it runs on a fresh machine, measured: a fresh clone of this repository's HEAD in a temporary folder, with
# ../shared beside it (a link to this clone's ../shared) and an EMPTY tool cache (PACKLAB_TOOLS_CACHE in the same
# folder, so wasm-bindgen-cli is built as on a fresh machine), then `.ci/run` under GNU time, with `vmstat -n 5`
# beside it (the CPU's busy share over the run: CI on two cores is CPU-bound when us+sy stays near 100).
#   bash scripts/ci-fresh-clone.sh [DIR=$TMPDIR/packlab-ci]
# Writes DIR/ci.log (the log, with its `== [s]` stage stamps and time's figures), DIR/vmstat.log and DIR/rc; prints
# the stage stamps, the wall time and the exit code. Stage tables go to results/bench/ci-stages.txt by hand.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${1:-${TMPDIR:-/tmp}/packlab-ci}"
[ -d "$SRC/../shared" ] || { echo "ci-fresh-clone: $SRC/../shared missing (the specification, papers, data)" >&2; exit 2; }
rm -rf "$DIR"; mkdir -p "$DIR/tools"
git clone -q "$SRC" "$DIR/packlab"
ln -s "$(cd "$SRC/../shared" && pwd)" "$DIR/shared"
vmstat -n 5 > "$DIR/vmstat.log" & VM=$!
trap 'kill $VM 2>/dev/null || true' EXIT
rc=0
(cd "$DIR/packlab" && /usr/bin/time -v env PACKLAB_TOOLS_CACHE="$DIR/tools" ./.ci/run) > "$DIR/ci.log" 2>&1 || rc=$?
echo "$rc" > "$DIR/rc"
grep -E '^== \[|Elapsed \(wall|User time|System time' "$DIR/ci.log" || true
awk 'NR > 2 { busy += $13 + $14; n++ } END { if (n) printf "CPU busy (us+sy), mean over %d samples: %.1f%%\n", n, busy / n }' "$DIR/vmstat.log"
echo "ci-fresh-clone: exit $rc (log $DIR/ci.log)"
exit "$rc"
