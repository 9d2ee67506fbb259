// The heatmap: a table built once per sentence (`buildHeatmap`) and repainted in place on
// every control move (`paintHeatmap`), touching only the cells whose number or colour
// changed. In a large grid the cells' fills and numbers are pixels of a canvas beneath the
// table (underlay.js): a move that changes every number redraws pixels, instead of
// restyling, laying out and painting a thousand elements; a small grid's are written into
// its cells. The table's cells stay the grid a keyboard and a screen reader use:
// a WAI-ARIA grid with one tab stop (a roving tabindex), arrow keys moving between cells,
// each cell named by its number (aria-label), and the cell under the pointer or the keyboard
// saying how it was computed (in the details line and its title).
// Nothing a move changes lays the table out again: the caption is a box before it, and a
// row label holds its token and its marked text, one shown (dom.js markable).
// Hooks for tests and styles: table.attnlib-heatmap (named by div.attnlib-caption before
// it), td[data-row][data-col] (aria-label: the number shown, then "masked" where masked;
// td.attnlib-masked), the underlay's (underlay.js), sums in data-col="sum" / data-row="sum",
// tr.attnlib-highlight-row, td.attnlib-highlight-cell (each drawn as the underlay's frame
// "row" or "cell"), blank cells with data-empty,
// div.attnlib-cell-details.

import { LEVEL_COLORS, gradient, levelOf } from "./colors.js";
import { captionFor, make, markable, setText, uniqueId } from "./dom.js";
import { fill, fixed, total as sumText } from "./format.js";
import { draw, frameCells, setLook, underlay } from "./underlay.js";

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
  // The row sums' heading sticks at the right with them (explorer.css).
  if (totals) tr.append(header(texts.row_sum, "col", "attnlib-total attnlib-sums-head"));
  return tr;
}

/** A grid cell: an empty box over the canvas, named by the number drawn beneath it. */
function gridCell(i, j) {
  const td = cell("td", i, j);
  td.tabIndex = -1;
  return td;
}

function bodyRow(tokens, i, totals, parts, current) {
  const tr = make("tr");
  tr.dataset.row = i;
  const label = header("", "row");
  // The token, and the same marked as the query's; the row's class picks one.
  markable(label, tokens[i], current);
  const cells = tokens.map((_, j) => gridCell(i, j));
  tr.append(label, ...cells);
  if (totals) {
    const sum = cell("td", i, "sum", "attnlib-total");
    tr.append(sum);
    parts.rowSums.push(sum);
  }
  parts.rows.push(tr);
  parts.cells.push(cells);
  return tr;
}

function sumsRow(tokens, parts, texts) {
  const tr = make("tr");
  tr.dataset.row = "sum";
  parts.colSums = tokens.map((_, j) => cell("td", "sum", j, "attnlib-total"));
  // An empty corner under the row sums, sticking with them: a phone's scrolled grid shows no
  // column sum under the sums' column.
  const corner = make("td", "attnlib-sums-corner");
  tr.append(header(texts.column_sum, "row", "attnlib-total"), ...parts.colSums, corner);
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

/** The cell (i, j) a key moves to from (i, j) in an n x n grid; null for other keys. */
export function moved(key, i, j, n) {
  const clamp = (v) => Math.min(Math.max(v, 0), n - 1);
  const to = {
    ArrowUp: [i - 1, j],
    ArrowDown: [i + 1, j],
    ArrowLeft: [i, j - 1],
    ArrowRight: [i, j + 1],
    Home: [i, 0],
    End: [i, n - 1],
  }[key];
  return to ? to.map(clamp) : null;
}

/** The grid's keyboard and pointer: a roving tab stop, and details of the cell in view. */
function wireGrid(parts, details) {
  const n = parts.cells.length;
  const at = (node) => {
    const td = node?.closest?.("td[data-row]");
    const [i, j] = td ? [Number(td.dataset.row), Number(td.dataset.col)] : [NaN, NaN];
    return Number.isInteger(i) && Number.isInteger(j) ? [i, j] : null;
  };
  const show = (i, j) => {
    const text = parts.describe ? parts.describe(i, j) : "";
    parts.cells[i][j].title = text;
    setText(details, text);
    if (parts.onCell) parts.onCell(i, j);
  };
  parts.activate = (i, j) => {
    const [a, b] = parts.active;
    if (a !== i || b !== j) {
      parts.cells[a][b].tabIndex = -1;
      parts.cells[a][b].removeAttribute("aria-describedby");
      parts.cells[i][j].tabIndex = 0;
      parts.cells[i][j].setAttribute("aria-describedby", details.id);
      parts.active = [i, j];
    }
  };
  parts.table.addEventListener("keydown", (event) => {
    const here = at(event.target);
    const to = here && moved(event.key, here[0], here[1], n);
    if (!to) return;
    event.preventDefault();
    parts.activate(...to);
    show(...to); // before focus, so that the description read on focus is this cell's
    parts.cells[to[0]][to[1]].focus();
  });
  parts.table.addEventListener("focusin", (event) => {
    const here = at(event.target);
    if (!here) return;
    parts.activate(...here);
    show(...here);
    // The keyboard's ring as a frame too: the query's frame, over the cells, would hide
    // the cell's own outline.
    const ring = event.target.matches(":focus-visible") ? [...here, ...here] : null;
    frameCells(parts.layer, "focus", ring);
  });
  parts.table.addEventListener("focusout", (event) => {
    if (!parts.table.contains(event.relatedTarget)) frameCells(parts.layer, "focus", null);
  });
  // Written only when the pointer rests on a cell, not on every move of a control.
  parts.table.addEventListener("mouseover", (event) => {
    const here = at(event.target);
    if (here) show(...here);
    // A sum's exact value, as its title (paintSum keeps it up to date from then on).
    const sum = event.target.closest?.("td.attnlib-total");
    if (sum?.attnlibSum !== undefined && sum.title !== sum.attnlibSum) sum.title = sum.attnlibSum;
  });
  parts.show = show;
}

/**
 * A heatmap of `tokens` x `tokens` in `parent`; `totals`: with row and column sums; `texts`:
 * the panels' texts (TEXTS["panels"]); `label`: the legend's; `widest`: the widest number a
 * cell will show (cells are as wide as it, and at least 4.2em).
 */
export function buildHeatmap(parent, tokens, { texts, label, totals = false, widest = "0.0000" }) {
  const table = make("table", "attnlib-heatmap");
  table.setAttribute("role", "grid");
  const caption = captionFor(table);
  const parts = { table, caption, rows: [], cells: [], rowSums: [], colSums: [] };
  table.append(headerRow(tokens, totals, texts));
  tokens.forEach((token, i) => {
    const current = fill(texts.current, { token });
    table.append(bodyRow(tokens, i, totals, parts, current));
  });
  if (totals) table.append(sumsRow(tokens, parts, texts));
  parts.legend = legend(label);
  parts.masked = texts.masked;
  parts.dropped = texts.dropped;
  parts.row = -1;
  parts.at = null;
  // What each cell (index i * n + j) shows now: a repaint writes only the differences.
  const size = tokens.length ** 2;
  const slots = () => new Array(size).fill(null);
  parts.shown = { how: slots(), value: slots(), scale: slots() };

  // Sums reach n: "32.0000" is as wide as they get.
  const digits = Math.max(widest.length, totals ? fixed(tokens.length).length : 0);
  table.style.setProperty("--attnlib-digits", String(digits));
  parts.limits = "";
  const scroller = make("div", "attnlib-heatmap-scroll");
  scroller.append(table);
  // The column sums share the grid's columns (and its underlay); the row sums stick at the
  // right, with theirs.
  const rows = totals ? [...parts.cells, parts.colSums] : parts.cells;
  parts.layer = underlay(table, rows, scroller);
  const sums = parts.rowSums.map((td) => [td]);
  const sticky = { sticky: true, pixels: parts.layer.pixels };
  parts.sumsLayer = totals ? underlay(table, sums, scroller, sticky) : null;
  // Said only while the table is wider than its box (a phone, a long sentence).
  const scroll = totals ? texts.scroll_sums : texts.scroll;
  const cue = make("div", "attnlib-scroll-cue", scroll);
  scroller.tabIndex = 0;
  scroller.setAttribute("role", "region");
  scroller.setAttribute("aria-label", scroll);
  const details = make("div", "attnlib-cell-details");
  details.id = uniqueId("attnlib-cell-details");
  parts.details = details;
  parts.describe = null;
  parts.onCell = null;
  parts.active = [0, 0];
  parts.cells[0][0].tabIndex = 0;
  parts.cells[0][0].setAttribute("aria-describedby", details.id);
  wireGrid(parts, details);
  const wrap = make("div", "attnlib-heatmap-wrap");
  wrap.append(caption, cue, scroller, parts.legend.box, details);
  parent.append(wrap);
  if (typeof ResizeObserver !== "undefined") {
    const mark = () =>
      wrap.classList.toggle("attnlib-scrolls", scroller.scrollWidth > scroller.clientWidth + 1);
    new ResizeObserver(mark).observe(scroller);
  }
  return parts;
}

const PLAIN = () => "plain";

/** Cell k = (i, j) to show `value` as `how` on vmin..vmax; true if its pixels change. */
function paintCell(parts, i, j, value, how, vmin, vmax) {
  const k = i * parts.cells.length + j;
  const { shown } = parts;
  // The same number, state and colour scale as shown: nothing to format or write.
  if (shown.how[k] === how && shown.value[k] === value && shown.scale[k] === parts.scale) {
    return false;
  }
  const was = shown.how[k];
  shown.how[k] = how;
  shown.value[k] = value;
  shown.scale[k] = parts.scale;
  const td = parts.cells[i][j];
  if ((was === "masked") !== (how === "masked")) td.classList.toggle("attnlib-masked");
  if ((was === "dropped") !== (how === "dropped")) td.classList.toggle("attnlib-dropped");
  if ((was === "blank") !== (how === "blank")) {
    if (how === "blank") td.dataset.empty = "1";
    else delete td.dataset.empty;
  }
  if (how === "blank") return setLook(parts.layer, k, null);
  const text = fixed(value);
  if (how === "masked" || how === "dropped") {
    const look = { text, fill: "--attnlib-masked-fill", ink: "--attnlib-masked-ink" };
    // Read as masked (or dropped), not as a weight of 0.0000: its number, then the word.
    const word = how === "masked" ? parts.masked : parts.dropped;
    return setLook(parts.layer, k, { ...look, weight: "italic" }, `${text} ${word}`);
  }
  const { background, color } = LEVEL_COLORS[levelOf(value, vmin, vmax)];
  return setLook(parts.layer, k, { text, fill: background, ink: color });
}

// A sum of one stands out: bold, on a green tint over the sums' fill.
const SUM = { fill: "--attnlib-sum-fill", weight: "italic" };
const SUM_ONE = { fill: ["--attnlib-paper", "rgba(0, 158, 115, 0.25)"], weight: "bold italic" };

/** Sum cell `td`, cell k of `layer`, to show `total`; true if its pixels change. */
function paintSum(layer, td, total, k) {
  // A softmax's row is shown summing to 1.0000 (its four-decimal weights may add up to
  // 0.9999); the exact sum is the cell's title. Written only when the sums change, and only
  // into a cell the pointer has been on (the grid's mouseover writes the first): a title
  // written restyles its cell, 64 of them on every move otherwise.
  const text = sumText(total);
  const one = Math.abs(total - 1) <= 1e-4;
  td.attnlibSum = String(total);
  if (td.title) td.title = td.attnlibSum;
  return setLook(layer, k, { text, ...(one ? SUM_ONE : SUM) });
}

/** Row `row` marked as the query's (or no row, -1): only the rows gaining or losing it change. */
function paintRow(parts, row) {
  if (parts.row === row) return;
  [parts.row, row].forEach((i) => {
    if (i < 0 || i >= parts.rows.length) return;
    const current = i === row;
    parts.rows[i].classList.toggle("attnlib-highlight-row", current);
    if (current) parts.rows[i].setAttribute("aria-current", "true");
    else parts.rows[i].removeAttribute("aria-current");
  });
  parts.row = row;
  const n = parts.cells.length;
  frameCells(parts.layer, "row", row >= 0 && row < n ? [row, 0, row, n - 1] : null);
}

function paintAt(parts, at) {
  const key = at ? `${at[0]},${at[1]}` : "";
  if (parts.at === key) return;
  if (parts.at) {
    const [i, j] = parts.at.split(",").map(Number);
    parts.cells[i][j].classList.remove("attnlib-highlight-cell");
  }
  if (at) parts.cells[at[0]][at[1]].classList.add("attnlib-highlight-cell");
  parts.at = key;
  frameCells(parts.layer, "cell", at ? [at[0], at[1], at[0], at[1]] : null);
}

/**
 * Repaint `parts` with `values` (grid), coloured on vmin..vmax. Options: `how(i, j)` ->
 * "blank" | "masked" | "plain"; `row` (highlighted row), `at` ([i, j] highlighted cell),
 * `sums` ([rowSums, colSums]), `caption`. When `values`, `how`, `sums` and the limits are
 * those of the last paint (only the marks moved), no cell is looked at.
 */
export function paintHeatmap(
  parts,
  values,
  { vmin, vmax, how = PLAIN, row = -1, at = null, sums = null, caption = "" },
) {
  setText(parts.caption, caption);
  const painted = [values, how, sums, vmin, vmax];
  const same = parts.painted?.every((x, k) => x === painted[k]) ?? false;
  parts.painted = painted;
  const changed = [];
  if (!same) {
    parts.scale = `${vmin} ${vmax}`;
    const n = parts.cells.length;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        if (paintCell(parts, i, j, values[i][j], how(i, j), vmin, vmax)) changed.push(i * n + j);
      }
    }
  }
  paintRow(parts, row);
  paintAt(parts, at);
  const sumsChanged = [];
  if (sums && !same) {
    const below = parts.cells.length ** 2;
    parts.colSums.forEach((td, j) => {
      if (paintSum(parts.layer, td, sums[1][j], below + j)) changed.push(below + j);
    });
    parts.rowSums.forEach((td, i) => {
      if (paintSum(parts.sumsLayer, td, sums[0][i], i)) sumsChanged.push(i);
    });
  }
  draw(parts.layer, changed);
  if (parts.sumsLayer) draw(parts.sumsLayer, sumsChanged);
  const limits = `${fixed(vmin)} ${fixed(vmax)}`;
  if (parts.limits !== limits) {
    setText(parts.legend.low, fixed(vmin));
    setText(parts.legend.high, fixed(vmax));
    parts.limits = limits;
  }
}
