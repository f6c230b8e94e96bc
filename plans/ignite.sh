#!/usr/bin/env bash
# Runs plans/ignite.toml: starts a 1-node and a 2-node Ignite cluster
# (scripts/servers/ignite.sh, in a temporary folder; both stopped at exit),
# exports their endpoints as IGNITE_HOSTS_1 and IGNITE_HOSTS_2, runs the
# plan and writes its HTML report. Arguments go to `storebench plan`
# (--resume, --dry-run). Environment: STOREBENCH (the binary, default
# build/default/storebench), REPORT (default results/ignite.html).
set -euo pipefail
cd "$(dirname "$0")/.."
sb=${STOREBENCH:-build/default/storebench}
report=${REPORT:-results/ignite.html}
dir=$(mktemp -d "${TMPDIR:-/tmp}/storebench-ignite-plan.XXXXXX")
cleanup() {
  scripts/servers/ignite.sh stop "$dir/one" >/dev/null 2>&1 || true
  scripts/servers/ignite.sh stop "$dir/two" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
IGNITE_HOSTS_1=$(scripts/servers/ignite.sh start "$dir/one" 1 | sed -n 's/^ignite.hosts=//p')
IGNITE_HOSTS_2=$(IGNITE_BACKUPS=1 scripts/servers/ignite.sh start "$dir/two" 2 | sed -n 's/^ignite.hosts=//p')
export IGNITE_HOSTS_1 IGNITE_HOSTS_2
"$sb" plan plans/ignite.toml "$@"
mkdir -p "$(dirname "$report")"
"$sb" report results/ignite -o "$report"
echo "plans/ignite.sh: report in $report" >&2
