#!/usr/bin/env bash
# Native prerequisites: the machine's Rust toolchain (cargo) is required; nothing else to install.
set -euo pipefail
command -v cargo >/dev/null || { echo "setup: cargo not found (install Rust with rustup)" >&2; exit 1; }
