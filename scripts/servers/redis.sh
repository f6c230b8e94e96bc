#!/usr/bin/env bash
# A redis-server on 127.0.0.1 for tests and benchmarks (interface: lib.sh).
#   redis.sh start DIR   no persistence (--save "" --appendonly no); with
#                        REDIS_TEST_PASSWORD set, the server requires it
#                        (--requirepass) and the printed line carries it.
#                        With REDIS_PORT set, that port is used (a restart on
#                        the same port; otherwise DIR/port from an earlier
#                        start, otherwise a free one).
#   redis.sh stop DIR
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start|stop DIR"

case "$cmd" in
  start)
    command -v redis-server >/dev/null || die "redis-server not installed (apt-get install redis-server)"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    port=${REDIS_PORT:-}
    if [ -z "$port" ] && [ -f "$dir/port" ]; then port=$(cat "$dir/port"); fi
    [ -n "$port" ] || port=$(free_port)
    echo "$port" > "$dir/port"
    args=(--port "$port" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly no --daemonize no
          --logfile "$dir/redis.log")
    auth=()
    if [ -n "${REDIS_TEST_PASSWORD:-}" ]; then
      args+=(--requirepass "$REDIS_TEST_PASSWORD")
      auth=(--no-auth-warning -a "$REDIS_TEST_PASSWORD")
    fi
    redis-server "${args[@]}" </dev/null >/dev/null 2>&1 &
    echo $! >> "$dir/pids"
    if ! WAIT_PID=$! wait_for redis-cli -h 127.0.0.1 -p "$port" "${auth[@]}" ping; then
      tail -5 "$dir/redis.log" >&2 || true
      die "redis-server did not answer on 127.0.0.1:$port"
    fi
    line="redis.host=127.0.0.1 redis.port=$port"
    [ -n "${REDIS_TEST_PASSWORD:-}" ] && line+=" redis.password=$REDIS_TEST_PASSWORD"
    echo "$line"
    ;;
  stop) stop_pids "$dir" ;;
  *) die "unknown command '$cmd' (start|stop)" ;;
esac
