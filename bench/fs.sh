#!/usr/bin/env bash
# The same directory measured by `storebench fs`, bonnie++ and fio (and dd for
# the stream phase), with equivalent jobs, printed side by side in one table.
#
#   bench/fs.sh [DIR] [SIZE_MB] [FILES_K] [STREAM_N] [STREAM_MB]
#     DIR        directory to measure (default: a new one under /tmp, removed after)
#     SIZE_MB    data file of the sequential and seek phases (default 1024)
#     FILES_K    files of the create/stat/delete phases, in thousands of 1024 (default 16)
#     STREAM_N x STREAM_MB   the dd-like stream phase (default 4 x 256)
#
# Equivalences (bonnie++ 2.00a is Debian's):
#   per-char write/read  bonnie++: one write(2)/read(2) per byte; storebench --chr-syscall
#                        does the same (its default goes through a 4 KiB buffer, as putc does:
#                        shown on its own row); fio: bs=1 psync (both on min(SIZE, 8 MiB): a syscall per byte is slow).
#   block write/read     8 KiB write(2)/read(2): bonnie++ -s SIZE:8192, fio rw=write/read bs=8k.
#   rewrite              bonnie++ and storebench only (fio has no read-modify-write job).
#   random seeks         5 workers, 8192 random 8 KiB reads, a tenth written back:
#                        bonnie++ -s SIZE:8192:8192:5, fio rw=randrw rwmixread=90 numjobs=5.
#   create/stat/delete   bonnie++ -n FILES_K (empty files); fio ioengine=filecreate/filestat/
#                        filedelete (sequential order only).
#   stream               N files of SIZE in 1 MiB writes, then read back: storebench --stream,
#                        dd bs=1M (no fsync, like the seed write-up's dd), fio rw=write/read bs=1M.
# The page cache is not dropped (a container cannot): with SIZE below twice the RAM every tool
# measures it, and bonnie++ prints +++++ for phases that end in under 0.5 s.
set -euo pipefail
cd "$(dirname "$0")/.."
SB=${STOREBENCH:-build/default/storebench}
DIR=${1:-}
SIZE_MB=${2:-1024}
FILES_K=${3:-16}
STREAM_N=${4:-4}
STREAM_MB=${5:-256}
for tool in bonnie++ fio dd python3; do
  command -v "$tool" >/dev/null || { echo "bench/fs.sh: $tool not found (Debian: bonnie++ fio)" >&2; exit 2; }
done
[ -x "$SB" ] || { echo "bench/fs.sh: $SB not built (scripts/build.sh default)" >&2; exit 2; }
cleanup_dir=""
if [ -z "$DIR" ]; then DIR=$(mktemp -d "${TMPDIR:-/tmp}/storebench-fsbench-XXXXXX"); cleanup_dir=$DIR; fi
OUT=$(mktemp -d "${TMPDIR:-/tmp}/storebench-fsbench-out-XXXXXX")
trap 'rm -rf "$OUT" ${cleanup_dir:+"$cleanup_dir"}' EXIT
FILES=$((FILES_K * 1024))
CHR_MB=$((SIZE_MB < 8 ? SIZE_MB : 8))  # one syscall per byte: about 1 MB/s here

echo "bench/fs.sh: $DIR, ${SIZE_MB} MiB data file, $FILES files, stream ${STREAM_N}x${STREAM_MB} MiB" >&2
echo "storebench fs..." >&2
"$SB" fs "$DIR" --size "${SIZE_MB}M" --files "$FILES" --seekers 5 --seeks 8192 \
  --stream "${STREAM_N}x${STREAM_MB}M" --json "$OUT/sb.json" -q >"$OUT/sb.txt" 2>"$OUT/sb.err"
"$SB" fs "$DIR" --size "${CHR_MB}M" --phases chr --chr-syscall --json "$OUT/sb-chr.json" -q \
  >"$OUT/sb-chr.txt" 2>/dev/null

echo "bonnie++..." >&2
bonnie++ -d "$DIR" -s "${SIZE_MB}:8192:8192:5" -r $((SIZE_MB / 2)) -n "$FILES_K" -u root -q \
  >"$OUT/bonnie.csv" 2>"$OUT/bonnie.txt"

echo "fio..." >&2
fio_json() {  # name, then fio options
  local name=$1; shift
  # --invalidate=0: fio would otherwise drop the file's page cache before each job, and read from
  # the device while storebench and bonnie++ read what the page cache holds.
  fio --name="$name" --directory="$DIR" --ioengine=psync --invalidate=0 --output-format=json "$@" \
    >"$OUT/fio-$name.json"
}
fio_json chr-write --rw=write --bs=1 --size="${CHR_MB}M" --filename=fio.chr
fio_json chr-read --rw=read --bs=1 --size="${CHR_MB}M" --filename=fio.chr
fio_json write --rw=write --bs=8k --size="${SIZE_MB}M" --filename=fio.data
fio_json read --rw=read --bs=8k --size="${SIZE_MB}M" --filename=fio.data
fio_json seeks --rw=randrw --rwmixread=90 --bs=8k --size="${SIZE_MB}M" --filename=fio.data --numjobs=5 \
  --number_ios=$((8192 / 5)) --group_reporting
rm -f "$DIR/fio.chr" "$DIR/fio.data"
mkdir -p "$DIR/fio-files"
for e in filecreate filestat filedelete; do
  fio --name=files --directory="$DIR/fio-files" --ioengine=$e --nrfiles="$FILES" --filesize=4k --bs=4k \
    --openfiles=1 --fallocate=none --output-format=json >"$OUT/fio-$e.json"
done
rmdir "$DIR/fio-files"
fio_json stream-write --rw=write --bs=1M --nrfiles="$STREAM_N" --filesize="${STREAM_MB}M" \
  --size=$((STREAM_N * STREAM_MB))M --file_service_type=sequential --filename_format='fio-stream.$filenum'
fio_json stream-read --rw=read --bs=1M --nrfiles="$STREAM_N" --filesize="${STREAM_MB}M" \
  --size=$((STREAM_N * STREAM_MB))M --file_service_type=sequential --filename_format='fio-stream.$filenum'
rm -f "$DIR"/fio-stream.*

echo "dd..." >&2
for i in $(seq 0 $((STREAM_N - 1))); do
  dd if=/dev/zero of="$DIR/dd.$i" bs=1M count="$STREAM_MB" 2>&1 | tail -1 >>"$OUT/dd-write.txt"
done
for i in $(seq 0 $((STREAM_N - 1))); do
  dd if="$DIR/dd.$i" of=/dev/null bs=1M 2>&1 | tail -1 >>"$OUT/dd-read.txt"
done
rm -f "$DIR"/dd.*

python3 - "$OUT" "$SIZE_MB" "$FILES" "$STREAM_N" "$STREAM_MB" <<'EOF'
import json, re, sys
out, size_mb, files, sn, smb = sys.argv[1], *sys.argv[2:]

def load(name):
    with open(f"{out}/{name}") as f:
        return json.load(f)

def sb_phases(name):
    return {p["phase"]: p for p in load(name)["phases"]}

sb, sbc = sb_phases("sb.json"), sb_phases("sb-chr.json")

def stat(p, key):
    return float(dict(p["store_stats"].items() if isinstance(p["store_stats"], dict) else p["store_stats"])[key])

def sb_kb(ph, phase):
    p = ph.get(phase)
    return None if p is None else stat(p, "fs.kb_per_s")

def sb_ops(ph, phase):
    p = ph.get(phase)
    return None if p is None else p["throughput_ops_per_s"]

def sb_mb(phase):
    p = sb.get(phase)
    return None if p is None else stat(p, "fs.bytes") / 1e6 / stat(p, "fs.seconds")

# bonnie++ 2.00a CSV (format 1.98): per-phase value then %CPU; "+++++" = under 0.5 s.
csv = [l for l in open(f"{out}/bonnie.csv").read().splitlines() if l.strip()][-1].split(",")
def bon(i):
    v = csv[i]
    return v if v in ("+++++", "") else float(v)
B = {"putc": bon(9), "block_w": bon(11), "rewrite": bon(13), "getc": bon(15), "block_r": bon(17),
     "seeks": bon(19), "seq_create": bon(26), "seq_stat": bon(28), "seq_del": bon(30),
     "ran_create": bon(32), "ran_stat": bon(34), "ran_del": bon(36)}

def fio(name, d=None):
    j = load(f"fio-{name}.json")["jobs"][0]
    if d is None:
        d = "write" if j["write"]["total_ios"] else "read"
    return j[d]

def fio_kb(name):
    return fio(name)["bw"]  # KiB/s

def fio_iops(name, d=None):
    return fio(name, d)["iops"]

def dd_mb(name):
    vals = []
    for line in open(f"{out}/{name}"):
        m = re.search(r"([\d.]+) ([kMG]?B)/s", line)
        if m:
            v = float(m.group(1)); u = m.group(2)
            vals.append(v * {"kB": 1e-3, "B": 1e-6, "MB": 1, "GB": 1e3}[u])
    return sum(vals) / len(vals) if vals else None

def fmt(v, unit=""):
    if v is None: return "n/a"
    if isinstance(v, str): return v
    return f"{v:,.0f}{unit}" if v >= 100 else f"{v:,.1f}{unit}"

rows = [
    ("seq write per char (K/s)", sb_kb(sbc, "seq-write-chr"), B["putc"], fio_kb("chr-write"), None),
    ("  storebench via 4 KiB buffer", sb_kb(sb, "seq-write-chr"), None, None, None),
    ("seq write block 8k (K/s)", sb_kb(sb, "seq-write-block"), B["block_w"], fio_kb("write"), None),
    ("rewrite (K/s)", sb_kb(sb, "rewrite"), B["rewrite"], None, None),
    ("seq read per char (K/s)", sb_kb(sbc, "seq-read-chr"), B["getc"], fio_kb("chr-read"), None),
    ("  storebench via 4 KiB buffer", sb_kb(sb, "seq-read-chr"), None, None, None),
    ("seq read block 8k (K/s)", sb_kb(sb, "seq-read-block"), B["block_r"], fio_kb("read"), None),
    ("random seeks (/s)", sb_ops(sb, "random-seeks"), B["seeks"],
     fio_iops("seeks", "read") + fio_iops("seeks", "write"), None),
    ("seq create (/s)", sb_ops(sb, "seq-create"), B["seq_create"], fio_iops("filecreate"), None),
    ("seq stat (/s)", sb_ops(sb, "seq-stat"), B["seq_stat"], fio_iops("filestat"), None),
    ("seq delete (/s)", sb_ops(sb, "seq-delete"), B["seq_del"], fio_iops("filedelete"), None),
    ("random create (/s)", sb_ops(sb, "rand-create"), B["ran_create"], None, None),
    ("random stat (/s)", sb_ops(sb, "rand-stat"), B["ran_stat"], None, None),
    ("random delete (/s)", sb_ops(sb, "rand-delete"), B["ran_del"], None, None),
    (f"stream write {sn}x{smb}M (MB/s)", sb_mb("stream-write"), None, fio("stream-write")["bw"] * 1024 / 1e6,
     dd_mb("dd-write.txt")),
    (f"stream read {sn}x{smb}M (MB/s)", sb_mb("stream-read"), None, fio("stream-read")["bw"] * 1024 / 1e6,
     dd_mb("dd-read.txt")),
]
print(f"{'':34} {'storebench':>12} {'bonnie++':>12} {'fio':>12} {'dd':>12}")
for name, *vals in rows:
    print(f"{name:34} " + " ".join(f"{fmt(v):>12}" for v in vals))
print(f"\n(data file {size_mb} MiB, {files} files; bonnie++ +++++ = phase under 0.5 s, not measured)")
EOF
echo >&2
echo "storebench fs table:" >&2
cat "$OUT/sb.txt" >&2
echo "bonnie++ table:" >&2
cat "$OUT/bonnie.txt" >&2
