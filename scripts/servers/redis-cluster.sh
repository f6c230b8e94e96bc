#!/usr/bin/env bash
# A 3-master Redis Cluster on 127.0.0.1 for tests (interface: lib.sh).
#   redis-cluster.sh start DIR   three redis-servers with cluster-enabled yes
#                                (node I's files in DIR/nI), slots split by
#                                `redis-cli --cluster create`, waits until
#                                every node reports cluster_state:ok; prints
#                                "redis.host=127.0.0.1 redis.port=P1 redis.cluster=true"
#   redis-cluster.sh stop DIR
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start|stop DIR"

# A free port P whose cluster bus port P+10000 (which redis-server binds too,
# or exits) is free as well and below the ephemeral range, where an outgoing
# connection could take it between this check and the bind.
cluster_port() {
  local p low
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  for _ in $(seq 1 200); do
    p=$(free_port)
    if ((p + 10000 < low)) && port_free $((p + 10000)); then echo "$p"; return 0; fi
  done
  die "no free port P with a free cluster bus port P+10000 below $low"
}

cluster_ok() { redis-cli -h 127.0.0.1 -p "$1" cluster info | grep -q '^cluster_state:ok'; }

case "$cmd" in
  start)
    command -v redis-server >/dev/null || die "redis-server not installed (apt-get install redis-server)"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    ports=()
    for i in 1 2 3; do
      p=$(cluster_port)
      while [[ " ${ports[*]} " == *" $p "* ]]; do p=$(cluster_port); done
      ports+=("$p")
      mkdir -p "$dir/n$i"
      redis-server --port "$p" --bind 127.0.0.1 --dir "$dir/n$i" --save "" --appendonly no \
        --daemonize no --cluster-enabled yes --cluster-config-file "$dir/n$i/nodes.conf" \
        --cluster-node-timeout 5000 --logfile "$dir/n$i/redis.log" </dev/null >/dev/null 2>&1 &
      echo $! >> "$dir/pids"
    done
    for p in "${ports[@]}"; do
      wait_for redis-cli -h 127.0.0.1 -p "$p" ping || die "redis-server did not answer on 127.0.0.1:$p"
    done
    nodes=()
    for p in "${ports[@]}"; do nodes+=("127.0.0.1:$p"); done
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$dir/create.log" 2>&1 ||
      { tail -5 "$dir/create.log" >&2; die "redis-cli --cluster create failed"; }
    for p in "${ports[@]}"; do
      wait_for cluster_ok "$p" || die "node 127.0.0.1:$p did not reach cluster_state:ok"
    done
    echo "redis.host=127.0.0.1 redis.port=${ports[0]} redis.cluster=true"
    ;;
  stop) stop_pids "$dir" ;;
  *) die "unknown command '$cmd' (start|stop)" ;;
esac
