#!/usr/bin/env bash
# Harness overhead: storebench itself on the `null` binding, workload A,
# 1 thread, measurement on, next to a plain loop that only draws zipfian keys
# (the micro-benchmark), in one run. Prints ops/s and the ratio.
# Usage: bench/harness.sh [operationcount]   (build first: scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-50000000}
bin=build/default
scratch=$(mktemp -d "${TMPDIR:-/tmp}/storebench-harness.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
"$bin/harness_bench" --benchmark_min_time=1 --benchmark_format=csv 2>/dev/null > "$scratch/micro.csv"
keys_ns=$(awk -F, '/BM_ZipfianKeysOnly/ {print $3}' "$scratch/micro.csv")
op_ns=$(awk -F, '/BM_WorkloadA_Null/ {print $3}' "$scratch/micro.csv")
out=$("$bin/storebench" run null -P workloads/workloada -p recordcount=1000000 -p operationcount="$ops" -threads 1)
tput=$(echo "$out" | awk -F', ' '/\[OVERALL\], Throughput/ {print $3}')
echo "zipfian keys only (micro-benchmark):      $(awk "BEGIN{printf \"%.1f ns/op, %.1f M ops/s\", $keys_ns, 1000/$keys_ns}")"
echo "workload A op on null (micro-benchmark):  $(awk "BEGIN{printf \"%.1f ns/op, %.1f M ops/s\", $op_ns, 1000/$op_ns}")"
echo "storebench run null workload A, 1 thread: $(awk "BEGIN{printf \"%.2f M ops/s (%.1f ns/op)\", $tput/1e6, 1e9/$tput}")"
echo "ratio full harness / keys only:           $(awk "BEGIN{printf \"%.2f\", (1e9/$tput)/$keys_ns}")"
awk "BEGIN{exit !($tput >= 10000000)}" && echo "bar (>= 10 M ops/s): met" || echo "bar (>= 10 M ops/s): NOT met"
