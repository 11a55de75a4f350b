#!/usr/bin/env bash
# Serve the playground (www/ at /, static/ at /static/, results/ at /results/) on http://127.0.0.1:PORT/ (default 8000).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${1:-${PORT:-8000}}"
[ -f www/pkg/packlab_bg.wasm ] || echo "serve: www/pkg is missing; build it with scripts/build-wasm.sh (make wasm)" >&2
echo "packlab playground: open http://127.0.0.1:$PORT/  (Ctrl-C stops)"
exec python3 -u scripts/serve.py "$PORT"
