#!/usr/bin/env bash
# storebench against redis-benchmark and memtier_benchmark, side by side in one
# run on the same redis-server: GET/SET 1:1, 100-byte values, 100,000 keys
# (each tool's own, loaded afresh into an emptied server just before it runs,
# so every GET hits), uniform keys, 1 client thread with 50
# connections, pipeline 1 and 16. For each tool and depth it prints ops/s and
# the client's CPU seconds (user+sys of the client process, from GNU time) per
# million operations, and the server's (from /proc/PID/stat: what each tool's
# requests cost the server; with the server saturated, it sets the rate), as
# one Markdown table on stdout; progress goes to stderr
# and the raw outputs stay in $OUT.
#
# Pinning: on a machine with 2 or more cores the server runs on core
# $SERVER_CPU (default 0) and every client on core $CLIENT_CPU (default 1)
# (taskset), so client and server never share a core; PIN=0 turns this off.
#
# Client-bound mode: with CLIENT_CPU_QUOTA=P (percent of one core, 10-100),
# every measured client process runs in a CPU cgroup limited to P% of one
# core (CFS quota, 10 ms period; cgroup v2 or v1's cpu controller, as root).
# At pipeline 16 one redis-server core is saturated by any of these clients,
# so the rate is the server's and the comparison says little about the
# clients; capped well below the server's speed, the client sets the rate,
# and ops/s compares what each tool does with the same CPU. Loads and
# prefills are not capped.
#
# Tools:
#   redis-benchmark (Debian redis-tools) runs GET and SET as two separate
#     tests, not a 1:1 mix: both are reported, and "GET+SET" is the two run one
#     after the other (total ops / total time, total CPU / total ops).
#   memtier_benchmark, if $MEMTIER (default: memtier_benchmark found on PATH)
#     is an executable; build it yourself from its public source outside this
#     repository and put it on PATH or name it in MEMTIER. Run with --distinct-client-seed: without it all 50
#     connections draw the same key sequence.
#   storebench's redis binding (build/default/storebench), layout=string, update=set
#     (an update is one plain SET, byte for byte memtier's; the default merge is GET + SET XX,
#     replace one SET XX, whose extra argument costs the server measurably more per request),
#     table=t insertorder=ordered fieldnameprefix=f (short keys and field names, as memtier's),
#     fieldcount=1, fieldlength=100, YCSB readproportion=0.5 updateproportion=0.5.
#
# Usage: bench/redis_compare.sh          (after scripts/setup.sh and scripts/build.sh default)
# Environment: DURATION (seconds per measurement, default 10), ROUNDS (default 3: the tools
#   take turns this many times per depth; the table shows medians, then every round),
#   DEPTHS (default "1 16"),
#   CONNS (default 50), MEMTIER, STOREBENCH (the binary), SERVER_CPU, CLIENT_CPU, PIN, CLIENT_CPU_QUOTA,
#   OUT (directory for raw outputs).
# Installs redis-server, redis-tools and time with apt-get if one is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
DEPTHS=${DEPTHS:-"1 16"}
CONNS=${CONNS:-50}
KEYS=100000
VALUE=100
MEMTIER=${MEMTIER:-$(command -v memtier_benchmark || echo memtier_benchmark)}
SB=${STOREBENCH:-$root/build/default/storebench}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/storebench-redis-compare.XXXXXX")}
mkdir -p "$OUT"

log() { echo "redis_compare: $*" >&2; }

# --- packages ---------------------------------------------------------------
missing=()
for p in redis-server redis-tools time; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  # Debian starts a redis-server service on install; this script does not use it.
fi

# --- pinning ----------------------------------------------------------------
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PIN=${PIN:-1}
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
  client=(taskset -c "$CLIENT_CPU")
  pinning="server on core $SERVER_CPU, clients on core $CLIENT_CPU"
else
  client=()
  pinning="none"
fi

# --- client CPU quota (CLIENT_CPU_QUOTA) -----------------------------------------
# capped: the prefix that moves a measured client into the quota's cgroup before it execs.
CLIENT_CPU_QUOTA=${CLIENT_CPU_QUOTA:-}
capped=()
cgdir=""
quota_note=""
if [ -n "$CLIENT_CPU_QUOTA" ]; then
  # 10 at least: the kernel's smallest quota is 1 ms, and the period is 10 ms.
  if ! [[ $CLIENT_CPU_QUOTA =~ ^[0-9]+$ ]] || ((CLIENT_CPU_QUOTA < 10 || CLIENT_CPU_QUOTA > 100)); then
    log "CLIENT_CPU_QUOTA=$CLIENT_CPU_QUOTA: want a percentage of one core, 10 to 100"; exit 2
  fi
  period_us=10000 quota_us=$((CLIENT_CPU_QUOTA * 100))
  # Makes $cgdir with the quota; on any failure removes what it made and clears $cgdir.
  if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
    cgdir=/sys/fs/cgroup/storebench-compare.$$  # cgroup v2
    setup_cg() {
      { grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control; } &&
        mkdir "$cgdir" && { echo "$quota_us $period_us" >"$cgdir/cpu.max" || { rmdir "$cgdir"; false; }; }
    }
  elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
    cgdir=/sys/fs/cgroup/cpu/storebench-compare.$$  # cgroup v1
    setup_cg() {
      mkdir "$cgdir" && { { echo $period_us >"$cgdir/cpu.cfs_period_us" && echo $quota_us >"$cgdir/cpu.cfs_quota_us"; } ||
        { rmdir "$cgdir"; false; }; }
    }
  fi
  if [ -n "$cgdir" ] && ! setup_cg 2>/dev/null; then cgdir=""; fi
  if [ -z "$cgdir" ]; then
    log "CLIENT_CPU_QUOTA=$CLIENT_CPU_QUOTA: cannot make a CPU cgroup (needs root and a cgroup v2 'cpu' controller or cgroup v1's /sys/fs/cgroup/cpu)"
    exit 2
  fi
  trap 'rmdir "$cgdir" 2>/dev/null || true' EXIT  # until the server's trap below takes over
  capped=(sh -c 'echo $$ >"$0" && exec "$@"' "$cgdir/cgroup.procs")
  quota_note="; every measured client capped at $CLIENT_CPU_QUOTA% of one core (CPU cgroup, $((quota_us / 1000)) ms per $((period_us / 1000)) ms), so the client, not the server, sets the rate"
fi

# --- server -----------------------------------------------------------------
srvdir=$OUT/server
mkdir -p "$srvdir"
server_pid=""
server_props=()
helper=$root/scripts/servers/redis.sh
stop_server() {
  if [ -n "$cgdir" ]; then rmdir "$cgdir" 2>/dev/null || true; fi
  if [ -x "$helper" ] && [ -f "$srvdir/pids" ]; then
    "$helper" stop "$srvdir" >/dev/null 2>&1 || true
  fi
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
}
trap stop_server EXIT
trap 'exit 130' INT TERM

if [ -x "$helper" ]; then
  line=$("$helper" start "$srvdir")
  read -r -a server_props <<<"$line"
  server_pid=$(head -1 "$srvdir/pids")
  how="scripts/servers/redis.sh"
else
  port=""
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
  done
  [ -n "$port" ] || { log "no free port"; exit 1; }
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$srvdir" \
    --daemonize no >"$srvdir/redis.log" 2>&1 &
  server_pid=$!
  server_props=(redis.host=127.0.0.1 "redis.port=$port")
  how="redis-server started directly"
fi
host=127.0.0.1 port="" password=""
for kv in "${server_props[@]}"; do
  case $kv in
    redis.host=*) host=${kv#*=} ;;
    redis.port=*) port=${kv#*=} ;;
    redis.password=*) password=${kv#*=} ;;
  esac
done
[ -n "$port" ] || { log "no redis.port in the server's properties: ${server_props[*]}"; exit 1; }
cli=(redis-cli -h "$host" -p "$port")
rb_auth=(); mt_auth=()
if [ -n "$password" ]; then
  export REDISCLI_AUTH=$password
  rb_auth=(-a "$password"); mt_auth=("--authenticate=$password")
fi
for _ in $(seq 1 300); do "${cli[@]}" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
"${cli[@]}" ping | grep -q PONG || { log "redis-server on $host:$port does not answer"; exit 1; }
# No snapshots or AOF while measuring, whoever started the server.
"${cli[@]}" config set save "" >/dev/null
"${cli[@]}" config set appendonly no >/dev/null
if [ "$pinning" != none ]; then taskset -a -pc "$SERVER_CPU" "$server_pid" >/dev/null; fi
log "redis-server $("${cli[@]}" info server | awk -F: '/^redis_version/ {print $2}' | tr -d '\r') on $host:$port (pid $server_pid, $how); pinning: $pinning; raw outputs in $OUT"

# --- prefill ----------------------------------------------------------------
# redis-benchmark's keys are key:%012d over 0..KEYS-1 (-r KEYS);
# memtier's are memtier-N over --key-minimum..--key-maximum (1..KEYS here).
value=$(head -c "$VALUE" /dev/zero | tr '\0' x)
prefill() { # PREFIX FORMAT FIRST LAST
  awk -v pre="$1" -v fmt="$2" -v a="$3" -v b="$4" -v v="$value" 'BEGIN {
    for (i = a; i <= b; i++) { k = pre sprintf(fmt, i)
      printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v } }' |
    "${client[@]}" "${cli[@]}" --pipe >"$OUT/prefill.log" 2>&1
}
# Each tool is measured against a server that holds only its own KEYS keys,
# loaded just before (FLUSHALL, then load): where a tool's keys sit in the
# server's memory and hash table changes what each request costs the server,
# and with the server saturated (pipeline 16) that sets the rate. Measured
# with all three key spaces in one server: loading storebench's keys before
# memtier's rather than after moved the storebench/memtier rate ratio from
# about 0.97 to about 1.07.
fresh() { "${cli[@]}" flushall >/dev/null; }
fresh_rb() { fresh; prefill "key:" "%012d" 0 $((KEYS - 1)); }
fresh_memtier() { fresh; prefill "memtier-" "%d" 1 "$KEYS"; }

# Keys and values as close to memtier's as YCSB's model allows, so that the
# server does the same work per request: table "t" and insertorder=ordered
# give keys like t:user12345 (memtier: memtier-12345); one field named "f0".
sb_common=(-p redis.layout=string -p redis.update=set -p writeallfields=true
           -p table=t -p insertorder=ordered -p fieldnameprefix=f
           -p recordcount=$KEYS -p fieldcount=1 -p fieldlength=$VALUE
           -threads 1 -p connections="$CONNS")
sb_status="" sb_props=()
for kv in "${server_props[@]}"; do sb_props+=(-p "$kv"); done
if [ ! -x "$SB" ]; then
  sb_status="storebench not built (scripts/build.sh default)"
elif ! "$SB" list 2>/dev/null | grep -E '^  redis( |$)' >/dev/null; then
  sb_status="storebench redis binding not built"
fi
# storebench loads its own key space (its records' layout).
fresh_sb() {
  fresh
  [ -z "$sb_status" ] || return 0
  if ! "${client[@]}" "$SB" load redis "${sb_props[@]}" "${sb_common[@]}" -p redis.pipeline=16 \
       >"$OUT/storebench-load.out" 2>"$OUT/storebench-load.err"; then
    sb_status="storebench load failed (see $OUT/storebench-load.err)"
  fi
}
fresh_sb
log "storebench's load: $("${cli[@]}" dbsize) keys"

# --- measurements -----------------------------------------------------------
rows=()
notes=()
round=1
# One measurement: the per-round table, and $OUT/rows.tsv for the medians.
row() { # TOOL DEPTH OPS/S CLIENT-CPU-PER-M [SERVER-CPU-PER-M]
  rows+=("| $1 | $2 | $round | $3 | $4 | ${5:-} |")
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" >>"$OUT/rows.tsv"
}
# The server process's CPU seconds so far (user + system).
clk_tck=$(getconf CLK_TCK)
server_cpu() { awk -v hz="$clk_tck" '{sub(/^.*\) /, ""); print ($12 + $13) / hz}' "/proc/$server_pid/stat"; }
# Runs "$@" (pinned) under GNU time; CPU seconds (user+sys) into the file $1,
# the server's CPU seconds meanwhile into $1.server.
timed() {
  local tf=$1 s0 rc=0; shift
  s0=$(server_cpu)
  /usr/bin/time -f "%U %S" -o "$tf" "${capped[@]}" "${client[@]}" "$@" || rc=$?
  awk -v a="$(server_cpu)" -v b="$s0" 'BEGIN { printf "%.3f\n", a - b }' >"$tf.server"
  return $rc
}
server_of() { cat "$1.server"; }
cpu_of() { tail -1 "$1" | awk '{printf "%.3f", $1 + $2}'; }
per_m() { awk -v c="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.2f", c / n * 1e6; else print "n/a" }'; }
fmt_rate() { awk -v r="$1" 'BEGIN { printf "%.0f", r }'; }
# The server's own count of GETs that missed since the last reset: every key is
# prefilled, so a miss means a tool read keys outside what was loaded.
reset_misses() { "${cli[@]}" config resetstat >/dev/null; }
check_misses() { # LABEL
  local m
  m=$("${cli[@]}" info stats | awk -F: '/^keyspace_misses/ {print $2 + 0}')
  if [ "${m:-0}" != 0 ]; then notes+=("$1: the server counted $m GET misses"); fi
}

# redis-benchmark -q prints "GET: 12345.67 requests per second, ..." after \r-separated progress.
rb_rate() { tr '\r' '\n' <"$1" | awk -v t="$2:" '$1 == t && /requests per second/ {r = $2} END {print r + 0}'; }

run_redis_benchmark() { # DEPTH
  local d=$1 cal n rg rs cg cs sg ss
  fresh_rb
  # A short GET run first: warms up, and its rate sizes the measured runs to ~DURATION s each.
  "${capped[@]}" "${client[@]}" redis-benchmark -h "$host" -p "$port" "${rb_auth[@]}" -c "$CONNS" -n $((20000 * d)) -P "$d" \
    -d $VALUE -r $KEYS -t get --threads 1 -q >"$OUT/rb-p$d-cal.out" 2>&1 </dev/null
  cal=$(rb_rate "$OUT/rb-p$d-cal.out" GET)
  n=$(awk -v r="$cal" -v s="$DURATION" 'BEGIN { n = int(r * s); if (n < 100000) n = 100000; print n }')
  log "redis-benchmark, pipeline $d: GET then SET, $n requests each"
  reset_misses
  for t in get set; do
    timed "$OUT/rb-p$d-$t.time" redis-benchmark -h "$host" -p "$port" "${rb_auth[@]}" -c "$CONNS" \
      -n "$n" -P "$d" -d $VALUE -r $KEYS -t "$t" --threads 1 -q >"$OUT/rb-p$d-$t.out" 2>&1 </dev/null
  done
  check_misses "redis-benchmark pipeline $d"
  rg=$(rb_rate "$OUT/rb-p$d-get.out" GET); rs=$(rb_rate "$OUT/rb-p$d-set.out" SET)
  cg=$(cpu_of "$OUT/rb-p$d-get.time"); cs=$(cpu_of "$OUT/rb-p$d-set.time")
  sg=$(server_of "$OUT/rb-p$d-get.time"); ss=$(server_of "$OUT/rb-p$d-set.time")
  row "redis-benchmark GET" "$d" "$(fmt_rate "$rg")" "$(per_m "$cg" "$n")" "$(per_m "$sg" "$n")"
  row "redis-benchmark SET" "$d" "$(fmt_rate "$rs")" "$(per_m "$cs" "$n")" "$(per_m "$ss" "$n")"
  row "redis-benchmark GET+SET (one after the other)" "$d" \
    "$(awk -v n="$n" -v a="$rg" -v b="$rs" 'BEGIN { if (a > 0 && b > 0) printf "%.0f", 2 * n / (n / a + n / b); else print 0 }')" \
    "$(per_m "$(awk -v a="$cg" -v b="$cs" 'BEGIN { print a + b }')" $((2 * n)))" \
    "$(per_m "$(awk -v a="$sg" -v b="$ss" 'BEGIN { print a + b }')" $((2 * n)))"
}

run_memtier() { # DEPTH
  local d=$1 j rate count
  j=$OUT/memtier-p$d.json
  log "memtier_benchmark, pipeline $d: ${DURATION} s"
  fresh_memtier
  reset_misses
  if ! timed "$OUT/memtier-p$d.time" "$MEMTIER" -s "$host" -p "$port" "${mt_auth[@]}" -t 1 -c "$CONNS" \
       --pipeline="$d" --ratio=1:1 -d $VALUE --key-minimum=1 --key-maximum=$KEYS --key-pattern=R:R \
       --distinct-client-seed --test-time="$DURATION" --hide-histogram --json-out-file="$j" \
       >"$OUT/memtier-p$d.out" 2>&1 </dev/null; then
    row memtier_benchmark "$d" "failed (see $OUT/memtier-p$d.out)" ""
    return
  fi
  # The Totals object of ALL STATS: its first Count, Ops/sec and Misses/sec.
  read -r count rate < <(awk '/"Totals"/ {t = 1}
    t && /"Count"/ && c == "" {c = $NF} t && /"Ops\/sec"/ && r == "" {r = $NF}
    END {gsub(/,/, "", c); gsub(/,/, "", r); print c, r}' "$j")
  row memtier_benchmark "$d" "$(fmt_rate "$rate")" "$(per_m "$(cpu_of "$OUT/memtier-p$d.time")" "$count")" \
    "$(per_m "$(server_of "$OUT/memtier-p$d.time")" "$count")"
  check_misses "memtier pipeline $d"
}

run_storebench() { # DEPTH
  local d=$1 f rate ops errs
  if [ -n "$sb_status" ]; then row storebench "$d" "$sb_status" ""; return; fi
  f=$OUT/storebench-p$d
  log "storebench, pipeline $d: ${DURATION} s"
  fresh_sb
  if [ -n "$sb_status" ]; then row storebench "$d" "$sb_status" ""; return; fi
  reset_misses
  if ! timed "$f.time" "$SB" run redis "${sb_props[@]}" "${sb_common[@]}" -p redis.pipeline="$d" \
       -p operationcount=1000000000 -p readproportion=0.5 -p updateproportion=0.5 -p scanproportion=0 \
       -p insertproportion=0 -p readmodifywriteproportion=0 -p requestdistribution=uniform \
       -p maxexecutiontime="$DURATION" >"$f.out" 2>"$f.err" </dev/null; then
    row storebench "$d" "failed (see $f.err)" ""
    return
  fi
  rate=$(awk -F', ' '$1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" {print $3}' "$f.out")
  ops=$(awk -F', ' '$1 !~ /OVERALL|CLEANUP/ && $2 == "Operations" {n += $3} END {print n + 0}' "$f.out")
  errs=$(awk -F', ' '$2 ~ /^Return=/ && $2 != "Return=OK" {n += $3} END {print n + 0}' "$f.out")
  row storebench "$d" "$(fmt_rate "${rate:-0}")" "$(per_m "$(cpu_of "$f.time")" "$ops")" \
    "$(per_m "$(server_of "$f.time")" "$ops")"
  check_misses "storebench pipeline $d"
  if [ "$errs" != 0 ]; then notes+=("storebench pipeline $d: $errs operations did not return OK (see $f.out)"); fi
}

run_memtier_or_note() { # DEPTH
  if [ -x "$MEMTIER" ]; then run_memtier "$1"; else row memtier_benchmark "$1" "not found (put memtier_benchmark on PATH or set MEMTIER)" ""; fi
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$OUT/rows.tsv"
for d in $DEPTHS; do
  for round in $(seq 1 "$ROUNDS"); do  # the tools take turns, so a busy spell hits them alike
    # memtier and storebench swap order every round, so a drift in the machine's speed
    # (a busy neighbour arriving or leaving) does not always favour the same one.
    run_redis_benchmark "$d"
    if ((round % 2)); then run_memtier_or_note "$d"; run_storebench "$d"
    else run_storebench "$d"; run_memtier_or_note "$d"; fi
  done
done

# --- report -----------------------------------------------------------------
echo "GET/SET 1:1, ${VALUE}-byte values, $KEYS keys (prefilled), uniform keys, 1 client thread," \
     "$CONNS connections, redis-server $("${cli[@]}" info server | awk -F: '/^redis_version/ {print $2}' | tr -d '\r')" \
     "on $host:$port; ${DURATION} s per measurement; pinning: $pinning$quota_note; $(nproc) cores;" \
     "load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after (other work on the machine skews the numbers)."
echo
echo "Median of $ROUNDS rounds:"
echo
echo "| tool | pipeline | ops/s | client CPU s per 1M ops | server CPU s per 1M ops |"
echo "|---|---|---|---|---|"
# One awk definition of the statistics, for both tables below.
awk_stats='
  function sortlist(list, a,   n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n
  }
  function median(list,   a, n) {
    n = sortlist(list, a)
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  # P(Binomial(n, 1/2) <= k)
  function bincdf(n, k,   i, p, c) { p = 0; c = 1; for (i = 0; i <= k; i++) { p += c; c = c * (n - i) / (i + 1) } return p / 2 ^ n }
  # The interval of the median: ci_lo and ci_hi are the k-th smallest and k-th largest, k the largest
  # with 2 P(Bin <= k-1) <= 0.05, ci_cover its coverage in percent. Returns k (0: too few values).
  function median_interval(list,   a, n, k) {
    n = sortlist(list, a)
    for (k = 0; k + 1 <= n / 2 && 2 * bincdf(n, k) <= 0.05; k++) {}
    if (k > 0) { ci_lo = a[k]; ci_hi = a[n + 1 - k]; ci_cover = 100 * (1 - 2 * bincdf(n, k - 1)) }
    return k
  }
'
# Median per tool and depth (numeric rows only), in the order first measured.
awk -F'\t' "$awk_stats"'
  $3 ~ /^[0-9.]+$/ { k = $1 "\t" $2; if (!(k in r)) order[++m] = k; r[k] = r[k] " " $3; c[k] = c[k] " " $4; s[k] = s[k] " " $5 }
  END { for (i = 1; i <= m; i++) { k = order[i]; split(k, f, "\t")
          printf "| %s | %s | %.0f | %.2f | %.2f |\n", f[1], f[2], median(r[k]), median(c[k]), median(s[k]) } }' "$OUT/rows.tsv"
echo
# storebench against memtier round by round: the two ran back to back on the same server, so
# their ratio is far steadier than either rate when the machine's speed drifts between rounds.
# The interval is the distribution-free one for a median (order statistics of the paired ratios,
# binomial coverage of at least 95%): only when it lies wholly above or below 1 do the rounds show
# a difference; with the server saturated the rate is the server's, and the verdict is often "no
# difference shown".
awk -F'\t' "$awk_stats"'
  function interval(list) {
    if (!median_interval(list)) return "n/a (6 rounds or more needed)"
    return sprintf("%.3f to %.3f (%.1f%%)", ci_lo, ci_hi, ci_cover)
  }
  function verdict(list, better_above) {
    if (!median_interval(list)) return "too few rounds"
    if (ci_lo > 1) return better_above ? "storebench faster" : "storebench uses more"
    if (ci_hi < 1) return better_above ? "memtier faster" : "storebench uses less"
    return "no difference shown"
  }
  $3 !~ /^[0-9.]+$/ { next }
  $1 == "memtier_benchmark" { mr[$2, ++nm[$2]] = $3; mc[$2, nm[$2]] = $4; if (!($2 in seen)) { seen[$2]; order[++m] = $2 } }
  $1 == "storebench"        { sr[$2, ++ns[$2]] = $3; sc[$2, ns[$2]] = $4 }
  END {
    if (!m) exit
    print "storebench / memtier_benchmark, paired round by round (> 1 means storebench is faster; < 1 means it uses less client CPU),"
    print "with the interval that holds the true median ratio with the coverage shown (order statistics, no assumption on the noise):"
    print ""
    print "| pipeline | rounds | median ops/s ratio | its interval | rounds storebench >= memtier | throughput | median client-CPU-per-op ratio | its interval | client CPU |"
    print "|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= m; i++) { d = order[i]; n = nm[d] < ns[d] ? nm[d] : ns[d]; rl = ""; cl = ""; w = 0; p = 0
      for (k = 1; k <= n; k++) { if (mr[d, k] > 0 && mc[d, k] > 0) { rl = rl " " sr[d, k] / mr[d, k]; cl = cl " " sc[d, k] / mc[d, k]; w += sr[d, k] >= mr[d, k]; p++ } }
      if (rl != "") printf "| %s | %d | %.3f | %s | %d of %d | %s | %.3f | %s | %s |\n", d, p, median(rl), interval(rl), w, p,
                           verdict(rl, 1), median(cl), interval(cl), verdict(cl, 0) }
    print ""
  }' "$OUT/rows.tsv"
echo "Every round:"
echo
echo "| tool | pipeline | round | ops/s | client CPU s per 1M ops | server CPU s per 1M ops |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
if ((${#notes[@]})); then echo; printf -- '- %s\n' "${notes[@]}"; fi
