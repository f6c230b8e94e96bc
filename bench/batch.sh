#!/usr/bin/env bash
# Load throughput (records/s) with batch puts off (batch.size=1) and on
# (batch.size=100 by default), on rocksdb and on a redis server.
# Usage: bench/batch.sh [records] [batch size] [threads]   (build first)
# Redis: REDIS="redis.host=127.0.0.1 redis.port=6379" bench/batch.sh (skipped when unset;
# scripts/servers/redis.sh start DIR prints such a line).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
batch=${2:-100}
threads=${3:-1}
bin=build/default/storebench
work=$(mktemp -d -t storebench-batch-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

tput() { awk -F', ' '/\[OVERALL\], Throughput/ {printf "%.0f", $3}'; }
per_record() { awk -F', ' '/\[BATCH-INSERT-PER-RECORD\], AverageLatency/ {printf "%.2f", $3}'; }
avg() { awk -F', ' -v op="[$1]" '$1 == op && $2 == "AverageLatency(us)" {printf "%.2f", $3}'; }

common=(-P workloads/workloada -p recordcount="$n" -threads "$threads")
printf "%-12s %10s %14s %20s\n" binding batch.size "records/s" "avg us per record"
run() {  # label, binding, batch size, extra args...
  local label=$1 b=$2 size=$3
  shift 3
  local out
  out=$("$bin" load "$b" "${common[@]}" -p batch.size="$size" "$@" 2>/dev/null)
  local lat
  if [ "$size" -gt 1 ]; then lat=$(echo "$out" | per_record); else lat=$(echo "$out" | avg INSERT); fi
  printf "%-12s %10s %14s %20s\n" "$label" "$size" "$(echo "$out" | tput)" "$lat"
}
for size in 1 "$batch"; do
  run rocksdb rocksdb "$size" -p rocksdb.dir="$work/rocks-$size"
done
# With rocksdb.sync=true every write is an fsync: a batch pays for one. A tenth of the records.
for size in 1 "$batch"; do
  run rocksdb+sync rocksdb "$size" -p rocksdb.dir="$work/rocks-sync-$size" -p rocksdb.sync=true -p recordcount=$((n / 10))
done
if [ -n "${REDIS:-}" ]; then
  redis_args=()
  for kv in $REDIS; do redis_args+=(-p "$kv"); done
  for size in 1 "$batch"; do
    run redis redis "$size" "${redis_args[@]}" -p table="batchbench$size"
  done
  for size in 1 "$batch"; do
    run redis+string redis "$size" "${redis_args[@]}" -p redis.layout=string -p table="batchbenchs$size"
  done
fi
echo "($n records of 10 x 100 bytes ($((n / 10)) with sync), $threads thread(s); records/s = [OVERALL] Throughput of the load;"
echo " redis = the hash layout (a script per record), redis+string = one value per key (SET / MSET))"
