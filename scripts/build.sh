#!/usr/bin/env bash
# Configures and builds one CMake preset (default: "default"): scripts/build.sh [asan|fuzz]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
jobs=$(nproc)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
