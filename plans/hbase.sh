#!/usr/bin/env bash
# Runs plans/hbase.toml: starts a standalone HBase (scripts/servers/hbase.sh,
# in a temporary folder, stopped and removed at exit) with usertable
# pre-split into PRESPLIT regions (default 8), exports its master's address
# as HBASE_MASTER, runs the plan and writes its HTML report. Arguments go to
# `storebench plan` (--resume, --dry-run). Environment: STOREBENCH (the
# binary, default build/default/storebench), REPORT (default
# results/hbase.html), PRESPLIT, HBASE_HEAP (default 1g).
set -euo pipefail
cd "$(dirname "$0")/.."
sb=${STOREBENCH:-build/default/storebench}
report=${REPORT:-results/hbase.html}
dir=$(mktemp -d "${TMPDIR:-/tmp}/storebench-hbase-plan.XXXXXX")
cleanup() {
  scripts/servers/hbase.sh stop "$dir/hbase" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
line=$(scripts/servers/hbase.sh start "$dir/hbase" --presplit "${PRESPLIT:-8}" --heap "${HBASE_HEAP:-1g}")
HBASE_MASTER=$(tr ' ' '\n' <<<"$line" | sed -n 's/^hbase.master=//p')
export HBASE_MASTER
"$sb" plan plans/hbase.toml "$@"
mkdir -p "$(dirname "$report")"
"$sb" report results/hbase -o "$report"
echo "plans/hbase.sh: report in $report" >&2
