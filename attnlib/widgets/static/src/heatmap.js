// The heatmap: a table built once per
// sentence (`buildHeatmap`) and repainted in place on every control move (`paintHeatmap`).
// Hooks for tests and styles: table.attnlib-heatmap, td[data-row][data-col], sums in
// data-col="sum" / data-row="sum", tr.attnlib-highlight-row, td.attnlib-highlight-cell,
// td.attnlib-masked, blank cells with data-empty.

import { cellColors, gradient } from "./colors.js";
import { make } from "./dom.js";
import { fill, fixed } from "./format.js";

function cell(tag, row, col, className = "") {
  const node = make(tag, className);
  node.dataset.row = row;
  node.dataset.col = col;
  return node;
}

/** A header cell for a column (`scope` "col") or a row ("row"). */
function header(text, scope, className = "") {
  const th = make("th", className, text);
  th.scope = scope;
  return th;
}

function headerRow(tokens, totals, texts) {
  const tr = make("tr");
  tr.append(header(texts.corner, "col", "attnlib-corner"), ...tokens.map((t) => header(t, "col")));
  if (totals) tr.append(header(texts.row_sum, "col", "attnlib-total"));
  return tr;
}

function bodyRow(tokens, i, totals, parts) {
  const tr = make("tr");
  tr.dataset.row = i;
  const label = header(tokens[i], "row");
  const cells = tokens.map((_, j) => cell("td", i, j));
  tr.append(label, ...cells);
  if (totals) {
    const sum = cell("td", i, "sum", "attnlib-total");
    tr.append(sum);
    parts.rowSums.push(sum);
  }
  parts.rows.push(tr);
  parts.labels.push(label);
  parts.cells.push(cells);
  return tr;
}

function sumsRow(tokens, parts, texts) {
  const tr = make("tr");
  tr.dataset.row = "sum";
  parts.colSums = tokens.map((_, j) => cell("td", "sum", j, "attnlib-total"));
  tr.append(header(texts.column_sum, "row", "attnlib-total"), ...parts.colSums);
  return tr;
}

function legend(label) {
  const box = make("div", "attnlib-legend");
  const low = make("span"),
    high = make("span");
  const bar = make("span", "attnlib-legend-bar");
  bar.style.background = gradient();
  box.append(make("span", "", `${label}:`), low, bar, high);
  return { box, low, high };
}

/**
 * A heatmap of `tokens` x `tokens` in `parent`; `totals`: with row and column sums; `texts`:
 * the panels' texts (TEXTS["panels"]); `label`: the legend's.
 */
export function buildHeatmap(parent, tokens, { texts, label, totals = false }) {
  const table = make("table", "attnlib-heatmap");
  const caption = make("caption");
  const parts = { table, caption, rows: [], labels: [], cells: [], rowSums: [], colSums: [] };
  table.append(caption, headerRow(tokens, totals, texts));
  tokens.forEach((_, i) => table.append(bodyRow(tokens, i, totals, parts)));
  if (totals) table.append(sumsRow(tokens, parts, texts));
  parts.legend = legend(label);
  parts.tokens = tokens;
  parts.current = tokens.map((token) => fill(texts.current, { token }));
  parts.masked = texts.masked;
  parts.row = -1;
  const scroller = make("div", "attnlib-heatmap-scroll");
  scroller.append(table);
  // Said only while the table is wider than its box (a phone, a long sentence).
  const scroll = totals ? texts.scroll_sums : texts.scroll;
  const cue = make("div", "attnlib-scroll-cue", scroll);
  scroller.tabIndex = 0;
  scroller.setAttribute("role", "region");
  scroller.setAttribute("aria-label", scroll);
  // How a cell was computed: written only when the pointer rests on it, not on every move.
  parts.describe = null;
  table.addEventListener("mouseover", (event) => {
    const td = event.target.closest?.("td[data-row]");
    const [i, j] = td ? [Number(td.dataset.row), Number(td.dataset.col)] : [NaN, NaN];
    if (parts.describe && Number.isInteger(i) && Number.isInteger(j)) {
      td.title = parts.describe(i, j);
    }
  });
  const wrap = make("div", "attnlib-heatmap-wrap");
  wrap.append(cue, scroller, parts.legend.box);
  parent.append(wrap);
  if (typeof ResizeObserver !== "undefined") {
    const mark = () =>
      wrap.classList.toggle("attnlib-scrolls", scroller.scrollWidth > scroller.clientWidth + 1);
    new ResizeObserver(mark).observe(scroller);
  }
  return parts;
}

function paintCell(td, value, how, vmin, vmax, masked) {
  const hidden = how === "masked";
  if (td.classList.contains("attnlib-masked") !== hidden) {
    td.classList.toggle("attnlib-masked", hidden);
    // Read as masked, not as a weight of 0.0000.
    if (hidden) td.setAttribute("aria-label", masked);
    else td.removeAttribute("aria-label");
  }
  if (how === "blank") {
    td.textContent = "";
    td.dataset.empty = "1";
    td.style.background = td.style.color = "";
    return;
  }
  delete td.dataset.empty;
  td.textContent = fixed(value);
  // Masked cells take the stylesheet's grey: no inline colour may win over it.
  const colors = how === "masked" ? { background: "", color: "" } : cellColors(value, vmin, vmax);
  td.style.background = colors.background;
  td.style.color = colors.color;
}

function paintSum(td, total) {
  td.textContent = fixed(total);
  td.classList.toggle("attnlib-sum-one", Math.abs(total - 1) <= 1e-4);
}

/**
 * Repaint `parts` with `values` (grid), coloured on vmin..vmax. Options: `how(i, j)` ->
 * "blank" | "masked" | "plain"; `row` (highlighted row), `at` ([i, j] highlighted cell),
 * `sums` ([rowSums, colSums]), `caption`.
 */
export function paintHeatmap(
  parts,
  values,
  { vmin, vmax, how = () => "plain", row = -1, at = null, sums = null, caption = "" },
) {
  parts.caption.textContent = caption;
  parts.cells.forEach((tds, i) => {
    tds.forEach((td, j) => {
      paintCell(td, values[i][j], how(i, j), vmin, vmax, parts.masked);
      td.classList.toggle("attnlib-highlight-cell", !!at && at[0] === i && at[1] === j);
    });
  });
  if (parts.row !== row) {
    // Only the rows that gain or lose the query change.
    [parts.row, row].forEach((i) => {
      if (i < 0 || i >= parts.rows.length) return;
      const current = i === row;
      parts.rows[i].classList.toggle("attnlib-highlight-row", current);
      if (current) parts.rows[i].setAttribute("aria-current", "true");
      else parts.rows[i].removeAttribute("aria-current");
      parts.labels[i].textContent = current ? parts.current[i] : parts.tokens[i];
    });
    parts.row = row;
  }
  if (sums) {
    parts.rowSums.forEach((td, i) => paintSum(td, sums[0][i]));
    parts.colSums.forEach((td, j) => paintSum(td, sums[1][j]));
  }
  parts.legend.low.textContent = fixed(vmin);
  parts.legend.high.textContent = fixed(vmax);
}
