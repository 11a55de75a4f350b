#!/usr/bin/env bash
# Build the engine for the browser: cargo (wasm32, [profile.wasm]) + the pinned wasm-bindgen from .tools/.
# Settings come from wasm-pack.toml ([build] profile, target, bindgen-target, out-dir, out-name, flags).
# Prints the raw, gzip -9 and brotli bytes of the .wasm (and of the page's first module, below).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(python3 - <<'PY'
import shlex, tomllib
b = tomllib.load(open("wasm-pack.toml", "rb"))["build"]
print(f"PROFILE={shlex.quote(b.get('profile', 'release'))}")
print(f"TARGET={shlex.quote(b.get('target', 'wasm32-unknown-unknown'))}")
print(f"BINDGEN_TARGET={shlex.quote(b.get('bindgen-target', 'web'))}")
print(f"OUT_DIR={shlex.quote(b.get('out-dir', 'www/pkg'))}")
print(f"OUT_NAME={shlex.quote(b.get('out-name', 'packlab'))}")
print("FLAGS=(" + " ".join(shlex.quote(f) for f in b.get("wasm-bindgen-flags", [])) + ")")
print(f"REMAP={'1' if b.get('remap-path-prefix', False) else ''}")
PY
)"
WASM_BINDGEN=.tools/bin/wasm-bindgen
[ -x "$WASM_BINDGEN" ] || { echo "build-wasm: $WASM_BINDGEN missing; run scripts/setup-web.sh (make setup-web)" >&2; exit 1; }

RUSTFLAGS_EXTRA=""
if [ -n "$REMAP" ]; then
  RUSTFLAGS_EXTRA="--remap-path-prefix=$PWD=packlab --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=cargo"
fi
# 128-bit SIMD (every current browser and node ≥ 16 run it): the hot loops of the simulators (e.g. the Δ sums
# of moments::absorption_corrections_lattice) vectorise as in the native build. IEEE lane arithmetic, so the
# numbers are the same as without it (tests/e2e/parity.test.mjs). The same flag is in .cargo/config.toml for
# other wasm32 builds; RUSTFLAGS (set here) takes precedence over it, so it is repeated. WASM_FEATURES= (empty)
# builds without it (to measure what it buys).
WASM_FEATURES="${WASM_FEATURES--C target-feature=+simd128}"
# A separate target dir keeps the wasm RUSTFLAGS from invalidating the native build cache.
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
# --no-default-features: the library alone, without the CLI's dependencies (clap; the `cli` feature, Cargo.toml);
# WASM_CARGO_FEATURES: the engine's features, `full` (every model and the script language) unless set; empty
# gives the page's first module, placement without scripts (issue 30). WASM_OUT_DIR overrides the out-dir.
CARGO_FEATURES="${WASM_CARGO_FEATURES-full}"
OUT_DIR="${WASM_OUT_DIR:-$OUT_DIR}"
PROFILE_DIR="$PROFILE"; [ "$PROFILE" = dev ] && PROFILE_DIR=debug
WASM="$CARGO_TARGET_DIR/$TARGET/$PROFILE_DIR/packlab.wasm"
# Cargo keeps one set of files for this crate's library whatever its features: the outputs (deps/packlab.wasm,
# libpacklab.rlib, their .d files and the copies beside deps/) and its fingerprint directory (.fingerprint/packlab-*,
# whose hash records the features). So that a rebuild with nothing changed is a no-op for both modules (issue 30),
# each feature set's files are kept in .packlab-stash/<features>/ with their mtimes after its build and put back
# before its next one: cargo then finds its own fingerprint and outputs and rebuilds only what changed since (a
# source newer than the restored dep-info, a dependency newer than the restored outputs). The stamp names the
# feature set whose files are in place. With no stash of the wanted set, the other set's outputs are removed.
LIB_DIR="$CARGO_TARGET_DIR/$TARGET/$PROFILE_DIR"
LIB_FILES=(deps/packlab.wasm deps/libpacklab.rlib deps/packlab.d deps/libpacklab.d packlab.wasm libpacklab.rlib packlab.d libpacklab.d)
# this crate's library's fingerprint directories (an interrupted build may have left one without its fingerprint)
lib_fingerprints() {
  local d
  for d in "$LIB_DIR"/.fingerprint/packlab-*; do
    if compgen -G "$d/*lib-packlab*" > /dev/null; then echo "$d"; fi
  done
}
build_lib() {
  local stamp="$LIB_DIR/.packlab-features" stash="$LIB_DIR/.packlab-stash/${1:-none}" f
  if [ "$(cat "$stamp" 2>/dev/null)" != "features=$1" ]; then
    for f in "${LIB_FILES[@]}"; do rm -f "$LIB_DIR/$f"; done
    rm -f "$stamp"
    if [ -d "$stash" ]; then
      lib_fingerprints | xargs -r rm -rf
      mkdir -p "$LIB_DIR/.fingerprint" "$LIB_DIR/deps"
      for f in "${LIB_FILES[@]}"; do [ ! -e "$stash/$f" ] || cp -p "$stash/$f" "$LIB_DIR/$f"; done
      cp -pr "$stash"/fingerprint/. "$LIB_DIR/.fingerprint/"
    fi
  fi
  RUSTFLAGS="${RUSTFLAGS:-} $WASM_FEATURES $RUSTFLAGS_EXTRA" \
    cargo build --locked --lib --no-default-features --features "$1" --profile "$PROFILE" --target "$TARGET" --target-dir "$CARGO_TARGET_DIR"
  echo "features=$1" > "$stamp"
  rm -rf "$stash" && mkdir -p "$stash/deps" "$stash/fingerprint"
  for f in "${LIB_FILES[@]}"; do [ ! -e "$LIB_DIR/$f" ] || cp -p "$LIB_DIR/$f" "$stash/$f"; done
  lib_fingerprints | xargs -r -I{} cp -pr {} "$stash/fingerprint/"
}
build_lib "$CARGO_FEATURES"

mkdir -p "$OUT_DIR"
"$WASM_BINDGEN" --target "$BINDGEN_TARGET" "${FLAGS[@]}" --out-name "$OUT_NAME" --out-dir "$OUT_DIR" "$WASM"
OUT_WASM="$OUT_DIR/${OUT_NAME}_bg.wasm"
# The binding's TypeScript declarations (its public surface, with the doc comments) are checked in next to its
# source, src/wasm/packlab.d.ts, so a change of the surface shows in review: UPDATE_TYPES=1 rewrites the copy;
# otherwise a difference is reported, and fails the build under CI (CI set, as in GitHub Actions).
TYPES="$OUT_DIR/$OUT_NAME.d.ts"
if [ -n "${UPDATE_TYPES:-}" ]; then
  cp "$TYPES" src/wasm/packlab.d.ts
elif ! cmp -s "$TYPES" src/wasm/packlab.d.ts; then
  echo "build-wasm: the binding's TypeScript declarations differ from src/wasm/packlab.d.ts (diff $TYPES src/wasm/packlab.d.ts); record them with UPDATE_TYPES=1 scripts/build-wasm.sh" >&2
  [ -z "${CI:-}" ] || exit 1
fi
# The brotli copy scripts/serve.py sends to a browser that accepts br (FILE.br beside FILE): quality 11 with a 16 MiB
# window is 30% smaller than gzip -9 but takes about a minute of one core (results/bench/wasm-brotli.txt); `make test`
# asks for quality 5 (a few seconds: the same
# serving path, a larger copy), WASM_BROTLI_QUALITY=0 writes none (serve.py then sends gzip).
# wasm-bindgen rewrites the module on every build, so the copy is kept (and touched, to stay as fresh as the module)
# when FILE.br.key, the module's sha256 and the quality, says it was compressed from the same bytes.
QUALITY="${WASM_BROTLI_QUALITY:-11}"
brotli_copy() {
  local f="$1" key
  key="$(sha256sum < "$f" | cut -c1-64) quality $QUALITY"
  if [ "$QUALITY" = 0 ]; then
    rm -f "$f.br" "$f.br.key"
  elif [ -f "$f.br" ] && [ "$(cat "$f.br.key" 2>/dev/null)" = "$key" ]; then
    touch "$f.br"
  else
    rm -f "$f.br" "$f.br.key"
    node scripts/brotli.mjs "$f" "$QUALITY"
    echo "$key" > "$f.br.key"
  fi
  local raw gz br
  raw=$(stat -c %s "$f"); gz=$(gzip -9c "$f" | wc -c); br=$(stat -c %s "$f.br" 2>/dev/null || echo 0)
  printf 'build-wasm: %s  %d B raw, %d B gzip -9, %d B brotli %s\n' "$f" "$raw" "$gz" "$br" "$QUALITY"
}
brotli_copy "$OUT_WASM"

# The page's first module (issue 30, results/bench/wasm-size.md): the same binding without the other models and
# without the script language (`--no-default-features`, no engine features), written beside the full one as
# ${OUT_NAME}_first_bg.wasm. It is instantiated with the full module's JS (its imports are a subset of the full
# module's, checked here), so one glue serves both. WASM_FIRST=0 skips it (a build of the full module alone).
if [ "${WASM_FIRST:-1}" != 0 ] && [ -n "$CARGO_FEATURES" ]; then
  build_lib ""
  FIRST_DIR="$(mktemp -d)"
  "$WASM_BINDGEN" --target "$BINDGEN_TARGET" "${FLAGS[@]}" --out-name "$OUT_NAME" --out-dir "$FIRST_DIR" "$WASM"
  FIRST_WASM="$OUT_DIR/${OUT_NAME}_first_bg.wasm"
  cp "$FIRST_DIR/${OUT_NAME}_bg.wasm" "$FIRST_WASM"
  rm -rf "$FIRST_DIR"
  node -e '
const fs = require("fs");
const names = (f) => WebAssembly.Module.imports(new WebAssembly.Module(fs.readFileSync(f))).map((i) => i.module + "." + i.name);
const full = new Set(names(process.argv[1]));
const extra = names(process.argv[2]).filter((n) => !full.has(n));
if (extra.length) { console.error("build-wasm: the first module imports what the full one does not: " + extra.join(", ")); process.exit(1); }
' "$OUT_WASM" "$FIRST_WASM"
  brotli_copy "$FIRST_WASM"
fi
