# CPU sampling and the median table shared by the side-by-side benches
# (bench/ignite.sh, bench/hbase.sh, bench/aerospike.sh): a client's and the servers' CPU time, sampled from /proc
# every 50 ms, and what it came to over a measured wall-clock window.
# Source it; it uses two arrays of the caller's:
#   server_pids  the server processes whose CPU is counted beside the client's
#   client       a prefix for the client's command (e.g. taskset -c 1), or ()

clk_tck=$(getconf CLK_TCK)

ticks_of() { # PID -> $ticks ("" once it is gone or a zombie)
  local line a
  ticks=""
  { read -r line <"/proc/$1/stat"; } 2>/dev/null || return 0
  read -r -a a <<<"${line##*) }"
  [ "${a[0]}" != Z ] || return 0
  ticks=$((a[11] + a[12]))
}

# sample FILE PID [SERVER_PID...]: every 50 ms until PID has exited, one line
# "wall-clock-us client-ticks servers'-ticks".
sample() {
  local f=$1 pid=$2 c n p ticks; shift 2
  while :; do
    ticks_of "$pid"; c=$ticks
    [ -n "$c" ] || break
    n=0
    for p in "$@"; do ticks_of "$p"; n=$((n + ${ticks:-0})); done
    echo "${EPOCHREALTIME/./} $c $n"
    sleep 0.05
  done >"$f"
}

# cpu_between FILE START_MS END_MS -> "client-seconds servers'-seconds" over
# that wall-clock window, each interpolated linearly between the samples
# around it.
cpu_between() {
  awk -v a="$2" -v b="$3" -v hz="$clk_tck" '
    function at(t, col,   i) {
      if (t <= T[1]) return V[col, 1]
      for (i = 2; i <= n; i++) if (T[i] >= t) return V[col, i - 1] + (V[col, i] - V[col, i - 1]) * (t - T[i - 1]) / (T[i] - T[i - 1])
      return V[col, n]
    }
    { n++; T[n] = $1 / 1000; V[2, n] = $2; V[3, n] = $3 }
    END { if (n < 2 || b <= a) { print "n/a n/a"; exit }
          printf "%.3f %.3f\n", (at(b, 2) - at(a, 2)) / hz, (at(b, 3) - at(a, 3)) / hz }' "$1"
}

# CPU seconds C over N operations -> microseconds per operation (or n/a).
per_op() { awk -v c="$1" -v n="$2" 'BEGIN { if (n > 0 && c != "n/a") printf "%.2f", c / n * 1e6; else print "n/a" }'; }

# run_sampled FILE CMD...: runs the client CMD (after the prefix "${client[@]}")
# in the background with the sampler on it and on "${server_pids[@]}";
# stdout to FILE.out, stderr to FILE.err, samples to FILE.cpu; sets
# client_pid while it runs; returns its exit code.
run_sampled() {
  local f=$1 rc=0 spid; shift
  "${client[@]}" "$@" >"$f.out" 2>"$f.err" </dev/null &
  client_pid=$!
  sample "$f.cpu" "$client_pid" "${server_pids[@]}" &
  spid=$!
  wait "$client_pid" || rc=$?
  wait "$spid" || true
  client_pid=""
  return $rc
}

# median_table ROWS PEER: the Markdown rows (no header) of ROWS, a TSV of
# "threads tool round ops/s read-p99 update-p99 client-CPU/op server-CPU/op"
# lines (a non-numeric ops/s is a note, e.g. "failed"): per threads and tool
# in first-seen order, the medians over its rounds, and for each storebench*
# tool its ratios to PEER's medians at the same threads (ops/s, client CPU/op).
median_table() {
  awk -F'\t' -v peer="$2" '
    function median(list,   a, n, i, j, t) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function med(list, fmt) { return list == "" ? "n/a" : sprintf(fmt, median(list)) }
    function ratio(a, b) { return (a == "n/a" || b == "n/a" || b + 0 == 0) ? "n/a" : sprintf("%.2f", a / b) }
    {
      k = $1 SUBSEP $2
      if (!(k in seen)) { seen[k]; order[++m] = k }
      if ($4 ~ /^[0-9.]+$/) {
        R[k] = R[k] " " $4
        if ($5 ~ /^[0-9.]+$/) P[k] = P[k] " " $5
        if ($6 ~ /^[0-9.]+$/) U[k] = U[k] " " $6
        if ($7 ~ /^[0-9.]+$/) C[k] = C[k] " " $7
        if ($8 ~ /^[0-9.]+$/) S[k] = S[k] " " $8
      } else note[k] = $4
    }
    END {
      for (i = 1; i <= m; i++) {
        k = order[i]; split(k, f, SUBSEP)
        if (R[k] == "") { printf "| %s | %s | %s | | | | | | |\n", f[1], f[2], note[k]; continue }
        r = med(R[k], "%.0f"); c = med(C[k], "%.2f")
        p = P[k] == "" ? "" : med(P[k], "%.0f"); u = U[k] == "" ? "" : med(U[k], "%.0f")
        line = sprintf("| %s | %s | %s | %s | %s | %s | %s |", f[1], f[2], r, p, u, c, med(S[k], "%.2f"))
        if (f[2] ~ /^storebench/) {
          q = f[1] SUBSEP peer
          line = line sprintf(" %s | %s |", ratio(r, med(R[q], "%.0f")), ratio(c, med(C[q], "%.2f")))
        } else line = line " | |"
        print line
      }
    }' "$1"
}

# storebench_row FILE THREADS TOOL ROUND: the row of a storebench run that
# run_sampled recorded as FILE.out (the text summary), FILE.cpu (samples) and
# FILE.json (its result: the measured phase's start and length, the window of
# the CPU figures), through the caller's `row` (threads tool round ops/s
# read-p99 update-p99 client-CPU/op server-CPU/op); operations that did not
# return OK, or a result without the phase's times, go to the caller's
# `notes`. Sets `rate` (ops/s).
storebench_row() {
  local f=$1 t=$2 tool=$3 r=$4 rp up ops errs start ms cpu
  rate=$(awk -F', ' '$1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" {printf "%.0f", $3}' "$f.out")
  rp=$(awk -F', ' '$1 == "[READ]" && $2 == "99thPercentileLatency(us)" {print $3}' "$f.out")
  up=$(awk -F', ' '$1 == "[UPDATE]" && $2 == "99thPercentileLatency(us)" {print $3}' "$f.out")
  ops=$(awk -F', ' '$1 !~ /OVERALL|CLEANUP/ && $2 == "Operations" {n += $3} END {print n + 0}' "$f.out")
  errs=$(awk -F', ' '$2 ~ /^Return=/ && $2 != "Return=OK" {n += $3} END {print n + 0}' "$f.out")
  start=$(grep -oE '"start_unix_ms": *[0-9]+' "$f.json" | head -1 | grep -oE '[0-9]+$' || true)
  ms=$(grep -oE '"runtime_ms": *[0-9]+' "$f.json" | head -1 | grep -oE '[0-9]+$' || true)
  if [ -n "$start" ] && [ -n "$ms" ]; then cpu=$(cpu_between "$f.cpu" "$start" $((start + ms)))
  else cpu="n/a n/a"; notes+=("$tool t=$t: no start_unix_ms/runtime_ms in $f.json, no CPU figures"); fi
  row "$t" "$tool" "$r" "${rate:-0}" "${rp:-n/a}" "${up:-n/a}" "$(per_op "${cpu% *}" "$ops")" "$(per_op "${cpu#* }" "$ops")"
  if [ "$errs" != 0 ]; then notes+=("$tool t=$t round $r: $errs operations did not return OK (see $f.out)"); fi
}
