#!/usr/bin/env bash
# An Aerospike Community server (asd, 8.1 checked) on 127.0.0.1: one node or a
# cluster of several, each node its own asd (interface: lib.sh).
#   aerospike.sh start DIR [NODES]
#       NODES asd processes (default 1, at most 8), each in the foreground
#       (`asd --config-file DIR/nodeN/aerospike.conf --foreground`, run in the
#       background by this script), meshed by heartbeat on loopback, cluster
#       name "storebench", one namespace "test" in memory (storage-engine
#       memory, data-size AEROSPIKE_DATA_SIZE (default 512M: asd's minimum;
#       seed 002's 1M records of 2 KB want 4G), reserved more than touched,
#       max-record-size 8M;
#       an empty node is still ~260 MB resident: 8 stripes, each with an
#       8 MB header and an 8 MB write block in use) with replication-factor
#       2 (1 for one node). Each node tells clients 127.0.0.1 as its address
#       (access-address: else its peers list names eth0's). Waits (AEROSPIKE_WAIT_S,
#       default 60 s) until every node answers the info protocol, reports
#       cluster_size NODES, is stable at that size (cluster-stable, migrations
#       not awaited) and knows the namespace; prints ONE line:
#         aerospike.host=127.0.0.1 aerospike.port=P1 aerospike.namespace=test
#       or, for several nodes, every node as a seed:
#         aerospike.host=127.0.0.1:P1,127.0.0.1:P2 aerospike.port=P1 aerospike.namespace=test
#       Started again in a DIR that has held a cluster, it restarts the nodes
#       that do not run (stopped, or killed) on the same ports (DIR/ports),
#       keeping those that run; NODES, if given, must match. It fails when
#       every node already runs.
#   aerospike.sh stop DIR    stops every node (TERM, then KILL after 10 s);
#                            harmless when nothing runs
#   aerospike.sh info DIR NAME...   asks node 1 (or the first node that runs)
#                            the info commands NAME... and prints its answer,
#                            one "name<TAB>value" line each (e.g. "namespace/test")
# Files in DIR:
#   ports              one line per node: "nodeN service=P heartbeat=P fabric=P"
#   pids               the pids of the asd processes (lib.sh)
#   nodeN/pid          node N's asd pid: a test that kills one node kills it
#                      by this pid, and `start DIR` brings it back
#   nodeN/aerospike.conf, nodeN/log (asd's log and output), nodeN/work (its
#                      work directory: smd, usr/udf/lua)
# asd is $ASD when set, else asd on PATH. It is built from Aerospike's public
# source (aerospike/aerospike-server, tag 8.1.0.3 checked; `make`, binary in
# target/Linux-x86_64/bin/asd); without it, start exits 2 with one line on
# stderr. The info protocol is spoken by python3. Nothing listens beyond
# loopback (checked with ss after the start).
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start DIR [NODES] | stop DIR | info DIR NAME..."
shift 2

# Sends the info commands "$@" to 127.0.0.1:$1 (Aerospike's info protocol: an
# 8-byte header, version 2, type 1, 48-bit big-endian body length, then the
# names each ended by '\n'; the answer: the same header, then
# "name\tvalue\n" lines) and prints the answer.
info() {
  python3 - "$@" <<'EOF'
import socket, struct, sys
port, names = int(sys.argv[1]), sys.argv[2:]
body = "".join(n + "\n" for n in names).encode()
s = socket.create_connection(("127.0.0.1", port), timeout=2)
s.sendall(struct.pack(">Q", (2 << 56) | (1 << 48) | len(body)) + body)
def recv(n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            sys.exit("connection closed")
        b += c
    return b
n = struct.unpack(">Q", recv(8))[0] & 0xFFFFFFFFFFFF
sys.stdout.write(recv(n).decode("utf-8", "replace"))
EOF
}

# True when the node on service port $1 answers, counts $2 nodes in its
# cluster, is stable at that size and knows namespace test.
node_ready() {
  local out
  out=$(info "$1" statistics "cluster-stable:size=$2;ignore-migrations=true" namespace/test) || return 1
  grep -q "^statistics	\(.*;\)\?cluster_size=$2\(;\|$\)" <<<"$out" || return 1
  grep -q "^cluster-stable:[^	]*	[0-9A-Fa-f]\+$" <<<"$out" || return 1
  grep -q "^namespace/test	\(.*;\)\?objects=" <<<"$out"
}

# The asd to run: $ASD, else asd on PATH; exits 2 when there is none.
find_asd() {
  if [ -n "${ASD:-}" ]; then
    [ -x "$ASD" ] && [ -f "$ASD" ] && { echo "$ASD"; return 0; }
  elif command -v asd >/dev/null; then
    command -v asd; return 0
  fi
  local looked="asd on PATH (ASD unset)"
  [ -n "${ASD:-}" ] && looked="ASD=$ASD: not an executable file"
  echo "$(basename "$0"): no Aerospike server (asd): looked for $looked; build asd from Aerospike's public source (aerospike/aerospike-server, tag 8.1.0.3 checked: make, then target/Linux-x86_64/bin/asd) and put it on PATH or name it with ASD=/path/to/asd" >&2
  exit 2
}

# Keeps in DIR/pids and DIR/nodeN/pid only pids that are still this DIR's
# asd (a killed node's pid may since belong to another process).
prune_pids() {
  local f pid live=()
  for f in "$dir"/node*/pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    if alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$(dirname "$f")/aerospike.conf"; then
      live+=("$pid")
    else
      rm -f "$f"
    fi
  done
  if [ ${#live[@]} -gt 0 ]; then printf '%s\n' "${live[@]}" >"$dir/pids"; else rm -f "$dir/pids"; fi
}

# Writes node $1's configuration (service, heartbeat, fabric ports $2 $3 $4;
# heartbeat seeds: the other nodes' heartbeat ports, $seeds) for $nodes nodes.
write_conf() {
  local i=$1 svc=$2 hb=$3 fab=$4 node=$dir/node$1 seed rf=2
  [ "$nodes" -eq 1 ] && rf=1
  mkdir -p "$node/work/smd" "$node/work/usr/udf/lua"
  {
    cat <<EOF
# Written by scripts/servers/aerospike.sh: node $i of $nodes.
service {
  cluster-name storebench
  node-id a$i
  proto-fd-max $fd_max
  run-as-daemon false
  work-directory $node/work
}
logging {
  file $node/log {
    context any info
  }
}
mod-lua {
  user-path $node/work/usr/udf/lua
}
network {
  service {
    address 127.0.0.1
    access-address 127.0.0.1
    port $svc
  }
  heartbeat {
    mode mesh
    address 127.0.0.1
    port $hb
EOF
    for seed in $seeds; do
      [ "$seed" = "$hb" ] || echo "    mesh-seed-address-port 127.0.0.1 $seed"
    done
    cat <<EOF
    interval 150
    timeout 10
  }
  fabric {
    address 127.0.0.1
    port $fab
  }
}
namespace test {
  replication-factor $rf
  max-record-size 8M
  nsup-period 60
  storage-engine memory {
    data-size ${AEROSPIKE_DATA_SIZE:-512M}
  }
}
EOF
  } >"$node/aerospike.conf"
}

case "$cmd" in
  start)
    want=${1:-}
    [ -z "$want" ] || [[ "$want" =~ ^[1-8]$ ]] || die "NODES must be in [1, 8], not '$want'"
    asd=$(find_asd)
    command -v python3 >/dev/null || die "python3 not installed (apt-get install python3): it speaks the info protocol"
    [[ "$dir" =~ [[:space:]] ]] && die "DIR must not contain white space (asd's configuration cannot quote it): '$dir'"
    t0=$(date +%s.%N)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    # The file descriptors asd may use for clients: 15000 (its default), or
    # what the limit allows (asd refuses a proto-fd-max above it).
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    soft=$(ulimit -n)
    fd_max=15000
    if [ "$soft" != unlimited ] && [ "$soft" -lt $((fd_max + 256)) ]; then
      fd_max=$((soft - 256))
      [ "$fd_max" -ge 1024 ] || die "the file descriptor limit ($soft) is too low for asd (it wants at least 1280: ulimit -n)"
    fi
    prune_pids
    if [ -f "$dir/ports" ]; then
      # A restart: the same ports as before, for the nodes that do not run.
      nodes=$(grep -c '^node' "$dir/ports")
      [ -z "$want" ] || [ "$want" -eq "$nodes" ] || die "$dir held $nodes node(s), not $want: stop it and use a new DIR"
      mapfile -t lines < <(sed -n 's/^node\([0-9]*\) service=\([0-9]*\) heartbeat=\([0-9]*\) fabric=\([0-9]*\)$/\1 \2 \3 \4/p' "$dir/ports")
      [ "${#lines[@]}" -eq "$nodes" ] || die "$dir/ports is not 'nodeN service=P heartbeat=P fabric=P' lines"
    else
      nodes=${want:-1}
      taken=" "
      pick() { local p; while :; do p=$(free_port); [[ "$taken" == *" $p "* ]] || break; done; taken+="$p "; echo "$p"; }
      lines=()
      for i in $(seq 1 "$nodes"); do lines+=("$i $(pick) $(pick) $(pick)"); done
      for l in "${lines[@]}"; do
        read -r i s h f <<<"$l"; echo "node$i service=$s heartbeat=$h fabric=$f"
      done >"$dir/ports"
    fi
    seeds=$(for l in "${lines[@]}"; do read -r _ _ h _ <<<"$l"; echo "$h"; done)
    started=0
    for l in "${lines[@]}"; do
      read -r i svc hb fab <<<"$l"
      node=$dir/node$i
      [ -f "$node/pid" ] && continue  # it runs (prune_pids kept it)
      for p in "$svc" "$hb" "$fab"; do
        WAIT_S=10 wait_for port_free "$p" || die "port $p of $dir/ports (node $i) is still taken: cannot start node $i on it"
      done
      write_conf "$i" "$svc" "$hb" "$fab"
      "$asd" --config-file "$node/aerospike.conf" --foreground </dev/null >>"$node/log" 2>&1 &
      echo $! >"$node/pid"
      echo $! >>"$dir/pids"
      started=$((started + 1))
    done
    [ "$started" -gt 0 ] || die "every node in $dir runs already (pids in $dir/pids): stop it first"
    # Every node must answer and see the whole cluster.
    deadline=$(( $(date +%s) + ${AEROSPIKE_WAIT_S:-60} ))
    while :; do
      ready=0
      for l in "${lines[@]}"; do
        read -r i svc _ _ <<<"$l"
        if ! alive "$(cat "$dir/node$i/pid" 2>/dev/null || echo 0)"; then
          tail -5 "$dir/node$i/log" >&2 || true
          stop_pids "$dir"; prune_pids
          die "asd node $i exited (log: $dir/node$i/log)"
        fi
        node_ready "$svc" "$nodes" >/dev/null 2>&1 && ready=$((ready + 1))
      done
      [ "$ready" -eq "$nodes" ] && break
      if [ "$(date +%s)" -ge "$deadline" ]; then
        for l in "${lines[@]}"; do
          read -r i svc _ _ <<<"$l"
          if ! node_ready "$svc" "$nodes" >/dev/null 2>&1; then
            tail -5 "$dir/node$i/log" >&2 || true
            stop_pids "$dir"; prune_pids
            die "asd node $i did not join a whole cluster of $nodes within ${AEROSPIKE_WAIT_S:-60} s (log: $dir/node$i/log)"
          fi
        done
      fi
      sleep 0.2
    done
    beyond=$(listening_beyond_loopback "$dir")
    if [ -n "$beyond" ]; then stop_pids "$dir"; prune_pids; die "asd listens beyond loopback: $beyond"; fi
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v n="$nodes" -v s="$started" 'BEGIN {
      printf "aerospike.sh: %d node(s) ready in %.1f s (%d started)\n", n, b - a, s }' >&2
    hosts=""
    for l in "${lines[@]}"; do read -r _ svc _ _ <<<"$l"; hosts+="${hosts:+,}127.0.0.1:$svc"; done
    read -r _ port1 _ _ <<<"${lines[0]}"
    [ "$nodes" -eq 1 ] && hosts=127.0.0.1
    echo "aerospike.host=$hosts aerospike.port=$port1 aerospike.namespace=test"
    ;;
  stop)
    [ -d "$dir" ] || exit 0
    dir=$(cd "$dir" && pwd)
    prune_pids
    stop_pids "$dir"
    rm -f "$dir"/node*/pid
    ;;
  info)
    [ $# -gt 0 ] || die "usage: $0 info DIR NAME..."
    [ -f "$dir/ports" ] || die "$dir/ports missing: no server started in $dir"
    dir=$(cd "$dir" && pwd)
    prune_pids
    while read -r i svc; do
      [ -f "$dir/node$i/pid" ] || continue
      info "$svc" "$@"; exit
    done < <(sed -n 's/^node\([0-9]*\) service=\([0-9]*\) .*/\1 \2/p' "$dir/ports")
    die "no node runs in $dir"
    ;;
  *) die "unknown command '$cmd' (start|stop|info)" ;;
esac
