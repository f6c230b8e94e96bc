# Shared by the server scripts in this folder (source it). Each script
# NAME.sh has the same interface:
#   NAME.sh start DIR   starts the server on 127.0.0.1 on a free port, data in
#                       DIR (created), waits until it answers, writes its
#                       pid(s) to DIR/pids and prints ONE line on stdout: the
#                       binding's properties to reach it, e.g.
#                       "redis.host=127.0.0.1 redis.port=40123"
#                       (what tests read from STOREBENCH_TEST_SERVER_NAME).
#   NAME.sh stop DIR    stops what DIR/pids names (TERM, then KILL after 10 s).
# Nothing is started as a system service and nothing listens beyond loopback.
set -euo pipefail

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# True when nothing answers on 127.0.0.1:$1.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A TCP port on 127.0.0.1 that nothing answers on right now, below the
# kernel's ephemeral range (ip_local_port_range), so that no client
# connection's local port can take it between now and the server's bind.
free_port() {
  local p low
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$low" -gt 11000 ] 2>/dev/null || low=32768
  for _ in $(seq 1 200); do
    p=$((10000 + RANDOM % (low - 10000)))
    if port_free "$p"; then echo "$p"; return 0; fi
  done
  die "no free port found"
}

# Sends the text $2 to 127.0.0.1:$1 and prints the first line of the answer
# (without its CR); fails when nothing answers within 2 s.
ask_line() {
  local line
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf '%b' "$2" >&3
  IFS= read -r -t 2 line <&3 || { exec 3>&-; return 1; }
  exec 3>&-
  printf '%s\n' "${line%$'\r'}"
}

# Runs "$@" every 0.1 s until it succeeds; fails after $WAIT_S seconds
# (default 30), or at once when the process $WAIT_PID (if set) has exited.
wait_for() {
  local tries=$(( ${WAIT_S:-30} * 10 ))
  for _ in $(seq 1 "$tries"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [ -n "${WAIT_PID:-}" ] && ! alive "$WAIT_PID"; then return 1; fi
    sleep 0.1
  done
  return 1
}

# True while the process is alive (and not a zombie).
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# Stops every pid listed in DIR/pids: TERM, up to 10 s, then KILL.
stop_pids() {
  local dir=$1 pid
  [ -f "$dir/pids" ] || return 0
  for pid in $(cat "$dir/pids"); do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $(cat "$dir/pids"); do
    for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
  rm -f "$dir/pids"
}

# Prints each address on which a process listed in DIR/pids listens (TCP
# or UDP) that is not loopback; prints nothing when all is on loopback.
# Needs ss (iproute2).
listening_beyond_loopback() {
  local dir=$1 pid
  command -v ss >/dev/null || die "ss not installed (apt-get install iproute2): needed to check that servers listen on loopback only"
  [ -f "$dir/pids" ] || return 0
  for pid in $(cat "$dir/pids"); do
    ss -Hltnup | awk -v pat="pid=$pid," 'index($0, pat) && $5 !~ /^(127\.|\[::1\]:)/ {print $5}'
  done
}

# The directory of a Debian server binary that is not on root's PATH
# (e.g. postgresql's /usr/lib/postgresql/15/bin).
newest_dir() { ls -d "$@" 2>/dev/null | sort -V | tail -1; }

# A JVM server's launcher (servers/NAME: a pom.xml and one class
# storebench.CLASS), built once per hash of the pom and the class: Maven
# resolves the classpath (offline first: a warm ~/.m2 needs no network) and
# javac compiles the class into ${XDG_CACHE_HOME:-~/.cache}/storebench/
# NAME-<hash>/. Prints that folder and "built" or "cached".
#   jvm_launcher MODULE_DIR NAME CLASS
jvm_launcher() {
  local module=$1 name=$2 class=$3 src hash cache tmp
  command -v java >/dev/null || die "java not installed (scripts/setup.sh installs openjdk-17-jdk-headless)"
  src=$module/src/main/java/storebench/$class.java
  hash=$(cat "$module/pom.xml" "$src" | sha256sum | cut -c1-16)
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/storebench/$name-$hash
  if [ -f "$cache/classpath.txt" ] && [ -f "$cache/classes/storebench/$class.class" ]; then
    echo "$cache cached"; return 0
  fi
  command -v mvn >/dev/null || die "mvn not installed (scripts/setup.sh installs maven)"
  command -v javac >/dev/null || die "javac not installed (scripts/setup.sh installs openjdk-17-jdk-headless)"
  mkdir -p "$(dirname "$cache")"
  tmp=$(mktemp -d "$cache.tmp.XXXXXX")
  if ! mvn -q -o -B -f "$module/pom.xml" dependency:build-classpath -Dmdep.outputFile="$tmp/classpath.txt" >"$tmp/mvn.log" 2>&1; then
    mvn -q -B -f "$module/pom.xml" dependency:build-classpath -Dmdep.outputFile="$tmp/classpath.txt" >"$tmp/mvn.log" 2>&1 \
      || { tail -20 "$tmp/mvn.log" >&2; rm -rf "$tmp"; die "Maven could not resolve $module/pom.xml"; }
  fi
  javac --release 17 -d "$tmp/classes" -cp "$(cat "$tmp/classpath.txt")" "$src" >"$tmp/javac.log" 2>&1 \
    || { cat "$tmp/javac.log" >&2; rm -rf "$tmp"; die "javac failed on $src"; }
  rm -rf "$cache"
  mv "$tmp" "$cache"
  echo "$cache built"
}
