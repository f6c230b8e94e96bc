#include "report/report_script.h"

namespace storebench {
namespace {

// Kept readable rather than minified: a few kB next to a report of hundreds.
// "selftest: " and the outcome are joined at run time, so that the outcome's
// text ("selftest: ok") is never in the page's source, only in its DOM.
constexpr std::string_view kScript = R"js((function () {
  'use strict';
  var all = function (root, sel) { return Array.prototype.slice.call(root.querySelectorAll(sel)); };
  var charts = all(document, 'svg.chart');
  var drawn = document.getElementById('drawn');
  if (drawn) drawn.textContent = all(document, 'svg.chart g.s').length + ' series drawn in ' + charts.length + ' charts.';

  // Legend entries hide and show their series.
  var css = document.createElement('style');
  css.textContent = 'ul.legend li[data-i]{cursor:pointer}ul.legend li.off{text-decoration:line-through;opacity:.45}';
  (document.head || document.documentElement).appendChild(css);
  var ENTRY = 'ul.legend li[data-i]';
  function seriesOf(li) {
    var fig = li.closest('figure.chart');
    return fig ? all(fig, 'svg.chart g.s[data-i="' + li.getAttribute('data-i') + '"]') : [];
  }
  function toggle(li) {
    var off = li.classList.toggle('off');
    li.setAttribute('aria-pressed', off ? 'false' : 'true');
    seriesOf(li).forEach(function (g) { g.style.display = off ? 'none' : ''; });
  }
  all(document, ENTRY).forEach(function (li) {
    li.setAttribute('role', 'button');
    li.setAttribute('aria-pressed', 'true');
    li.tabIndex = 0;
    li.title = 'click to hide or show this series';
  });
  document.addEventListener('click', function (e) {
    var li = e.target.closest ? e.target.closest(ENTRY) : null;
    if (li) toggle(li);
  });
  document.addEventListener('keydown', function (e) {
    if ((e.key === 'Enter' || e.key === ' ') && e.target.matches && e.target.matches(ENTRY)) {
      e.preventDefault();
      toggle(e.target);
    }
  });

  if (location.hash !== '#selftest') return;
  var DASHES = ['solid', 'dash', 'dot', 'fine'], MARKERS = ['circle', 'square', 'triangle', 'diamond'];
  var display = function (g) { return getComputedStyle(g).display; };
  // The first problem with one chart, or ''.
  function checkChart(svg, c) {
    var fig = svg.closest('figure.chart');
    var name = 'chart ' + (fig && fig.id ? fig.id : '#' + (c + 1));
    if (!fig) return name + ': not inside a figure.chart';
    var gs = all(svg, 'g.s'), n = gs.length, declared = svg.getAttribute('data-series');
    if (String(n) !== declared) return name + ': ' + n + ' series drawn, data-series="' + declared + '"';
    if (n > 12) return name + ': ' + n + ' series, more than 12';
    var styles = {}, pairs = {}, strokes = {};
    for (var k = 0; k < n; k++) {
      var g = gs[k], style = g.getAttribute('data-style') || '', w = style.split(' '), who = name + ': series ' + k;
      if (g.getAttribute('data-i') !== String(k)) return who + ' has data-i="' + g.getAttribute('data-i') + '"';
      if (w.length !== 3 || DASHES.indexOf(w[1]) < 0 || MARKERS.indexOf(w[2]) < 0) {
        return who + ' has data-style="' + style + '", not COLOR DASH MARKER';
      }
      if (style in styles) return who + ' has the data-style of series ' + styles[style] + ' (' + style + ')';
      var pair = w[1] + ' ' + w[2];
      if (pair in pairs) return who + ' differs from series ' + pairs[pair] + ' by colour only (' + pair + ')';
      styles[style] = pairs[pair] = k;
      var line = g.querySelector('path.series') || g.querySelector('path');
      if (!line) continue;
      var cs = getComputedStyle(line), stroke = cs.stroke + ', dasharray ' + cs.strokeDasharray;
      if (stroke in strokes) return who + ' is drawn as series ' + strokes[stroke] + ' (stroke ' + stroke + ')';
      strokes[stroke] = k;
    }
    var legend = fig.querySelector('ul.legend'), lis = legend ? all(legend, 'li') : [];
    if (lis.length !== n) return name + ': ' + lis.length + ' legend entries for ' + n + ' series';
    for (k = 0; k < n; k++) {
      if (lis[k].getAttribute('data-i') !== String(k)) return name + ': legend entry ' + k + ' has data-i="' + lis[k].getAttribute('data-i') + '"';
    }
    if (n === 0) return '';
    var first = all(fig, 'svg.chart g.s[data-i="0"]');
    lis[0].click();
    var hidden = lis[0].classList.contains('off') && first.every(function (x) { return display(x) === 'none'; });
    lis[0].click();
    var shown = !lis[0].classList.contains('off') && first.every(function (x) { return display(x) !== 'none'; });
    if (!hidden) return name + ': a click on the first legend entry did not hide its series';
    if (!shown) return name + ': a second click on the first legend entry did not show its series again';
    return '';
  }
  function check() {
    if (!charts.length) return 'no chart in the page';
    for (var c = 0; c < charts.length; c++) {
      var problem = checkChart(charts[c], c);
      if (problem) return problem;
    }
    var answer = document.getElementById('answer'), table = document.querySelector('table');
    if (answer) {
      if (!answer.querySelector('p.summary')) return '#answer has no p.summary';
      if (!answer.querySelector('svg.chart')) return '#answer has no chart';
      if (table && !(answer.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING)) {
        return '#answer comes after the first table';
      }
    }
    return '';
  }
  var out = document.getElementById('selftest');
  if (!out) {
    out = document.createElement('span');
    out.id = 'selftest';
    document.body.appendChild(out);
  }
  var problem;
  try { problem = check(); } catch (e) { problem = 'exception: ' + e; }
  out.textContent = 'selftest: ' + (problem ? 'FAIL: ' + problem : 'ok (' + charts.length + ' charts)');
})();
)js";

}  // namespace

std::string_view ReportScript() { return kScript; }

}  // namespace storebench
