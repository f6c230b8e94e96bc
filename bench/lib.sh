# CPU sampling shared by the side-by-side benches (bench/ignite.sh,
# bench/hbase.sh): a client's and the servers' CPU time, sampled from /proc
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
