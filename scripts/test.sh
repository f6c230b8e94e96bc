#!/usr/bin/env bash
# Installs what is missing, starts the servers the network bindings' tests
# need (on 127.0.0.1, free ports, temporary data dirs: scripts/servers/),
# builds the Release preset and runs every test in it, builds the sanitizer
# preset (clang, ASan+UBSan, with the libFuzzer targets) and runs the
# sanitizer tier in it (the tests labelled `sanitize`: every unit test and a
# chosen set of server and CLI tests, see tests/sanitizer_tier.txt), replays
# and briefly runs every fuzzer, and stops the servers by pid. Prints the
# time of each phase at the end. Exits non-zero if anything fails.
#
# Environment:
#   STOREBENCH_SANITIZE_ALL=1   run every test in the sanitizer build, not only its tier
#   STOREBENCH_FUZZ_SECONDS=N   seconds each fuzzer runs (default 5; 0: replay the corpora only)
#   ASD=/path/to/asd            Aerospike's server (else asd on PATH); without one the aerospike
#                               server tests skip (scripts/servers/aerospike.sh says how to build it)
#   PROMETHEUS=/path/to/prometheus   else prometheus on PATH; without one the Prometheus
#                               scrape test (tests/job/metrics_prometheus_test.cc) skips
set -euo pipefail
cd "$(dirname "$0")/.."

phases=()
phase_name=""
phase_t0=$SECONDS
end_phase() {
  if [ -n "$phase_name" ]; then
    phases+=("$(printf '%-34s %5d s' "$phase_name" $((SECONDS - phase_t0)))")
    phase_name=""
  fi
}
phase() {
  end_phase
  phase_name=$1
  phase_t0=$SECONDS
  echo "== $1" >&2
}
print_phases() {
  end_phase
  echo "== phase times (total $SECONDS s)" >&2
  printf '   %s\n' "${phases[@]}" >&2
}

phase "install (scripts/setup.sh)"
scripts/setup.sh

phase "servers: start"
servers=(redis redis-cluster memcached twemproxy postgresql mariadb gluster ignite hbase)
# Aerospike's asd is built from source (scripts/servers/aerospike.sh): its
# tests run only where it is found, $ASD or asd on PATH (CI has none).
if { [ -n "${ASD:-}" ] && [ -f "$ASD" ] && [ -x "$ASD" ]; } || { [ -z "${ASD:-}" ] && command -v asd >/dev/null; }; then
  servers+=(aerospike)
else
  echo "== server: aerospike: no asd (\$ASD or on PATH): the aerospike server tests are skipped" >&2
  export STOREBENCH_SERVERS_NOT_STARTED="aerospike${STOREBENCH_SERVERS_NOT_STARTED:+ $STOREBENCH_SERVERS_NOT_STARTED}"
fi
# Prometheus scrapes storebench's --metrics-listen endpoint in the end-to-end
# metrics test ($PROMETHEUS or prometheus on PATH; scripts/setup.sh installs
# Debian's): without one that test is skipped.
if { [ -n "${PROMETHEUS:-}" ] && [ -x "$PROMETHEUS" ]; } || { [ -z "${PROMETHEUS:-}" ] && command -v prometheus >/dev/null; }; then
  servers+=(prometheus)
else
  echo "== server: prometheus: no prometheus (\$PROMETHEUS or on PATH): the Prometheus scrape test is skipped" >&2
  export STOREBENCH_SERVERS_NOT_STARTED="prometheus${STOREBENCH_SERVERS_NOT_STARTED:+ $STOREBENCH_SERVERS_NOT_STARTED}"
fi
server_root=$(mktemp -d "${TMPDIR:-/tmp}/storebench-servers-XXXXXX")
chmod 755 "$server_root"  # postgres runs as its own user and must reach its dir
stop_servers() {
  for s in "${servers[@]}"; do
    [ -d "$server_root/$s" ] && scripts/servers/"$s".sh stop "$server_root/$s" >/dev/null 2>&1 || true
  done
  rm -rf "$server_root"
}
on_exit() {
  local rc=$?
  stop_servers
  print_phases
  exit "$rc"
}
trap on_exit EXIT
for s in "${servers[@]}"; do
  echo "== server: $s" >&2
  extra=()
  # Every hbase test makes a table of its own (a region, a memstore each): 1 GB of heap.
  [ "$s" = hbase ] && extra=(--heap 1g)
  line=$(scripts/servers/"$s".sh start "$server_root/$s" "${extra[@]}")
  # Every test makes tables of its own: in one cache group they share one set
  # of partitions, so dozens of tables fit in the node's memory.
  [ "$s" = ignite ] && line="$line ignite.cache_group=storebench_tests"
  var="STOREBENCH_TEST_SERVER_$(echo "$s" | tr 'a-z-' 'A-Z_')"
  export "$var=$line"
done
# The hbase tests check a load with HBase's own Java client (hbase.sh count DIR).
export STOREBENCH_TEST_HBASE_DIR="$server_root/hbase"
# The project's servers listen on 127.0.0.1 only: check every one of them.
for s in "${servers[@]}"; do
  exposed=$(bash -c 'source scripts/servers/lib.sh; listening_beyond_loopback "$1"' _ "$server_root/$s" | tr '\n' ' ')
  [ -z "$exposed" ] || { echo "test: server $s listens beyond loopback on: $exposed" >&2; exit 1; }
done
# Every server above is up: a test that finds none is a failure, not a skip
# (but for those in STOREBENCH_SERVERS_NOT_STARTED, whose tests skip).
export STOREBENCH_REQUIRE_SERVERS=1
# gfapi's libraries leak by themselves under LeakSanitizer (none of it is ours).
export LSAN_OPTIONS="suppressions=$PWD/scripts/servers/gluster.lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

phase "build: default (Release, g++)"
scripts/build.sh default
phase "test: default (every test)"
ctest --preset default -j "$(nproc)"

phase "build: sanitizer (clang ASan+UBSan)"
scripts/build.sh fuzz
if [ "${STOREBENCH_SANITIZE_ALL:-0}" = 1 ]; then
  phase "test: sanitizer (every test)"
  ctest --preset fuzz -j "$(nproc)"
else
  phase "test: sanitizer (tier 'sanitize')"
  ctest --preset fuzz -j "$(nproc)" -L '^sanitize$'
fi

phase "fuzz: replay corpora + ${STOREBENCH_FUZZ_SECONDS:-5} s each"
scripts/fuzz.sh --replay
if [ "${STOREBENCH_FUZZ_SECONDS:-5}" -gt 0 ]; then scripts/fuzz.sh "${STOREBENCH_FUZZ_SECONDS:-5}"; fi
