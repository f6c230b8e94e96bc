#!/usr/bin/env bash
# Renders a storebench HTML report in headless Chromium as a user's browser
# would, and checks it: prints what the page's script counted ("N series drawn
# in M charts."), fails on any console message (a script error shows as
# "Uncaught ..."), and with a second argument writes a full-page screenshot.
# --selftest loads REPORT.html#selftest, where the page's script checks its
# charts (src/report/report_script.h), and fails unless it wrote
# "selftest: ok"; the screenshot is still of the page as a user opens it.
#   scripts/report_check.sh [--selftest] report.html [screenshot.png]
set -euo pipefail
usage="usage: scripts/report_check.sh [--selftest] REPORT.html [SCREENSHOT.png]"
selftest=
if [ "${1:-}" = --selftest ]; then selftest=1; shift; fi
report=${1:?$usage}
shot=${2:-}
[ -f "$report" ] || { echo "report_check: $report: no such file" >&2; exit 2; }
command -v chromium >/dev/null || { echo "report_check: chromium is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
url="file://$(realpath "$report")"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --user-data-dir="$profile")
dom=$(timeout 60 chromium "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "$url${selftest:+#selftest}" 2>"$profile/stderr")
drawn=$(grep -o '<span id="drawn">[^<]*' <<<"$dom" | sed 's/.*>//' || true)
if grep -E 'CONSOLE|Uncaught' "$profile/stderr" >&2; then
  echo "report_check: $report: console messages (above)" >&2
  exit 1
fi
if [ -z "$drawn" ]; then
  echo "report_check: $report: the page's script did not run (no series count)" >&2
  exit 1
fi
echo "report_check: $report: $drawn"
if [ -n "$selftest" ]; then
  # The span's text only: the script's source holds no "selftest: ok".
  outcome=$(grep -o '<span id="selftest">[^<]*' <<<"$dom" | sed 's/.*>//' || true)
  echo "report_check: $report: ${outcome:-selftest: did not run (no <span id=\"selftest\">)}"
  [[ "$outcome" == "selftest: ok"* ]] || exit 1
fi
if [ -n "$shot" ]; then
  timeout 60 chromium "${flags[@]}" --hide-scrollbars --window-size=1500,6000 --screenshot="$(realpath -m "$shot")" "$url" 2>/dev/null
  echo "report_check: screenshot $shot"
fi
