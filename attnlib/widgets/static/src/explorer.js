// The widget (anywidget's `render`). Each kind of explorer builds its parts once per
// sentence (`build`) and draws its view (views.js) into them (`draw`), with no kernel
// involved: the controls reach the model through jsdlink.

import { DIMS, fits } from "./compute.js";
import { watchControls } from "./controls.js";
import { make } from "./dom.js";
import { fill, fixed } from "./format.js";
import { mathView } from "./formulas.js";
import { buildHeatmap, paintHeatmap } from "./heatmap.js";
import { paintMath } from "./mathml.js";
import { buildBars, buildBlend, paintBars, paintBlend, paintText, paintToken } from "./panels.js";
import { TRAINING } from "./training.js";
import { VIEWS, dropoutFields, spoken } from "./views.js";

/** A weights cell's description: its value, its tokens, the score it came from; with
 * dropout (`drop`: the view's softmax, dropped and rate), what dropout did to it. */
function weightCell(data, weights, scores, dim, masked, drop = null) {
  const texts = data.texts.panels;
  return (i, j) => {
    const fields = { i, j, token_i: data.tokens[i], token_j: data.tokens[j], dim };
    if (masked && masked[i][j]) return fill(texts.cell_masked, fields);
    if (drop && drop.rate > 0) {
      const before = drop.softmax[i][j];
      const cellText = drop.dropped[i][j] ? texts.cell_dropped : texts.cell_kept;
      return fill(cellText, { ...fields, value: weights[i][j], before, dropout: drop.rate });
    }
    return fill(texts.cell_weight, { ...fields, value: weights[i][j], score: scores[i][j] });
  };
}

/** The dropout bar: a "resample" button and a line saying the draw and the scaling. */
function dropoutBar(root, texts) {
  const bar = make("div", "attnlib-dropout");
  const button = make("button", "attnlib-resample", texts.resample);
  button.type = "button";
  const line = make("span", "attnlib-dropout-line");
  bar.append(button, line);
  root.append(bar);
  return { bar, button, line };
}

/**
 * The formula as math (div.attnlib-math), then the same in words and code, folded
 * (div.attnlib-formula inside a <details>): { math, formula }.
 */
/** The formula as math: a region the keyboard can reach and scroll on a narrow screen. */
function mathBox(texts) {
  const math = make("div", "attnlib-math");
  math.tabIndex = 0;
  math.setAttribute("role", "region");
  math.setAttribute("aria-label", texts.math);
  return math;
}

function formulaBlock(root, texts) {
  const math = mathBox(texts);
  const folded = make("details", "attnlib-formula-text");
  const formula = make("div", "attnlib-formula");
  folded.append(make("summary", "", texts.formula_text), formula);
  root.append(math, folded);
  return { math, formula };
}

/** The query-centred layout: token, then heatmap, bars and blend side by side, then formula. */
function queryLayout(root, data, legend, totals, values) {
  const head = make("div", "attnlib-head");
  const token = make("b", "attnlib-token");
  head.append(token);
  const row = make("div", "attnlib-row");
  const { panels } = data.texts;
  const heatmap = buildHeatmap(row, data.tokens, { texts: panels, label: legend, totals });
  const barsBox = make("div", "attnlib-bars");
  const blendBox = make("div", "attnlib-blend-panel");
  row.append(barsBox, blendBox);
  root.append(head, row);
  const bars = buildBars(barsBox, data.tokens);
  // |w·v| and |z| are at most the largest |v| (the weights are at most 1 and sum to 1).
  const most = Math.max(...values.flat().map(Math.abs));
  const blend = buildBlend(blendBox, data.tokens, values[0].length, fixed(-most), panels);
  return { token, heatmap, bars, blend, ...formulaBlock(root, panels) };
}

/** The query's token, bars and blend, as `view` gives them. */
function drawQueryPanels(parts, data, query, view) {
  paintToken(parts.token, view.panels.label);
  paintBars(parts.bars, view.row, query, view.panels.bars);
  paintBlend(parts.blend, view.row, view.values, view.context, query, view.panels);
}

const QUERY = {
  build: (root, data) =>
    queryLayout(root, data, data.texts.query.legend, false, data.values),
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
    const math = mathBox(texts.panels);
    const explanation = make("div", "attnlib-explanation");
    root.append(math, explanation);
    return { heatmap, math, explanation };
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
    const widest = data.scores.flat().map(fixed).reduce((a, b) => (b.length > a.length ? b : a));
    const heatmap = buildHeatmap(root, data.tokens, { texts: panels, label: loop.legend, widest });
    const code = make("div", "attnlib-code");
    root.append(code);
    return { position, heatmap, code, ...formulaBlock(root, panels) };
  },
  draw(parts, data, view) {
    const [vmin, vmax] = view.limits;
    const how = (a, b) => (view.filled(a, b) ? "plain" : "blank");
    const options = { vmin, vmax, how, at: view.at, caption: view.caption };
    paintHeatmap(parts.heatmap, view.scores, options);
    // Each cell's description, before and after its dot product, as the kernel wrote it.
    parts.heatmap.describe = (i, j) => (view.filled(i, j) ? data.cells.done : data.cells.empty)[i][j];
    paintText(parts.position, view.position);
    paintText(parts.code, view.code);
    paintText(parts.formula, view.formula);
  },
};

const ATTENTION = {
  build(root, data) {
    const parts = queryLayout(
      root,
      data,
      data.texts.attention.legend,
      true,
      data.heads.flatMap((h) => h.values),
    );
    // Beside the token line: a fixed place, so that turning dropout on moves nothing.
    if (data.dropout) parts.dropout = dropoutBar(parts.token.parentElement, data.texts.panels);
    return parts;
  },
  draw(parts, data, view, state) {
    const { query } = state;
    const [vmin, vmax] = view.limits;
    const { how, sums } = view;
    const options = { vmin, vmax, how, row: query, sums, caption: view.caption };
    paintHeatmap(parts.heatmap, view.weights, options);
    // The score as it goes into softmax: scaled by the head and the temperature.
    const { dim } = state;
    parts.heatmap.describe = weightCell(data, view.weights, view.scaled, dim, view.masked, view);
    drawQueryPanels(parts, data, query, view);
    paintText(parts.formula, view.formula);
    if (parts.dropout) paintDropout(parts.dropout, data, view, state);
  },
};

/** The dropout bar for `view`: the button only with a rate, the line saying the draw. */
function paintDropout(bar, data, view, state) {
  const texts = data.texts.panels;
  const on = view.rate > 0;
  const fields = dropoutFields(data, state, view);
  if (bar.button.disabled === on) bar.button.disabled = !on;
  const label = fill(texts.resample_label, fields);
  if (bar.button.getAttribute("aria-label") !== label) bar.button.setAttribute("aria-label", label);
  paintText(bar.line, on ? fill(texts.dropout_on, fields) : texts.dropout_off);
}

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

const CONTROLS = ["query", "dim_index", "causal", "temperature", "head", "step", "dropout_index", "draw"];

function stateOf(model) {
  return {
    query: model.get("query"),
    dim: DIMS[model.get("dim_index")],
    causal: model.get("causal"),
    temperature: model.get("temperature"),
    head: model.get("head"),
    step: model.get("step"),
    dropout_index: model.get("dropout_index") ?? 0,
    draw: model.get("draw") ?? 0,
  };
}

// The kinds whose formula follows the query's row.
const FOLLOWS_QUERY = new Set(["query", "attention"]);

function render({ model, el }) {
  const name = model.get("kind");
  const kind = KINDS[name];
  const root = make("div", `attnlib-view attnlib-view-${name}`);
  el.append(root);
  let parts = null;
  let controls = null;
  // The cell whose formula is shown: the one last under the pointer or the keyboard, in the
  // query's row where the view has a query; and what was drawn last, to write it.
  let cell = [0, 0];
  let shown = null;
  const drawMath = () => {
    if (!parts?.math || !shown) return;
    const { data, view, state } = shown;
    paintMath(parts.math, mathView(name, data, view, state, cell));
  };
  const redraw = () => {
    const data = model.get("data");
    const state = stateOf(model);
    // A value that does not fit (a kernel moving two controls one after the other) is
    // skipped: the last good drawing stays until the values fit again.
    if (!parts || !fits(data, state)) return;
    const view = VIEWS[name](data, state);
    kind.draw(parts, data, view, state);
    if (FOLLOWS_QUERY.has(name) && cell[0] !== state.query) {
      cell = [state.query, cell[1]];
      parts.heatmap.activate(...cell);
    }
    shown = { data, view, state };
    drawMath();
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
    if (parts?.dropout) {
      // Resampling needs no kernel: the next draw's mask came with the sentence.
      parts.dropout.button.addEventListener("click", () => {
        model.set("draw", ((model.get("draw") ?? 0) + 1) % data.dropout.draws);
        model.save_changes();
      });
    }
    if (parts) {
      const query = Math.min(Math.max(model.get("query"), 0), data.tokens.length - 1);
      cell = FOLLOWS_QUERY.has(name) ? [query, query] : [0, 0];
      parts.heatmap.activate(...cell);
      parts.heatmap.onCell = (i, j) => {
        // A formula about the query stays in the query's row: another row's cell under the
        // pointer names its column only (its own details are in the details line).
        cell = FOLLOWS_QUERY.has(name) ? [model.get("query"), j] : [i, j];
        drawMath();
      };
    }
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
