#!/usr/bin/env bash
# A Prometheus server on 127.0.0.1 that scrapes storebench's `--metrics-listen`
# endpoints, for tests and for watching a run (interface: lib.sh).
#   prometheus.sh start DIR   prometheus ($PROMETHEUS, else on PATH; Debian:
#                             prometheus) with DIR/prometheus.yml: scrape every
#                             1 s (timeout 900 ms), one job "storebench" whose
#                             targets are read from DIR/targets/*.json
#                             (file_sd_configs, re-read every 1 s), e.g.
#                               [{"targets": ["127.0.0.1:9100"]}]
#                             so a test adds a target by writing a file there.
#                             Data in DIR/data, log in DIR/prometheus.log. With
#                             PROMETHEUS_PORT set, that port is used (else
#                             DIR/port from an earlier start, else a free one).
#                             Waits until /-/ready answers 200, then prints
#                               prometheus.url=http://127.0.0.1:PORT prometheus.targets=DIR/targets
#   prometheus.sh stop DIR
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start|stop DIR"

# True when Prometheus on 127.0.0.1:$1 says it is ready (HTTP 200 at /-/ready).
ready() {
  local status
  status=$(ask_line "$1" 'GET /-/ready HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n') || return 1
  [[ "$status" == "HTTP/1."?" 200 "* ]]
}

case "$cmd" in
  start)
    bin=${PROMETHEUS:-$(command -v prometheus || true)}
    [ -n "$bin" ] && [ -x "$bin" ] || die "prometheus not installed (apt-get install prometheus, or set PROMETHEUS=)"
    mkdir -p "$dir/targets" "$dir/data"
    dir=$(cd "$dir" && pwd)
    port=${PROMETHEUS_PORT:-}
    if [ -z "$port" ] && [ -f "$dir/port" ]; then port=$(cat "$dir/port"); fi
    [ -n "$port" ] || port=$(free_port)
    echo "$port" > "$dir/port"
    cat > "$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
scrape_configs:
  - job_name: storebench
    file_sd_configs:
      - files: ["$dir/targets/*.json"]
        refresh_interval: 1s
EOF
    "$bin" --config.file="$dir/prometheus.yml" --web.listen-address="127.0.0.1:$port" \
      --storage.tsdb.path="$dir/data" </dev/null >>"$dir/prometheus.log" 2>&1 &
    echo $! >> "$dir/pids"
    if ! WAIT_PID=$! wait_for ready "$port"; then
      tail -5 "$dir/prometheus.log" >&2 || true
      die "prometheus did not become ready on 127.0.0.1:$port"
    fi
    echo "prometheus.url=http://127.0.0.1:$port prometheus.targets=$dir/targets"
    ;;
  stop) stop_pids "$dir" ;;
  *) die "unknown command '$cmd' (start|stop)" ;;
esac
