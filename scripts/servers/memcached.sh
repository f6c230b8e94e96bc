#!/usr/bin/env bash
# memcached on 127.0.0.1 for tests and benchmarks (interface: lib.sh).
#   memcached.sh start DIR   MEMCACHED_INSTANCES (default 1) servers, each
#                            -m 1024 (MiB of item memory) and -I 8m (items up
#                            to 8 MiB, so 1 MiB field values fit; memcached's
#                            own default is 1m), -U 0 (no UDP). Prints
#                            "memcached.hosts=127.0.0.1:P1[,127.0.0.1:P2...]".
#                            With MEMCACHED_TEST_PASSWORD set (and optionally
#                            MEMCACHED_TEST_USER, default "storebench"), the
#                            servers require ASCII authentication (-Y authfile)
#                            and the line carries memcached.user/password.
#                            The ports are kept in DIR/ports, so a start after
#                            a stop reuses them (a restart on the same ports);
#                            MEMCACHED_PORTS="P1 P2" chooses them.
#   memcached.sh stop DIR
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start|stop DIR"

# True when memcached on port $1 answers "version" (after the auth line when
# a password is set).
answers() {
  local port=$1 line
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  if [ -n "${MEMCACHED_TEST_PASSWORD:-}" ]; then
    local cred="$user $MEMCACHED_TEST_PASSWORD"
    printf 'set auth 0 0 %d\r\n%s\r\n' "${#cred}" "$cred" >&3
    IFS= read -r -t 2 line <&3 || { exec 3>&-; return 1; }
    [ "${line%$'\r'}" = STORED ] || { exec 3>&-; return 1; }
  fi
  printf 'version\r\n' >&3
  IFS= read -r -t 2 line <&3 || { exec 3>&-; return 1; }
  exec 3>&-
  [[ "$line" == VERSION* ]]
}

case "$cmd" in
  start)
    command -v memcached >/dev/null || die "memcached not installed (apt-get install memcached)"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    n=${MEMCACHED_INSTANCES:-1}
    user=${MEMCACHED_TEST_USER:-storebench}
    ports=(${MEMCACHED_PORTS:-})
    if [ ${#ports[@]} -eq 0 ] && [ -f "$dir/ports" ]; then ports=($(cat "$dir/ports")); fi
    while [ ${#ports[@]} -lt "$n" ]; do
      p=$(free_port)
      [[ " ${ports[*]} " == *" $p "* ]] || ports+=("$p")
    done
    echo "${ports[*]}" > "$dir/ports"
    extra=()
    [ "$(id -u)" -eq 0 ] && extra+=(-u root)
    if [ -n "${MEMCACHED_TEST_PASSWORD:-}" ]; then
      printf '%s:%s\n' "$user" "$MEMCACHED_TEST_PASSWORD" > "$dir/authfile"
      chmod 600 "$dir/authfile"
      extra+=(-Y "$dir/authfile")
    fi
    hosts=""
    for port in "${ports[@]}"; do
      memcached -l 127.0.0.1 -p "$port" -U 0 -m 1024 -I 8m "${extra[@]}" \
        </dev/null >>"$dir/memcached-$port.log" 2>&1 &
      echo $! >> "$dir/pids"
      hosts+="${hosts:+,}127.0.0.1:$port"
    done
    for port in "${ports[@]}"; do
      if ! wait_for answers "$port"; then
        tail -5 "$dir/memcached-$port.log" >&2 || true
        die "memcached did not answer on 127.0.0.1:$port"
      fi
    done
    line="memcached.hosts=$hosts"
    [ -n "${MEMCACHED_TEST_PASSWORD:-}" ] && line+=" memcached.user=$user memcached.password=$MEMCACHED_TEST_PASSWORD"
    echo "$line"
    ;;
  stop) stop_pids "$dir" ;;
  *) die "unknown command '$cmd' (start|stop)" ;;
esac
