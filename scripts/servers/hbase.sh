#!/usr/bin/env bash
# An Apache HBase 2.6 standalone server on 127.0.0.1 (interface: lib.sh):
# ZooKeeper, the master and one region server in one JVM, as `hbase master
# start` runs them with hbase.cluster.distributed=false.
#   hbase.sh start DIR [--table T] [--family F] [--presplit N] [--heap H]
#       starts it with its data in DIR/data, waits until the table exists, all
#       its regions are online and a Put/Get through HBase's Java client
#       answers, and prints
#       "hbase.zookeeper.quorum=127.0.0.1:ZK hbase.master=127.0.0.1:MASTER hbase.columnfamily=F"
#       (what a client bootstraps from: the ZooKeeper quorum, or the master's
#       RPC address for the RPC connection registry). DIR/ports lists
#       "zk=P master=P regionserver=P"; the log is DIR/hbase.log.
#       Started again in a DIR that has held a server (stopped, or killed),
#       it restarts on the same ports with the same data, so that clients
#       of the old one reconnect to it: each port must be free again.
#   hbase.sh stop DIR
#   hbase.sh prepare             only resolves the module (Maven, ~/.m2) and
#                                compiles the launcher, once; prints the cache
#                                folder. scripts/setup.sh calls it: the hbase
#                                binding's build reads its .proto files from
#                                the hbase-protocol-shaded jar it resolves.
#   hbase.sh count DIR [TABLE]   prints the table's row count, counted by
#                                HBase's Java client (full scan with
#                                FirstKeyOnlyFilter), for tests that check a
#                                load by something other than storebench
#   hbase.sh check DIR [TABLE]   puts a row (outside the YCSB key space) in the
#                                table's column family (HBASE_FAMILY if set),
#                                gets it back and deletes it; prints "ok"
# Options (flags, or the environment):
#   --table T     HBASE_TABLE     the table to create (default usertable)
#   --family F    HBASE_FAMILY    its one column family (default family)
#   --presplit N  HBASE_PRESPLIT  regions to pre-split it into (default 1) on
#                                 YCSB's key space: split points
#                                 "user" + (1000 + i * 8999 / N), i = 1..N-1
#                                 (the scheme of YCSB's HBase binding)
#   --heap H      HBASE_HEAP      the JVM's -Xmx (default 768m; at most 8g)
#                 HBASE_WAIT_S    how long to wait for readiness (default 90)
# The server comes from servers/hbase/pom.xml (the version is pinned there).
# The first start resolves it with Maven (~/.m2 is kept) and compiles the
# launcher into ${XDG_CACHE_HOME:-~/.cache}/storebench/hbase-<hash of the pom
# and the launcher>/; later starts run no Maven at all. The time a start took
# goes to stderr. Every port is chosen free on 127.0.0.1; the web UIs are off.
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ "$cmd" = prepare ] && dir=-
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start DIR [--table T] [--family F] [--presplit N] [--heap H] | stop DIR | count DIR [TABLE] | check DIR [TABLE] | prepare"
shift $(( $# < 2 ? $# : 2 ))
module=$(cd "$(dirname "$0")/../../servers/hbase" && pwd)

# The launcher's classpath file and classes, built once per pom/launcher hash
# (lib.sh): prints the cache folder and "built" or "cached".
prepare() { jvm_launcher "$module" hbase HBaseStandalone; }

# What HBase's bin/hbase passes on Java 17 (its add_jdk17_jvm_flags).
jvm_flags=(
  -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
  --add-modules jdk.unsupported
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.nio=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent=ALL-UNNAMED
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-exports java.base/sun.net.dns=ALL-UNNAMED
  --add-exports java.base/sun.net.util=ALL-UNNAMED
  -Djava.net.preferIPv4Stack=true
  -Dzookeeper.admin.enableServer=false
  -Dlog4j.configuration="file:$module/log4j.properties"
)

# Runs the launcher's client mode $1 (count|check) against the server in DIR.
client() {
  local mode=$1 out cache zk
  [ -f "$dir/ports" ] || die "$dir/ports missing: no server started in $dir"
  [ -f "$dir/pids" ] && alive "$(cat "$dir/pids")" || die "no server running in $dir (its pid in $dir/pids)"
  zk=$(sed -n 's/.*zk=\([0-9]*\).*/\1/p' "$dir/ports")
  out=$(prepare); cache=${out% *}
  java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "${jvm_flags[@]}" -Dstorebench.hbase.log=WARN \
    -cp "$cache/classes:$(cat "$cache/classpath.txt")" storebench.HBaseStandalone "$mode" \
    zk="$zk" table="${3:-${HBASE_TABLE:-usertable}}" ${HBASE_FAMILY:+family="$HBASE_FAMILY"} </dev/null
}

case "$cmd" in
  start)
    table=${HBASE_TABLE:-usertable}; family=${HBASE_FAMILY:-family}
    presplit=${HBASE_PRESPLIT:-1}; heap=${HBASE_HEAP:-768m}
    while [ $# -gt 0 ]; do
      [ $# -ge 2 ] || die "option $1 needs a value"
      case "$1" in
        --table) table=$2 ;;
        --family) family=$2 ;;
        --presplit) presplit=$2 ;;
        --heap) heap=$2 ;;
        *) die "unknown option '$1' (--table, --family, --presplit, --heap)" ;;
      esac
      shift 2
    done
    [[ "$table" =~ ^[A-Za-z0-9_.-]+$ ]] || die "table name '$table': letters, digits, _ . - only"
    [[ "$family" =~ ^[A-Za-z0-9_.-]+$ ]] || die "column family '$family': letters, digits, _ . - only"
    [[ "$presplit" =~ ^[1-9][0-9]*$ ]] && [ "$presplit" -le 1000 ] || die "presplit must be in [1, 1000], not '$presplit'"
    [[ "$heap" =~ ^([0-9]+)([mMgG])$ ]] || die "heap must be like 768m or 1g, not '$heap'"
    mb=${BASH_REMATCH[1]}; [[ "${BASH_REMATCH[2]}" == [gG] ]] && mb=$((mb * 1024))
    [ "$mb" -le 8192 ] || die "heap at most 8g, not '$heap'"
    t0=$(date +%s.%N)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ -f "$dir/pids" ]; then
      for pid in $(cat "$dir/pids"); do alive "$pid" && die "a server runs in $dir (pid $pid): stop it first"; done
      rm -f "$dir/pids"  # it was killed
    fi
    out=$(prepare)
    cache=${out% *}; how=${out##* }
    t1=$(date +%s.%N)
    if [ -f "$dir/ports" ]; then
      # A restart: the same ports as before (the listening sockets of a
      # killed JVM are gone at once; wait a little for one still held).
      read -r zk master rs < <(sed -n 's/^zk=\([0-9]*\) master=\([0-9]*\) regionserver=\([0-9]*\)$/\1 \2 \3/p' "$dir/ports")
      [ -n "$rs" ] || die "$dir/ports is not 'zk=P master=P regionserver=P'"
      for p in "$zk" "$master" "$rs"; do
        WAIT_S=10 wait_for port_free "$p" || die "port $p of $dir/ports is still taken: cannot restart on it"
      done
    else
      # Three distinct free ports: ZooKeeper client, master RPC, region server RPC.
      taken=" "
      pick() { local p; while :; do p=$(free_port); [[ "$taken" == *" $p "* ]] || break; done; taken+="$p "; echo "$p"; }
      zk=$(pick); master=$(pick); rs=$(pick)
      echo "zk=$zk master=$master regionserver=$rs" > "$dir/ports"
    fi
    rm -f "$dir/ready"
    java -server -Xmx"$heap" -XX:+UseG1GC -XX:MaxDirectMemorySize=256m "${jvm_flags[@]}" \
      -cp "$cache/classes:$(cat "$cache/classpath.txt")" storebench.HBaseStandalone serve \
      dir="$dir" zk="$zk" master="$master" rs="$rs" table="$table" family="$family" \
      presplit="$presplit" timeout_s="${HBASE_WAIT_S:-90}" \
      </dev/null >"$dir/hbase.log" 2>&1 &
    pid=$!
    echo "$pid" > "$dir/pids"
    # The launcher writes DIR/ready after its own Put/Get through the client;
    # then the ports must accept connections too.
    if ! WAIT_S=$(( ${HBASE_WAIT_S:-90} + 5 )) WAIT_PID=$pid wait_for test -s "$dir/ready" \
        || ! WAIT_S=5 WAIT_PID=$pid wait_for bash -c "exec 3<>/dev/tcp/127.0.0.1/$zk && exec 4<>/dev/tcp/127.0.0.1/$master && exec 5<>/dev/tcp/127.0.0.1/$rs"; then
      tail -30 "$dir/hbase.log" >&2 || true
      stop_pids "$dir"
      die "HBase did not become ready (log: $dir/hbase.log)"
    fi
    beyond=$(listening_beyond_loopback "$dir")
    if [ -n "$beyond" ]; then stop_pids "$dir"; die "HBase listens beyond loopback: $beyond"; fi
    t2=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v c="$t2" -v how="$how" -v n="$presplit" 'BEGIN {
      printf "hbase.sh: ready in %.1f s, %d region(s) (classpath and launcher %s in %.1f s)\n", c - a, n, how, b - a }' >&2
    echo "hbase.zookeeper.quorum=127.0.0.1:$zk hbase.master=127.0.0.1:$master hbase.columnfamily=$family"
    ;;
  stop) stop_pids "$dir"; rm -f "$dir/ready" ;;
  count|check) client "$cmd" "$dir" "${1:-}" ;;
  prepare) out=$(prepare); echo "${out% *}" ;;
  *) die "unknown command '$cmd' (start|stop|count|check|prepare)" ;;
esac
