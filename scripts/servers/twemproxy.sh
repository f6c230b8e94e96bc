#!/usr/bin/env bash
# twemproxy (Debian's nutcracker) in front of two memcached servers, all on
# 127.0.0.1, for tests (interface: lib.sh). twemproxy speaks only memcached's
# classic text commands, so the printed line asks for them.
#   twemproxy.sh start DIR   two memcached servers started by memcached.sh
#                            (its flags; files and pid in DIR/backend1 and
#                            DIR/backend2, so that a test can kill one:
#                            DIR/backendN/pid), then one nutcracker with
#                            DIR/nutcracker.yml, its stats port (JSON, figures
#                            of the last second: -i 1000) on 127.0.0.1 too;
#                            waits until nutcracker answers a `get` (which it
#                            forwards to a backend); DIR/pids lists all three.
#                            Prints "memcached.hosts=127.0.0.1:P memcached.protocol=classic":
#                            nutcracker closes the connection on the meta
#                            commands (and on `stats`).
#                            The ports are kept (DIR/ports: proxy, stats;
#                            DIR/backendN/ports), so a start after a stop
#                            reuses them.
#   twemproxy.sh stop DIR
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start|stop DIR"

# True when nutcracker on port $1 answers a `get` of a missing key with END
# (which also means it reached the backend that key maps to).
answers() {
  local port=$1 line
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'get storebench-twemproxy-probe\r\n' >&3
  IFS= read -r -t 2 line <&3 || { exec 3>&-; return 1; }
  exec 3>&-
  [ "${line%$'\r'}" = END ]
}

# Stops all that DIR/pids and DIR/backendN/pids name (a start that failed
# half-way may have listed a backend in its own folder only).
stop_all() {
  stop_pids "$dir"
  stop_pids "$dir/backend1"
  stop_pids "$dir/backend2"
  rm -f "$dir/backend1/pid" "$dir/backend2/pid"
}

case "$cmd" in
  start)
    command -v nutcracker >/dev/null || die "nutcracker not installed (apt-get install nutcracker)"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    backends=()
    for i in 1 2; do
      # One plain memcached each: twemproxy does not authenticate to backends.
      line=$(env -u MEMCACHED_TEST_PASSWORD -u MEMCACHED_PORTS MEMCACHED_INSTANCES=1 \
        "$here/memcached.sh" start "$dir/backend$i") || { stop_all; die "memcached backend $i did not start"; }
      cat "$dir/backend$i/pids" > "$dir/backend$i/pid"
      cat "$dir/backend$i/pids" >> "$dir/pids"
      backends+=("${line#memcached.hosts=}")
    done
    ports=()
    [ -f "$dir/ports" ] && ports=($(cat "$dir/ports"))
    while [ ${#ports[@]} -lt 2 ]; do
      p=$(free_port)
      [[ " ${ports[*]} " == *" $p "* ]] || ports+=("$p")
    done
    echo "${ports[*]}" > "$dir/ports"
    proxy=${ports[0]} stats=${ports[1]}
    {
      echo "storebench:"
      echo "  listen: 127.0.0.1:$proxy"
      echo "  hash: fnv1a_64"
      echo "  distribution: ketama"
      echo "  timeout: 2000"
      # No ejection: a dead backend's keys give errors ("SERVER_ERROR
      # Connection refused") instead of being remapped to the live one, where
      # reads would silently miss (NOT_FOUND, not counted as failures) and
      # writes would land on a server the keys go back from when it returns.
      # The two settings after it only matter with ejection on.
      echo "  auto_eject_hosts: false"
      echo "  server_retry_timeout: 2000"
      echo "  server_failure_limit: 1"
      echo "  servers:"
      for b in "${backends[@]}"; do echo "   - $b:1"; done
    } > "$dir/nutcracker.yml"
    nutcracker -t -c "$dir/nutcracker.yml" >"$dir/nutcracker-conf.log" 2>&1 ||
      { cat "$dir/nutcracker-conf.log" >&2; stop_all; die "nutcracker refuses $dir/nutcracker.yml"; }
    nutcracker -c "$dir/nutcracker.yml" -s "$stats" -a 127.0.0.1 -i 1000 -o "$dir/nutcracker.log" \
      -p "$dir/nutcracker.pid" </dev/null >>"$dir/nutcracker.log" 2>&1 &
    pid=$!
    echo "$pid" >> "$dir/pids"
    if ! WAIT_PID=$pid wait_for answers "$proxy"; then
      tail -5 "$dir/nutcracker.log" >&2 || true
      stop_all
      die "nutcracker did not answer on 127.0.0.1:$proxy"
    fi
    echo "memcached.hosts=127.0.0.1:$proxy memcached.protocol=classic"
    ;;
  stop) stop_all ;;
  *) die "unknown command '$cmd' (start|stop)" ;;
esac
