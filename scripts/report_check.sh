#!/usr/bin/env bash
# Renders a storebench HTML report in headless Chromium as a user's browser
# would, and checks it: prints what the page's script counted ("N series drawn
# in M charts."), fails on any console message (a script error shows as
# "Uncaught ..."), and with a second argument writes a full-page screenshot.
#   scripts/report_check.sh report.html [screenshot.png]
set -euo pipefail
report=${1:?usage: scripts/report_check.sh REPORT.html [SCREENSHOT.png]}
shot=${2:-}
command -v chromium >/dev/null || { echo "report_check: chromium is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
url="file://$(realpath "$report")"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --user-data-dir="$profile")
dom=$(timeout 60 chromium "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "$url" 2>"$profile/stderr")
drawn=$(grep -o '<span id="drawn">[^<]*' <<<"$dom" | sed 's/.*>//')
if grep -E 'CONSOLE|Uncaught' "$profile/stderr" >&2; then
  echo "report_check: $report: console messages (above)" >&2
  exit 1
fi
if [ -z "$drawn" ]; then
  echo "report_check: $report: the page's script did not run (no series count)" >&2
  exit 1
fi
echo "report_check: $report: $drawn"
if [ -n "$shot" ]; then
  timeout 60 chromium "${flags[@]}" --hide-scrollbars --window-size=1500,6000 --screenshot="$(realpath -m "$shot")" "$url" 2>/dev/null
  echo "report_check: screenshot $shot"
fi
