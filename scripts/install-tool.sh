#!/usr/bin/env bash
# Install a cargo tool for `make test` once per machine, not once per clone:
#   scripts/install-tool.sh CRATE VERSION|latest BIN... [-- CARGO_INSTALL_ARG...]
# `cargo install CRATE [CARGO_INSTALL_ARG...]` into the machine's tool cache, PACKLAB_TOOLS_CACHE (default
# ~/.cache/packlab-tools), in its own folder per crate, version and arguments (CRATE-VERSION, then the arguments
# with their non-alphanumerics as "-", e.g. wasm-bindgen-cli-0.2.130---no-default-features), then links its executables BIN... into this clone's
# .tools/bin/. Builds only when that folder lacks one of them: wasm-bindgen-cli took 3.5 min and cargo-fuzz 5.5 min
# of every fresh clone's CI (results/bench/ci-stages.txt); a fresh machine still builds them, once. The install goes
# to a temporary folder renamed into place, so two clones installing at once never see half an install.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: scripts/install-tool.sh CRATE VERSION|latest BIN... [-- CARGO_INSTALL_ARG...]" >&2; exit 2; }
CRATE=$1 VERSION=$2; shift 2
BINS=(); while [ $# -gt 0 ] && [ "$1" != -- ]; do BINS+=("$1"); shift; done
[ $# -eq 0 ] || shift
EXTRA=("$@")
set -- "${BINS[@]}"
CACHE="${PACKLAB_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/packlab-tools}"
DIR="$CACHE/$CRATE-$VERSION$(printf -- '-%s' "${EXTRA[@]}" | sed 's/[^A-Za-z0-9.-]/-/g; s/^-$//')"
have() { for b in "$@"; do [ -x "$DIR/bin/$b" ] || return 1; done; }
if ! have "$@"; then
  mkdir -p "$CACHE"
  TMP=$(mktemp -d "$CACHE/.$CRATE-$VERSION.XXXXXX")
  trap 'rm -rf "$TMP"' EXIT
  ARGS=(); [ "$VERSION" = latest ] || ARGS=(--version "$VERSION")
  # no --locked: a tool's own lockfile does not always resolve against this registry mirror (TOOLCHAIN.md)
  cargo install "$CRATE" "${ARGS[@]}" "${EXTRA[@]}" --root "$TMP" --force
  rm -f "$TMP/.crates.toml" "$TMP/.crates2.json"
  if have "$@"; then rm -rf "$TMP"; else rm -rf "$DIR"; mv -T "$TMP" "$DIR"; fi
fi
mkdir -p .tools/bin
for b in "$@"; do ln -sfn "$DIR/bin/$b" ".tools/bin/$b"; done
