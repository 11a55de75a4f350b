#!/usr/bin/env bash
# Times `packlab placement frontier` on the bundled PlanetLab day with two packlab binaries (e.g. before and
# after a change): `scripts/time-frontier.sh OLD_BIN NEW_BIN [RUNS] [extra frontier flags]`.
# Runs are interleaved (OLD, NEW, OLD, ...) on one thread (PACKLAB_THREADS=1) so both see the same machine load;
# prints per binary the median and minimum CPU time (user + sys of the process, like `time`) over RUNS runs
# (default 15), and, when valgrind is installed, the instructions executed (callgrind; deterministic, so it
# shows the cost of a change on a busy machine too).
set -euo pipefail
OLD=$(realpath "$1"); NEW=$(realpath "$2"); RUNS=${3:-15}; shift $(( $# < 3 ? $# : 3 ))
cd "$(dirname "$0")/.."
TRACE=static/traces/planetlab-20110303.tsv.gz
echo "packlab placement frontier --trace $TRACE $*"
python3 - "$RUNS" "$OLD" "$NEW" "$TRACE" "$@" <<'PY'
import os, statistics, subprocess, sys
runs, old, new, trace, extra = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
env = dict(os.environ, PACKLAB_THREADS="1")
t = {old: [], new: []}
for _ in range(runs):
    for b in (old, new):
        p = subprocess.Popen([b, "placement", "frontier", "--trace", trace, *extra], stdout=subprocess.DEVNULL, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        assert status == 0, b
        t[b].append(ru.ru_utime + ru.ru_stime)
for b, v in t.items():
    print(f"  {b}: CPU time median {statistics.median(v) * 1e3:.1f} ms, min {min(v) * 1e3:.1f} ms over {len(v)} runs")
PY
if command -v valgrind > /dev/null; then
  for b in "$OLD" "$NEW"; do
    n=$(PACKLAB_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$b" placement frontier \
      --trace "$TRACE" "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : //p')
    echo "  $b: $n instructions"
  done
fi
