#!/usr/bin/env bash
# Installs the Debian packages storebench needs to build and test, once:
# a second run finds them installed and returns at once.
# STOREBENCH_JAVA=1 also installs a JDK (default-jdk-headless, ~270 MB
# installed), which the --hdr-log compatibility test needs; without javac that
# test is skipped with a message.
# clang and libclang-rt-dev (libFuzzer's runtime) build the fuzzers (scripts/fuzz.sh).
set -euo pipefail
packages=(cmake g++ make pkg-config librocksdb-dev rocksdb-tools libgtest-dev libgmock-dev
          libbenchmark-dev nlohmann-json3-dev zlib1g-dev libhdrhistogram-java
          libleveldb-dev liblmdb-dev libsqlite3-dev libwiredtiger-dev libkyotocabinet-dev
          libtokyocabinet-dev libgroonga-dev openmpi-bin libopenmpi-dev libboost-context-dev libpq-dev postgresql libmariadb-dev mariadb-server memcached nutcracker redis-server redis-tools libhiredis-dev
          bonnie++ fio glusterfs-server libglusterfs-dev iproute2
          libtomlplusplus-dev chromium clang libclang-rt-dev libprotobuf-dev protobuf-compiler libssl-dev
          prometheus)
if [ "${STOREBENCH_JAVA:-0}" = 1 ]; then packages+=(default-jdk-headless); fi
# Apache Ignite's nodes (scripts/servers/ignite.sh) run on a JDK 17 and come
# from Maven Central through Maven (servers/ignite/pom.xml): installed only
# when javac or mvn is not on PATH (a JDK 17 already there is used as is).
command -v javac >/dev/null || packages+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || packages+=(maven)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  # Server packages must not start system services: tests start their own
  # servers on loopback (scripts/servers/). policy-rc.d 101 = "do not start".
  added_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    added_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  if [ "$added_policy" = 1 ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
fi
# The hbase binding generates its protobuf code from the .proto files inside
# HBase's own jar (org.apache.hbase:hbase-protocol-shaded, the version of
# servers/hbase/pom.xml): resolve that module once into ~/.m2 (a second run
# finds it cached and does nothing).
if command -v java >/dev/null && command -v mvn >/dev/null; then
  "$(dirname "$0")"/servers/hbase.sh prepare >/dev/null || echo "setup: could not resolve servers/hbase (the hbase binding stays off)" >&2
fi
