#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz/NAME_fuzz.cc), each from its seed
# corpus tests/fuzz/corpus/NAME/.
#
#   scripts/fuzz.sh [SECONDS] [NAME...]   fuzz each target for SECONDS (default 60)
#   scripts/fuzz.sh 0 [NAME...]           replay the committed corpora once (regression mode;
#   scripts/fuzz.sh --replay [NAME...]    also --replay): every input must pass
#
# Installs clang if missing (scripts/setup.sh), configures and builds the
# `fuzz` preset's fuzzers (build/fuzz: clang, ASan+UBSan, libFuzzer), then
# runs the targets one after another. Each fuzzes a scratch copy of its
# corpus in a temporary directory (removed at exit), so the committed corpus
# is not touched; new inputs it finds are thrown away (copy the ones worth
# keeping, e.g. a crash once fixed, into tests/fuzz/corpus/NAME/ by hand).
# Prints one line per target (name, result, runs, execs/s, time); a crashing,
# leaking or hanging input is kept under build/fuzz/artifacts/NAME/ and its
# path printed. Exit status: 0 all passed, 1 some target failed.
#
# Environment: FUZZ_RSS_MB (memory limit per target, default 2048),
# FUZZ_TIMEOUT (seconds for one input before it counts as a hang, default 10),
# FUZZ_JOBS (build parallelism, default the number of CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
if [ $# -gt 0 ]; then
  case "$1" in
    --replay) seconds=0; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *[!0-9]*|'') echo "fuzz.sh: SECONDS must be a whole number, or --replay (got '$1')" >&2; exit 2 ;;
    *) seconds=$1; shift ;;
  esac
fi

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for src in tests/fuzz/*_fuzz.cc; do names+=("$(basename "$src" _fuzz.cc)"); done
fi
for n in "${names[@]}"; do
  if [ ! -f "tests/fuzz/${n}_fuzz.cc" ]; then echo "fuzz.sh: no target '$n' (tests/fuzz/${n}_fuzz.cc)" >&2; exit 2; fi
done

# clang and libFuzzer's runtime: scripts/setup.sh installs them (and whatever else is missing).
if ! command -v clang++ >/dev/null || ! dpkg-query -W -f='${Status}' libclang-rt-dev 2>/dev/null | grep -q "ok installed"; then
  scripts/setup.sh
fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake --preset fuzz "${launcher[@]}" >/dev/null
targets=()
for n in "${names[@]}"; do targets+=("${n}_fuzz"); done
cmake --build --preset fuzz -j"${FUZZ_JOBS:-$(nproc)}" --target "${targets[@]}" >/dev/null

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rss=${FUZZ_RSS_MB:-2048}
timeout=${FUZZ_TIMEOUT:-10}
failed=0
for n in "${names[@]}"; do
  bin=build/fuzz/${n}_fuzz
  corpus=tests/fuzz/corpus/$n
  artifacts=build/fuzz/artifacts/$n/
  mkdir -p "$artifacts"
  log=$scratch/$n.log
  start=$(date +%s)
  status=0
  if [ "$seconds" = 0 ]; then
    # Regression mode: each committed input once.
    inputs=("$corpus"/*)
    "$bin" -rss_limit_mb="$rss" -timeout="$timeout" -artifact_prefix="$artifacts" "${inputs[@]}" >"$log" 2>&1 || status=$?
    runs=${#inputs[@]}
  else
    mkdir -p "$scratch/$n"
    cp -R "$corpus" "$scratch/$n/corpus"
    "$bin" "$scratch/$n/corpus" -max_total_time="$seconds" -rss_limit_mb="$rss" -timeout="$timeout" \
      -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  fi
  took=$(($(date +%s) - start))
  if [ "$seconds" = 0 ]; then rate=-; else rate=$(( took > 0 ? ${runs:-0} / took : ${runs:-0} )); fi
  if [ "$status" = 0 ] && [ "$seconds" = 0 ]; then
    printf '%-16s ok      %s inputs replayed  %ss\n' "$n" "$runs" "$took"
  elif [ "$status" = 0 ]; then
    printf '%-16s ok      runs %-10s %8s/s  %4ss\n' "$n" "${runs:-?}" "$rate" "$took"
  else
    failed=1
    printf '%-16s FAILED  runs %-10s %8s/s  %4ss  (exit %s)\n' "$n" "${runs:-?}" "$rate" "$took" "$status"
    grep -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|ALARM|out-of-memory|^[^ ]*deadly signal' "$log" | head -5 | sed 's/^/    /'
    input=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    if [ -n "$input" ]; then
      echo "    input: $input (replay: $bin $input)"
    else
      echo "    log:"; tail -20 "$log" | sed 's/^/      /'
    fi
  fi
done
exit "$failed"
