#!/usr/bin/env bash
# Memory: `run` over recordcount=10^9 on the null binding; resident memory
# (max RSS, from /usr/bin/time or /proc) must stay under 64 MiB.
# Usage: bench/memory.sh [operationcount]
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-20000000}
bin=build/default/storebench
scratch=$(mktemp -d "${TMPDIR:-/tmp}/storebench-membench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
"$bin" run null -P workloads/workloada -p recordcount=1000000000 -p operationcount="$ops" -threads 1 \
  > "$scratch/run.out" &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
  [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
  sleep 0.2
done
wait "$pid"
echo "recordcount=1e9, $ops ops on null: peak RSS $((peak / 1024)) MiB ($(grep Throughput "$scratch/run.out"))"
[ "$peak" -lt $((64 * 1024)) ] && echo "bar (< 64 MiB): met" || echo "bar (< 64 MiB): NOT met"
