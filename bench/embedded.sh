#!/usr/bin/env bash
# Every embedded binding side by side, as ROMA's authors compared theirs:
# load N records of 10 x 100-byte fields once per binding, then workloads A,
# B and C at 1, 2 and 4 threads, and one table: load throughput and on-disk
# size after load, then per run the throughput, READ and UPDATE average and
# p99 latency.
# Usage: bench/embedded.sh [records] [operations] [max seconds per run] [bindings...]
#        (build first: scripts/build.sh; defaults 200000 records, 200000
#        operations, 20 s, every embedded binding; THREADS="1 2 4 8 16 32"
#        and WORKLOADS="a b c d e f" override the sweep)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
ops=${2:-200000}
max_s=${3:-20}
shift $(($# < 3 ? $# : 3))
bindings=("$@")
if ((${#bindings[@]} == 0)); then
  bindings=(rocksdb leveldb lmdb sqlite wiredtiger kyotocabinet tokyocabinet groonga)
fi
bin=build/default/storebench
work=$(mktemp -d -t storebench-embedded.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Pulls "[SECTION], Metric, value" out of storebench's text output.
metric() { awk -F', ' -v s="[$1]" -v m="$2" '$1 == s && $2 == m {print $3; exit}' "$3"; }
num() { awk -v v="${1:-}" -v d="${2:-1}" 'BEGIN { if (v == "") print "-"; else printf "%.0f", v / d }'; }
us() { awk -v v="${1:-}" 'BEGIN { if (v == "") print "-"; else printf "%.1f", v }'; }

printf "%-13s %-9s %3s | %9s %9s | %9s %9s %9s %9s %9s\n" binding workload thr "load/s" "disk MiB" \
  "ops/s" "read avg" "read p99" "upd avg" "upd p99"
for b in "${bindings[@]}"; do
  dir="$work/$b"
  common=(-p recordcount="$n" -p "$b.dir=$dir")
  "$bin" load "$b" -P workloads/workloada "${common[@]}" -threads 1 >"$work/load.txt" 2>"$work/err.txt" || {
    echo "$b: load failed: $(tail -1 "$work/err.txt")"; continue; }
  load_tput=$(num "$(metric OVERALL 'Throughput(ops/sec)' "$work/load.txt")")
  load_disk=$(num "$(metric STORE 'DiskUsage(bytes)' "$work/load.txt")" 1048576)
  for w in ${WORKLOADS:-a b c}; do
    for t in ${THREADS:-1 2 4}; do
      out="$work/run-$b-$w-$t.txt"
      "$bin" run "$b" -P "workloads/workload$w" "${common[@]}" -p operationcount="$ops" \
        -p maxexecutiontime="$max_s" -threads "$t" >"$out" 2>"$work/err.txt" || {
        echo "$b workload$w $t threads: run failed: $(tail -1 "$work/err.txt")"; continue; }
      printf "%-13s %-9s %3s | %9s %9s | %9s %9s %9s %9s %9s\n" "$b" "workload$w" "$t" "$load_tput" "$load_disk" \
        "$(num "$(metric OVERALL 'Throughput(ops/sec)' "$out")")" \
        "$(us "$(metric READ 'AverageLatency(us)' "$out")")" "$(us "$(metric READ '99thPercentileLatency(us)' "$out")")" \
        "$(us "$(metric UPDATE 'AverageLatency(us)' "$out")")" "$(us "$(metric UPDATE '99thPercentileLatency(us)' "$out")")"
    done
  done
  rm -rf "$dir"
done
echo "($n records of 10 x 100 bytes, loaded with 1 thread; $ops operations or $max_s s per run; latency in us)"
