#!/usr/bin/env bash
# storebench's aerospike binding against Aerospike's own benchmark tool,
# asbench (issue 32, part 4), side by side in one run on the same server
# (scripts/servers/aerospike.sh, one node, namespace test in memory):
#   storebench         build/default/storebench aerospike, seed 002's flags:
#                      -k KEYS -o S:BIN -w RU,READS -z THREADS -d DURATION
#                      (one client thread per -z thread, as asbench's)
#   storebench-fibers  the same THREADS clients as fibers on at most one
#                      thread per core, each thread's clients sharing one
#                      connection (aerospike.pipeline = clients/thread); only
#                      at THREADS > 1
#   asbench            Aerospike's C benchmark (aerospike-benchmark, on the C
#                      client), named by ASBENCH=/path/to/asbench: -k KEYS
#                      -o S<BIN> -w RU,READS -z THREADS -t DURATION
# Each loads its KEYS records of one BIN-byte string bin first (storebench:
# keys "user..." in set usertable; asbench: integer keys in set asbench), not
# measured; then both read and update keys drawn uniformly, READS% reads, for
# DURATION seconds, with no warm-up (asbench has none). asbench is built, like
# the server, from its public source (see docs/bindings/aerospike.md); this
# script never builds it.
#
# For each tool and thread count it prints ops/s, the read and update 99th
# percentiles (us; asbench's from its cumulative HDR summary, -L), the
# client's CPU time per operation (us; user+system from /proc/PID/stat sampled
# every 50 ms: storebench's over its measured phase, from its JSON result;
# asbench's over its whole life, start-up included, which favours storebench
# by a few ms of CPU), the server's CPU per operation, and the ratios
# storebench/asbench of ops/s and client CPU/op. One Markdown table on
# stdout (medians over ROUNDS, the tools taking turns, a different one first
# each round); progress on stderr; raw outputs in $OUT. Issue 32's goal: ops/s
# ratio >= 1.2 at a client CPU/op ratio <= 1, at 1 and 64 threads.
#
# Usage: ASBENCH=/path/to/asbench bench/aerospike.sh   (after scripts/build.sh default)
# Environment: ASBENCH (required for the asbench rows), ASD (the server, as
#   scripts/servers/aerospike.sh takes it), THREADS (default "1 64"), KEYS
#   (default 100000), BIN (bytes, default 2048), READS (percent, default 50),
#   DURATION (seconds, default 10), ROUNDS (default 1), TOOLS (default
#   "storebench storebench-fibers asbench"), STOREBENCH (the binary, default
#   build/default/storebench), AEROSPIKE_DATA_SIZE (the namespace's size;
#   default room for both tools' records four times over, at least 512M),
#   OUT (raw outputs; default a new mktemp -d folder).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source "$root/scripts/servers/lib.sh"  # alive, die
source "$root/bench/lib.sh"            # run_sampled, cpu_between, per_op, median_table, storebench_row

THREADS=${THREADS:-"1 64"}
KEYS=${KEYS:-100000}
BIN=${BIN:-2048}
READS=${READS:-50}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-1}
TOOLS=${TOOLS:-"storebench storebench-fibers asbench"}
SB=${STOREBENCH:-$root/build/default/storebench}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/storebench-aerospike-bench.XXXXXX")}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

log() { echo "aerospike-bench: $*" >&2; }
for v in KEYS BIN DURATION ROUNDS; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive number, not '${!v}'"
done
[[ $READS =~ ^[0-9]+$ ]] && ((READS <= 100)) || die "READS must be a percentage 0..100, not '$READS'"
for t in $THREADS; do [[ $t =~ ^[1-9][0-9]*$ ]] || die "THREADS must list positive numbers, not '$t'"; done
for t in $TOOLS; do
  [[ $t =~ ^(storebench|storebench-fibers|asbench)$ ]] || die "TOOLS must list storebench, storebench-fibers, asbench, not '$t'"
done
[ -x "$SB" ] || die "no storebench at $SB (scripts/build.sh default)"
"$SB" list 2>/dev/null | grep -E '^  aerospike( |$)' >/dev/null || die "storebench was built without the aerospike binding"
as_status=""
if [[ " $TOOLS " == *" asbench "* ]]; then
  if [ -z "${ASBENCH:-}" ]; then as_status="no ASBENCH=/path/to/asbench given"
  elif [ ! -x "$ASBENCH" ]; then as_status="ASBENCH=$ASBENCH is not an executable"; fi
fi

# --- the server ---------------------------------------------------------------
serverdir=$(mktemp -d "${TMPDIR:-/tmp}/storebench-aerospike-server.XXXXXX")
client_pid=""
cleanup() {
  if [ -n "$client_pid" ] && alive "$client_pid"; then kill -KILL "$client_pid" 2>/dev/null || true; fi
  "$root/scripts/servers/aerospike.sh" stop "$serverdir" >/dev/null 2>&1 || true
  cp "$serverdir"/node1/log "$OUT/asd.log" 2>/dev/null || true
  rm -rf "$serverdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Room for both tools' records four times over (updates leave old copies in
# the write blocks until defragmented; Aerospike stops writes at 70% used).
size_mb=$(( KEYS * (BIN + 64) * 2 * 4 / 1048576 + 1 ))
export AEROSPIKE_DATA_SIZE=${AEROSPIKE_DATA_SIZE:-$(( size_mb < 512 ? 512 : size_mb ))M}
log "starting an Aerospike node (namespace data-size $AEROSPIKE_DATA_SIZE); raw outputs in $OUT"
line=$("$root/scripts/servers/aerospike.sh" start "$serverdir")
port=$(sed -n 's/.*aerospike\.port=\([0-9]*\).*/\1/p' <<<"$line")
[ -n "$port" ] || die "no aerospike.port in the server's line: $line"
mapfile -t server_pids <"$serverdir/pids"
client=()

# rows.tsv: threads, tool, round, ops/s, read p99, update p99, client CPU us/op, server CPU us/op
: >"$OUT/rows.tsv"
notes=()
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$OUT/rows.tsv"; }

sb_flags=(-p aerospike.port="$port" -k "$KEYS" -o "S:$BIN")
log "storebench: loading $KEYS records"
"$SB" load aerospike "${sb_flags[@]}" -z 8 >"$OUT/storebench-load.out" 2>"$OUT/storebench-load.err" ||
  die "storebench load failed (see $OUT/storebench-load.err)"
as_cmd=("${ASBENCH:-asbench}" -h 127.0.0.1 -p "$port" -n test -s asbench -k "$KEYS" -o "S$BIN")
if [ -z "$as_status" ] && [[ " $TOOLS " == *" asbench "* ]]; then
  log "asbench: loading $KEYS records"
  "${as_cmd[@]}" -w I -z 8 >"$OUT/asbench-load.out" 2>&1 || as_status="asbench load failed (see $OUT/asbench-load.out)"
fi

run_storebench() { # TOOL THREADS ROUND
  local tool=$1 t=$2 r=$3 f rate threads=$2 shape=()
  if [ "$tool" = storebench-fibers ]; then
    [ "$t" -gt 1 ] || return 0
    threads=$(( t < $(nproc) ? t : $(nproc) ))
    shape=(-p connections=1 -p aerospike.pipeline=$(( (t + threads - 1) / threads )))
  fi
  f=$OUT/$tool-t$t-r$r
  log "$tool: $t client(s) on $threads thread(s), ${DURATION} s"
  if ! run_sampled "$f" "$SB" run aerospike "${sb_flags[@]}" -w "RU,$READS" -z "$threads" -d "$DURATION" "${shape[@]}" \
       --json "$f.json"; then
    row "$t" "$tool" "$r" "failed (see $f.err)" "" "" "" ""
    return
  fi
  storebench_row "$f" "$t" "$tool" "$r"
}

run_asbench() { # THREADS ROUND
  local t=$1 r=$2 f first last cpu ops rate rp up errs
  [ -z "$as_status" ] || return 0
  f=$OUT/asbench-t$t-r$r
  log "asbench: $t thread(s), ${DURATION} s"
  if ! run_sampled "$f" "${as_cmd[@]}" -w "RU,$READS" -z "$t" -t "$DURATION" -L --percentiles 50,99; then
    row "$t" asbench "$r" "failed (see $f.out)" "" "" "" ""
    return
  fi
  # The last "hdr: read|write" lines are cumulative: ..., count, min, max, p50, p99.
  read -r rp_count rp < <(awk -F', ' '$1 ~ /^hdr: read/ {c = $2; p = $6} END {print c + 0, (p == "" ? "n/a" : p)}' "$f.out")
  read -r up_count up < <(awk -F', ' '$1 ~ /^hdr: write/ {c = $2; p = $6} END {print c + 0, (p == "" ? "n/a" : p)}' "$f.out")
  ops=$((rp_count + up_count))
  rate=$(awk -v n="$ops" -v d="$DURATION" 'BEGIN {printf "%.0f", n / d}')
  first=$(head -1 "$f.cpu" | cut -d' ' -f1)
  last=$(tail -1 "$f.cpu" | cut -d' ' -f1)
  cpu=$(cpu_between "$f.cpu" $((first / 1000)) $((last / 1000)))
  row "$t" asbench "$r" "$rate" "$rp" "$up" "$(per_op "${cpu% *}" "$ops")" "$(per_op "${cpu#* }" "$ops")"
  errs=$(grep -oE '(timeouts|errors)=[1-9][0-9]*' "$f.out" | head -1 || true)
  if [ -n "$errs" ]; then notes+=("asbench t=$t round $r: $errs in an interval (see $f.out)"); fi
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -r -a tools <<<"$TOOLS"
for t in $THREADS; do
  for round in $(seq 1 "$ROUNDS"); do
    for ((i = 0; i < ${#tools[@]}; i++)); do
      tool=${tools[(i + round - 1) % ${#tools[@]}]}
      case $tool in
        asbench) run_asbench "$t" "$round" ;;
        *) run_storebench "$tool" "$t" "$round" ;;
      esac
    done
  done
done
[ -z "$as_status" ] || notes+=("$as_status; no asbench rows")

# --- report -------------------------------------------------------------------
echo "Aerospike $("$root/scripts/servers/aerospike.sh" info "$serverdir" build 2>/dev/null | sed -n 's/^build\t//p' | head -1) Community, one node on 127.0.0.1" \
     "(scripts/servers/aerospike.sh, namespace test in memory); $KEYS records of one $BIN-byte string bin; RU,$READS" \
     "(uniform keys); ${DURATION} s per measurement, no warm-up; $(nproc) cores shared by server and clients;" \
     "load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after (other work on the machine skews the numbers)."
echo
if [ "$ROUNDS" != 1 ]; then echo "Median of $ROUNDS rounds:"; echo; fi
echo "| threads | tool | ops/s | read p99 (us) | update p99 (us) | client CPU us/op | server CPU us/op | ops/s ratio storebench/asbench | client CPU/op ratio storebench/asbench |"
echo "|---|---|---|---|---|---|---|---|---|"
median_table "$OUT/rows.tsv" asbench
if ((${#notes[@]})); then
  echo
  for n in "${notes[@]}"; do echo "- $n"; done
fi
if [ "$ROUNDS" != 1 ]; then
  echo
  echo "Every round (threads, tool, round, ops/s, read p99, update p99, client CPU us/op, server CPU us/op):"
  echo
  sed 's/^/    /' "$OUT/rows.tsv"
fi
