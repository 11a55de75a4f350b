#!/usr/bin/env bash
# Runs the cargo-fuzz targets (fuzz/, see fuzz/README.md), FUZZ_JOBS fuzzing processes at a time:
#   FUZZ_SECONDS  seconds per target (default 60)        FUZZ_TARGETS  targets to run (default: all)
#   FUZZ_JOBS     targets at a time (default 1; the smoke: 2)
#   FUZZ_SMOKE=1  the CI smoke of `make test`: when the nightly toolchain cannot be installed (no rustup, no
#                 network to the Rust dist server), it says so and exits 0 instead of failing.
#   FUZZ_BUILD_ONLY=1  installs and builds, then stops (`make test` starts the smoke's build this way in the
#                 background, at nice 5, beside the other stages; see the Makefile).
# One run at a time: a run waits for another one's build to finish (a lock on test-artifacts/fuzz.lock), so the
# smoke after a background build only finds the targets built.
# Needs the nightly toolchain (rustup; installed when missing). Not cargo-fuzz: the targets are built with a plain
# `cargo +nightly build` and the flags `cargo fuzz build -O` passes (cargo-fuzz 0.13's src/project.rs), so a fresh
# machine does not compile cargo-fuzz (5.5 min of CPU, results/bench/ci-stages.txt); `cargo fuzz run <target>` still
# works for whoever has it, on the same fuzz/target/ build.
# A crash, a hang (> 10 s on one input) or an OOM (> 2 GiB) fails the run; the input is kept in
# fuzz/artifacts/<target>/ (add it to tests/fuzz-regressions/<target>/ with the fix). FUZZ_KEEP_GOING=1 goes
# on fuzzing (the rest of the target's time, then the next targets) after a finding, and fails at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PATH"
SECS="${FUZZ_SECONDS:-60}"
SMOKE="${FUZZ_SMOKE:-}"
log() { printf 'fuzz: %s %s\n' "$(date -u +%T)" "$*"; }
mkdir -p test-artifacts
exec 9>test-artifacts/fuzz.lock
if ! flock -n 9; then
  log "waiting for the fuzz build already running (make test's background build: test-artifacts/fuzz-build.log)"
  flock 9
  [ -n "${FUZZ_BUILD_ONLY:-}" ] || [ ! -f test-artifacts/fuzz-build.log ] || sed 's/^/  background| /' test-artifacts/fuzz-build.log
fi
unavailable() {
  if [ -n "$SMOKE" ]; then log "SKIPPED: $* (the fuzz smoke needs it; run 'make fuzz' where it is available)"; exit 0; fi
  echo "fuzz: $*" >&2; exit 1
}

command -v rustup >/dev/null || unavailable "rustup not found (the fuzzers need the nightly toolchain)"
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  log "rustup toolchain install nightly --profile minimal"
  rustup toolchain install nightly --profile minimal || unavailable "cannot install the nightly toolchain"
fi

# The smoke only checks that every target builds and runs its seeds for a second, so its build trades
# optimisation for compile time (opt-level 1, no debug info: the nightly build is most of the smoke's time)
# and leaves out AddressSanitizer (the engine has no unsafe code; a panic, a hang or an OOM is still caught):
# 155 s of build CPU instead of 204 s (twelfth session). `make fuzz` keeps fuzz/Cargo.toml's release profile and ASan for long
# runs. Both use fuzz/target, so switching between them rebuilds.
# The smoke compiles the engine and its dependencies at opt-level 0 (rhai, the largest, in about a third of its
# opt-level 1 time; clap is not built at all, fuzz/Cargo.toml), except libFuzzer itself and the numeric ones the
# engine's fits run through (libm, statrs): 110 s of build CPU from an empty fuzz/target instead of 194 s with the
# engine at opt-level 1 and -Zshare-generics=n (the thirteenth session's choice); the targets' seeds take 37 s of
# wall one at a time instead of 32 s, model_files 6.6 s instead of 3.3 s, so it starts first below
# (results/bench/ci-stages.txt, sixteenth session).
SAN=address
DEBUG='"line-tables-only"'
PROFILE_CONFIG=()
if [ -n "$SMOKE" ]; then
  export CARGO_PROFILE_RELEASE_OPT_LEVEL="${CARGO_PROFILE_RELEASE_OPT_LEVEL:-1}"
  DEBUG=0
  SAN=none
  for p in '"*"=0' libfuzzer-sys=1 libm=1 statrs=1; do
    PROFILE_CONFIG+=(--config "profile.release.package.${p%=*}.opt-level=${p#*=}")
  done
fi

TARGETS="${FUZZ_TARGETS:-$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^packlab-fuzz$')}"
# the slowest target's seeds (model_files: ~6.6 s at the smoke's opt-level 0) first, so the two jobs end together
[ -n "${FUZZ_TARGETS:-}" ] || TARGETS="$(printf '%s\n' $TARGETS | grep -x model_files || true) $(printf '%s\n' $TARGETS | grep -vx model_files)"
log "building the targets (nightly, coverage-instrumented release build, sanitizer: $SAN)"
HOST=$(rustc +nightly -vV | sed -n 's/^host: //p')
# `cargo fuzz build -O [-s none]`'s command: libFuzzer's coverage instrumentation (SanitizerCoverage: 8-bit counters,
# PC table, compare tracing, stack depth), `--cfg fuzzing`, no branch folding, one codegen unit, and an explicit
# --target so that build scripts are not instrumented. ASAN_OPTIONS below is what `cargo fuzz run` adds for ASan.
FLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
FLAGS+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table"
FLAGS+=" -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cllvm-args=-simplifycfg-branch-fold-threshold=0"
FLAGS+=" -Cllvm-args=-sanitizer-coverage-stack-depth -Ccodegen-units=1"
[ "$SAN" = none ] || FLAGS+=" -Zsanitizer=$SAN"
RUSTFLAGS="$FLAGS ${RUSTFLAGS:-}" cargo +nightly build --manifest-path fuzz/Cargo.toml --target "$HOST" --release \
  --config "profile.release.debug=$DEBUG" "${PROFILE_CONFIG[@]}" --bins
log "built"
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_odr_violation=0"
BIN_DIR="fuzz/target/$HOST/release"
# One target's runs (FUZZ_SECONDS in all, restarted after a finding under FUZZ_KEEP_GOING); its summary line goes
# to $SUMS/<target>, and it fails when it found something.
SUMS=$(mktemp -d); trap 'rm -rf "$SUMS"' EXIT
fuzz_target() {
  local t=$1 left=$SECS execs=0 finds=0 start ok n out
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log "$t: ${SECS} s"
  start=$(date +%s)
  while [ "$left" -gt 0 ]; do
    out="fuzz/artifacts/$t/last-run.log"
    # the built binary itself, as `cargo fuzz run` would start it
    if "$BIN_DIR/$t" -artifact_prefix="fuzz/artifacts/$t/" "fuzz/corpus/$t" "fuzz/seeds/$t" \
        -max_total_time="$left" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 2>"$out"; then ok=1; else ok=0; fi
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
    execs=$((execs + ${n:-0}))
    if [ "$ok" = 0 ]; then
      finds=$((finds + 1))
      grep -E "^==[0-9]+==|panicked at|^SUMMARY|Test unit written to" "$out" | head -8 >&2 || tail -30 "$out" >&2
      echo "fuzz: $t found a crash, hang or OOM; the input is in fuzz/artifacts/$t/ (log: $out)" >&2
      [ -n "${FUZZ_KEEP_GOING:-}" ] || break
    fi
    left=$((SECS - ($(date +%s) - start)))
    [ "$ok" = 1 ] && break
  done
  echo "$t: $(( $(date +%s) - start )) s, $execs executions, $finds findings" > "$SUMS/$t"
  log "$(cat "$SUMS/$t")"
  [ "$finds" = 0 ] || { touch "$SUMS/$t.failed"; return 1; }
}
# FUZZ_JOBS targets at a time (default 1; the smoke: 2, one per core of a CI machine, as each libFuzzer process keeps
# one core busy: 15 targets × ~2 s took 31–44 s one at a time at the end of `make test`). After a finding no further
# target starts once the finding is known (unless FUZZ_KEEP_GOING); the ones running finish.
JOBS="${FUZZ_JOBS:-$([ -n "$SMOKE" ] && echo 2 || echo 1)}"
failed=0; running=0
for t in $TARGETS; do
  if [ "$running" -ge "$JOBS" ]; then wait -n || failed=1; running=$((running - 1)); fi
  # a target that failed but is not reaped yet (wait -n reaped another one) counts too
  ! compgen -G "$SUMS/*.failed" >/dev/null || failed=1
  [ "$failed" = 0 ] || [ -n "${FUZZ_KEEP_GOING:-}" ] || break
  fuzz_target "$t" & running=$((running + 1))
done
while [ "$running" -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
log "done"
for t in $TARGETS; do [ ! -f "$SUMS/$t" ] || printf '  %s\n' "$(cat "$SUMS/$t")"; done
exit "$failed"
