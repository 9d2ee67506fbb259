// The widget (anywidget's `render`). Each kind of explorer builds its parts once per
// sentence (`build`) and draws its view (views.js) into them (`draw`), with no kernel
// involved: the controls reach the model through jsdlink.

import { DIMS, fits } from "./compute.js";
import { watchControls } from "./controls.js";
import { make } from "./dom.js";
import { fill, products } from "./format.js";
import { buildHeatmap, paintHeatmap } from "./heatmap.js";
import { paintBars, paintBlend, paintText, paintToken } from "./panels.js";
import { VIEWS } from "./views.js";

/** A weights cell's description: its value, its tokens, the score it came from. */
function weightCell(data, weights, scores, dim, masked) {
  const texts = data.texts.panels;
  return (i, j) => {
    const fields = { i, j, token_i: data.tokens[i], token_j: data.tokens[j], dim };
    if (masked && masked[i][j]) return fill(texts.cell_masked, fields);
    return fill(texts.cell_weight, { ...fields, value: weights[i][j], score: scores[i][j] });
  };
}

/** The query-centred layout: token, then heatmap, bars and blend side by side, then text. */
function queryLayout(root, data, legend, totals) {
  const head = make("div", "attnlib-head");
  const token = make("b", "attnlib-token");
  head.append(token);
  const row = make("div", "attnlib-row");
  const { panels } = data.texts;
  const heatmap = buildHeatmap(row, data.tokens, { texts: panels, label: legend, totals });
  const bars = make("div", "attnlib-bars");
  const blendBox = make("div", "attnlib-blend-panel");
  row.append(bars, blendBox);
  const formula = make("div", "attnlib-formula");
  root.append(head, row, formula);
  return { token, heatmap, bars, blendBox, formula };
}

/** The query's token, bars and blend, as `view` gives them. */
function drawQueryPanels(parts, data, query, view) {
  paintToken(parts.token, view.panels.label);
  paintBars(parts.bars, view.row, data.tokens, query, view.panels.bars);
  paintBlend(parts.blendBox, view.row, view.values, view.context, data.tokens, view.panels);
}

const QUERY = {
  build: (root, data) => queryLayout(root, data, data.texts.query.legend, false),
  draw(parts, data, view, { query }) {
    const [vmin, vmax] = view.limits;
    paintHeatmap(parts.heatmap, view.weights, { vmin, vmax, row: query, caption: view.caption });
    parts.heatmap.describe = weightCell(data, view.weights, data.scores, -1, null);
    drawQueryPanels(parts, data, query, view);
    paintText(parts.formula, view.formula);
  },
};

const SOFTMAX = {
  build(root, data) {
    const texts = data.texts;
    const heatmap = buildHeatmap(root, data.tokens, {
      texts: texts.panels,
      label: texts.softmax.legend,
      totals: true,
    });
    const explanation = make("div", "attnlib-explanation");
    root.append(explanation);
    return { heatmap, explanation };
  },
  draw(parts, data, view, { dim }) {
    const [vmin, vmax] = view.limits;
    const { sums, caption } = view;
    paintHeatmap(parts.heatmap, view.weights, { vmin, vmax, sums, caption });
    parts.heatmap.describe = weightCell(data, view.weights, data.scores, dim, null);
    paintText(parts.explanation, view.explanation);
  },
};

const LOOP = {
  build(root, data) {
    const position = make("div", "attnlib-position");
    root.append(position);
    const { panels, loop } = data.texts;
    const heatmap = buildHeatmap(root, data.tokens, { texts: panels, label: loop.legend });
    const code = make("div", "attnlib-code");
    const formula = make("div", "attnlib-formula");
    root.append(code, formula);
    return { position, heatmap, code, formula };
  },
  draw(parts, data, view) {
    const [vmin, vmax] = view.limits;
    const how = (a, b) => (view.filled(a, b) ? "plain" : "blank");
    const options = { vmin, vmax, how, at: view.at, caption: view.caption };
    paintHeatmap(parts.heatmap, view.scores, options);
    const texts = data.texts.panels;
    parts.heatmap.describe = (i, j) => {
      const fields = { i, j, token_i: data.tokens[i], token_j: data.tokens[j] };
      if (!view.filled(i, j)) return fill(texts.cell_empty, fields);
      const terms = products(texts, data.inputs[i], data.inputs[j]);
      return fill(texts.cell_score, { ...fields, products: terms, value: view.scores[i][j] });
    };
    paintText(parts.position, view.position);
    paintText(parts.code, view.code);
    paintText(parts.formula, view.formula);
  },
};

const ATTENTION = {
  build: (root, data) => queryLayout(root, data, data.texts.attention.legend, true),
  draw(parts, data, view, state) {
    const { query } = state;
    const [vmin, vmax] = view.limits;
    const how = (i, j) => (view.masked[i][j] ? "masked" : "plain");
    const sums = [view.rowSums, view.colSums];
    const options = { vmin, vmax, how, row: query, sums, caption: view.caption };
    paintHeatmap(parts.heatmap, view.weights, options);
    // The score as it goes into softmax: scaled by the head and the temperature.
    const { dim } = state;
    parts.heatmap.describe = weightCell(data, view.weights, view.scaled, dim, view.masked);
    drawQueryPanels(parts, data, query, view);
    paintText(parts.formula, view.formula);
  },
};

const TRAINING = {
  build(root, data) {
    const row = make("div", "attnlib-row");
    const { panels, training } = data.texts;
    const heatmap = buildHeatmap(row, data.tokens, { texts: panels, label: training.legend });
    const bars = make("div", "attnlib-bars");
    row.append(bars);
    const formula = make("div", "attnlib-formula");
    root.append(row, formula);
    return { heatmap, bars, formula };
  },
  draw(parts, data, view, { query }) {
    const [vmin, vmax] = view.limits;
    paintHeatmap(parts.heatmap, view.weights, { vmin, vmax, row: query, caption: view.caption });
    paintBars(parts.bars, view.row, data.tokens, query, view.bars);
    paintText(parts.formula, view.formula);
  },
};

const KINDS = { query: QUERY, softmax: SOFTMAX, loop: LOOP, attention: ATTENTION, training: TRAINING };
// The controls each kind follows, by the names controls.js knows them.
const NAMED = {
  query: () => ["query"],
  softmax: () => ["dim"],
  loop: () => ["step"],
  attention: (data) => ["query", "temperature", "dim", ...(data.heads.length > 1 ? ["head"] : [])],
  // The head is a drop-down, named by its own label; the step slider walks the snapshots.
  training: () => ["query", "step"],
};

/** The fields of the controls' spoken values (TEXTS["controls"]). */
function spoken(data, state) {
  const n = data.tokens.length;
  const [i, j] = [Math.floor(state.step / n), state.step % n];
  return {
    ...state,
    token: data.tokens[state.query] ?? "",
    last_head: (data.heads?.length ?? 1) - 1,
    iteration: state.step + 1,
    snapshots: data.steps?.length ?? 0,
    iterations: n * n,
    i,
    j,
    token_i: data.tokens[i] ?? "",
    token_j: data.tokens[j] ?? "",
  };
}
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
  const name = model.get("kind");
  const kind = KINDS[name];
  const root = make("div", `attnlib-view attnlib-view-${name}`);
  el.append(root);
  let parts = null;
  let controls = null;
  const redraw = () => {
    const data = model.get("data");
    const state = stateOf(model);
    // A value that does not fit (a kernel moving two controls one after the other) is
    // skipped: the last good drawing stays until the values fit again.
    if (!parts || !fits(data, state)) return;
    const view = VIEWS[name](data, state);
    kind.draw(parts, data, view, state);
    const values = spoken(data, state);
    controls.update({ ...state, dim_index: model.get("dim_index") }, values, view.announce ?? "");
  };
  const rebuild = () => {
    root.replaceChildren();
    if (controls) controls.dispose();
    const data = model.get("data");
    parts = data && data.tokens ? kind.build(root, data) : null;
    // A kind may say its controls in its own words (the training explorer's step is a snapshot).
    const texts = () => ({ ...data.texts.controls, ...(data.texts[name]?.controls ?? {}) });
    controls = parts ? watchControls(el, root, NAMED[name](data), texts) : null;
    redraw();
  };
  model.on("change:data", rebuild);
  CONTROLS.forEach((control) => model.on(`change:${control}`, redraw));
  rebuild();
  return () => {
    model.off("change:data", rebuild);
    if (controls) controls.dispose();
    CONTROLS.forEach((control) => model.off(`change:${control}`, redraw));
  };
}

export default { render };
