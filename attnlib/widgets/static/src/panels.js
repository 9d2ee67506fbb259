// The panels beside and below the heatmap: the query's token, its weights as bars, its
// context vector as a weighted blend of the value vectors, and lines of text. Bars and
// blend are built once per sentence and repainted in place: a move writes only the
// numbers, bar lengths and marks that changed. The query's own token carries one mark in
// both (class attnlib-query-mark, aria-current), as its row does in the heatmap.

import { captionFor, make, markable, pick, setText, stacked } from "./dom.js";
import { fill, fixed } from "./format.js";
import { draw, frameCells, setLook, underlay } from "./underlay.js";

/** Which token is the query (b.attnlib-token): `label`, filled by the view. */
export function paintToken(node, label) {
  setText(node, label);
}

/** Item `k` of `items` (elements) marked as the query's, -1 for none; `state.mark` the last. */
function mark(items, k, state) {
  if (state.mark === k) return;
  [state.mark, k].forEach((m) => {
    if (m < 0 || m >= items.length) return;
    const on = m === k;
    items[m].classList.toggle("attnlib-query-mark", on);
    if (on) items[m].setAttribute("aria-current", "true");
    else items[m].removeAttribute("aria-current");
  });
  state.mark = k;
}

/** The bars' rows, div[data-col=j] each, its value in the last span: built once. */
export function buildBars(node, tokens) {
  const heading = make("div", "attnlib-panel-title");
  const rows = [],
    bars = [],
    values = [];
  tokens.forEach((token, j) => {
    const row = make("div", "attnlib-bar-row");
    row.dataset.col = j;
    const bar = make("span", "attnlib-bar");
    const value = make("span", "attnlib-bar-value");
    const label = make("span", "attnlib-bar-label");
    // The token, and the same in bold on the query's row: the row keeps its height (a long
    // token wraps as its bold self would).
    markable(label, token);
    row.append(label, bar, value);
    rows.push(row);
    bars.push(bar);
    values.push(value);
  });
  node.replaceChildren(heading, ...rows);
  return { heading, rows, bars, values, scales: [], mark: -1 };
}

/** One query's weights as bars, the query's own token marked; `title` the heading. */
export function paintBars(parts, weights, query, title) {
  const top = Math.max(...weights, 1e-12);
  setText(parts.heading, title);
  weights.forEach((w, j) => {
    // A bar is its track (100 px: the panel fits beside the heatmap) scaled: a new length
    // moves no layout, as a new width would (the value beside it, the row).
    const scale = `scaleX(${(Math.max(w, 0) / top).toFixed(3)})`;
    if (parts.scales[j] !== scale) {
      parts.bars[j].style.transform = scale;
      parts.scales[j] = scale;
    }
    setText(parts.values[j], fixed(w));
  });
  mark(parts.rows, query, parts);
}

/** A row of the blend: its label (th, filled by the caller), w_j, then `size` terms. */
function blendRow(size, className) {
  const tr = make("tr", className);
  const weight = make("td", "attnlib-weight");
  const th = make("th");
  tr.append(th, weight);
  const terms = Array.from({ length: size }, (_, k) => {
    const td = make("td", "attnlib-term");
    td.dataset.k = k;
    tr.append(td);
    return td;
  });
  return { tr, th, weight, terms };
}

/**
 * The blend's table, built once for `tokens` and vectors of `size` numbers: one row per key
 * j (tr[data-col]), w_j then w_j·v_j shaded by w_j, then the row z = their sum
 * (tr.attnlib-context). `widest`: the widest number it will show; `texts`: the panels'.
 * Its numbers are drawn on an underlay (underlay.js) and name their cells (aria-label).
 */
export function buildBlend(node, tokens, size, widest, texts) {
  const table = make("table", "attnlib-blend");
  const caption = captionFor(table);
  const rows = tokens.map((token, j) => {
    const row = blendRow(size, "");
    // The token, and the same in bold on the query's row: the row's class picks one.
    markable(row.th, token);
    row.tr.dataset.col = j;
    table.append(row.tr);
    return row;
  });
  const context = blendRow(size, "attnlib-context");
  // The context's label for every query (z(token)), one shown: a new query widens nothing.
  context.labels = stacked(context.th, tokens.map((_, query) => fill(texts.context, { query })));
  context.shown = -1;
  table.append(context.tr);
  table.style.setProperty("--attnlib-digits", String(widest.length));
  node.replaceChildren(caption, table);
  // A box that scrolls is one tab stop, named by the blend's caption (keyboard scrolling).
  node.tabIndex = 0;
  node.setAttribute("role", "region");
  node.setAttribute("aria-labelledby", caption.id);
  const cells = [...rows, context].map((row) => [row.weight, ...row.terms]);
  const layer = underlay(table, cells, node);
  return { caption, rows, trs: rows.map((r) => r.tr), context, layer, mark: -1 };
}

// Each w·v row is shaded by its weight (the heaviest row darkest): the blend at a glance.
const shade = (alpha) => `rgba(213, 94, 0, ${(0.45 * alpha).toFixed(3)})`;
const CONTEXT_SHADE = "rgba(213, 94, 0, 0.18)";

/** The context vector as a weighted blend of `values` by `weights`, in place. */
export function paintBlend(parts, weights, values, context, query, texts) {
  const top = Math.max(...weights, 1e-12);
  setText(parts.caption, texts.blend);
  // z(token of the query): the label the view gives (texts.context) is labels[query].
  const { context: z } = parts;
  z.shown = pick(z.labels, query, z.shown);
  const cols = parts.layer.cols;
  const changed = [];
  const paint = (k, look) => {
    if (setLook(parts.layer, k, look)) changed.push(k);
  };
  weights.forEach((w, j) => {
    paint(j * cols, { text: fixed(w), fill: "--attnlib-paper" });
    const fill = shade(Math.max(w, 0) / top);
    values[j].forEach((v, k) => paint(j * cols + 1 + k, { text: fixed(w * v), fill }));
  });
  const last = weights.length * cols;
  paint(last, null);
  context.forEach((v, k) => paint(last + 1 + k, { text: fixed(v), fill: CONTEXT_SHADE, weight: "bold" }));
  draw(parts.layer, changed);
  mark(parts.trs, query, parts);
  const inside = query >= 0 && query < weights.length;
  frameCells(parts.layer, "row", inside ? [query, 0, query, cols - 1] : null);
}

/** Lines of text in a monospace block. */
export function paintText(node, text) {
  setText(node, text);
}
