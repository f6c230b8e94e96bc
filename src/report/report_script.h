// The HTML report's one script (plain ES2017, no library, no network), which
// html_report.cc puts at the end of the page. It relies on the report's DOM:
// each chart a <figure class="chart"> holding <svg class="chart"
// data-series="N"> with one <g class="s" data-i="K" data-style="COLOR DASH
// MARKER"> per series and a <ul class="legend"> with one <li data-i="K"> each;
// a study with an axis opens with <section id="answer"> before the first table.
//
// What it does:
// - writes "N series drawn in M charts." into <span id="drawn"> (the rendering
//   tests and scripts/report_check.sh read it back);
// - a click (or Enter/Space) on a legend entry hides or shows that series in
//   its figure and toggles the class "off" on the entry. The script injects
//   the rules that go with it, so that a page without script does not show
//   entries as clickable:
//     ul.legend li[data-i]{cursor:pointer}
//     ul.legend li.off{text-decoration:line-through;opacity:.45}
// - at REPORT.html#selftest, checks the page in the browser and writes
//   "selftest: ok (M charts)" or "selftest: FAIL: <first problem>" into
//   <span id="selftest"> (appended to the body when absent): per chart, as many
//   g.s as data-series and at most 12; data-i 0..N-1; data-style of three words
//   with a known dash and marker; no two series with one data-style, nor with
//   one (dash, marker) pair (colour is never the only difference); computed
//   stroke and stroke-dasharray of the series' lines differ; one legend entry
//   per series; a click on the first entry hides its series and a second shows
//   it; #answer, when present, holds a p.summary and a chart and comes before
//   the first table. scripts/report_check.sh --selftest reads the outcome.
#pragma once

#include <string_view>

namespace storebench {

// The script's text, without the <script> tags; holds no "</script" and no
// "<!--", so it can go inside <script> as is.
std::string_view ReportScript();

}  // namespace storebench
