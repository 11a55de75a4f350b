#!/usr/bin/env bash
# Writes the pinned CLI outputs of tests/pins/commands.txt and of every saved share link (tests/links/*.jsonl)
# with the packlab binary BIN into DIR: `scripts/pins.sh target/release/packlab tests/pins`. tests/integration/cli_pins.rs
# compares the current engine's outputs with them byte for byte.
set -euo pipefail
BIN=$(realpath "$1"); OUT=$(realpath -m "$2")
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
grep -v '^#' tests/pins/commands.txt | while IFS='|' read -r name args; do
  # shellcheck disable=SC2086
  "$BIN" $args > "$OUT/$name"
done
for f in tests/links/v1.jsonl tests/links/v2.jsonl; do
  python3 - "$f" <<'PY' | while IFS='|' read -r name link; do
import hashlib, json, sys
for line in open(sys.argv[1]):
    if line.strip():
        link = json.loads(line)["link"]
        print(f"link-{hashlib.sha1(link.encode()).hexdigest()[:10]}.json|{link}")
PY
    if "$BIN" run --link "$link" > "$OUT/$name" 2>/dev/null; then :; else
      "$BIN" run --link "$link" --trace tests/e2e/fixtures/planetlab-20110306-mini > "$OUT/$name"
    fi
  done
done
