#!/usr/bin/env bash
# Our RESP client (the redis binding) against hiredis on one connection, at
# depth 1 and 16 (bench/resp_client_bench.cc says what each does). Starts a
# redis-server with scripts/servers/redis.sh, pins it to core $SERVER_CPU
# (default 0) and the client to core $CLIENT_CPU (default 1) when there are
# two cores, prints google-benchmark's table (median of $REPS repetitions,
# default 3): the counters ops_per_s (wall clock) and cpu_us_per_op (the
# client thread's user + system CPU per operation).
# Usage: bench/resp_clients.sh   (after scripts/setup.sh and scripts/build.sh default)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/default/resp_client_bench
[ -x "$bin" ] || { echo "resp_clients: $bin not built (needs libhiredis-dev; scripts/build.sh default)" >&2; exit 1; }
dir=$(mktemp -d /tmp/storebench-resp.XXXXXX)
trap 'scripts/servers/redis.sh stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
line=$(scripts/servers/redis.sh start "$dir")
port=${line##*redis.port=}; port=${port%% *}
pin=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
  taskset -a -pc "${SERVER_CPU:-0}" "$(head -1 "$dir/pids")" >/dev/null
  pin=(taskset -c "${CLIENT_CPU:-1}")
fi
STOREBENCH_BENCH_REDIS=127.0.0.1:$port "${pin[@]}" "$bin" --benchmark_repetitions="${REPS:-3}" \
  --benchmark_report_aggregates_only=true --benchmark_min_time=2 "$@"
