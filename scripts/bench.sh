#!/usr/bin/env bash
# The main job: installs what is missing, builds, then loads and runs YCSB
# workload A on the embedded default store (RocksDB), printing the YCSB-format
# summary and writing storebench-result.json. Extra arguments are passed on,
# e.g. scripts/bench.sh -p operationcount=5000000
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh default
exec build/default/storebench bench rocksdb -P workloads/workloada \
  -p recordcount=100000 -p operationcount=1000000 -threads 2 -s --json storebench-result.json "$@"
