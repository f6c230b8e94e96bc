#!/usr/bin/env bash
# storebench's memcached binding, meta and classic protocols side by side,
# against memtier_benchmark's memcache_text mode (issue 29, part 5), in one run
# on the same server (scripts/servers/memcached.sh, one memcached on 127.0.0.1):
#   storebench-meta     build/default/storebench memcached -p memcached.protocol=meta:
#                       reads are `mg <key> v`, updates `ms <key> <bytes> MR`
#   storebench-classic  the same with -p memcached.protocol=classic: reads are
#                       `get <key>`, updates `replace <key> 0 0 <bytes>` (a
#                       classic `replace`, not memtier's `set`: both are one
#                       write and one STORED line, but replace stores only over
#                       an existing item; every key is loaded, so none misses)
#                       Both: -p memcached.update=replace (an update is one
#                       write, as memtier's set, not read-merge-CAS), one field
#                       of VALUE bytes (fieldcount=1 fieldlength=VALUE; the
#                       record codec makes the item 8 bytes longer; its keys,
#                       usertable-user<19 digits>, are longer than memtier's
#                       memtier-<n>), keys drawn uniformly from KEYS, READS%
#                       reads; -threads THREADS and -p connections=CLIENTS
#                       (CLIENTS fiber clients per thread, each with its own
#                       connection)
#   memtier             memtier_benchmark, named by MEMTIER=/path/to/memtier_benchmark:
#                       --protocol=memcache_text --key-minimum=1 --key-maximum=KEYS
#                       --key-pattern=R:R --data-size=VALUE
#                       --ratio=<100-READS>:<READS> (set:get) --threads=THREADS
#                       --clients=CLIENTS --test-time=DURATION
# So both tools keep THREADS x CLIENTS connections, THREADS client threads of
# CLIENTS connections each, one request in flight on each. Each loads its KEYS
# keys first (storebench: load, keys "usertable-user..."; memtier: sets of
# keys memtier-1..KEYS, --key-pattern=P:P --requests=allkeys), not measured;
# no warm-up. memtier_benchmark is built from its public source
# (github.com/RedisLabs/memtier_benchmark, autoreconf -ivf && ./configure &&
# make); this script never builds it.
#
# For each tool and thread count it prints ops/s, the read and update 99th
# percentiles (us; memtier's from its JSON, Gets and Sets), the client's CPU
# time per operation (us; user+system from /proc/PID/stat sampled every 50 ms,
# over the measured phase of each tool: storebench's start_unix_ms and
# runtime_ms, memtier's "Runtime" start and finish times, both from their JSON
# results), the server's CPU per operation, and the ratios storebench/memtier
# of ops/s and client CPU/op. One Markdown table on stdout (medians over
# ROUNDS, the tools taking turns, a different one first each round); progress
# on stderr; raw outputs in $OUT. Issue 29's goal: ops/s ratio >= 1.2 at a
# client CPU/op ratio <= 1.
#
# Usage: MEMTIER=/path/to/memtier_benchmark bench/memcached.sh   (after scripts/build.sh default)
# Environment: MEMTIER (required for the memtier rows), THREADS (default "1 4"),
#   CLIENTS (connections per thread, default 1), KEYS (default 100000), VALUE
#   (bytes, default 100), READS (percent, default 50), DURATION (seconds,
#   default 10), ROUNDS (default 1), TOOLS (default "storebench-meta
#   storebench-classic memtier"), STOREBENCH (the binary, default
#   build/default/storebench), OUT (raw outputs; default a new mktemp -d folder).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source "$root/scripts/servers/lib.sh"  # alive, die
source "$root/bench/lib.sh"            # run_sampled, cpu_between, per_op, median_table, storebench_row

THREADS=${THREADS:-"1 4"}
CLIENTS=${CLIENTS:-1}
KEYS=${KEYS:-100000}
VALUE=${VALUE:-100}
READS=${READS:-50}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-1}
TOOLS=${TOOLS:-"storebench-meta storebench-classic memtier"}
SB=${STOREBENCH:-$root/build/default/storebench}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/storebench-memcached-bench.XXXXXX")}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

log() { echo "memcached-bench: $*" >&2; }
for v in CLIENTS KEYS VALUE DURATION ROUNDS; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive number, not '${!v}'"
done
[[ $READS =~ ^[0-9]+$ ]] && ((READS <= 100)) || die "READS must be a percentage 0..100, not '$READS'"
for t in $THREADS; do [[ $t =~ ^[1-9][0-9]*$ ]] || die "THREADS must list positive numbers, not '$t'"; done
for t in $TOOLS; do
  [[ $t =~ ^(storebench-meta|storebench-classic|memtier)$ ]] ||
    die "TOOLS must list storebench-meta, storebench-classic, memtier, not '$t'"
done
[ -x "$SB" ] || die "no storebench at $SB (scripts/build.sh default)"
"$SB" list 2>/dev/null | grep -E '^  memcached( |$)' >/dev/null || die "storebench was built without the memcached binding"
command -v python3 >/dev/null || die "python3 is needed to read memtier's JSON"
mt_status=""
if [[ " $TOOLS " == *" memtier "* ]]; then
  if [ -z "${MEMTIER:-}" ]; then mt_status="no MEMTIER=/path/to/memtier_benchmark given"
  elif [ ! -x "$MEMTIER" ]; then mt_status="MEMTIER=$MEMTIER is not an executable"; fi
fi

# --- the server ---------------------------------------------------------------
serverdir=$(mktemp -d "${TMPDIR:-/tmp}/storebench-memcached-server.XXXXXX")
client_pid=""
cleanup() {
  if [ -n "$client_pid" ] && alive "$client_pid"; then kill -KILL "$client_pid" 2>/dev/null || true; fi
  "$root/scripts/servers/memcached.sh" stop "$serverdir" >/dev/null 2>&1 || true
  cp "$serverdir"/memcached-*.log "$OUT/" 2>/dev/null || true
  rm -rf "$serverdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log "starting memcached; raw outputs in $OUT"
line=$(MEMCACHED_INSTANCES=1 "$root/scripts/servers/memcached.sh" start "$serverdir")
hosts=$(sed -n 's/.*memcached\.hosts=\([^ ]*\).*/\1/p' <<<"$line")
port=${hosts##*:}
[[ $port =~ ^[0-9]+$ ]] || die "no memcached.hosts=127.0.0.1:PORT in the server's line: $line"
mapfile -t server_pids <"$serverdir/pids"
client=()

# rows.tsv: threads, tool, round, ops/s, read p99, update p99, client CPU us/op, server CPU us/op
: >"$OUT/rows.tsv"
notes=()
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$OUT/rows.tsv"; }

sb_flags=(-p memcached.hosts="$hosts" -p recordcount="$KEYS" -p fieldcount=1 -p fieldlength="$VALUE")
log "storebench: loading $KEYS records"
"$SB" load memcached "${sb_flags[@]}" -threads 2 >"$OUT/storebench-load.out" 2>"$OUT/storebench-load.err" ||
  die "storebench load failed (see $OUT/storebench-load.err)"
mt_cmd=("${MEMTIER:-memtier_benchmark}" -s 127.0.0.1 -p "$port" --protocol=memcache_text
        --key-minimum=1 --key-maximum="$KEYS" --data-size="$VALUE" --hide-histogram)
if [ -z "$mt_status" ] && [[ " $TOOLS " == *" memtier "* ]]; then
  log "memtier: loading $KEYS keys"
  "${mt_cmd[@]}" --key-pattern=P:P --ratio=1:0 --requests=allkeys --threads=1 --clients=1 \
    >"$OUT/memtier-load.out" 2>&1 || mt_status="memtier load failed (see $OUT/memtier-load.out)"
fi

run_storebench() { # TOOL THREADS ROUND
  local tool=$1 t=$2 r=$3 f rate
  f=$OUT/$tool-t$t-r$r
  log "$tool: $t thread(s) x $CLIENTS connection(s), ${DURATION} s"
  if ! run_sampled "$f" "$SB" run memcached "${sb_flags[@]}" -p memcached.protocol="${tool#storebench-}" \
       -p memcached.update=replace -p readproportion="$(awk -v r="$READS" 'BEGIN {print r / 100}')" \
       -p updateproportion="$(awk -v r="$READS" 'BEGIN {print (100 - r) / 100}')" -p insertproportion=0 \
       -p scanproportion=0 -p readmodifywriteproportion=0 -p requestdistribution=uniform \
       -p operationcount=0 -p maxexecutiontime="$DURATION" -threads "$t" -p connections="$CLIENTS" \
       --json "$f.json"; then
    row "$t" "$tool" "$r" "failed (see $f.err)" "" "" "" ""
    return
  fi
  storebench_row "$f" "$t" "$tool" "$r"
}

run_memtier() { # THREADS ROUND
  local t=$1 r=$2 f cpu ops rate rp up start finish errs misses
  [ -z "$mt_status" ] || return 0
  f=$OUT/memtier-t$t-r$r
  log "memtier: $t thread(s) x $CLIENTS connection(s), ${DURATION} s"
  if ! run_sampled "$f" "${mt_cmd[@]}" --key-pattern=R:R --ratio="$((100 - READS)):$READS" --threads="$t" \
       --clients="$CLIENTS" --test-time="$DURATION" --json-out-file="$f.json"; then
    row "$t" memtier "$r" "failed (see $f.err)" "" "" "" ""
    return
  fi
  # ALL STATS: Totals' Count and Ops/sec, Gets' and Sets' p99 (ms), Runtime's
  # start and finish (Unix ms), connection errors and get misses.
  read -r ops rate rp up start finish errs misses < <(python3 - "$f.json" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))["ALL STATS"]
def p99(t):
    v = a.get(t, {}).get("Percentile Latencies", {}).get("p99.00")
    return "n/a" if v is None or a[t].get("Count", 0) == 0 else "%.0f" % (v * 1000)
t = a["Totals"]
print(t["Count"], "%.0f" % t["Ops/sec"], p99("Gets"), p99("Sets"), a["Runtime"]["Start time"],
      a["Runtime"]["Finish time"], t.get("Connection Errors", 0), round(a["Gets"].get("Misses/sec", 0)))
EOF
  ) || { row "$t" memtier "$r" "no result (see $f.json)" "" "" "" ""; return; }
  cpu=$(cpu_between "$f.cpu" "$start" "$finish")
  row "$t" memtier "$r" "$rate" "$rp" "$up" "$(per_op "${cpu% *}" "$ops")" "$(per_op "${cpu#* }" "$ops")"
  if [ "$errs" != 0 ] || [ "$misses" != 0 ]; then
    notes+=("memtier t=$t round $r: $errs connection errors, $misses get misses/s (see $f.out)")
  fi
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -r -a tools <<<"$TOOLS"
for t in $THREADS; do
  for round in $(seq 1 "$ROUNDS"); do
    for ((i = 0; i < ${#tools[@]}; i++)); do
      tool=${tools[(i + round - 1) % ${#tools[@]}]}
      case $tool in
        memtier) run_memtier "$t" "$round" ;;
        *) run_storebench "$tool" "$t" "$round" ;;
      esac
    done
  done
done
[ -z "$mt_status" ] || notes+=("$mt_status; no memtier rows")

# --- report -------------------------------------------------------------------
version=$(exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'version\r\n' >&3 && IFS= read -r -t 2 v <&3 && echo "${v%$'\r'}" | cut -d' ' -f2 || true)
mt_version=""
[ -n "$mt_status" ] || mt_version=$("$MEMTIER" --version 2>/dev/null | head -1 || true)
echo "memcached ${version:-?} on 127.0.0.1 (scripts/servers/memcached.sh: -m 1024 -I 8m, 4 worker threads);" \
     "$KEYS keys of $VALUE-byte values per tool; $READS% reads (get/mg), the rest one write each (memtier: set;" \
     "storebench: replace/ms MR), uniform keys; THREADS client threads x $CLIENTS connection(s) each for every tool;" \
     "${DURATION} s per measurement, no warm-up;${mt_version:+ $mt_version;} $(nproc) cores shared by server and clients;" \
     "load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after (other work on the machine skews the numbers)."
echo
if [ "$ROUNDS" != 1 ]; then echo "Median of $ROUNDS rounds:"; echo; fi
echo "| threads | tool | ops/s | read p99 (us) | update p99 (us) | client CPU us/op | server CPU us/op | ops/s ratio storebench/memtier | client CPU/op ratio storebench/memtier |"
echo "|---|---|---|---|---|---|---|---|---|"
median_table "$OUT/rows.tsv" memtier
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
