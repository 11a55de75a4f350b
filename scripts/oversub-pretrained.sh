#!/usr/bin/env bash
# Regenerate the bundled pretrained C2MARL arm (static/oversub/c2marl-e11.json.gz, the playground's default
# oversubscription view; src/data.rs OVERSUB_C2MARL_E11): the default scenario's c2marl:0.95 arm, trained by the
# current engine (deterministic: the same engine gives the same bytes). Evaluation episodes are not part of the
# file's recipe, so one is enough here. tests/integration/oversub_pretrained.rs checks the file against the engine.
# Usage: scripts/oversub-pretrained.sh [path/to/packlab]   (make oversub-pretrained)
set -euo pipefail
cd "$(dirname "$0")/.."
PACKLAB="${1:-target/release/packlab}"
OUT=static/oversub/c2marl-e11.json.gz
"$PACKLAB" oversub run --eval-episodes 1 --pretrained-out "$OUT" >/dev/null
ls -l "$OUT"
