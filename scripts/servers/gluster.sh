#!/usr/bin/env bash
# GlusterFS on this host for tests and benchmarks (interface: lib.sh).
#   gluster.sh start DIR   starts glusterd in the foreground mode (-N) with its
#                          state in DIR/lib (not /var/lib/glusterd), creates and
#                          starts a one-brick volume (bricks in DIR/brick*), and
#                          prints "gluster.host=HOST gluster.volume=NAME".
#                          GLUSTER_REPLICA=2 makes a two-brick replicated volume
#                          instead. GLUSTER_VOLUME names it (default sbvol).
#   gluster.sh stop DIR    volume stop, volume delete, then the glusterd pid and
#                          any brick or self-heal process still running (by pid).
# Limits, from GlusterFS itself: glusterd listens on 24007 (the port gfapi
# asks first), so one instance per host; its CLI socket is
# /var/run/glusterd.socket; gluster refuses "localhost"/"127.0.0.1" as a
# brick host, so the bricks live on $(hostname), which must resolve to a
# loopback address (checked). Bricks on the root file system need "force".
# glusterd binds 127.0.0.1 (transport.socket.bind-address) and the bricks it
# spawns inherit that address; start checks that nothing listens elsewhere.
source "$(dirname "$0")/lib.sh"

cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start|stop DIR"
vol=${GLUSTER_VOLUME:-sbvol}
host=$(hostname)

gl() { gluster --mode=script "$@"; }

# The pids of the volume's brick and self-heal processes, from volume status.
volume_pids() {
  gl volume status "$vol" 2>/dev/null | awk '$NF ~ /^[0-9]+$/ && $(NF-1) ~ /^[YN]$/ {print $NF}'
}

case "$cmd" in
  start)
    command -v glusterd >/dev/null || die "glusterd not installed (apt-get install glusterfs-server)"
    addr=$(getent hosts "$host" | awk '{print $1; exit}')
    [[ "$addr" == 127.* || "$addr" == ::1 ]] ||
      die "hostname '$host' resolves to '${addr:-nothing}', not loopback: gluster needs a brick host name other than localhost that is this machine"
    if (exec 3<>/dev/tcp/127.0.0.1/24007) 2>/dev/null; then
      die "port 24007 is in use (another glusterd?): gluster.sh runs one glusterd per host"
    fi
    mkdir -p "$dir/lib" "$dir/log"
    dir=$(cd "$dir" && pwd)
    cat > "$dir/glusterd.vol" <<EOF
volume management
    type mgmt/glusterd
    option working-directory $dir/lib
    option transport-type socket
    option transport.socket.listen-port 24007
    option transport.socket.bind-address 127.0.0.1
    option transport.socket.read-fail-log off
    option ping-timeout 0
    option event-threads 1
end-volume
EOF
    # In a subshell, so that glusterd is adopted (and reaped) by init once stopped.
    ( glusterd -N -f "$dir/glusterd.vol" -l "$dir/log/glusterd.log" --log-level=WARNING \
        </dev/null >>"$dir/log/glusterd.out" 2>&1 &
      echo $! >> "$dir/pids" )
    if ! wait_for gl volume list; then
      tail -5 "$dir/log/glusterd.log" "$dir/log/glusterd.out" >&2 || true
      die "glusterd did not answer"
    fi
    bricks=("$host:$dir/brick1")
    replica=()
    if [ "${GLUSTER_REPLICA:-1}" = 2 ]; then
      bricks+=("$host:$dir/brick2")
      replica=(replica 2)
    fi
    mkdir -p "$dir"/brick1 "$dir"/brick2
    gl volume create "$vol" "${replica[@]}" "${bricks[@]}" force >/dev/null ||
      die "gluster volume create $vol failed"
    gl volume start "$vol" >/dev/null || die "gluster volume start $vol failed"
    volume_pids >> "$dir/pids"
    # Every server the project starts listens on loopback only: check it.
    exposed=$(listening_beyond_loopback "$dir" | tr '\n' ' ')
    if [ -n "$exposed" ]; then
      "$0" stop "$dir"
      die "gluster listens beyond loopback on: $exposed"
    fi
    echo "gluster.host=$host gluster.volume=$vol"
    ;;
  stop)
    if [ -f "$dir/pids" ]; then
      gl volume stop "$vol" force >/dev/null 2>&1 || true
      gl volume delete "$vol" >/dev/null 2>&1 || true
    fi
    stop_pids "$dir"
    ;;
  *) die "unknown command '$cmd' (start|stop)" ;;
esac
