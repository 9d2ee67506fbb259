// The explorers' front end, built from static/src/*.js by esbuild (make bundle): edit those.

// attnlib/widgets/static/src/compute.js
var DIMS = [-1, 0];
function softmaxGrid(z, rows) {
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
function rowSums(grid) {
  return grid.map((row) => row.reduce((s, v) => s + v, 0));
}
function colSums(grid) {
  return grid[0].map((_, j) => grid.reduce((s, row) => s + row[j], 0));
}
function blend(weights, values) {
  const context = values[0].map(() => 0);
  weights.forEach((w, j) => values[j].forEach((v, k) => context[k] += w * v));
  return context;
}
function extent(...grids) {
  const finite = grids.flat(2).filter(Number.isFinite);
  return [Math.min(...finite), Math.max(...finite)];
}
function scoresOf(rows) {
  return rows.map((row) => row.map((v) => v === null ? -Infinity : v));
}
function attentionOf(data, state) {
  const { scores, values } = data.heads[state.head];
  const factor = data.scale / state.temperature;
  const masked = scores.map((row2, i) => row2.map((_, j) => state.causal && j > i));
  const scaled = scores.map((row2, i) => row2.map((s, j) => masked[i][j] ? -Infinity : s * factor));
  const weights = softmaxGrid(scaled, state.dim === -1);
  const row = weights[state.query];
  return {
    scores,
    scaled,
    masked,
    weights,
    row,
    values,
    rowSums: rowSums(weights),
    colSums: colSums(weights),
    context: blend(row, values)
  };
}
function fits(data, state) {
  const n = (data.tokens || []).length;
  const index = (v, size) => Number.isInteger(v) && v >= 0 && v < size;
  return n > 0 && index(state.query, n) && index(state.step, Math.max(n * n, (data.steps || []).length)) && DIMS.includes(state.dim) && Number.isFinite(state.temperature) && state.temperature > 0 && index(state.head, (data.heads || [null]).length);
}
var ones = (sums) => sums.every((s) => Math.abs(s - 1) <= 1e-4);

// attnlib/widgets/static/src/format.js
var FIELD = /\{(\w+)(?::(\w+))?\}/g;
function fixed(x) {
  if (x === -Infinity) return "-inf";
  const text = x.toFixed(4);
  return text === "-0.0000" ? "0.0000" : text;
}
function short(x) {
  const [whole, frac] = fixed(x).split(".");
  return `${whole}.${frac.replace(/0+$/, "").padEnd(2, "0")}`;
}
var SPECS = {
  f4: fixed,
  factor: (x) => x < 0 ? `(${short(x)})` : short(x),
  // Python's f"{x:g}" for the temperatures a slider gives: 1.0 -> "1", 0.30000000000000004 -> "0.3".
  g: (x) => String(Number(x.toPrecision(6))),
  f2: (x) => x.toFixed(2),
  row: (xs) => xs.map((x) => x.toFixed(2)).join(" "),
  vec: (xs) => `[${xs.map(fixed).join(", ")}]`,
  span: (xs) => `from ${fixed(Math.min(...xs))} to ${fixed(Math.max(...xs))}`
};
function fill(template, fields) {
  return template.replace(
    FIELD,
    (_, name, spec) => spec ? SPECS[spec](fields[name]) : String(fields[name])
  );
}
function compose(parts, fields, flags) {
  const holds = (when) => when.split(" ").filter(Boolean).every((w) => w.startsWith("!") ? !flags[w.slice(1)] : flags[w]);
  return parts.filter(([when]) => holds(when)).map(([, template]) => fill(template, fields)).join("");
}
function terms(texts, weights, tokens, vec) {
  return weights.map((w, j) => fill(texts.term, { w, vec, token: tokens[j] })).join(texts.plus);
}
function products(texts, a, b) {
  return a.map((x, k) => fill(texts.product, { a: x, b: b[k] })).join(texts.plus);
}

// attnlib/widgets/static/src/dom.js
function make(tag, className = "", text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

// attnlib/widgets/static/src/controls.js
var ANNOUNCE_DELAY_MS = 300;
var FIND_TRIES = 50;
var FIND_EVERY_MS = 100;
function setAttr(node, name, value) {
  if (node && node.getAttribute(name) !== value) node.setAttribute(name, value);
}
function controlsOf(box) {
  const one = (name, selector) => box.querySelector(`.attnlib-control-${name} ${selector}`);
  return {
    sliders: ["query", "temperature", "head", "step"].map((name) => [name, one(name, ".noUi-handle")]).filter(([, handle]) => handle),
    toggles: box.querySelectorAll(".attnlib-control-dim button"),
    group: one("dim", ".widget-toggle-button")?.parentElement ?? null,
    play: box.querySelector(".attnlib-control-play")
  };
}
function watchControls(el, root, names, getTexts) {
  const live = make("div", "attnlib-live");
  live.setAttribute("role", "status");
  live.setAttribute("aria-live", "polite");
  root.after(live);
  let found = null;
  let last = null;
  let timer = null;
  let finder = null;
  let tries = 0;
  let observer = null;
  const paintPlay = () => {
    const texts = getTexts();
    const buttons = found?.play?.querySelectorAll("button") ?? [];
    const names2 = [texts.play, texts.pause, texts.stop, texts.repeat];
    buttons.forEach((button, k) => {
      if (!names2[k]) return;
      setAttr(button, "aria-label", names2[k]);
      setAttr(button, "title", names2[k]);
      if (k === 3) setAttr(button, "aria-pressed", String(button.classList.contains("mod-active")));
    });
  };
  const paint = () => {
    if (!found || !last) return;
    const texts = getTexts();
    const { state, values } = last;
    found.sliders.forEach(([name, handle]) => {
      setAttr(handle, "aria-label", texts[name]);
      setAttr(handle, "aria-valuetext", fill(texts[`${name}_value`], values));
    });
    if (found.group) {
      setAttr(found.group, "role", "group");
      setAttr(found.group, "aria-label", texts.dim);
    }
    found.toggles.forEach((button, k) => {
      setAttr(button, "aria-pressed", String(k === state.dim_index));
    });
    paintPlay();
  };
  const find = () => {
    const box = el.closest(".attnlib-explorer");
    const ready = (controls) => names.every(
      (name) => name === "dim" ? controls.toggles.length > 0 : controls.sliders.some(([n]) => n === name)
    );
    if (box) {
      const controls = controlsOf(box);
      if (ready(controls) || tries >= FIND_TRIES) {
        found = controls;
        if (found.play && !observer) {
          observer = new MutationObserver(paintPlay);
          const options = { attributes: true, subtree: true, attributeFilter: ["class"] };
          observer.observe(found.play, options);
        }
        paint();
        return;
      }
    }
    tries += 1;
    if (tries <= FIND_TRIES) finder = setTimeout(find, FIND_EVERY_MS);
  };
  finder = setTimeout(find, 0);
  return {
    /** New control values `state`, their fields for the texts `values`, the line to announce. */
    update(state, values, line) {
      last = { state, values };
      paint();
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (live.textContent !== line) live.textContent = line;
      }, ANNOUNCE_DELAY_MS);
    },
    dispose() {
      clearTimeout(timer);
      clearTimeout(finder);
      if (observer) observer.disconnect();
      live.remove();
    }
  };
}

// attnlib/widgets/static/src/colors.js
var VIRIDIS = [
  "#440154",
  "#48186a",
  "#472d7b",
  "#424086",
  "#3b528b",
  "#33638d",
  "#2c728e",
  "#26828e",
  "#21918c",
  "#1fa088",
  "#28ae80",
  "#3fbc73",
  "#5ec962",
  "#84d44b",
  "#addc30",
  "#d8e219",
  "#fde725"
];
var STOPS = VIRIDIS.map((hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)));
var LUMINANCE_THRESHOLD = 0.179;
function colorAt(t) {
  const x = Math.min(Math.max(t, 0), 1) * (STOPS.length - 1);
  const k = Math.min(Math.floor(x), STOPS.length - 2);
  const f = x - k;
  return STOPS[k].map((c, i) => Math.round(c + f * (STOPS[k + 1][i] - c)));
}
function luminance(rgb) {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function cellColors(value, vmin, vmax) {
  const rgb = colorAt(vmax > vmin ? (value - vmin) / (vmax - vmin) : 0.5);
  const text = luminance(rgb) > LUMINANCE_THRESHOLD ? "#000" : "#fff";
  return { background: `rgb(${rgb.join(",")})`, color: text };
}
function gradient() {
  return `linear-gradient(to right, ${VIRIDIS.join(", ")})`;
}

// attnlib/widgets/static/src/heatmap.js
function cell(tag, row, col, className = "") {
  const node = make(tag, className);
  node.dataset.row = row;
  node.dataset.col = col;
  return node;
}
function header(text, scope, className = "") {
  const th = make("th", className, text);
  th.scope = scope;
  return th;
}
function headerRow(tokens, totals, texts) {
  const tr = make("tr");
  tr.append(header(texts.corner, "col", "attnlib-corner"), ...tokens.map((t) => header(t, "col")));
  if (totals) tr.append(header(texts.row_sum, "col", "attnlib-total"));
  return tr;
}
function bodyRow(tokens, i, totals, parts) {
  const tr = make("tr");
  tr.dataset.row = i;
  const label = header(tokens[i], "row");
  const cells = tokens.map((_, j) => cell("td", i, j));
  tr.append(label, ...cells);
  if (totals) {
    const sum = cell("td", i, "sum", "attnlib-total");
    tr.append(sum);
    parts.rowSums.push(sum);
  }
  parts.rows.push(tr);
  parts.labels.push(label);
  parts.cells.push(cells);
  return tr;
}
function sumsRow(tokens, parts, texts) {
  const tr = make("tr");
  tr.dataset.row = "sum";
  parts.colSums = tokens.map((_, j) => cell("td", "sum", j, "attnlib-total"));
  tr.append(header(texts.column_sum, "row", "attnlib-total"), ...parts.colSums);
  return tr;
}
function legend(label) {
  const box = make("div", "attnlib-legend");
  const low = make("span"), high = make("span");
  const bar = make("span", "attnlib-legend-bar");
  bar.style.background = gradient();
  box.append(make("span", "", `${label}:`), low, bar, high);
  return { box, low, high };
}
function buildHeatmap(parent, tokens, { texts, label, totals = false }) {
  const table = make("table", "attnlib-heatmap");
  const caption = make("caption");
  const parts = { table, caption, rows: [], labels: [], cells: [], rowSums: [], colSums: [] };
  table.append(caption, headerRow(tokens, totals, texts));
  tokens.forEach((_, i) => table.append(bodyRow(tokens, i, totals, parts)));
  if (totals) table.append(sumsRow(tokens, parts, texts));
  parts.legend = legend(label);
  parts.tokens = tokens;
  parts.current = tokens.map((token) => fill(texts.current, { token }));
  parts.masked = texts.masked;
  parts.row = -1;
  const scroller = make("div", "attnlib-heatmap-scroll");
  scroller.append(table);
  const scroll = totals ? texts.scroll_sums : texts.scroll;
  const cue = make("div", "attnlib-scroll-cue", scroll);
  scroller.tabIndex = 0;
  scroller.setAttribute("role", "region");
  scroller.setAttribute("aria-label", scroll);
  parts.describe = null;
  table.addEventListener("mouseover", (event) => {
    const td = event.target.closest?.("td[data-row]");
    const [i, j] = td ? [Number(td.dataset.row), Number(td.dataset.col)] : [NaN, NaN];
    if (parts.describe && Number.isInteger(i) && Number.isInteger(j)) {
      td.title = parts.describe(i, j);
    }
  });
  const wrap = make("div", "attnlib-heatmap-wrap");
  wrap.append(cue, scroller, parts.legend.box);
  parent.append(wrap);
  if (typeof ResizeObserver !== "undefined") {
    const mark = () => wrap.classList.toggle("attnlib-scrolls", scroller.scrollWidth > scroller.clientWidth + 1);
    new ResizeObserver(mark).observe(scroller);
  }
  return parts;
}
function paintCell(td, value, how, vmin, vmax, masked) {
  const hidden = how === "masked";
  if (td.classList.contains("attnlib-masked") !== hidden) {
    td.classList.toggle("attnlib-masked", hidden);
    if (hidden) td.setAttribute("aria-label", masked);
    else td.removeAttribute("aria-label");
  }
  if (how === "blank") {
    td.textContent = "";
    td.dataset.empty = "1";
    td.style.background = td.style.color = "";
    return;
  }
  delete td.dataset.empty;
  td.textContent = fixed(value);
  const colors = how === "masked" ? { background: "", color: "" } : cellColors(value, vmin, vmax);
  td.style.background = colors.background;
  td.style.color = colors.color;
}
function paintSum(td, total) {
  td.textContent = fixed(total);
  td.classList.toggle("attnlib-sum-one", Math.abs(total - 1) <= 1e-4);
}
function paintHeatmap(parts, values, { vmin, vmax, how = () => "plain", row = -1, at = null, sums = null, caption = "" }) {
  parts.caption.textContent = caption;
  parts.cells.forEach((tds, i) => {
    tds.forEach((td, j) => {
      paintCell(td, values[i][j], how(i, j), vmin, vmax, parts.masked);
      td.classList.toggle("attnlib-highlight-cell", !!at && at[0] === i && at[1] === j);
    });
  });
  if (parts.row !== row) {
    [parts.row, row].forEach((i) => {
      if (i < 0 || i >= parts.rows.length) return;
      const current = i === row;
      parts.rows[i].classList.toggle("attnlib-highlight-row", current);
      if (current) parts.rows[i].setAttribute("aria-current", "true");
      else parts.rows[i].removeAttribute("aria-current");
      parts.labels[i].textContent = current ? parts.current[i] : parts.tokens[i];
    });
    parts.row = row;
  }
  if (sums) {
    parts.rowSums.forEach((td, i) => paintSum(td, sums[0][i]));
    parts.colSums.forEach((td, j) => paintSum(td, sums[1][j]));
  }
  parts.legend.low.textContent = fixed(vmin);
  parts.legend.high.textContent = fixed(vmax);
}

// attnlib/widgets/static/src/panels.js
function paintToken(node, label) {
  node.textContent = label;
}
function paintBars(node, weights, tokens, query, title) {
  const top = Math.max(...weights, 1e-12);
  const heading = make("div", "attnlib-panel-title", title);
  const rows = weights.map((w, j) => {
    const row = make("div", j === query ? "attnlib-bar-row attnlib-query-bar" : "attnlib-bar-row");
    row.dataset.col = j;
    const bar = make("span", "attnlib-bar");
    bar.style.width = `${100 * Math.max(w, 0) / top}px`;
    row.append(
      make("span", "attnlib-bar-label", tokens[j]),
      bar,
      make("span", "attnlib-bar-value", fixed(w))
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
function paintBlend(node, weights, values, context, tokens, texts) {
  const top = Math.max(...weights, 1e-12);
  const table = make("table", "attnlib-blend");
  table.append(make("caption", "", texts.blend));
  weights.forEach((w, j) => {
    const row = blendRow(
      `${tokens[j]}`,
      fixed(w),
      values[j].map((v) => w * v),
      "",
      Math.max(w, 0) / top
    );
    row.dataset.col = j;
    table.append(row);
  });
  table.append(blendRow(texts.context, "", context, "attnlib-context", null));
  node.replaceChildren(table);
}
function paintText(node, text) {
  node.textContent = text;
}

// attnlib/widgets/static/src/views.js
var prepared = /* @__PURE__ */ new WeakMap();
function once(data, make2) {
  if (!prepared.has(data)) prepared.set(data, make2());
  return prepared.get(data);
}
function queryPanels(data, query, row, vec) {
  const texts = data.texts.panels;
  const token = data.tokens[query];
  const total = row.reduce((s, w) => s + w, 0);
  return {
    label: fill(texts.query, { query, token_repr: data.reprs[query] }),
    bars: fill(texts.bars, { query, total }),
    blend: fill(texts.blend, { token, vec }),
    context: fill(texts.context, { token })
  };
}
function announced(data, query, row) {
  const total = row.reduce((s, w) => s + w, 0);
  return { query, token_repr: data.reprs[query], row, total };
}
function queryView(data, { query }) {
  const { weights, limits } = once(data, () => {
    const grid = softmaxGrid(scoresOf(data.scores), true);
    return { weights: grid, limits: extent(grid) };
  });
  const texts = data.texts.query;
  const row = weights[query];
  const context = blend(row, data.values);
  const fields = { token: data.tokens[query], terms: terms(data.texts.panels, row, data.tokens, "x"), context };
  return {
    weights,
    limits,
    row,
    values: data.values,
    context,
    caption: texts.caption,
    formula: compose(texts.formula, fields, {}),
    announce: compose(texts.announce, announced(data, query, row), {}),
    panels: queryPanels(data, query, row, "x")
  };
}
function softmaxView(data, { dim }) {
  const { both, limits } = once(data, () => {
    const grids = DIMS.map((d) => softmaxGrid(scoresOf(data.scores), d === -1));
    return { both: grids, limits: extent(...grids) };
  });
  const texts = data.texts.softmax;
  const weights = both[DIMS.indexOf(dim)];
  const sums = [rowSums(weights), colSums(weights)];
  const flags = { rows: dim === -1, rows_one: ones(sums[0]), cols_one: ones(sums[1]) };
  const fields = { row_sums: sums[0], col_sums: sums[1] };
  return {
    weights,
    limits,
    sums,
    caption: fill(texts.caption, { dim }),
    explanation: compose(texts.explanation, fields, flags),
    announce: compose(texts.announce, fields, flags)
  };
}
function loopView(data, { step }) {
  const limits = once(data, () => extent(data.scores));
  const texts = data.texts.loop;
  const { tokens, scores, inputs } = data;
  const n = tokens.length;
  const [i, j] = [Math.floor(step / n), step % n];
  const fields = {
    i,
    j,
    token_i: tokens[i],
    token_j: tokens[j],
    iteration: step + 1,
    iterations: n * n,
    products: products(data.texts.panels, inputs[i], inputs[j]),
    score: scores[i][j]
  };
  return {
    scores,
    limits,
    at: [i, j],
    filled: (a, b) => a * n + b <= step,
    caption: texts.caption,
    position: fill(texts.position, fields),
    code: fill(texts.code, fields),
    formula: compose(texts.formula, fields, {}),
    announce: compose(texts.announce, fields, {})
  };
}
function attentionView(data, state) {
  const view = attentionOf(data, state);
  const { query, dim, causal, temperature, head } = state;
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
    row_sum: view.rowSums[query],
    col_sums: view.colSums
  };
  const flags = {
    rows: dim === -1,
    causal,
    many,
    // Temperature as shown: a slider's 1.0000000000000002 is 1 and changes nothing.
    changed: data.scale !== 1 || SPECS.g(temperature) !== "1" || causal,
    rows_one: ones(view.rowSums),
    cols_one: ones(view.colSums)
  };
  return {
    ...view,
    // vmin = 0, not the smallest weight: a flat row looks flat and a sharp one bright.
    limits: [0, Math.max(...view.weights.flat())],
    caption: compose(texts.caption, fields, flags),
    formula: compose(texts.formula, fields, flags),
    announce: compose(texts.announce, { ...fields, row: view.row }, flags),
    panels: queryPanels(data, query, view.row, vec)
  };
}
function evenShare(n) {
  let total = 0;
  for (let i = 1; i < n; i += 1) total += 1 / (i + 1);
  return n < 2 ? 0 : total / (n - 1);
}
function decoded(data) {
  return once(data, () => {
    const bytes = Uint8Array.from(atob(data.snapshots), (c) => c.charCodeAt(0));
    const view = new DataView(bytes.buffer);
    return Float64Array.from({ length: bytes.length / 2 }, (_, k) => view.getUint16(2 * k, true) / 1e4);
  });
}
function trainingView(data, { step: snapshot, head, query }) {
  const texts = data.texts.training;
  const [, heads, n] = data.shape;
  const flat = decoded(data);
  const start = (snapshot * heads + head) * n * n;
  const weights = Array.from({ length: n }, (_, i) => Array.from(flat.subarray(start + i * n, start + (i + 1) * n)));
  const row = weights[query];
  const top = row.indexOf(Math.max(...row));
  const below = weights.slice(1).map((r, i) => r[i]);
  const share = n > 1 ? below.reduce((s, w) => s + w, 0) / below.length : 0;
  const fields = {
    step: data.steps[snapshot],
    snapshot,
    last: data.steps.length - 1,
    block: Math.floor(head / data.num_heads),
    head: head % data.num_heads,
    query,
    token_repr: data.reprs[query],
    top: row[top],
    top_repr: data.reprs[top],
    before: query > 0 ? row[query - 1] : null,
    before_repr: query > 0 ? data.reprs[query - 1] : "",
    share,
    even: evenShare(n)
  };
  const total = row.reduce((s, w) => s + w, 0);
  return {
    weights,
    limits: [0, 1],
    row,
    caption: fill(texts.caption, fields),
    bars: fill(data.texts.panels.bars, { query, total }),
    formula: compose(texts.formula, fields, { first: query === 0 })
  };
}
var VIEWS = {
  query: queryView,
  softmax: softmaxView,
  loop: loopView,
  attention: attentionView,
  training: trainingView
};

// attnlib/widgets/static/src/explorer.js
function weightCell(data, weights, scores, dim, masked) {
  const texts = data.texts.panels;
  return (i, j) => {
    const fields = { i, j, token_i: data.tokens[i], token_j: data.tokens[j], dim };
    if (masked && masked[i][j]) return fill(texts.cell_masked, fields);
    return fill(texts.cell_weight, { ...fields, value: weights[i][j], score: scores[i][j] });
  };
}
function queryLayout(root, data, legend2, totals) {
  const head = make("div", "attnlib-head");
  const token = make("b", "attnlib-token");
  head.append(token);
  const row = make("div", "attnlib-row");
  const { panels } = data.texts;
  const heatmap = buildHeatmap(row, data.tokens, { texts: panels, label: legend2, totals });
  const bars = make("div", "attnlib-bars");
  const blendBox = make("div", "attnlib-blend-panel");
  row.append(bars, blendBox);
  const formula = make("div", "attnlib-formula");
  root.append(head, row, formula);
  return { token, heatmap, bars, blendBox, formula };
}
function drawQueryPanels(parts, data, query, view) {
  paintToken(parts.token, view.panels.label);
  paintBars(parts.bars, view.row, data.tokens, query, view.panels.bars);
  paintBlend(parts.blendBox, view.row, view.values, view.context, data.tokens, view.panels);
}
var QUERY = {
  build: (root, data) => queryLayout(root, data, data.texts.query.legend, false),
  draw(parts, data, view, { query }) {
    const [vmin, vmax] = view.limits;
    paintHeatmap(parts.heatmap, view.weights, { vmin, vmax, row: query, caption: view.caption });
    parts.heatmap.describe = weightCell(data, view.weights, data.scores, -1, null);
    drawQueryPanels(parts, data, query, view);
    paintText(parts.formula, view.formula);
  }
};
var SOFTMAX = {
  build(root, data) {
    const texts = data.texts;
    const heatmap = buildHeatmap(root, data.tokens, {
      texts: texts.panels,
      label: texts.softmax.legend,
      totals: true
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
  }
};
var LOOP = {
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
    const how = (a, b) => view.filled(a, b) ? "plain" : "blank";
    const options = { vmin, vmax, how, at: view.at, caption: view.caption };
    paintHeatmap(parts.heatmap, view.scores, options);
    const texts = data.texts.panels;
    parts.heatmap.describe = (i, j) => {
      const fields = { i, j, token_i: data.tokens[i], token_j: data.tokens[j] };
      if (!view.filled(i, j)) return fill(texts.cell_empty, fields);
      const terms2 = products(texts, data.inputs[i], data.inputs[j]);
      return fill(texts.cell_score, { ...fields, products: terms2, value: view.scores[i][j] });
    };
    paintText(parts.position, view.position);
    paintText(parts.code, view.code);
    paintText(parts.formula, view.formula);
  }
};
var ATTENTION = {
  build: (root, data) => queryLayout(root, data, data.texts.attention.legend, true),
  draw(parts, data, view, state) {
    const { query } = state;
    const [vmin, vmax] = view.limits;
    const how = (i, j) => view.masked[i][j] ? "masked" : "plain";
    const sums = [view.rowSums, view.colSums];
    const options = { vmin, vmax, how, row: query, sums, caption: view.caption };
    paintHeatmap(parts.heatmap, view.weights, options);
    const { dim } = state;
    parts.heatmap.describe = weightCell(data, view.weights, view.scaled, dim, view.masked);
    drawQueryPanels(parts, data, query, view);
    paintText(parts.formula, view.formula);
  }
};
var TRAINING = {
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
  }
};
var KINDS = { query: QUERY, softmax: SOFTMAX, loop: LOOP, attention: ATTENTION, training: TRAINING };
var NAMED = {
  query: () => ["query"],
  softmax: () => ["dim"],
  loop: () => ["step"],
  attention: (data) => ["query", "temperature", "dim", ...data.heads.length > 1 ? ["head"] : []],
  // The head is a drop-down, named by its own label; the step slider walks the snapshots.
  training: () => ["query", "step"]
};
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
    token_j: data.tokens[j] ?? ""
  };
}
var CONTROLS = ["query", "dim_index", "causal", "temperature", "head", "step"];
function stateOf(model) {
  return {
    query: model.get("query"),
    dim: DIMS[model.get("dim_index")],
    causal: model.get("causal"),
    temperature: model.get("temperature"),
    head: model.get("head"),
    step: model.get("step")
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
    const texts = () => ({ ...data.texts.controls, ...data.texts[name]?.controls ?? {} });
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
var explorer_default = { render };
export {
  explorer_default as default
};
