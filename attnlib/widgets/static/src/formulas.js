// The formula under an explorer, as math with the numbers of the cell in view: how one
// score, one weight and the query's context vector were computed, written as the book
// writes them (ω for scores, α for weights, z for context vectors). Pure: a formula is a
// tree of MathML element names and texts (["mi", "α"], ["mrow", ...]), drawn by
// mathml.js and checked in node against the Python views (tests/test_frontend_node.py).

import { SPECS, fixed } from "./format.js";

const mi = (x) => ["mi", x];
const mn = (x) => ["mn", x];
const mo = (x) => ["mo", x];
const mtext = (x) => ["mtext", x];
const mrow = (...children) => ["mrow", ...children];
const msub = (base, sub) => ["msub", base, sub];
const msup = (base, sup) => ["msup", base, sup];
const mfrac = (top, bottom) => ["mfrac", top, bottom];
const msqrt = (x) => ["msqrt", x];
const eq = mo("=");

// Longer vectors are written with their first and last numbers around an ellipsis.
const VECTOR_SHOWN = 6;
const PRODUCTS_SHOWN = 4;
// Larger sums of exponentials are written as m × 10^e.
const PLAIN_BELOW = 1e5;

/** The book's number of Python's index `i` (x⁽¹⁾ is inputs[0]); a letter index stays. */
const book = (i) => (typeof i === "number" ? mn(String(i + 1)) : mi(i));

/** ω_{i,j}: a symbol with two indices, each Python's index written as the book counts. */
function indexed(name, i, j) {
  return msub(mi(name), mrow(book(i), mo(","), book(j)));
}

/** x^{(j)}: a token's vector, the book's number of Python's index `j` (or a letter). */
function vectorOf(name, j) {
  return msup(mi(name), mrow(mo("("), book(j), mo(")")));
}

/** A number as the explorers print it (four decimals, zero never signed). */
const number = (x) => mn(fixed(x));

/** `items` with an ellipsis for the middle when there are more than `shown`. */
function shortened(items, shown, head) {
  if (items.length <= shown) return items;
  return [...items.slice(0, head), null, ...items.slice(items.length - (shown - head - 1))];
}

/** A positive sum of exponentials: four decimals, or m × 10^e when large; from log(sum). */
function large(logTotal) {
  const total = Math.exp(logTotal);
  if (total < PLAIN_BELOW) return number(total);
  const exponent = Math.floor(logTotal / Math.LN10);
  const mantissa = Math.exp(logTotal - exponent * Math.LN10);
  return mrow(mn(mantissa.toFixed(3)), mo("×"), msup(mn("10"), mn(String(exponent))));
}

/** log Σ e^{v} over the finite values (the sum as softmax takes it, without overflow). */
function logSumExp(values) {
  const finite = values.filter(Number.isFinite);
  const top = Math.max(...finite);
  return top + Math.log(finite.reduce((s, v) => s + Math.exp(v - top), 0));
}

/**
 * α_{ij} = e^{s_ij} / Σ_k e^{s_ik} = e^{value} / total = weight: the weight of cell (i, j)
 * from the grid `into` (what softmax takes, -Infinity where masked) along `dim`; `name`
 * the symbol of what softmax takes ("ω", or "s" once scaled); `texts`: TEXTS["panels"].
 */
function weightLine(into, weights, [i, j], dim, name, texts) {
  const alpha = indexed("α", i, j);
  if (!Number.isFinite(into[i][j])) return mrow(alpha, eq, mn("0"), mtext(` ${texts.math_masked}`));
  const rows = dim === -1;
  const along = rows ? into[i] : into.map((row) => row[j]);
  const exp = (x) => msup(mi("e"), x);
  const sum = msub(mo("∑"), mi("k"));
  const each = rows ? indexed(name, i, "k") : indexed(name, "k", j);
  return mrow(
    alpha,
    eq,
    mfrac(exp(indexed(name, i, j)), mrow(sum, exp(each))),
    eq,
    mfrac(exp(number(into[i][j])), large(logSumExp(along))),
    eq,
    number(weights[i][j]),
  );
}

/** s_{ij} = ω_{ij} / (√d_k · T) = ... : the score scaled as it goes into softmax. */
function scaledLine(view, [i, j], temperature, headDim, many) {
  const t = mn(SPECS.g(temperature));
  const symbolic = many ? mrow(msqrt(msub(mi("d"), mi("k"))), mo("·"), mi("T")) : mi("T");
  const numeric = many ? mrow(msqrt(mn(String(headDim))), mo("·"), t) : t;
  return mrow(
    indexed("s", i, j),
    eq,
    mfrac(indexed("ω", i, j), symbolic),
    eq,
    mfrac(number(view.scores[i][j]), numeric),
    eq,
    number(view.scaled[i][j]),
  );
}

/** z^{(i)} = Σ_j α_{ij} x^{(j)} = [ ... ]: the query's context vector. */
function contextLine(query, context, vec) {
  const shown = shortened(context, VECTOR_SHOWN, 3).map((v) => (v === null ? mo("…") : number(v)));
  const items = shown.flatMap((node, k) => (k ? [mo(","), node] : [node]));
  return mrow(
    vectorOf("z", query),
    eq,
    msub(mo("∑"), mi("j")),
    indexed("α", query, "j"),
    vectorOf(vec, "j"),
    eq,
    mrow(mo("["), ...items, mo("]")),
  );
}

/** After dropout: α_{ij} · 1/(1 − p) = weight, or α_{ij} → 0 where dropped. */
function dropoutLine(view, [i, j], texts) {
  const alpha = indexed("α", i, j);
  const label = mtext(`${texts.after_dropout} `);
  if (view.masked[i][j]) return mrow(label, alpha, eq, mn("0"), mtext(` ${texts.math_masked}`));
  if (view.dropped[i][j]) return mrow(label, alpha, mo("→"), mn("0"), mtext(` (${texts.dropped})`));
  const scale = mfrac(mn("1"), mrow(mn("1"), mo("−"), mn(SPECS.g(view.rate))));
  return mrow(label, alpha, mo("·"), scale, eq, number(view.weights[i][j]));
}

/** s_{ij} = −∞: a masked score, scaled or not. */
function maskedScoreLine([i, j], texts) {
  return mrow(indexed("s", i, j), eq, mo("−∞"), mtext(` ${texts.math_masked}`));
}

/** ω_{ij} = x^{(i)} · x^{(j)} = a_1 b_1 + ... = score: a dot product, term by term. */
function scoreLine(inputs, [i, j], score) {
  const pairs = shortened(
    inputs[i].map((a, k) => [a, inputs[j][k]]),
    PRODUCTS_SHOWN,
    2,
  );
  const factor = (x) => mn(SPECS.factor(x));
  const terms = pairs.flatMap((pair, k) => {
    const term = pair === null ? [mo("⋯")] : [factor(pair[0]), mo("×"), factor(pair[1])];
    return k ? [mo("+"), ...term] : term;
  });
  return mrow(
    indexed("ω", i, j),
    eq,
    vectorOf("x", i),
    mo("·"),
    vectorOf("x", j),
    eq,
    ...terms,
    eq,
    number(score),
  );
}

/**
 * The formula lines of explorer `kind` for its view `view` of `data` under the controls'
 * values `state`, about cell `cell` ([i, j], the one under the pointer or the keyboard):
 * a list of trees, one per line; empty for a kind without a formula of its own.
 */
export function mathView(kind, data, view, state, cell) {
  const n = data.tokens.length;
  const texts = data.texts.panels;
  const [i, j] = cell.map((v) => Math.min(Math.max(v, 0), n - 1));
  if (kind === "loop") {
    const [a, b] = view.at;
    return [scoreLine(data.inputs, [a, b], data.scores[a][b])];
  }
  if (kind === "softmax") {
    const into = data.scores.map((row) => row.map((v) => (v === null ? -Infinity : v)));
    return [weightLine(into, view.weights, [i, j], state.dim, "ω", texts)];
  }
  if (kind === "query") {
    const into = data.scores;
    return [
      weightLine(into, view.weights, [i, j], -1, "ω", texts),
      contextLine(state.query, view.context, "x"),
    ];
  }
  if (kind === "attention") {
    const many = data.heads.length > 1;
    const scaled = data.scale !== 1 || SPECS.g(state.temperature) !== "1";
    const lines = [];
    // The same lines for every cell of a setting (a masked one says so in each): moving the
    // pointer over the grid changes numbers, never the formula's height.
    if (scaled && view.masked[i][j]) lines.push(maskedScoreLine([i, j], texts));
    else if (scaled) lines.push(scaledLine(view, [i, j], state.temperature, view.context.length, many));
    const name = scaled ? "s" : "ω";
    // The softmax's weight; then, with dropout, what dropout made of it.
    lines.push(weightLine(view.scaled, view.softmax ?? view.weights, [i, j], state.dim, name, texts));
    if (view.rate > 0) lines.push(dropoutLine(view, [i, j], texts));
    lines.push(contextLine(state.query, view.context, many ? "v" : "x"));
    return lines;
  }
  return [];
}

/** A formula's texts in reading order, space-separated (for tests and screen-reader labels). */
export function mathText(tree) {
  if (typeof tree === "string") return tree;
  return tree
    .slice(1)
    .map(mathText)
    .filter(Boolean)
    .join(" ");
}
