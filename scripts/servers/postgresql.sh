#!/usr/bin/env bash
# PostgreSQL for tests and benchmarks (interface: see lib.sh).
#   postgresql.sh start DIR   initdb into DIR/data (the first time; a later
#                             start reuses the data and the port in DIR/port),
#                             listen on 127.0.0.1 only, a superuser
#                             "storebench" with a password (scram-sha-256 over
#                             TCP), a database "storebench", Unix socket in DIR.
#   postgresql.sh stop DIR    fast shutdown (clients are disconnected).
# The password is STOREBENCH_POSTGRESQL_PASSWORD, or a fixed test password.
# Run as root, everything runs as the user `postgres` (the server refuses
# root): DIR is chowned to it, so DIR's parents must be traversable by it.
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start|stop DIR"
user=storebench
password=${STOREBENCH_POSTGRESQL_PASSWORD:-storebench-test-pw}

bin=$(newest_dir /usr/lib/postgresql/*/bin)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || die "PostgreSQL is not installed (apt-get install postgresql)"

as_pg=()
if [ "$(id -u)" -eq 0 ]; then as_pg=(runuser -u postgres --); fi

case "$cmd" in
  start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    if [ -f "$dir/port" ]; then port=$(cat "$dir/port"); else port=$(free_port); echo "$port" >"$dir/port"; fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      pwfile=$(mktemp "$dir/pw.XXXXXX")
      printf '%s\n' "$password" >"$pwfile"
      if [ "$(id -u)" -eq 0 ]; then chown postgres: "$pwfile"; fi
      "${as_pg[@]}" "$bin/initdb" -D "$dir/data" -U "$user" --pwfile="$pwfile" --no-sync -E UTF8 --locale=C \
        --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 ||
        { rm -f "$pwfile"; die "initdb failed: $(tail -3 "$dir/initdb.log")"; }
      rm -f "$pwfile"
      {
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $port"
        echo "unix_socket_directories = '$dir'"
        echo "max_connections = 200"
      } >>"$dir/data/postgresql.conf"
      created=1
    fi
    "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 start >/dev/null ||
      die "pg_ctl start failed: $(tail -3 "$dir/log" 2>/dev/null)"
    head -1 "$dir/data/postmaster.pid" >"$dir/pids"
    if [ -n "${created:-}" ]; then
      "${as_pg[@]}" "$bin/psql" -h "$dir" -p "$port" -U "$user" -d postgres -qAt \
        -c "CREATE DATABASE storebench" >/dev/null || die "cannot create database storebench"
    fi
    echo "postgresql.host=127.0.0.1 postgresql.port=$port postgresql.user=$user postgresql.password=$password postgresql.dbname=storebench"
    ;;
  stop)
    if [ -f "$dir/pids" ]; then
      for pid in $(cat "$dir/pids"); do kill -INT "$pid" 2>/dev/null || true; done  # fast shutdown
    fi
    stop_pids "$dir"
    ;;
  *) die "usage: $0 start|stop DIR" ;;
esac
