#!/usr/bin/env bash
# storebench's hbase binding against the JVM clients a user would otherwise
# run (issue 23, part 5), side by side in one run on the same Apache HBase
# server (scripts/servers/hbase.sh: standalone, one region server):
#   storebench         build/default/storebench, db=hbase (its own C++ client
#                      of HBase's native RPC), THREADS threads, one connection
#                      per thread
#   storebench-fibers  the same with the THREADS clients as fibers on at most
#                      one thread per core, each thread's clients sharing one
#                      connection (connections=1, hbase.pipeline = clients per
#                      thread): THREADS calls in flight on a couple of
#                      sockets, as HBase's Java client multiplexes all its
#                      threads' calls on one connection (only at THREADS > 1)
#   ycsb-java          YCSB 0.17.0's own Client (site.ycsb:core) driving
#                      servers/hbase-bench: storebench.YcsbHBaseDB, a DB over
#                      hbase-client that stores rows as YCSB's hbase2 binding
#                      does, one Connection shared by the THREADS threads
#   pe                 HBase's PerformanceEvaluation (--nomapred --oneCon=true,
#                      THREADS client threads), its randomRead and randomWrite
#                      tests one after the other, on its own table TestTable
#                      (10 columns of 100 bytes a row, as YCSB's records; keys
#                      of 26 digits), not on usertable: two rows of their own,
#                      never a ratio (see below)
# storebench, storebench-fibers and ycsb-java run the same workload: YCSB's
# workload A (workloads/workloada: read/update 50/50, zipfian keys, whole-row
# reads, one-field updates) over RECORDS records of 10 fields x 100 bytes,
# loaded once by storebench (threadcount 4; keys "user" + FNV hash of the
# record number, the same as YCSB's with insertorder=hashed, so all read the
# same rows), at each thread count in THREADS, WARMUP seconds of warm-up then
# DURATION seconds measured (maxexecutiontime).
#
# For each tool and thread count it prints ops/s, the 99th percentile latency
# of reads and of updates (us), the client's CPU time per operation (us;
# user+system of the client process from /proc/PID/stat, sampled every 50 ms
# and interpolated at the start and end of the measured phase) and the region
# server's (the HBase JVM's) CPU time per operation over the same phase, then
# the ratios storebench/ycsb-java of ops/s and of client CPU per op. One
# Markdown table on stdout (medians over ROUNDS; every round too when
# ROUNDS > 1); progress on stderr; raw outputs in $OUT.
#   The measured phase: storebench's JSON result gives its start and length.
# YCSB 0.17 has no warm-up: it runs WARMUP + DURATION seconds with a status
# line a second (-s, status.interval=1) and interval histograms
# (hdrhistogram.fileoutput); the phase runs from the status line at WARMUP s
# to the last one, its ops/s is the difference of their operation counts over
# that time, and its p99s are those of the interval histograms after WARMUP
# (HdrHistogram's HistogramLogProcessor, in YCSB's classpath).
#   PerformanceEvaluation runs a number of rows per client thread, not a
# time: each of its two tests is given (WARMUP + DURATION) / 2 seconds' worth
# of rows at the ops/s last measured at this thread count (2000 ops/s before
# any); --measureAfter leaves the first WARMUP / (WARMUP + DURATION) of each
# client's rows out of its latencies. Its phase runs from the first client's
# "Timed test starting" to the last one's "Finished" (its log's timestamps),
# so its ops/s and CPU include its JVM's warm-up. randomRead gets whole rows
# drawn uniformly from rows x THREADS, which PE's sequentialWrite writes
# first (not measured; PE takes no smaller key range: its --size must be at
# least 1 GiB); randomWrite puts whole rows (10 columns, autoFlush: one RPC
# per put) on keys drawn from the same range. Its p99 is the median of its
# client threads' own p99s (PE keeps one histogram per thread).
# PE's artifact: hbase-mapreduce's test jar, which Maven Central has for HBase
# 2.6.4 built against Hadoop 2 but not for 2.6.4-hadoop3
# (servers/hbase-bench/pe/pom.xml); when it does not resolve or run, one line
# says so and the pe rows are skipped.
#
# Usage: bench/hbase.sh     (after scripts/setup.sh and scripts/build.sh default)
# Environment: THREADS (default "16 256"), DURATION (seconds measured, default
#   30), WARMUP (seconds, default 5), RECORDS (default 100000), ROUNDS
#   (default 1: the tools take turns this many times per thread count, each
#   round starting with the next), TOOLS (default "storebench
#   storebench-fibers ycsb-java pe"), STOREBENCH (the binary, default
#   build/default/storebench), JAVA_HEAP (-Xms/-Xmx of the Java clients,
#   default 512m), PE_MAX_HEAP (the most heap PerformanceEvaluation may have,
#   default 2g: it needs about 256 MB + 40 MB per thread, so at 2g it runs up
#   to 44 threads and says "skipped" above), HBASE_DIR (a server already started there by
#   scripts/servers/hbase.sh start HBASE_DIR, loaded anew; default: a server
#   of its own in a mktemp -d folder, removed at exit), PRESPLIT (regions of
#   usertable for a server of its own, default 1), HBASE_HEAP, HBASE_FAMILY
#   (scripts/servers/hbase.sh's), OUT (raw outputs; default a new mktemp -d
#   folder).
# The Java modules are resolved by Maven once and cached under
# ${XDG_CACHE_HOME:-~/.cache}/storebench/ (scripts/servers/lib.sh
# jvm_launcher); later runs resolve and compile nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source "$root/scripts/servers/lib.sh"  # jvm_launcher, alive, die
source "$root/bench/lib.sh"            # run_sampled, cpu_between, per_op, median_table, storebench_row

THREADS=${THREADS:-"16 256"}
DURATION=${DURATION:-30}
WARMUP=${WARMUP:-5}
RECORDS=${RECORDS:-100000}
ROUNDS=${ROUNDS:-1}
TOOLS=${TOOLS:-"storebench storebench-fibers ycsb-java pe"}
JAVA_HEAP=${JAVA_HEAP:-512m}
PRESPLIT=${PRESPLIT:-1}
PE_MAX_HEAP=${PE_MAX_HEAP:-2g}
SB=${STOREBENCH:-$root/build/default/storebench}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/storebench-hbase-bench.XXXXXX")}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
FIELDS=10 FIELDLEN=100

log() { echo "hbase-bench: $*" >&2; }
for v in DURATION RECORDS ROUNDS PRESPLIT; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive number, not '${!v}'"
done
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be a number of seconds, not '$WARMUP'"
for t in $THREADS; do [[ $t =~ ^[1-9][0-9]*$ ]] || die "THREADS must list positive numbers, not '$t'"; done
for t in $TOOLS; do
  [[ $t =~ ^(storebench|storebench-fibers|ycsb-java|pe)$ ]] ||
    die "TOOLS must list storebench, storebench-fibers, ycsb-java, pe, not '$t'"
done
[[ $JAVA_HEAP =~ ^[0-9]+[mMgG]$ ]] || die "JAVA_HEAP must be like 512m or 1g, not '$JAVA_HEAP'"
[[ $PE_MAX_HEAP =~ ^([0-9]+)([mMgG])$ ]] || die "PE_MAX_HEAP must be like 2g or 1536m, not '$PE_MAX_HEAP'"
pe_max_mb=${BASH_REMATCH[1]}; [[ ${BASH_REMATCH[2]} == [gG] ]] && pe_max_mb=$((pe_max_mb * 1024))
wants() { [[ " $TOOLS " == *" $1 "* ]]; }

# --- server -----------------------------------------------------------------
scratch=$(mktemp -d "${TMPDIR:-/tmp}/storebench-hbase-bench-scratch.XXXXXX")
own_server=""
client_pid=""
cleanup() {
  if [ -n "$client_pid" ] && alive "$client_pid"; then
    kill -TERM "$client_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do alive "$client_pid" || break; sleep 0.1; done
    kill -KILL "$client_pid" 2>/dev/null || true
  fi
  if [ -n "$own_server" ]; then
    "$root/scripts/servers/hbase.sh" stop "$own_server" >/dev/null 2>&1 || true
    cp "$own_server/hbase.log" "$OUT/" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

family=${HBASE_FAMILY:-family}
if [ -n "${HBASE_DIR:-}" ]; then
  srv=$(cd "$HBASE_DIR" && pwd)
  [ -f "$srv/ports" ] && [ -f "$srv/pids" ] && alive "$(cat "$srv/pids")" ||
    die "HBASE_DIR=$HBASE_DIR: no server of scripts/servers/hbase.sh running there"
  zk=$(sed -n 's/.*zk=\([0-9]*\).*/\1/p' "$srv/ports")
  master=$(sed -n 's/.*master=\([0-9]*\).*/\1/p' "$srv/ports")
  line="hbase.zookeeper.quorum=127.0.0.1:$zk hbase.master=127.0.0.1:$master hbase.columnfamily=$family"
  log "using the server in $srv; raw outputs in $OUT"
else
  own_server=$scratch/hbase
  log "starting HBase ($PRESPLIT region(s)); raw outputs in $OUT"
  line=$("$root/scripts/servers/hbase.sh" start "$own_server" --presplit "$PRESPLIT" --family "$family")
  srv=$own_server
fi
echo "$line" >"$OUT/server.txt"
server_pid=$(cat "$srv/pids")
server_pids=("$server_pid")
client=()
props=()
for kv in $line; do props+=(-p "$kv"); done
zk_quorum=$(tr ' ' '\n' <<<"$line" | sed -n 's/^hbase.zookeeper.quorum=//p')
log "server: $line (pid $server_pid)"

# --- the Java clients -------------------------------------------------------
# What scripts/servers/hbase.sh gives HBase's JVMs on Java 17 (HBase's own
# add_jdk17_jvm_flags), read from it so that the two stay one list.
mapfile -t jvm_flags < <(sed -n '/^jvm_flags=(/,/^)/p' "$root/scripts/servers/hbase.sh" |
  grep -oE -- '(--add-(opens|exports|modules) [^ ]+|-Dorg\.apache\.hbase\.thirdparty[^ ]+)' | tr ' ' '\n')
((${#jvm_flags[@]} >= 10)) || die "found no --add-opens flags in scripts/servers/hbase.sh"
java_common=(java -server -XX:+UseG1GC "${jvm_flags[@]}" -Djava.net.preferIPv4Stack=true
  "-Dlog4j.configuration=file:$root/servers/hbase/log4j.properties")
ycsb_cp="" pe_cp="" pe_status=""
if wants ycsb-java; then
  out=$(jvm_launcher "$root/servers/hbase-bench" hbase-bench YcsbHBaseDB)
  ycsb_cp="${out% *}/classes:$(cat "${out% *}/classpath.txt")"
fi
if wants pe; then
  # Only a classpath: resolved once per pom hash, offline first, as jvm_launcher does.
  pom=$root/servers/hbase-bench/pe/pom.xml
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/storebench/hbase-pe-$(sha256sum <"$pom" | cut -c1-16)
  if [ ! -f "$cache/classpath.txt" ]; then
    log "resolving $pom (once)"
    mkdir -p "$cache.tmp"
    if mvn -q -o -B -f "$pom" dependency:build-classpath -Dmdep.outputFile="$cache.tmp/classpath.txt" >"$OUT/pe-mvn.log" 2>&1 ||
       mvn -q -B -f "$pom" dependency:build-classpath -Dmdep.outputFile="$cache.tmp/classpath.txt" >"$OUT/pe-mvn.log" 2>&1; then
      rm -rf "$cache"; mv "$cache.tmp" "$cache"
    else
      rm -rf "$cache.tmp"
      pe_status="PerformanceEvaluation did not resolve: $(grep -m1 ERROR "$OUT/pe-mvn.log" | cut -c1-200)"
    fi
  fi
  [ -n "$pe_status" ] || pe_cp=$(cat "$cache/classpath.txt")
fi

# "2026-12-07 15:17:36:861" or "2026-12-07 15:17:36,861" (local time) -> Unix ms
to_ms() { local s=$1; date -d "${s:0:19}.${s:20:3}" +%s%3N; }

# --- measurements -----------------------------------------------------------
# rows.tsv: threads, tool, round, ops/s, read p99 us, update p99 us, client CPU us/op, server CPU us/op
: >"$OUT/rows.tsv"
notes=()
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$OUT/rows.tsv"; }
declare -A last_rate=()

sb_status=""
# hbase.update=put: an update is one plain Put, as YCSB's hbase2 binding (and
# YcsbHBaseDB) sends it; the binding's default makes it conditional on the
# row existing (checkAndMutate), more work for the region server.
sb_common=(hbase -P workloads/workloada "${props[@]}" -p recordcount="$RECORDS" -p fieldcount=$FIELDS -p fieldlength=$FIELDLEN
  -p hbase.update=put)
if [ ! -x "$SB" ]; then
  sb_status="storebench not built (scripts/build.sh default)"
elif ! "$SB" list 2>/dev/null | grep -E '^  hbase( |$)' >/dev/null; then
  sb_status="storebench: hbase binding not built"
fi
if [ -z "$sb_status" ]; then
  log "storebench: load of $RECORDS records"
  "$SB" load "${sb_common[@]}" -p threadcount=4 >"$OUT/storebench-load.out" 2>"$OUT/storebench-load.err" </dev/null ||
    sb_status="storebench load failed (see $OUT/storebench-load.err)"
  bad=$(awk -F', ' '$1 == "[INSERT]" && $2 ~ /^Return=/ && $2 != "Return=OK" {n += $3} END {print n + 0}' "$OUT/storebench-load.out")
  [ "$bad" = 0 ] || notes+=("storebench load: $bad inserts did not return OK")
fi
[ -z "$sb_status" ] || die "$sb_status: every tool reads the rows storebench loads"

run_storebench() { # TOOL THREADS ROUND
  local tool=$1 t=$2 r=$3 f rate threads=$2 shape=()
  if [ "$tool" = storebench-fibers ]; then
    [ "$t" -gt 1 ] || return 0
    threads=$(( t < $(nproc) ? t : $(nproc) ))
    shape=(-p connections=1 -p hbase.pipeline=$(( (t + threads - 1) / threads )))
  fi
  f=$OUT/$tool-t$t-r$r
  log "$tool: $t client(s) on $threads thread(s)${shape[*]:+ (${shape[*]})}, ${WARMUP} s warm-up + ${DURATION} s"
  if ! run_sampled "$f" "$SB" run "${sb_common[@]}" -p threadcount="$threads" "${shape[@]}" -p maxexecutiontime="$DURATION" \
       -p operationcount=0 -p warmup.seconds="$WARMUP" --json "$f.json"; then
    row "$t" "$tool" "$r" "failed (see $f.err)" "" "" "" ""
    return
  fi
  storebench_row "$f" "$t" "$tool" "$r"
  last_rate[$t]=${rate:-0}
}

# p99_after FILE.hdr START_S -> the 99th percentile (us) of the intervals
# starting START_S seconds or more after the log's StartTime.
p99_after() {
  [ -s "$1" ] || { echo n/a; return; }
  java -Xmx128m -cp "$ycsb_cp" org.HdrHistogram.HistogramLogProcessor -i "$1" -start "$2" -outputValueUnitRatio 1 \
    -o "${1%.hdr}.after" >/dev/null 2>&1 || { echo n/a; return; }
  awk '$1 ~ /^[0-9.]+$/ && $2 + 0 >= 0.99 { printf "%.0f", $1; found = 1; exit } END { if (!found) print "n/a" }' "${1%.hdr}.after.hgrm"
}
run_ycsb() { # THREADS ROUND
  local t=$1 r=$2 f a b ta tb oa ob ops rate cpu st rp up errs
  f=$OUT/ycsb-java-t$t-r$r
  mkdir -p "$f.hdr"
  log "ycsb-java: $t thread(s), ${WARMUP} s warm-up + ${DURATION} s"
  if ! run_sampled "$f" "${java_common[@]}" "-Xms$JAVA_HEAP" "-Xmx$JAVA_HEAP" -Dstorebench.hbase.log=WARN -cp "$ycsb_cp" site.ycsb.Client -t -s \
       -db storebench.YcsbHBaseDB -P workloads/workloada "${props[@]}" -p columnfamily="$family" \
       -p recordcount="$RECORDS" -p fieldcount=$FIELDS -p fieldlength=$FIELDLEN -p operationcount=2000000000 \
       -p maxexecutiontime=$((WARMUP + DURATION)) -p status.interval=1 -p measurementtype=hdrhistogram \
       -p hdrhistogram.fileoutput=true -p hdrhistogram.output.path="$f.hdr/" -threads "$t"; then
    row "$t" ycsb-java "$r" "failed (see $f.err)" "" "" "" ""
    return
  fi
  # Status lines: "2026-12-07 15:17:36:861 2 sec: 233 operations; ..."
  a=$(awk -v w="$WARMUP" '$4 == "sec:" && $3 + 0 >= w { print; exit }' "$f.err")
  b=$(awk '$4 == "sec:" { l = $0 } END { print l }' "$f.err")
  if [ -z "$a" ] || [ "$a" = "$b" ]; then
    row "$t" ycsb-java "$r" "no status lines after ${WARMUP} s (see $f.err)" "" "" "" ""
    return
  fi
  ta=$(to_ms "$(cut -d' ' -f1-2 <<<"$a")"); tb=$(to_ms "$(cut -d' ' -f1-2 <<<"$b")")
  oa=$(cut -d' ' -f5 <<<"$a"); ob=$(cut -d' ' -f5 <<<"$b")
  ops=$((ob - oa))
  rate=$(awk -v n="$ops" -v ms="$((tb - ta))" 'BEGIN { printf "%.0f", n / ms * 1000 }')
  cpu=$(cpu_between "$f.cpu" "$ta" "$tb")
  st=$(sed -n 's/^#\[StartTime: \([0-9.]*\) .*/\1/p' "$f.hdr/READ.hdr")
  rp=n/a up=n/a
  if [ -n "$st" ]; then
    rp=$(p99_after "$f.hdr/READ.hdr" "$(awk -v a="$ta" -v s="$st" 'BEGIN { printf "%.3f", a / 1000 - s }')")
    st=$(sed -n 's/^#\[StartTime: \([0-9.]*\) .*/\1/p' "$f.hdr/UPDATE.hdr")
    up=$(p99_after "$f.hdr/UPDATE.hdr" "$(awk -v a="$ta" -v s="$st" 'BEGIN { printf "%.3f", a / 1000 - s }')")
  fi
  row "$t" ycsb-java "$r" "$rate" "$rp" "$up" "$(per_op "${cpu% *}" "$ops")" "$(per_op "${cpu#* }" "$ops")"
  last_rate[$t]=$rate
  errs=$(awk -F', ' '$2 ~ /^Return=/ && $2 != "Return=OK" {n += $3} END {print n + 0}' "$f.out")
  if [ "$errs" != 0 ]; then notes+=("ycsb-java t=$t round $r: $errs operations did not return OK (see $f.out)"); fi
}

pe_rows=0 # rows PE has written into TestTable (from row 0 on)
# pe_cmd THREADS sets the array pe_cmd (an array, not a function: run_sampled
# samples the java process itself). PE keeps histograms of 500K samples per
# client thread (Yammer UniformReservoirs: 256 threads did not fit in 4g), so
# its heap grows with the threads: 256 MB + 40 MB a thread, at most PE_MAX_HEAP.
pe_heap_mb() { echo $((256 + 40 * $1)); }
pe_cmd() {
  pe_cmd=("${java_common[@]}" "-Xmx$(pe_heap_mb "$1")m" -Dstorebench.hbase.log=INFO -cp "$pe_cp"
    org.apache.hadoop.hbase.PerformanceEvaluation "-Dhbase.zookeeper.quorum=$zk_quorum" --nomapred --oneCon=true
    --valueSize=$FIELDLEN --columns=$FIELDS)
}
# pe_fill N: PE's sequentialWrite of rows pe_rows..N-1 (4 threads, not measured),
# so that its randomRead, which draws rows from 0 to rows x threads, finds them all.
pe_fill() {
  local need=$1 per
  ((need > pe_rows)) || return 0
  per=$(( (need - pe_rows + 3) / 4 ))
  log "pe: sequentialWrite of rows $pe_rows..$((pe_rows + 4 * per - 1)) of TestTable (not measured)"
  pe_cmd 4
  if ! "${pe_cmd[@]}" --startRow="$pe_rows" --rows="$per" sequentialWrite 4 >>"$OUT/pe-fill.out" 2>>"$OUT/pe-fill.err" </dev/null ||
     ! grep -q 'Finished TestClient' "$OUT/pe-fill.err"; then
    pe_status="PerformanceEvaluation could not run: $(grep -m1 -E 'Exception|Error' "$OUT/pe-fill.err" | cut -c1-200) (see $OUT/pe-fill.err)"
    log "$pe_status"
    return 1
  fi
  pe_rows=$((pe_rows + 4 * per))
}
run_pe() { # THREADS ROUND
  local t=$1 r=$2 rows test f first last ops cpu rate p99 warm
  [ -z "$pe_status" ] || return 0
  if (($(pe_heap_mb "$t") > pe_max_mb)); then
    row "$t" pe "$r" "skipped: $t PE threads need about $(pe_heap_mb "$t") MB of heap (PE_MAX_HEAP=$PE_MAX_HEAP)" "" "" "" ""
    return 0
  fi
  pe_cmd "$t"
  # (WARMUP + DURATION) / 2 seconds' worth of rows per test at the last rate seen.
  rows=$(( ${last_rate[$t]:-2000} * (WARMUP + DURATION) / 2 / t ))
  ((rows >= 20)) || rows=20
  warm=$(( rows * WARMUP / (WARMUP + DURATION) ))
  for test in randomRead randomWrite; do
    f=$OUT/pe-$test-t$t-r$r
    local extra=(--autoFlush=true)
    if [ "$test" = randomRead ]; then
      extra=()
      pe_fill $((rows * t)) || return 0
      pe_cmd "$t"
    fi
    log "pe: $test, $t thread(s), $rows rows each"
    if ! run_sampled "$f" "${pe_cmd[@]}" --latency --measureAfter="$warm" --rows="$rows" "${extra[@]}" "$test" "$t" ||
       ! grep -q 'Finished TestClient' "$f.err"; then
      row "$t" "pe $test" "$r" "failed (see $f.err)" "" "" "" ""
      continue
    fi
    first=$(grep 'Timed test starting' "$f.err" | cut -c1-23 | sort | head -1)
    last=$(grep 'Finished TestClient' "$f.err" | cut -c1-23 | sort | tail -1)
    first=$(to_ms "$first"); last=$(to_ms "$last")
    ops=$(( rows * t ))
    rate=$(awk -v n="$ops" -v ms="$((last - first))" 'BEGIN { printf "%.0f", (ms > 0 ? n / ms * 1000 : 0) }')
    cpu=$(cpu_between "$f.cpu" "$first" "$last")
    p99=$(grep -oE 'Latency \(us\) : .* 99th=[0-9.]+' "$f.err" | sed 's/.* 99th=//' | sort -n |
      awk '{ v[++n] = $1 } END { if (n) printf "%.0f", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2; else print "n/a" }')
    if [ "$test" = randomRead ]; then row "$t" "pe $test" "$r" "$rate" "$p99" "" "$(per_op "${cpu% *}" "$ops")" "$(per_op "${cpu#* }" "$ops")"
    else row "$t" "pe $test" "$r" "$rate" "" "$p99" "$(per_op "${cpu% *}" "$ops")" "$(per_op "${cpu#* }" "$ops")"; fi
  done
}

run_tool() { # TOOL THREADS ROUND
  case $1 in
    storebench|storebench-fibers) run_storebench "$@" ;;
    ycsb-java) run_ycsb "$2" "$3" ;;
    pe) run_pe "$2" "$3" ;;
  esac
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -r -a tools <<<"$TOOLS"
for t in $THREADS; do
  for round in $(seq 1 "$ROUNDS"); do
    for ((i = 0; i < ${#tools[@]}; i++)); do
      run_tool "${tools[(i + round - 1) % ${#tools[@]}]}" "$t" "$round"
    done
  done
done
[ -z "$pe_status" ] || notes+=("$pe_status; no pe rows")
alive "$server_pid" || notes+=("the HBase server (pid $server_pid) was gone at the end: see $OUT/hbase.log")

# --- report -----------------------------------------------------------------
echo "Apache HBase 2.6.4 standalone on 127.0.0.1 (scripts/servers/hbase.sh${own_server:+, usertable in $PRESPLIT region(s)}); YCSB workload A (read/update 50/50, zipfian) over $RECORDS records of" \
     "$FIELDS x $FIELDLEN-byte fields; ${WARMUP} s warm-up + ${DURATION} s per measurement; Java clients -Xmx$JAVA_HEAP;" \
     "$(nproc) cores shared by server and clients; load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after" \
     "(other work on the machine skews the numbers). pe: HBase's PerformanceEvaluation on its own table TestTable, not workload A: no ratio."
echo
if [ "$ROUNDS" != 1 ]; then echo "Median of $ROUNDS rounds:"; echo; fi
echo "| threads | tool | ops/s | read p99 (us) | update p99 (us) | client CPU us/op | region server CPU us/op | ops/s ratio storebench/ycsb-java | client CPU/op ratio storebench/ycsb-java |"
echo "|---|---|---|---|---|---|---|---|---|"
median_table "$OUT/rows.tsv" ycsb-java
if [ "$ROUNDS" != 1 ]; then
  echo
  echo "Every round:"
  echo
  echo "| threads | tool | round | ops/s | read p99 (us) | update p99 (us) | client CPU us/op | region server CPU us/op |"
  echo "|---|---|---|---|---|---|---|---|"
  awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$OUT/rows.tsv"
fi
if ((${#notes[@]})); then echo; printf -- '- %s\n' "${notes[@]}"; fi
