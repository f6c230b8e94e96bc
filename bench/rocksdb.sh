#!/usr/bin/env bash
# The rocksdb binding against RocksDB's own db_bench (Debian's rocksdb-tools),
# same key size (23 bytes, like YCSB's keys), same value size (a YCSB record
# of 10 x 100-byte fields as our codec stores it), same cache and compression,
# same thread count, uniform keys. Three mixes:
#   fillrandom      vs  storebench load
#   readrandom      vs  storebench run, 100% reads
#   updaterandom    vs  storebench run, 100% updates (both are Get + Put)
# Usage: bench/rocksdb.sh [records] [operations] [threads]   (build first)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
ops=${2:-400000}
threads=${3:-1}
bin=build/default/storebench
work=$(mktemp -d -t storebench-rocksdb-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
common_sb=(-P workloads/workloadc -p recordcount="$n" -p requestdistribution=uniform -threads "$threads"
           -p rocksdb.dir="$work/sb" -p rocksdb.cache_size=8M -p rocksdb.compression=snappy)
# The stored value size: run one load of 1 record and read its size back is overkill; our codec
# stores 10 fields as (varint len, "fieldN", varint len, 100 bytes): 10 * (1 + 6 + 1 + 100).
value_size=1080
db_common=(--num="$n" --key_size=23 --value_size="$value_size" --threads="$threads" --cache_size=8388608
           --compression_type=snappy --compression_ratio=1 --statistics=0)

tput() { awk -F', ' '/\[OVERALL\], Throughput/ {printf "%.0f", $3}'; }
dbb() { awk -v b="$1" '$1 == b {for (i = 1; i <= NF; i++) if ($i ~ /^ops\/sec/) {print $(i-1); exit}}'; }

sb_load=$("$bin" load rocksdb "${common_sb[@]}" -p rocksdb.destroy=true | tput)
sb_read=$("$bin" run rocksdb "${common_sb[@]}" -p operationcount="$ops" | tput)
sb_update=$("$bin" run rocksdb "${common_sb[@]}" -p operationcount="$ops" -p readproportion=0 \
  -p updateproportion=1 -p writeallfields=true | tput)

db_fill=$(db_bench --db="$work/db" "${db_common[@]}" --benchmarks=fillrandom --use_existing_db=0 2>/dev/null | dbb fillrandom)
db_read=$(db_bench --db="$work/db" "${db_common[@]}" --benchmarks=readrandom --use_existing_db=1 --reads=$((ops / threads)) 2>/dev/null | dbb readrandom)
db_update=$(db_bench --db="$work/db" "${db_common[@]}" --benchmarks=updaterandom --use_existing_db=1 --reads=$((ops / threads)) 2>/dev/null | dbb updaterandom)

printf "%-20s %10s %14s %8s\n" mix storebench db_bench ratio
for row in "load/fillrandom $sb_load $db_fill" "read/readrandom $sb_read $db_read" "update/updaterandom $sb_update $db_update"; do
  set -- $row
  printf "%-20s %10s %14s %8s\n" "$1" "$2" "$3" "$(awk "BEGIN{printf \"%.2f\", $2/$3}")"
done
echo "($n records, $ops operations, $threads thread(s); ops/s; ratio = storebench / db_bench)"
