// What each explorer shows for the controls' values: numbers and filled texts, no DOM.
// The query, softmax and loop explorers' views come whole from the kernel (views.py), one
// per setting, and are looked up; the AttentionExplorer's settings are too many to send,
// so its view is computed here as attention_view.py computes it (checked against it in
// node by tests/test_frontend_node.py). explorer.js draws them.

import { DIMS, attentionOf, attentionSetting, ones } from "./compute.js";
import { SPECS, compose, fill, terms } from "./format.js";

// The weights' colour scale, 0 to 1 in every state: one colour is one weight across a
// toggle (the scores keep their own scale, and their legend says "attention score").
const WEIGHT_LIMITS = [0, 1];

// What does not change with the controls, computed once per sentence (per `data` object):
// the TrainingExplorer's snapshots, decoded.
const prepared = new WeakMap();
function once(data, make) {
  if (!prepared.has(data)) prepared.set(data, make());
  return prepared.get(data);
}

// What changes with a setting but not with the query, kept for the last few settings of
// each sentence: moving the query (or back to a setting just left) computes no grid.
const SETTINGS_KEPT = 8;
const settings = new WeakMap();
function perSetting(data, key, make) {
  if (!settings.has(data)) settings.set(data, new Map());
  const kept = settings.get(data);
  if (!kept.has(key)) {
    if (kept.size >= SETTINGS_KEPT) kept.delete(kept.keys().next().value);
    kept.set(key, make());
  }
  return kept.get(key);
}

/** The texts around one query's row: its label, its bars' heading, its blend's labels. */
function queryPanels(data, query, row, vec) {
  const texts = data.texts.panels;
  const total = row.reduce((s, w) => s + w, 0);
  return {
    label: fill(texts.query, { query, token_repr: data.reprs[query] }),
    bars: fill(texts.bars, { query, total }),
    blend: fill(texts.blend, { query, vec }),
    context: fill(texts.context, { query }),
  };
}

/** QueryExplorer: the weights grid, the query's row and its context vector, as the kernel
 * sent them for every query (views.query_shown). */
export function queryView(data, { query }) {
  return {
    weights: data.weights,
    limits: WEIGHT_LIMITS,
    row: data.weights[query],
    values: data.values,
    caption: data.texts.query.caption,
    ...data.views[query],
  };
}

/** SoftmaxAxisExplorer: the weights along `dim`, their sums, why dim=-1, as the kernel sent
 * them for both axes (views.softmax_shown). */
export function softmaxView(data, { dim }) {
  // Both axes' weights on one colour scale, so that flipping compares like with like.
  return { limits: WEIGHT_LIMITS, ...data.views[DIMS.indexOf(dim)] };
}

/** LoopStepper: the grid after iteration `step` (counted from 1, as the slider and its line
 * count) and its texts, as the kernel sent them for every iteration (views.loop_shown). */
export function loopView(data, { step }) {
  const n = data.tokens.length;
  return {
    scores: data.scores,
    limits: data.limits,
    at: [Math.floor((step - 1) / n), (step - 1) % n],
    filled: (a, b) => a * n + b < step,
    caption: data.texts.loop.caption,
    ...data.views[step - 1],
  };
}

/** The fields of the dropout line (attention_view.dropout_fields). */
export function dropoutFields(data, state, view) {
  const count = (rows) => rows.reduce((s, row) => s + row.filter(Boolean).length, 0);
  const dropped = view.dropped ?? [];
  const n = data.tokens.length;
  return {
    dropout: view.rate,
    draw_n: (state.draw ?? 0) + 1,
    draws: data.dropout?.draws ?? 0,
    draw_seed: (data.dropout?.seed ?? 0) + (state.draw ?? 0),
    dropped: count(dropped),
    cells: n * n,
    row_dropped: count(dropped.slice(state.query, state.query + 1)),
    keep_scale: 1 / (1 - view.rate),
    drop_sum: view.rowSums[state.query],
  };
}

/** AttentionExplorer: a head's weights under mask, axis, temperature and dropout (attention_view). */
export function attentionView(data, state) {
  const { query, dim, causal, temperature, head } = state;
  const key = `${head} ${dim} ${causal} ${temperature} ${state.dropout_index} ${state.draw}`;
  const setting = perSetting(data, key, () => {
    const grids = attentionSetting(data, state);
    const { masked, dropped } = grids;
    return {
      ...grids,
      limits: WEIGHT_LIMITS,
      sums: [grids.rowSums, grids.colSums],
      how: (i, j) => (masked[i][j] ? "masked" : dropped && dropped[i][j] ? "dropped" : "plain"),
    };
  });
  const view = attentionOf(data, state, setting);
  const texts = data.texts.attention;
  const many = data.heads.length > 1;
  const vec = many ? "v" : "x";
  const fields = {
    query,
    token: data.tokens[query],
    token_repr: data.reprs[query],
    dim,
    temperature,
    head,
    num_heads: data.heads.length,
    head_dim: view.context.length,
    scores: view.scores[query],
    scaled: view.scaled[query],
    terms: terms(data.texts.panels, view.row, data.tokens, vec),
    context: view.context,
    // The sums said to be 1 are the softmax's, before dropout.
    row_sum: view.softRowSums[query],
    col_sums: view.softColSums,
    ...dropoutFields(data, state, view),
  };
  const flags = {
    rows: dim === -1,
    causal,
    many,
    // Temperature as shown: a slider's 1.0000000000000002 is 1 and changes nothing.
    changed: data.scale !== 1 || SPECS.g(temperature) !== "1" || causal,
    rows_one: ones(view.softRowSums),
    cols_one: ones(view.softColSums),
    drop: view.rate > 0,
  };
  return {
    ...view,
    caption: compose(texts.caption, fields, flags),
    formula: compose(texts.formula, fields, flags),
    // Spoken: the weights shown (after dropout, if any) and their sum.
    announce: compose(texts.announce, { ...fields, row: view.row, row_sum: view.rowSums[query] }, flags),
    panels: queryPanels(data, query, view.row, vec),
  };
}

/** The snapshots as sent (base64 of little-endian uint16 counts of 0.0001): a flat array. */
function decoded(data) {
  return once(data, () => {
    const bytes = Uint8Array.from(atob(data.snapshots), (c) => c.charCodeAt(0));
    const view = new DataView(bytes.buffer);
    return Float64Array.from({ length: bytes.length / 2 }, (_, k) => view.getUint16(2 * k, true) / 1e4);
  });
}

/** TrainingExplorer: one head's weights at one snapshot of training (training_view). */
export function trainingView(data, { step: snapshot, head, query }) {
  const texts = data.texts.training;
  const [, heads, n] = data.shape;
  const weights = perSetting(data, `${snapshot} ${head}`, () => {
    const flat = decoded(data);
    const start = (snapshot * heads + head) * n * n;
    return Array.from({ length: n }, (_, i) =>
      Array.from(flat.subarray(start + i * n, start + (i + 1) * n)),
    );
  });
  const row = weights[query];
  const top = row.indexOf(Math.max(...row));
  const fields = {
    step: data.steps[snapshot],
    snapshot,
    // Counted from 1, as the slider's spoken value and the notebook count them.
    number: snapshot + 1,
    count: data.steps.length,
    block: Math.floor(head / data.num_heads),
    head: head % data.num_heads,
    query,
    token_repr: data.reprs[query],
    top: row[top],
    top_repr: data.reprs[top],
    before: query > 0 ? row[query - 1] : null,
    before_repr: query > 0 ? data.reprs[query - 1] : "",
    // Computed in Python (training_view.shares, even_share): the browser only shows them.
    share: data.shares[snapshot][head],
    even: data.even,
  };
  const total = row.reduce((s, w) => s + w, 0);
  return {
    weights,
    limits: WEIGHT_LIMITS,
    row,
    caption: fill(texts.caption, fields),
    bars: fill(data.texts.panels.bars, { query, total }),
    formula: compose(texts.formula, fields, { first: query === 0 }),
    headline: fill(texts.headline, fields),
  };
}

/** The fields of the controls' spoken values (TEXTS["controls"]). */
export function spoken(data, state) {
  const n = data.tokens.length;
  // The LoopStepper's slider counts iterations from 1, as its line does.
  const done = data.inputs ? state.step - 1 : state.step;
  const [i, j] = [Math.floor(done / n), done % n];
  return {
    ...state,
    token: data.tokens[state.query] ?? "",
    heads: data.heads?.length ?? 1,
    iteration: done + 1,
    snapshots: data.steps?.length ?? 0,
    iterations: n * n,
    i,
    j,
    token_i: data.tokens[i] ?? "",
    token_j: data.tokens[j] ?? "",
  };
}
/** The view of each kind of explorer, by the model's `kind`. */
export const VIEWS = {
  query: queryView,
  softmax: softmaxView,
  loop: loopView,
  attention: attentionView,
  training: trainingView,
};
