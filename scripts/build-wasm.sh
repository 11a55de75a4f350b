#!/usr/bin/env bash
# Build the engine for the browser: cargo (wasm32, [profile.wasm]) + the pinned wasm-bindgen from .tools/.
# Settings come from wasm-pack.toml ([build] profile, target, bindgen-target, out-dir, out-name, flags).
# Prints the raw and gzip size of the .wasm.
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
# --no-default-features: the library alone, without the CLI's dependencies (clap; the `cli` feature, Cargo.toml)
RUSTFLAGS="${RUSTFLAGS:-} $WASM_FEATURES $RUSTFLAGS_EXTRA" \
  cargo build --locked --lib --no-default-features --profile "$PROFILE" --target "$TARGET" --target-dir "$CARGO_TARGET_DIR"
PROFILE_DIR="$PROFILE"; [ "$PROFILE" = dev ] && PROFILE_DIR=debug
WASM="$CARGO_TARGET_DIR/$TARGET/$PROFILE_DIR/packlab.wasm"

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
KEY="$(sha256sum < "$OUT_WASM" | cut -c1-64) quality $QUALITY"
if [ "$QUALITY" = 0 ]; then
  rm -f "$OUT_WASM.br" "$OUT_WASM.br.key"
elif [ -f "$OUT_WASM.br" ] && [ "$(cat "$OUT_WASM.br.key" 2>/dev/null)" = "$KEY" ]; then
  touch "$OUT_WASM.br"
else
  rm -f "$OUT_WASM.br" "$OUT_WASM.br.key"
  node scripts/brotli.mjs "$OUT_WASM" "$QUALITY"
  echo "$KEY" > "$OUT_WASM.br.key"
fi
RAW=$(stat -c %s "$OUT_WASM"); GZ=$(gzip -9c "$OUT_WASM" | wc -c); BR=$(stat -c %s "$OUT_WASM.br" 2>/dev/null || echo 0)
printf 'build-wasm: %s  %d KiB raw, %d KiB gzip -9, %d KiB brotli %s\n' "$OUT_WASM" $((RAW / 1024)) $((GZ / 1024)) \
  $((BR / 1024)) "$QUALITY"
