// Part of the explorers' front end (see format.js); this last part is the widget. Each kind
// of explorer builds its parts once per sentence (`build`) and draws the controls' values
// into them (`draw`), with no kernel involved: the controls reach the model through jsdlink.

const WHY_ROWS =
  "Why dim=-1: query i's context vector blends the inputs with the weights in row i, " +
  "so each row must be one distribution over the tokens. Softmax along dim=-1 normalises " +
  "every row on its own; dim=0 normalises each column across different queries.";

const ones = (sums) => sums.every((s) => Math.abs(s - 1) <= 1e-4);

/** The query-centred layout: token, then heatmap, bars and blend side by side, then text. */
function queryLayout(root, tokens, totals) {
  const head = make("div", "attnlib-head");
  const token = make("b", "attnlib-token");
  head.append(token);
  const row = make("div", "attnlib-row");
  const heatmap = buildHeatmap(row, tokens, { totals, label: "attention weight" });
  const bars = make("div", "attnlib-bars");
  const blendBox = make("div", "attnlib-blend-panel");
  row.append(bars, blendBox);
  const formula = make("div", "attnlib-formula");
  root.append(head, row, formula);
  return { token, heatmap, bars, blendBox, formula };
}

function drawQueryPanels(parts, tokens, query, row, values, context, vec) {
  paintToken(parts.token, query, tokens[query]);
  paintBars(parts.bars, row, tokens, query);
  paintBlend(parts.blendBox, row, values, context, tokens, query, vec);
}

const QUERY = {
  build(root, data) {
    const parts = queryLayout(root, data.tokens, false);
    parts.weights = softmaxGrid(data.scores, true);
    parts.limits = extent(parts.weights);
    return parts;
  },
  draw(parts, data, { query }) {
    const row = parts.weights[query];
    const [vmin, vmax] = parts.limits;
    const caption = "attention weights: rows = queries, columns = the tokens compared";
    paintHeatmap(parts.heatmap, parts.weights, { vmin, vmax, row: query, caption });
    const context = blend(row, data.values);
    drawQueryPanels(parts, data.tokens, query, row, data.values, context, "x");
    const sum = weightedSum(row, data.tokens, "x");
    const z = `z(${data.tokens[query]}) = ${sum} = ${vectorText(context)}`;
    paintText(parts.formula, z);
  },
};

function softmaxText(dim, sums) {
  const [rows, cols] = sums;
  let what;
  if (dim === -1) {
    what = "dim=-1 normalises across each row: every row sums to 1";
    if (!ones(cols)) what += `; the columns do not (sums ${spanText(cols)})`;
  } else {
    what = "dim=0 normalises down each column: every column sums to 1";
    if (!ones(rows))
      what += `; the rows do not (sums ${spanText(rows)}), so no query has a distribution`;
  }
  return `${what}. ${WHY_ROWS}`;
}

const SOFTMAX = {
  build(root, data) {
    const scores = scoresOf(data.scores);
    const heatmap = buildHeatmap(root, data.tokens, { totals: true, label: "attention weight" });
    const explanation = make("div", "attnlib-explanation");
    root.append(explanation);
    // Both axes' weights, on one colour scale, so that flipping compares like with like.
    const weights = DIMS.map((dim) => softmaxGrid(scores, dim === -1));
    return { heatmap, explanation, weights, limits: extent(...weights) };
  },
  draw(parts, data, { dim }) {
    const weights = parts.weights[DIMS.indexOf(dim)];
    const sums = [rowSums(weights), colSums(weights)];
    const [vmin, vmax] = parts.limits;
    const caption = `softmax(attn_scores, dim=${dim}): rows = queries, columns = the tokens compared`;
    paintHeatmap(parts.heatmap, weights, { vmin, vmax, sums, caption });
    paintText(parts.explanation, softmaxText(dim, sums));
  },
};

const LOOP = {
  build(root, data) {
    const position = make("div", "attnlib-position");
    root.append(position);
    const heatmap = buildHeatmap(root, data.tokens, { label: "attention score" });
    const code = make("div", "attnlib-code");
    const formula = make("div", "attnlib-formula");
    root.append(code, formula);
    return { position, heatmap, code, formula, limits: extent(data.scores) };
  },
  draw(parts, data, { step }) {
    const { tokens, scores, inputs } = data;
    const n = tokens.length;
    const [i, j] = [Math.floor(step / n), step % n];
    const [vmin, vmax] = parts.limits;
    const how = (a, b) => (a * n + b <= step ? "plain" : "blank");
    const caption = "attention scores: rows = queries (i), columns = the tokens compared (j)";
    paintHeatmap(parts.heatmap, scores, { vmin, vmax, how, at: [i, j], caption });
    paintText(
      parts.position,
      `iteration ${step + 1} of ${n * n}: i = ${i} (${tokens[i]}), j = ${j} (${tokens[j]})`,
    );
    paintText(parts.code, `attn_scores[${i}, ${j}] = torch.dot(x_${i}, x_${j})`);
    const products = inputs[i].map((a, k) => `${factor(a)}×${factor(inputs[j][k])}`).join(" + ");
    paintText(
      parts.formula,
      `x(${tokens[i]})·x(${tokens[j]}) = ${products} = ${fixed4(scores[i][j])}`,
    );
  },
};

function attentionLines(data, state, view) {
  const { tokens, heads, scale } = data;
  const { query, dim, causal, temperature, head } = state;
  const t = general(temperature);
  const axis = dim === -1 ? "across each row" : "down each column";
  const lines = [
    `query ${query} ${pyRepr(tokens[query])} | softmax dim=${dim} (${axis}) | ` +
      `causal mask ${causal ? "on" : "off"} | temperature ${t}`,
    heads.length === 1
      ? `attn_weights = softmax(attn_scores / temperature, dim=${dim})`
      : `head ${head} of ${heads.length}: attn_weights = ` +
        `softmax(queries @ keys.T / sqrt(${view.context.length}) / temperature, dim=${dim})`,
    `attn_scores[${query}] = ${vectorText(view.scores[query])}`,
  ];
  if (scale !== 1 || temperature !== 1 || causal)
    lines.push(`into softmax: ${vectorText(view.scaled[query])}`);
  const vec = heads.length === 1 ? "x" : "v";
  lines.push(
    `z(${tokens[query]}) = ${weightedSum(view.row, tokens, vec)} = ${vectorText(view.context)}`,
  );
  lines.push(sumsLine(dim, causal, query, view.rowSums, view.colSums));
  return lines.join("\n");
}

function sumsLine(dim, causal, query, rows, cols) {
  if (dim === -1) {
    let line = "every row sums to 1" + (causal ? "; masked weights are 0" : "");
    if (!ones(cols)) line += `; the columns do not (${spanText(cols)})`;
    return line;
  }
  let line = "every column sums to 1";
  if (!ones(rows))
    line +=
      `; row ${query} sums to ${fixed4(rows[query])}, ` +
      "so z is not a weighted average (use dim=-1 for that)";
  return line;
}

const ATTENTION = {
  build(root, data) {
    return queryLayout(root, data.tokens, true);
  },
  draw(parts, data, state) {
    const view = attentionOf(data, state);
    const { query, dim, causal, temperature, head } = state;
    const many = data.heads.length > 1;
    const scores = many
      ? `head ${head}'s attn_scores / sqrt(${view.context.length})`
      : "attn_scores";
    const rule = `softmax(${scores} / ${general(temperature)}, dim=${dim})`;
    const caption = `attn_weights = ${rule}${causal ? ", causal" : ""}: rows = queries, columns = keys`;
    // vmin = 0, not the smallest weight: a flat row looks flat and a sharp one bright.
    const vmax = Math.max(...view.weights.flat());
    const how = (i, j) => (view.masked[i][j] ? "masked" : "plain");
    paintHeatmap(parts.heatmap, view.weights, {
      vmin: 0,
      vmax,
      how,
      row: query,
      sums: [view.rowSums, view.colSums],
      caption,
    });
    drawQueryPanels(
      parts,
      data.tokens,
      query,
      view.row,
      view.values,
      view.context,
      many ? "v" : "x",
    );
    paintText(parts.formula, attentionLines(data, state, view));
  },
};

const KINDS = { query: QUERY, softmax: SOFTMAX, loop: LOOP, attention: ATTENTION };
const CONTROLS = ["query", "dim_index", "causal", "temperature", "head", "step"];

function stateOf(model) {
  return {
    query: model.get("query"),
    dim: DIMS[model.get("dim_index")],
    causal: model.get("causal"),
    temperature: model.get("temperature"),
    head: model.get("head"),
    step: model.get("step"),
  };
}

function render({ model, el }) {
  const kind = KINDS[model.get("kind")];
  const root = make("div", `attnlib-view attnlib-view-${model.get("kind")}`);
  el.append(root);
  let parts = null;
  const redraw = () => {
    const data = model.get("data");
    const state = stateOf(model);
    // A value that does not fit (a kernel moving two controls one after the other) is
    // skipped: the last good drawing stays until the values fit again.
    if (parts && fits(data, state)) kind.draw(parts, data, state);
  };
  const rebuild = () => {
    root.replaceChildren();
    const data = model.get("data");
    parts = data && data.tokens ? kind.build(root, data) : null;
    redraw();
  };
  model.on("change:data", rebuild);
  CONTROLS.forEach((name) => model.on(`change:${name}`, redraw));
  rebuild();
  return () => {
    model.off("change:data", rebuild);
    CONTROLS.forEach((name) => model.off(`change:${name}`, redraw));
  };
}

export default { render };
