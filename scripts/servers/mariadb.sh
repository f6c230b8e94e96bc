#!/usr/bin/env bash
# MariaDB server for the `mariadb` binding (see lib.sh for the interface).
#   mariadb.sh start DIR   data in DIR/data, socket DIR/sock; creates database
#                          `storebench` and user storebench@127.0.0.1 with a
#                          random password (kept in DIR/password) and prints
#                          "mariadb.host=127.0.0.1 mariadb.port=P mariadb.user=storebench
#                           mariadb.password=... mariadb.database=storebench"
#   mariadb.sh stop DIR
# Starting again a DIR that was stopped reuses its data, port and password,
# so a test can restart "the same server".
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start|stop DIR"

case "$cmd" in
  stop) stop_pids "$dir"; exit 0 ;;
  start) ;;
  *) die "usage: $0 start|stop DIR" ;;
esac

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
user=$(id -un)
if [ -f "$dir/port" ]; then port=$(cat "$dir/port"); else port=$(free_port); echo "$port" >"$dir/port"; fi
if [ ! -f "$dir/password" ]; then
  (umask 077; od -An -N12 -tx1 /dev/urandom | tr -d ' \n' >"$dir/password")
fi
password=$(cat "$dir/password")

if [ ! -d "$dir/data/mysql" ]; then
  mariadb-install-db --no-defaults --datadir="$dir/data" --user="$user" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; die "mariadb-install-db failed"; }
  fresh=1
else
  fresh=0
fi

setsid mariadbd --no-defaults --datadir="$dir/data" --socket="$dir/sock" --port="$port" --bind-address=127.0.0.1 \
  --pid-file="$dir/mariadb.pid" --skip-name-resolve --innodb-buffer-pool-size=256M \
  --innodb-flush-log-at-trx-commit=2 --innodb-log-file-size=64M --max-allowed-packet=64M \
  --log-error="$dir/error.log" --user="$user" </dev/null >"$dir/mariadb.out" 2>&1 &
echo $! >"$dir/pids"

ping() { mariadb-admin --no-defaults --socket="$dir/sock" --user=root ping; }
if ! wait_for ping; then
  tail -20 "$dir/error.log" >&2 || true
  stop_pids "$dir"
  die "mariadbd did not answer on $dir/sock"
fi

if [ "$fresh" = 1 ]; then
  mariadb --no-defaults --socket="$dir/sock" --user=root <<EOF || { stop_pids "$dir"; die "cannot create the storebench user"; }
CREATE DATABASE IF NOT EXISTS storebench;
CREATE USER IF NOT EXISTS 'storebench'@'127.0.0.1' IDENTIFIED BY '$password';
GRANT ALL PRIVILEGES ON storebench.* TO 'storebench'@'127.0.0.1';
GRANT PROCESS ON *.* TO 'storebench'@'127.0.0.1';
EOF
fi

echo "mariadb.host=127.0.0.1 mariadb.port=$port mariadb.user=storebench mariadb.password=$password mariadb.database=storebench"
