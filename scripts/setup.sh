#!/usr/bin/env bash
# Installs the Debian packages storebench needs to build and test, once:
# a second run finds them installed and returns at once.
set -euo pipefail
packages=(cmake g++ make pkg-config librocksdb-dev rocksdb-tools libgtest-dev libgmock-dev
          libbenchmark-dev nlohmann-json3-dev
          libleveldb-dev liblmdb-dev libsqlite3-dev libwiredtiger-dev libkyotocabinet-dev
          libtokyocabinet-dev libgroonga-dev openmpi-bin libopenmpi-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
