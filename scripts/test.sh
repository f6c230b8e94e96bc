#!/usr/bin/env bash
# Installs what is missing, starts the servers the network bindings' tests
# need (on 127.0.0.1, free ports, temporary data dirs: scripts/servers/),
# builds the optimised and the sanitizer (ASan+UBSan) presets, runs every
# test in both, and stops the servers by pid. Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

servers=(redis redis-cluster memcached postgresql mariadb gluster)
server_root=$(mktemp -d "${TMPDIR:-/tmp}/storebench-servers-XXXXXX")
chmod 755 "$server_root"  # postgres runs as its own user and must reach its dir
stop_servers() {
  for s in "${servers[@]}"; do
    [ -d "$server_root/$s" ] && scripts/servers/"$s".sh stop "$server_root/$s" >/dev/null 2>&1 || true
  done
  rm -rf "$server_root"
}
trap stop_servers EXIT
for s in "${servers[@]}"; do
  echo "== server: $s" >&2
  line=$(scripts/servers/"$s".sh start "$server_root/$s")
  var="STOREBENCH_TEST_SERVER_$(echo "$s" | tr 'a-z-' 'A-Z_')"
  export "$var=$line"
done
# The project's servers listen on 127.0.0.1 only: check every one of them.
for s in "${servers[@]}"; do
  exposed=$(bash -c 'source scripts/servers/lib.sh; listening_beyond_loopback "$1"' _ "$server_root/$s" | tr '\n' ' ')
  [ -z "$exposed" ] || { echo "test: server $s listens beyond loopback on: $exposed" >&2; exit 1; }
done
# Every server above is up: a test that finds none is a failure, not a skip.
export STOREBENCH_REQUIRE_SERVERS=1
# gfapi's libraries leak by themselves under LeakSanitizer (none of it is ours).
export LSAN_OPTIONS="suppressions=$PWD/scripts/servers/gluster.lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

for preset in default asan; do
  echo "== build: $preset" >&2
  scripts/build.sh "$preset"
  echo "== test: $preset" >&2
  ctest --preset "$preset" -j "$(nproc)"
done
