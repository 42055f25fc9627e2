#include "html_assets.h"

namespace qtune::reports {

const char* report_stylesheet() {
  // System fonts only: the report must render offline exactly as it does online.
  return R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0 auto;
       max-width: 1400px; padding: 16px 24px 48px; color: #1d1d1d; background: #fafafa; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p.meta, p.note { color: #555; font-size: 13px; margin: 4px 0 10px; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; overflow-wrap: anywhere; }
table { border-collapse: collapse; font-size: 13px; background: #fff; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.summary th { background: #f0f0f0; width: 240px; font-weight: 600; }
table.sortable th { cursor: pointer; background: #f0f0f0; user-select: none; white-space: nowrap; }
table.sortable th:hover { background: #e4e4e4; }
table.sortable th[aria-sort="ascending"]::after { content: " \25B2"; }
table.sortable th[aria-sort="descending"]::after { content: " \25BC"; }
.scroll { overflow-x: auto; max-width: 100%; border: 1px solid #e2e2e2; background: #fff; margin: 6px 0; }
.grid { display: flex; flex-wrap: wrap; gap: 10px; }
.grid > div { border: 1px solid #e2e2e2; background: #fff; }
details { margin: 8px 0; }
details > summary { cursor: pointer; font-weight: 600; font-size: 14px; padding: 4px 0; }
svg.chart { display: block; }
footer { margin-top: 40px; color: #777; font-size: 12px; }
)css";
}

const char* table_sort_script() {
  // Click a header to sort by that column (again to reverse). Cells carry data-value: numbers
  // sort numerically, text alphabetically, and empty cells always last.
  return R"js(
(function () {
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (th, column) {
      th.addEventListener('click', function () {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[column].getAttribute('data-value') || '';
          var y = b.cells[column].getAttribute('data-value') || '';
          if (x === '' || y === '') return (x === '') - (y === '');
          var nx = Number(x), ny = Number(y);
          var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
)js";
}

}  // namespace qtune::reports
