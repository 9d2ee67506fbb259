// The panels beside and below the heatmap: the query's token, its weights as bars, its
// context vector as a weighted blend of the value vectors, and lines of text. Each is
// redrawn whole: they are small. Their texts come filled from views.js.

import { fixed } from "./format.js";
import { make } from "./dom.js";

/** Which token is the query (b.attnlib-token): `label`, filled by the view. */
export function paintToken(node, label) {
  node.textContent = label;
}

/** One query's weights as bars, div[data-col=j] each, its value in the last span. */
export function paintBars(node, weights, tokens, query, title) {
  const top = Math.max(...weights, 1e-12);
  // Bars of at most 100 px: with the labels and values, the panel fits beside the heatmap.
  const heading = make("div", "attnlib-panel-title", title);
  const rows = weights.map((w, j) => {
    const row = make("div", j === query ? "attnlib-bar-row attnlib-query-bar" : "attnlib-bar-row");
    row.dataset.col = j;
    const bar = make("span", "attnlib-bar");
    bar.style.width = `${(100 * Math.max(w, 0)) / top}px`;
    row.append(
      make("span", "attnlib-bar-label", tokens[j]),
      bar,
      make("span", "attnlib-bar-value", fixed(w)),
    );
    return row;
  });
  node.replaceChildren(heading, ...rows);
}

function blendRow(label, weight, numbers, className, alpha) {
  const tr = make("tr", className);
  tr.append(make("th", "", label), make("td", "attnlib-weight", weight));
  numbers.forEach((v, k) => {
    const td = make("td", "attnlib-term", fixed(v));
    td.dataset.k = k;
    if (alpha !== null) td.style.setProperty("--attnlib-alpha", alpha.toFixed(3));
    tr.append(td);
  });
  return tr;
}

/**
 * The context vector as a weighted blend: one row per key j, w_j·v_j (d numbers, shaded
 * by w_j), then the row z = their sum (tr.attnlib-context, td[data-k]).
 */
export function paintBlend(node, weights, values, context, tokens, texts) {
  const top = Math.max(...weights, 1e-12);
  const table = make("table", "attnlib-blend");
  table.append(make("caption", "", texts.blend));
  weights.forEach((w, j) => {
    const row = blendRow(
      `${tokens[j]}`,
      fixed(w),
      values[j].map((v) => w * v),
      "",
      Math.max(w, 0) / top,
    );
    row.dataset.col = j;
    table.append(row);
  });
  table.append(blendRow(texts.context, "", context, "attnlib-context", null));
  node.replaceChildren(table);
}

/** Lines of text in a monospace block. */
export function paintText(node, text) {
  node.textContent = text;
}
