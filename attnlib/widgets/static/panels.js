// Part of the explorers' front end (see format.js). The panels beside and below the
// heatmap: the query's token, its weights as bars, its context vector as a weighted blend
// of the value vectors, and lines of text. Each is redrawn whole: they are small.

/** "x(1) = 'journey'": which token is the query (b.attnlib-token). */
function paintToken(node, query, token) {
  node.textContent = `x(${query}) = ${pyRepr(token)}`;
}

/** One query's weights as bars, div[data-col=j] each, its value in the last span. */
function paintBars(node, weights, tokens, query) {
  const top = Math.max(...weights, 1e-12);
  const total = weights.reduce((s, w) => s + w, 0);
  // Bars of at most 100 px: with the labels and values, the panel fits beside the heatmap.
  const heading = make(
    "div",
    "attnlib-panel-title",
    `weights of query ${query} over the tokens (sum ${fixed4(total)}):`,
  );
  const rows = weights.map((w, j) => {
    const row = make("div", j === query ? "attnlib-bar-row attnlib-query-bar" : "attnlib-bar-row");
    row.dataset.col = j;
    const bar = make("span", "attnlib-bar");
    bar.style.width = `${(100 * Math.max(w, 0)) / top}px`;
    row.append(
      make("span", "attnlib-bar-label", tokens[j]),
      bar,
      make("span", "attnlib-bar-value", fixed4(w)),
    );
    return row;
  });
  node.replaceChildren(heading, ...rows);
}

function blendRow(label, weight, numbers, className, alpha) {
  const tr = make("tr", className);
  tr.append(make("th", "", label), make("td", "attnlib-weight", weight));
  numbers.forEach((v, k) => {
    const td = make("td", "attnlib-term", fixed4(v));
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
function paintBlend(node, weights, values, context, tokens, query, vec) {
  const top = Math.max(...weights, 1e-12);
  const table = make("table", "attnlib-blend");
  table.append(make("caption", "", `z(${tokens[query]}) = Σ w·${vec}, row by row:`));
  weights.forEach((w, j) => {
    const row = blendRow(
      `${tokens[j]}`,
      fixed4(w),
      values[j].map((v) => w * v),
      "",
      Math.max(w, 0) / top,
    );
    row.dataset.col = j;
    table.append(row);
  });
  table.append(blendRow(`z(${tokens[query]})`, "", context, "attnlib-context", null));
  node.replaceChildren(table);
}

/** Lines of text in a monospace block. */
function paintText(node, text) {
  node.textContent = text;
}
