// The arithmetic of the views, done in the browser from the data the kernel sent once: the
// same steps as the Python views (attnlib/widgets/views.py, attention_view.py), in float64.

/** The softmax axis of the toggle's options, by index: dim=-1 (rows), then dim=0 (columns). */
export const DIMS = [-1, 0];

/** Softmax of each row (`rows`) or each column of the square grid `z`; -Infinity gets 0. */
export function softmaxGrid(z, rows) {
  const n = z.length;
  const out = z.map((row) => row.slice());
  const at = rows ? (a, b) => [a, b] : (a, b) => [b, a];
  for (let a = 0; a < n; a++) {
    let max = -Infinity;
    for (let b = 0; b < n; b++) {
      const [i, j] = at(a, b);
      max = Math.max(max, z[i][j]);
    }
    let total = 0;
    for (let b = 0; b < n; b++) {
      const [i, j] = at(a, b);
      out[i][j] = Math.exp(z[i][j] - max);
      total += out[i][j];
    }
    for (let b = 0; b < n; b++) {
      const [i, j] = at(a, b);
      out[i][j] /= total;
    }
  }
  return out;
}

export function rowSums(grid) {
  return grid.map((row) => row.reduce((s, v) => s + v, 0));
}

export function colSums(grid) {
  return grid[0].map((_, j) => grid.reduce((s, row) => s + row[j], 0));
}

/** sum_j weights[j] * values[j]: the context vector, (d,). */
export function blend(weights, values) {
  const context = values[0].map(() => 0);
  weights.forEach((w, j) => values[j].forEach((v, k) => (context[k] += w * v)));
  return context;
}

/** What the AttentionExplorer shows for every query under one setting of head, mask,
 * temperature and axis: the grids and their sums (the same whichever query is chosen). */
export function attentionSetting(data, state) {
  const { scores, values } = data.heads[state.head];
  const factor = data.scale / state.temperature;
  const masked = scores.map((row, i) => row.map((_, j) => state.causal && j > i));
  const scaled = scores.map((row, i) => row.map((s, j) => (masked[i][j] ? -Infinity : s * factor)));
  const softmax = softmaxGrid(scaled, state.dim === -1);
  const rate = dropoutRate(data, state);
  let weights = softmax;
  let dropped = null;
  if (rate > 0) {
    // Dropout as CausalAttention's nn.Dropout draws it (the kernel sent its masks): a
    // dropped weight is 0, a kept one is scaled by 1 / (1 - rate).
    const keep = keptCells(data.dropout.keep[state.dropout_index - 1][state.draw][state.head], scores.length);
    dropped = keep.map((row) => row.map((k) => !k));
    weights = softmax.map((row, i) => row.map((w, j) => (keep[i][j] ? w / (1 - rate) : 0)));
  }
  return {
    scores,
    scaled,
    masked,
    softmax,
    dropped,
    rate,
    weights,
    values,
    rowSums: rowSums(weights),
    colSums: colSums(weights),
    softRowSums: rowSums(softmax),
    softColSums: colSums(softmax),
  };
}

/** The dropout rate of the controls' values (0 where the data has no dropout). */
export function dropoutRate(data, state) {
  return data.dropout ? data.dropout.rates[state.dropout_index ?? 0] : 0;
}

/** An n x n grid of booleans from base64 bits (cell i * n + j, least significant bit first). */
export function keptCells(bits, n) {
  const bytes = Uint8Array.from(atob(bits), (c) => c.charCodeAt(0));
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => ((bytes[(i * n + j) >> 3] >> ((i * n + j) & 7)) & 1) === 1),
  );
}

/** The AttentionExplorer's view of `data` under the controls' values `state`. */
export function attentionOf(data, state, setting = attentionSetting(data, state)) {
  const row = setting.weights[state.query];
  return { ...setting, row, context: blend(row, setting.values) };
}

/** The step of the TrainingExplorer (a snapshot's index) or of the LoopStepper (an
 * iteration, counted from 1 to n * n); the other kinds have none. */
function stepFits(data, step, n, index) {
  if (data.steps) return index(step, data.steps.length);
  return data.inputs ? index(step - 1, n * n) : true;
}

/** Whether the controls' values fit the data (a kernel may set any value for a moment). */
export function fits(data, state) {
  const n = (data.tokens || []).length;
  const index = (v, size) => Number.isInteger(v) && v >= 0 && v < size;
  return (
    n > 0 &&
    index(state.query, n) &&
    stepFits(data, state.step, n, index) &&
    DIMS.includes(state.dim) &&
    Number.isFinite(state.temperature) &&
    state.temperature > 0 &&
    index(state.head, (data.heads || [null]).length) &&
    (!data.dropout ||
      (index(state.dropout_index ?? 0, data.dropout.rates.length) &&
        index(state.draw ?? 0, data.dropout.draws)))
  );
}

/** Whether every sum is 1, to the Python views' tolerance (SUM_TOL). */
export const ones = (sums) => sums.every((s) => Math.abs(s - 1) <= 1e-4);
