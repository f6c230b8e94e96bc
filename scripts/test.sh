#!/usr/bin/env bash
# Installs what is missing, builds the optimised and the sanitizer (ASan+UBSan)
# presets, and runs every test in both. Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
for preset in default asan; do
  echo "== build: $preset" >&2
  scripts/build.sh "$preset"
  echo "== test: $preset" >&2
  ctest --preset "$preset" -j "$(nproc)"
done
