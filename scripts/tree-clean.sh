#!/usr/bin/env bash
# `make test` must leave the tracked files as it found them: `save` records `git status --porcelain` before
# the run, `check` fails, naming the files, when a stage rewrote or deleted a tracked file (untracked build
# outputs are ignored). Outside a git checkout it does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --git-dir >/dev/null 2>&1 || exit 0
mkdir -p test-artifacts
state() { git status --porcelain --untracked-files=no; }
case "${1:-}" in
  save) state > test-artifacts/tree-before.txt ;;
  check)
    [ -f test-artifacts/tree-before.txt ] || exit 0
    if ! diff <(cat test-artifacts/tree-before.txt) <(state) > test-artifacts/tree-diff.txt; then
      echo "make test changed tracked files (a test or build step must not rewrite the repository):" >&2
      sed -n 's/^> /  /p' test-artifacts/tree-diff.txt >&2
      exit 1
    fi
    echo "tree-clean: make test left every tracked file as it found it" ;;
  *) echo "usage: $0 save|check" >&2; exit 2 ;;
esac
