#!/usr/bin/env bash
# storebench's ignite binding against the two Java clients a user would
# otherwise write (issue 22, part 5), side by side in one run on the same
# Apache Ignite nodes (scripts/servers/ignite.sh, ATOMIC table usertable by
# default):
#   storebench         build/default/storebench, db=ignite (native C++ thin
#                      client, partition awareness on by default)
#   storebench-fibers  the same, with the THREADS clients as fibers on at most
#                      one thread per core, each thread's clients sharing one
#                      connection per node (ignite.pipeline = clients/thread):
#                      as many requests in flight as THREADS Java threads, as
#                      the Java thin client multiplexes them on one connection
#                      (only at THREADS > 1)
#   java-thin          servers/ignite-bench: storebench.ThinClientBench, Ignite's
#                      own Java thin client, partition awareness on
#   java-client-node   servers/ignite-bench: storebench.ClientNodeBench, a client
#                      node (the thick client of Yardstick and YCSB's ignite
#                      binding, which joins the topology)
# Same table, records (10 String fields of 100 random printable characters, as
# a BinaryObject of type usertable), keys, threads, warm-up and duration for
# each: get (whole record read) and put (whole record written) on keys drawn
# uniformly from RECORDS loaded records, at each thread count in THREADS.
# Keys: storebench's are Java YCSB's (insertorder=hashed: "user" + FNV-1a hash
# of the record number); the Java peers are given keys=hashed, so all three
# read and write the same keys, of the same sizes (KEYS=ordered gives them
# "user<N>" instead). storebench loads once (threadcount 4); each Java peer
# loads in its first run (putAll, batches of 500, 4 threads), not measured.
#
# For each tool, op and thread count it prints ops/s, the 99th percentile
# latency (us), the client's CPU time per operation (us; user+system of the
# whole client process over the measured phase only: the Java peers read
# their process CPU time through OperatingSystemMXBean when their measured
# phase starts and ends; storebench's is sampled from /proc/PID/stat every
# 50 ms and interpolated at the start and end of its measured phase, which its
# JSON result gives) and the nodes' CPU time per operation over the same
# phase (from /proc, all nodes together), then the ratios
# storebench/java-thin and storebench/java-client-node of ops/s and of client
# CPU per op (for each storebench row). One Markdown table on stdout (medians over ROUNDS; every
# round too when ROUNDS > 1); progress on stderr; raw outputs in $OUT.
# Issue 22's goals: ops/s ratio >= 1.2 against java-thin at a CPU/op ratio
# <= 1, and >= 1.0 against java-client-node, for get and put at 1 and 8
# threads.
#
# Pinning: none by default. On this project's 2-core machines the nodes
# and the client share both cores, as they would on one host; pinning the
# nodes to one core and the client to the other starves the 8-thread runs
# of the JVMs' own JIT and GC threads. PIN=1 puts the nodes on core
# $SERVER_CPU (default 0) and every client on core $CLIENT_CPU (default 1).
#
# Usage: bench/ignite.sh        (after scripts/setup.sh and scripts/build.sh default)
# Environment: NODES (default 1), THREADS (default "1 8"), OPS (default
#   "get put"), DURATION (seconds per measurement, default 10), WARMUP (seconds,
#   default 3), RECORDS (default 100000), ROUNDS (default 1: the tools take
#   turns this many times per op and thread count, starting with a different
#   one each round), TOOLS (default "storebench storebench-fibers java-thin java-client-node"),
#   KEYS (hashed or ordered, the Java peers' keys; default hashed),
#   STOREBENCH (the binary, default build/default/storebench), JAVA_HEAP (the
#   Java peers' -Xms/-Xmx, default 512m), PIN, SERVER_CPU, CLIENT_CPU,
#   OUT (raw outputs; default a new mktemp -d folder), and the
#   IGNITE_* options of scripts/servers/ignite.sh (IGNITE_ATOMICITY,
#   IGNITE_BACKUPS, IGNITE_WRITE_SYNC, IGNITE_HEAP, ...).
# The Java module is resolved by Maven once (offline first) and compiled into
# ${XDG_CACHE_HOME:-~/.cache}/storebench/ignite-bench-<hash of its pom and
# sources>/; later runs resolve and compile nothing. Java 17 and Maven come
# from scripts/setup.sh; ss (iproute2) checks that the nodes listen on
# loopback only. No GNU time: it would count each client's start-up, load
# and warm-up, which the /proc samples leave out.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source "$root/scripts/servers/lib.sh"  # free_port, alive, listening_beyond_loopback, die
source "$root/bench/lib.sh"            # run_sampled, cpu_between, per_op

NODES=${NODES:-1}
THREADS=${THREADS:-"1 8"}
OPS=${OPS:-"get put"}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
RECORDS=${RECORDS:-100000}
ROUNDS=${ROUNDS:-1}
TOOLS=${TOOLS:-"storebench storebench-fibers java-thin java-client-node"}
KEYS=${KEYS:-hashed}
JAVA_HEAP=${JAVA_HEAP:-512m}
SB=${STOREBENCH:-$root/build/default/storebench}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/storebench-ignite-bench.XXXXXX")}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
FIELDS=10 FIELDLEN=100

log() { echo "ignite-bench: $*" >&2; }
for v in NODES DURATION RECORDS ROUNDS; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive number, not '${!v}'"
done
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be a number of seconds, not '$WARMUP'"
for t in $THREADS; do [[ $t =~ ^[1-9][0-9]*$ ]] || die "THREADS must list positive numbers, not '$t'"; done
for o in $OPS; do [[ $o == get || $o == put ]] || die "OPS must list get and/or put, not '$o'"; done
for t in $TOOLS; do
  [[ $t =~ ^(storebench|storebench-fibers|java-thin|java-client-node)$ ]] ||
    die "TOOLS must list storebench, storebench-fibers, java-thin, java-client-node, not '$t'"
done
[[ $KEYS == hashed || $KEYS == ordered ]] || die "KEYS must be hashed or ordered, not '$KEYS'"

# --- the Java peers: classpath and classes, built once per pom/sources hash ----
module=$root/servers/ignite-bench
prepare_peers() {
  command -v java >/dev/null || die "java not installed (scripts/setup.sh installs openjdk-17-jdk-headless)"
  local srcs hash cache tmp
  srcs=$(find "$module/src/main/java" -name '*.java' | sort)
  # shellcheck disable=SC2086
  hash=$(cat "$module/pom.xml" $srcs | sha256sum | cut -c1-16)
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/storebench/ignite-bench-$hash
  if [ -f "$cache/classpath.txt" ] && [ -f "$cache/classes/storebench/IgniteBench.class" ]; then
    echo "$cache"; return 0
  fi
  command -v mvn >/dev/null || die "mvn not installed (scripts/setup.sh installs maven)"
  command -v javac >/dev/null || die "javac not installed (scripts/setup.sh installs openjdk-17-jdk-headless)"
  log "resolving and compiling $module (once)"
  mkdir -p "$(dirname "$cache")"
  tmp=$(mktemp -d "$cache.tmp.XXXXXX")
  # Offline first: with a warm ~/.m2 this resolves without the network.
  if ! mvn -q -o -B -f "$module/pom.xml" dependency:build-classpath -Dmdep.outputFile="$tmp/classpath.txt" >"$tmp/mvn.log" 2>&1; then
    mvn -q -B -f "$module/pom.xml" dependency:build-classpath -Dmdep.outputFile="$tmp/classpath.txt" >"$tmp/mvn.log" 2>&1 \
      || { tail -20 "$tmp/mvn.log" >&2; rm -rf "$tmp"; die "Maven could not resolve $module/pom.xml"; }
  fi
  # shellcheck disable=SC2086
  javac --release 17 -d "$tmp/classes" -cp "$(cat "$tmp/classpath.txt")" $srcs >"$tmp/javac.log" 2>&1 \
    || { cat "$tmp/javac.log" >&2; rm -rf "$tmp"; die "javac failed on $module"; }
  rm -rf "$cache"
  mv "$tmp" "$cache"
  echo "$cache"
}
peers=$(prepare_peers)
# The --add-opens flags scripts/servers/ignite.sh gives its nodes (Ignite's own
# for Java 11+), read from that script so that the two stay one list.
mapfile -t jvm_opens < <(grep -oE -- '--add-opens=[^ ]+' "$root/scripts/servers/ignite.sh")
((${#jvm_opens[@]} >= 10)) || die "found no --add-opens flags in scripts/servers/ignite.sh"
java_cmd=(java -server "-Xms$JAVA_HEAP" "-Xmx$JAVA_HEAP" -XX:+UseG1GC -Djava.net.preferIPv4Stack=true
  -DIGNITE_QUIET=true -DIGNITE_UPDATE_NOTIFIER=false -DIGNITE_NO_ASCII=true -DIGNITE_PERFORMANCE_SUGGESTIONS_DISABLED=true
  "-Djava.util.logging.config.file=$root/servers/ignite/java.util.logging.properties"
  "${jvm_opens[@]}" -cp "$peers/classes:$(cat "$peers/classpath.txt")")

# --- nodes ------------------------------------------------------------------
nodedir=$(mktemp -d "${TMPDIR:-/tmp}/storebench-ignite-nodes.XXXXXX")
client_pid=""
cleanup() {
  if [ -n "$client_pid" ] && alive "$client_pid"; then
    kill -TERM "$client_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do alive "$client_pid" || break; sleep 0.1; done
    kill -KILL "$client_pid" 2>/dev/null || true
  fi
  "$root/scripts/servers/ignite.sh" stop "$nodedir" >/dev/null 2>&1 || true
  cp "$nodedir"/node*.log "$OUT/" 2>/dev/null || true
  rm -rf "$nodedir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "starting $NODES Ignite node(s); raw outputs in $OUT"
line=$("$root/scripts/servers/ignite.sh" start "$nodedir" "$NODES")
hosts=${line#ignite.hosts=}
disco=$(sed -n 's/^disco=\([0-9 ]*\) comm=.*/\1/p' "$nodedir/ports" | tr ' ' ',')
[ -n "$disco" ] || die "no discovery ports in $nodedir/ports"
mapfile -t node_pids <"$nodedir/pids"
server_pids=("${node_pids[@]}")

SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PIN=${PIN:-0}
client=()
pinning="none (nodes and clients share the $(nproc) cores)"
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
  for p in "${node_pids[@]}"; do taskset -a -pc "$SERVER_CPU" "$p" >/dev/null; done
  client=(taskset -c "$CLIENT_CPU")
  pinning="nodes on core $SERVER_CPU, clients on core $CLIENT_CPU"
fi
log "nodes: $hosts (discovery $disco); pinning: $pinning"

# --- CPU sampling -----------------------------------------------------------
# sample FILE PID [NODE_PID...]: every 50 ms until PID has exited, one line
# "wall-clock-us client-ticks node-ticks" (ticks: utime + stime from
# /proc/P/stat, summed over the nodes). No forks but sleep.
# --- measurements -----------------------------------------------------------
# rows.tsv: op, threads, tool, round, ops/s, p99 us, client CPU us/op, nodes' CPU us/op, note
: >"$OUT/rows.tsv"
notes=()
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$OUT/rows.tsv"; }

sb_status=""
sb_common=(-p db=ignite -p "ignite.hosts=$hosts" -p recordcount="$RECORDS" -p fieldcount=$FIELDS -p fieldlength=$FIELDLEN)
if [ ! -x "$SB" ]; then
  sb_status="storebench not built (scripts/build.sh default)"
elif ! "$SB" list 2>/dev/null | grep -E '^  ignite( |$)' >/dev/null; then
  sb_status="storebench: ignite binding not built"
fi
sb_loaded=0
run_storebench() { # TOOL OP THREADS ROUND
  local tool=$1 op=$2 t=$3 r=$4 f mix rate p99 ops errs start ms cpu threads=$3 shape=()
  [[ " $TOOLS " == *" $tool "* ]] || return 0
  if [ "$tool" = storebench-fibers ]; then
    # THREADS clients as fibers on at most one thread per core, each thread's
    # clients sharing one connection per node (ignite.pipeline): as many
    # requests in flight as THREADS Java threads have.
    [ "$t" -gt 1 ] || return 0
    threads=$(( t < $(nproc) ? t : $(nproc) ))
    shape=(-p ignite.pipeline=$(( (t + threads - 1) / threads )))
  fi
  if [ -z "$sb_status" ] && [ "$sb_loaded" = 0 ]; then
    log "storebench: load of $RECORDS records"
    if ! "${client[@]}" "$SB" load "${sb_common[@]}" -p threadcount=4 >"$OUT/storebench-load.out" 2>"$OUT/storebench-load.err" </dev/null; then
      sb_status="storebench load failed (see $OUT/storebench-load.err)"
    fi
    sb_loaded=1
  fi
  if [ -n "$sb_status" ]; then log "$sb_status"; row "$op" "$t" "$tool" "$r" "$sb_status" "" "" "" ""; return; fi
  f=$OUT/$tool-$op-t$t-r$r
  if [ "$op" = get ]; then mix=(-p readproportion=1 -p updateproportion=0)
  else mix=(-p readproportion=0 -p updateproportion=1 -p writeallfields=true); fi
  log "$tool: $op, $t client(s) on $threads thread(s) ${shape[*]}, ${WARMUP} s warm-up + ${DURATION} s"
  # operationcount=0: no limit, maxexecutiontime ends the run (docs/workloads.md).
  if ! run_sampled "$f" "$SB" run "${sb_common[@]}" -p threadcount="$threads" "${shape[@]}" -p maxexecutiontime="$DURATION" \
       -p operationcount=0 "${mix[@]}" -p requestdistribution=uniform -p warmup.seconds="$WARMUP" --json "$f.json"; then
    row "$op" "$t" "$tool" "$r" "failed (see $f.err)" "" "" "" ""
    return
  fi
  rate=$(awk -F', ' '$1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" {printf "%.0f", $3}' "$f.out")
  p99=$(awk -F', ' '($1 == "[READ]" || $1 == "[UPDATE]") && $2 == "99thPercentileLatency(us)" {print $3}' "$f.out")
  ops=$(awk -F', ' '$1 !~ /OVERALL|CLEANUP/ && $2 == "Operations" {n += $3} END {print n + 0}' "$f.out")
  errs=$(awk -F', ' '$2 ~ /^Return=/ && $2 != "Return=OK" {n += $3} END {print n + 0}' "$f.out")
  start=$(grep -oE '"start_unix_ms": *[0-9]+' "$f.json" | head -1 | grep -oE '[0-9]+$' || true)
  ms=$(grep -oE '"runtime_ms": *[0-9]+' "$f.json" | head -1 | grep -oE '[0-9]+$' || true)
  if [ -n "$start" ] && [ -n "$ms" ]; then cpu=$(cpu_between "$f.cpu" "$start" $((start + ms)))
  else cpu="n/a n/a"; notes+=("$tool $op t=$t: no start_unix_ms/runtime_ms in $f.json, no CPU figures"); fi
  row "$op" "$t" "$tool" "$r" "${rate:-0}" "${p99:-n/a}" "$(per_op "${cpu% *}" "$ops")" "$(per_op "${cpu#* }" "$ops")" ""
  if [ "$errs" != 0 ]; then notes+=("$tool $op t=$t round $r: $errs operations did not return OK (see $f.out)"); fi
}

declare -A java_loaded=()
# result_field NAME: NAME's value in the RESULT line $res of a Java peer (n/a if absent).
result_field() { local v; v=$(tr ' ' '\n' <<<"$res" | sed -n "s/^$1=//p"); echo "${v:-n/a}"; }
run_java() { # TOOL OP THREADS ROUND
  local tool=$1 op=$2 t=$3 r=$4 f main args load=false first="" res ops cpu
  [[ " $TOOLS " == *" $tool "* ]] || return 0
  f=$OUT/$tool-$op-t$t-r$r
  if [ "$tool" = java-thin ]; then main=storebench.ThinClientBench; args=("hosts=$hosts")
  else main=storebench.ClientNodeBench; args=("disco=$disco" "comm=$(free_port)" "workdir=$OUT/client-node-work"); fi
  if [ -z "${java_loaded[$tool]:-}" ]; then load=true; first=", after its load of $RECORDS records"; fi
  log "$tool: $op, $t thread(s), ${WARMUP} s warm-up + ${DURATION} s$first"
  if ! run_sampled "$f" "${java_cmd[@]}" "$main" "${args[@]}" op="$op" threads="$t" duration="$DURATION" \
       warmup="$WARMUP" recordcount="$RECORDS" fieldcount=$FIELDS fieldlength=$FIELDLEN keys="$KEYS" load=$load; then
    row "$op" "$t" "$tool" "$r" "failed (see $f.err)" "" "" "" ""
    return
  fi
  java_loaded[$tool]=1
  res=$(grep '^RESULT ' "$f.out" | tail -1)
  ops=$(result_field ops)
  cpu=$(cpu_between "$f.cpu" "$(result_field start_unix_ms)" "$(result_field end_unix_ms)")
  row "$op" "$t" "$tool" "$r" "$(awk -v x="$(result_field ops_per_s)" 'BEGIN { printf "%.0f", x }')" "$(result_field p99_us)" \
    "$(result_field cpu_us_per_op)" "$(per_op "${cpu#* }" "$ops")" ""
  # The /proc figure of the client's own CPU, a cross-check of OperatingSystemMXBean's.
  echo "proc_client_cpu_us_per_op=$(per_op "${cpu% *}" "$ops")" >>"$f.out"
  if [ "$(result_field errors)" != 0 ]; then notes+=("$tool $op t=$t round $r: $(result_field errors) operations failed (see $f.err)"); fi
  if [ "$op" = get ] && [ "$(result_field misses)" != 0 ]; then notes+=("$tool get t=$t round $r: $(result_field misses) gets found no record"); fi
}

run_tool() { # TOOL OP THREADS ROUND
  case $1 in
    storebench|storebench-fibers) run_storebench "$@" ;;
    *) run_java "$@" ;;
  esac
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -r -a tools <<<"$TOOLS"
for op in $OPS; do
  for t in $THREADS; do
    for round in $(seq 1 "$ROUNDS"); do
      # The tools take turns, each round starting with the next one, so that a
      # drift in the machine's speed does not always favour the same tool.
      for ((i = 0; i < ${#tools[@]}; i++)); do
        run_tool "${tools[(i + round - 1) % ${#tools[@]}]}" "$op" "$t" "$round"
      done
    done
  done
done
beyond=$(listening_beyond_loopback "$nodedir")
[ -z "$beyond" ] || notes+=("a node listened beyond loopback: $beyond")

# --- report -----------------------------------------------------------------
echo "Apache Ignite 2.17.0, $NODES node(s) on 127.0.0.1 (scripts/servers/ignite.sh: atomicity ${IGNITE_ATOMICITY:-atomic}," \
     "write sync ${IGNITE_WRITE_SYNC:-primary_sync}); $RECORDS records of $FIELDS x $FIELDLEN-byte String fields, uniform keys" \
     "($KEYS keys for the Java peers); ${WARMUP} s warm-up + ${DURATION} s per measurement; pinning: $pinning; $(nproc) cores;" \
     "load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after (other work on the machine skews the numbers)."
echo
if [ "$ROUNDS" != 1 ]; then echo "Median of $ROUNDS rounds:"; echo; fi
echo "| op | threads | tool | ops/s | p99 (us) | client CPU us/op | nodes' CPU us/op | ops/s ratio storebench/java-thin | CPU/op ratio storebench/java-thin | ops/s ratio storebench/java-client-node | CPU/op ratio storebench/java-client-node |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
awk -F'\t' '
  function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function med(list, fmt) { return list == "" ? "n/a" : sprintf(fmt, median(list)) }
  function ratio(a, b, fmt) { return (a == "n/a" || b == "n/a" || b + 0 == 0) ? "n/a" : sprintf(fmt, a / b) }
  {
    k = $1 SUBSEP $2 SUBSEP $3
    if (!(k in seen)) { seen[k]; order[++m] = k }
    if ($5 ~ /^[0-9.]+$/) {
      R[k] = R[k] " " $5
      if ($6 ~ /^[0-9.]+$/) P[k] = P[k] " " $6
      if ($7 ~ /^[0-9.]+$/) C[k] = C[k] " " $7
      if ($8 ~ /^[0-9.]+$/) S[k] = S[k] " " $8
    } else note[k] = $5
  }
  END {
    for (i = 1; i <= m; i++) {
      k = order[i]; split(k, f, SUBSEP)
      if (R[k] == "") { printf "| %s | %s | %s | %s | | | | | | | |\n", f[1], f[2], f[3], note[k]; continue }
      r = med(R[k], "%.0f"); c = med(C[k], "%.2f")
      line = sprintf("| %s | %s | %s | %s | %s | %s | %s |", f[1], f[2], f[3], r, med(P[k], "%.0f"), c, med(S[k], "%.2f"))
      if (f[3] ~ /^storebench/) {
        for (j = 1; j <= 2; j++) {
          peer = j == 1 ? "java-thin" : "java-client-node"; q = f[1] SUBSEP f[2] SUBSEP peer
          line = line sprintf(" %s | %s |", ratio(r, med(R[q], "%.0f"), "%.2f"), ratio(c, med(C[q], "%.2f"), "%.2f"))
        }
      } else line = line " | | | |"
      print line
    }
  }' "$OUT/rows.tsv"
if [ "$ROUNDS" != 1 ]; then
  echo
  echo "Every round:"
  echo
  echo "| op | threads | tool | round | ops/s | p99 (us) | client CPU us/op | nodes' CPU us/op |"
  echo "|---|---|---|---|---|---|---|---|"
  awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$OUT/rows.tsv"
fi
if ((${#notes[@]})); then echo; printf -- '- %s\n' "${notes[@]}"; fi
