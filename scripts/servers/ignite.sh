#!/usr/bin/env bash
# Apache Ignite 2.x server nodes on 127.0.0.1 (interface: lib.sh).
#   ignite.sh start DIR [NODES]   starts NODES (default 1) server nodes, one
#                                 JVM each (so a test can kill one node by its
#                                 pid, and each has its own heap and log
#                                 DIR/nodeK.log), waits until all joined and
#                                 the table's cache exists, and prints
#                                 "ignite.hosts=127.0.0.1:P1[,127.0.0.1:P2...]"
#                                 (the nodes' thin-client ports).
#   ignite.sh stop DIR
# Options (environment):
#   IGNITE_TABLE        the YCSB table's cache (default usertable), created
#                       with a SQL schema: key ycsb_key VARCHAR, columns
#                       field0..field<IGNITE_FIELDCOUNT-1> VARCHAR (default
#                       10; 0: a plain cache without SQL); value type name
#                       and SQL table name are the cache name
#   IGNITE_BACKUPS      the cache's backups (default 0 for 1 node, 1 for 2+)
#   IGNITE_ATOMICITY    atomic (default) or transactional
#   IGNITE_WRITE_SYNC   the cache's write synchronization mode: full_sync,
#                       primary_sync (default, Ignite's) or full_async
#   IGNITE_PERSISTENCE  1: native persistence under DIR/nodeK/ (default 0)
#   IGNITE_HEAP         each JVM's -Xmx (default 512m; at most 1g)
#   IGNITE_OFFHEAP_MB   each node's data region maximum (default 512)
#   IGNITE_WAIT_S       how long to wait for readiness (default 90)
# The nodes come from servers/ignite/pom.xml (the version is pinned there).
# The first start resolves it with Maven (~/.m2 is kept) and compiles the
# launcher into ${XDG_CACHE_HOME:-~/.cache}/storebench/ignite-<hash of the pom
# and the launcher>/; later starts run no Maven at all. The time a start took
# goes to stderr. Every port (discovery, communication, thin client) is
# chosen free on 127.0.0.1 and written to DIR/ports; the binary REST
# connector is off.
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start DIR [NODES] | stop DIR"
module=$(cd "$(dirname "$0")/../../servers/ignite" && pwd)

# The launcher's classpath file and classes, built once per pom/launcher hash
# (lib.sh): prints the cache folder and "built" or "cached".
prepare() { jvm_launcher "$module" ignite IgniteNodes; }

# Ignite's bin/include/jvmdefaults.sh flags for Java 11+ (what its ignite.sh
# passes), so that an embedded node works on Java 17.
jvm_opens=(
  --add-opens=java.base/jdk.internal.access=ALL-UNNAMED
  --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  --add-opens=java.management/com.sun.jmx.mbeanserver=ALL-UNNAMED
  --add-opens=jdk.internal.jvmstat/sun.jvmstat.monitor=ALL-UNNAMED
  --add-opens=java.base/sun.reflect.generics.reflectiveObjects=ALL-UNNAMED
  --add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.math=ALL-UNNAMED
  --add-opens=java.sql/java.sql=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.time=ALL-UNNAMED
  --add-opens=java.base/java.text=ALL-UNNAMED
  --add-opens=java.management/sun.management=ALL-UNNAMED
  --add-opens=java.desktop/java.awt.font=ALL-UNNAMED
)

# True when node K's log has the launcher's ready line.
node_ready() { grep -q '^storebench-ignite ready node=' "$dir/node$1.log"; }

# True when the thin-client connector on port $1 accepts a handshake: the
# protocol's version 1.0.0 request (int length 8, code 1, version 1.0.0 as
# three shorts, client code 2; all little-endian) answered by length 1 and
# success byte 1 (docs/_docs/binary-client-protocol/binary-client-protocol.adoc).
thin_answers() {
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf '\x08\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x02' >&3
  reply=$(timeout 5 head -c 5 <&3 | od -An -tx1 | tr -d ' \n')
  exec 3>&-
  [ "$reply" = 0100000001 ]
}

case "$cmd" in
  start)
    n=${3:-1}
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "NODES must be a positive number, not '$n'"
    t0=$(date +%s.%N)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [ -f "$dir/pids" ] && die "$dir/pids exists: stop the running nodes first"
    out=$(prepare)
    cache=${out% *}; how=${out##* }
    t1=$(date +%s.%N)
    heap=${IGNITE_HEAP:-512m}
    [[ "$heap" =~ ^([0-9]+)([mMgG])$ ]] || die "IGNITE_HEAP must be like 512m or 1g, not '$heap'"
    mb=${BASH_REMATCH[1]}; [[ "${BASH_REMATCH[2]}" == [gG] ]] && mb=$((mb * 1024))
    [ "$mb" -le 1024 ] || die "IGNITE_HEAP at most 1g, not '$heap'"
    atomicity=${IGNITE_ATOMICITY:-atomic}
    [[ "$atomicity" == atomic || "$atomicity" == transactional ]] || die "IGNITE_ATOMICITY must be atomic or transactional, not '$atomicity'"
    write_sync=${IGNITE_WRITE_SYNC:-primary_sync}
    [[ "$write_sync" =~ ^(full_sync|primary_sync|full_async)$ ]] || die "IGNITE_WRITE_SYNC must be full_sync, primary_sync or full_async, not '$write_sync'"
    persistence=${IGNITE_PERSISTENCE:-0}
    [[ "$persistence" =~ ^[01]$ ]] || die "IGNITE_PERSISTENCE must be 0 or 1, not '$persistence'"
    fieldcount=${IGNITE_FIELDCOUNT:-10}
    [[ "$fieldcount" =~ ^[0-9]+$ ]] || die "IGNITE_FIELDCOUNT must be a number, not '$fieldcount'"
    if [ "$n" -gt 1 ]; then backups=${IGNITE_BACKUPS:-1}; else backups=${IGNITE_BACKUPS:-0}; fi
    # Three distinct free ports per node: discovery, communication, thin client.
    taken=" "
    pick() { local p; while :; do p=$(free_port); [[ "$taken" == *" $p "* ]] || break; done; taken+="$p "; echo "$p"; }
    disco=(); comm=(); thin=()
    for ((k = 0; k < n; k++)); do disco+=("$(pick)"); comm+=("$(pick)"); thin+=("$(pick)"); done
    echo "disco=${disco[*]} comm=${comm[*]} thin=${thin[*]}" > "$dir/ports"
    disco_list=$(IFS=,; echo "${disco[*]}")
    hosts=""
    for ((k = 0; k < n; k++)); do
      java -server -Xms"$heap" -Xmx"$heap" -XX:+UseG1GC -Djava.net.preferIPv4Stack=true \
        -DIGNITE_QUIET=true -DIGNITE_UPDATE_NOTIFIER=false -DIGNITE_NO_ASCII=true \
        -DIGNITE_PERFORMANCE_SUGGESTIONS_DISABLED=true -Djava.util.logging.config.file="$module/java.util.logging.properties" \
        "${jvm_opens[@]}" \
        -cp "$cache/classes:$(cat "$cache/classpath.txt")" storebench.IgniteNodes \
        dir="$dir" node="$k" nodes="$n" disco="$disco_list" comm="${comm[$k]}" thin="${thin[$k]}" \
        cache="${IGNITE_TABLE:-usertable}" backups="$backups" atomicity="$atomicity" write_sync="$write_sync" \
        persistence="$persistence" offheap_mb="${IGNITE_OFFHEAP_MB:-512}" \
        fieldcount="$fieldcount" timeout_s="${IGNITE_WAIT_S:-90}" \
        </dev/null >"$dir/node$k.log" 2>&1 &
      echo $! >> "$dir/pids"
      hosts+="${hosts:+,}127.0.0.1:${thin[$k]}"
    done
    pids=($(cat "$dir/pids"))
    for ((k = 0; k < n; k++)); do
      if ! WAIT_S=${IGNITE_WAIT_S:-90} WAIT_PID=${pids[$k]} wait_for node_ready "$k" \
          || ! WAIT_S=10 WAIT_PID=${pids[$k]} wait_for thin_answers "${thin[$k]}"; then
        tail -20 "$dir/node$k.log" >&2 || true
        stop_pids "$dir"
        die "Ignite node $k did not become ready (log: $dir/node$k.log)"
      fi
    done
    beyond=$(listening_beyond_loopback "$dir")
    if [ -n "$beyond" ]; then stop_pids "$dir"; die "an Ignite node listens beyond loopback: $beyond"; fi
    t2=$(date +%s.%N)
    awk -v n="$n" -v a="$t0" -v b="$t1" -v c="$t2" -v how="$how" 'BEGIN {
      printf "ignite.sh: %d node(s) ready in %.1f s (classpath and launcher %s in %.1f s)\n", n, c - a, how, b - a }' >&2
    echo "ignite.hosts=$hosts"
    ;;
  stop) stop_pids "$dir" ;;
  *) die "unknown command '$cmd' (start|stop)" ;;
esac
