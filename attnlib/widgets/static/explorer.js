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
    let total2 = 0;
    for (let b = 0; b < n; b++) {
      const [i, j] = at(a, b);
      out[i][j] = Math.exp(z[i][j] - max);
      total2 += out[i][j];
    }
    for (let b = 0; b < n; b++) {
      const [i, j] = at(a, b);
      out[i][j] /= total2;
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
  const context2 = values[0].map(() => 0);
  weights.forEach((w, j) => values[j].forEach((v, k) => context2[k] += w * v));
  return context2;
}
function attentionSetting(data, state) {
  const { scores, values } = data.heads[state.head];
  const factor = data.scale / state.temperature;
  const masked = scores.map((row, i) => row.map((_, j) => state.causal && j > i));
  const scaled = scores.map((row, i) => row.map((s, j) => masked[i][j] ? -Infinity : s * factor));
  const softmax = softmaxGrid(scaled, state.dim === -1);
  const rate = dropoutRate(data, state);
  let weights = softmax;
  let dropped = null;
  if (rate > 0) {
    const keep = keptCells(data.dropout.keep[state.dropout_index - 1][state.draw][state.head], scores.length);
    dropped = keep.map((row) => row.map((k) => !k));
    weights = softmax.map((row, i) => row.map((w, j) => keep[i][j] ? w / (1 - rate) : 0));
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
    softColSums: colSums(softmax)
  };
}
function dropoutRate(data, state) {
  return data.dropout ? data.dropout.rates[state.dropout_index ?? 0] : 0;
}
function keptCells(bits, n) {
  const bytes = Uint8Array.from(atob(bits), (c) => c.charCodeAt(0));
  return Array.from(
    { length: n },
    (_, i) => Array.from({ length: n }, (_2, j) => (bytes[i * n + j >> 3] >> (i * n + j & 7) & 1) === 1)
  );
}
function attentionOf(data, state, setting = attentionSetting(data, state)) {
  const row = setting.weights[state.query];
  return { ...setting, row, context: blend(row, setting.values) };
}
function stepFits(data, step, n, index) {
  if (data.steps) return index(step, data.steps.length);
  return data.inputs ? index(step - 1, n * n) : true;
}
function fits(data, state) {
  const n = (data.tokens || []).length;
  const index = (v, size) => Number.isInteger(v) && v >= 0 && v < size;
  return n > 0 && index(state.query, n) && stepFits(data, state.step, n, index) && DIMS.includes(state.dim) && Number.isFinite(state.temperature) && state.temperature > 0 && index(state.head, (data.heads || [null]).length) && (!data.dropout || index(state.dropout_index ?? 0, data.dropout.rates.length) && index(state.draw ?? 0, data.dropout.draws));
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
var SUPERSCRIPT = "\u2070\xB9\xB2\xB3\u2074\u2075\u2076\u2077\u2078\u2079";
var SUBSCRIPT = "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089";
var digits = (n, set) => String(n).replace(/\d/g, (d) => set[d]);
function total(x) {
  return Math.abs(x - 1) <= 1e-4 ? "1.0000" : fixed(x);
}
var SPECS = {
  f4: fixed,
  // The book counts tokens from 1: Python's index 1 is x⁽²⁾, its weights α₂,ⱼ.
  book: (i) => `\u207D${digits(i + 1, SUPERSCRIPT)}\u207E`,
  sub: (i) => digits(i + 1, SUBSCRIPT),
  // Heads and blocks are counted from 1 in words ("head 1 of 4"), as tokens are.
  one: (i) => String(i + 1),
  sum: total,
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
  return weights.map((w, j) => fill(texts.term, { w, vec, j, token: tokens[j] })).join(texts.plus);
}

// attnlib/widgets/static/src/dom.js
function make(tag, className = "", text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}
function setText(node, text) {
  const only = node.firstChild;
  if (only && only === node.lastChild && only.nodeType === 3) {
    if (only.data !== text) only.data = text;
  } else if (node.textContent !== text) node.textContent = text;
}
function stack(node, texts, classes) {
  const spans = texts.map((text, k) => make("span", classes[k], text));
  const box = make("span", "attnlib-stack");
  box.append(...spans);
  node.replaceChildren(box);
  return spans;
}
function markable(node, text, marked = text) {
  stack(node, [text, marked], ["attnlib-plain", "attnlib-marked"]);
}
function stacked(node, texts) {
  return stack(node, texts, texts.map(() => "attnlib-off"));
}
function pick(spans, k, was) {
  if (k !== was) {
    if (spans[was]) spans[was].classList.add("attnlib-off");
    spans[k]?.classList.remove("attnlib-off");
  }
  return k;
}
function captionFor(table) {
  const caption = make("div", "attnlib-caption");
  caption.id = uniqueId("attnlib-caption");
  table.setAttribute("aria-labelledby", caption.id);
  return caption;
}
function uniqueId(prefix) {
  globalThis.attnlibIds = (globalThis.attnlibIds ?? 0) + 1;
  return `${prefix}-${globalThis.attnlibIds}`;
}

// attnlib/widgets/static/src/controls.js
var ANNOUNCE_DELAY_MS = 300;
var FIND_TRIES = 50;
var FIND_EVERY_MS = 100;
function setAttr(node, name, value) {
  if (node && node.getAttribute(name) !== value) node.setAttribute(name, value);
}
function describeControls(box) {
  box.querySelectorAll(".attnlib-with-status").forEach((pair) => {
    const line = pair.querySelector(".attnlib-status-beside");
    if (!line) return;
    if (!line.id) line.id = uniqueId("attnlib-said");
    pair.querySelectorAll("input, select, textarea, button, .noUi-handle").forEach((target) => setAttr(target, "aria-describedby", line.id));
  });
}
function showReadout(handle, text) {
  const slider = handle.closest(".attnlib-control-query");
  if (!slider) return;
  let readout = slider.querySelector(".attnlib-readout");
  if (!readout) {
    readout = make("span", "attnlib-readout");
    readout.setAttribute("aria-hidden", "true");
    slider.append(readout);
  }
  setText(readout, text);
}
function controlsOf(box) {
  const one = (name, selector) => box.querySelector(`.attnlib-control-${name} ${selector}`);
  return {
    // [the view's name, the control's class]: the TrainingExplorer's step is its snapshot.
    sliders: [
      ["query", "query"],
      ["temperature", "temperature"],
      ["head", "head"],
      ["step", "step"],
      ["step", "snapshot"]
    ].map(([name, control]) => [name, one(control, ".noUi-handle")]).filter(([, handle]) => handle),
    toggles: box.querySelectorAll(".attnlib-control-dim button"),
    group: one("dim", ".widget-toggle-button")?.parentElement ?? null,
    play: box.querySelector(".attnlib-control-play"),
    // The TrainingExplorer's head: a drop-down whose label ipywidgets does not tie to it.
    menu: one("head", "select")
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
      const said = fill(texts[`${name}_value`], values);
      setAttr(handle, "aria-label", texts[name]);
      setAttr(handle, "aria-valuetext", said);
      if (name === "query") showReadout(handle, said);
    });
    setAttr(found.menu, "aria-label", texts.head);
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
    const ready = (controls) => names.every((name) => {
      if (name === "dim") return controls.toggles.length > 0;
      if (name === "head" && controls.menu) return true;
      return controls.sliders.some(([n]) => n === name);
    });
    if (box) {
      const controls = controlsOf(box);
      if (ready(controls) || tries >= FIND_TRIES) {
        found = controls;
        describeControls(box);
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
        setText(live, line);
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

// attnlib/widgets/static/src/formulas.js
var mi = (x) => ["mi", x];
var mn = (x) => ["mn", x];
var mo = (x) => ["mo", x];
var mtext = (x) => ["mtext", x];
var mrow = (...children) => ["mrow", ...children];
var msub = (base, sub) => ["msub", base, sub];
var msup = (base, sup) => ["msup", base, sup];
var mfrac = (top, bottom) => ["mfrac", top, bottom];
var msqrt = (x) => ["msqrt", x];
var eq = mo("=");
var VECTOR_SHOWN = 6;
var PRODUCTS_SHOWN = 4;
var PLAIN_BELOW = 1e5;
var book = (i) => typeof i === "number" ? mn(String(i + 1)) : mi(i);
function indexed(name, i, j) {
  return msub(mi(name), mrow(book(i), mo(","), book(j)));
}
function vectorOf(name, j) {
  return msup(mi(name), mrow(mo("("), book(j), mo(")")));
}
var number = (x) => mn(fixed(x));
function shortened(items, shown, head) {
  if (items.length <= shown) return items;
  return [...items.slice(0, head), null, ...items.slice(items.length - (shown - head - 1))];
}
function large(logTotal) {
  const total2 = Math.exp(logTotal);
  if (total2 < PLAIN_BELOW) return number(total2);
  const exponent = Math.floor(logTotal / Math.LN10);
  const mantissa = Math.exp(logTotal - exponent * Math.LN10);
  return mrow(mn(mantissa.toFixed(3)), mo("\xD7"), msup(mn("10"), mn(String(exponent))));
}
function logSumExp(values) {
  const finite = values.filter(Number.isFinite);
  const top = Math.max(...finite);
  return top + Math.log(finite.reduce((s, v) => s + Math.exp(v - top), 0));
}
function weightLine(into, weights, [i, j], dim, name, texts) {
  const alpha = indexed("\u03B1", i, j);
  if (!Number.isFinite(into[i][j])) return mrow(alpha, eq, mn("0"), mtext(` ${texts.math_masked}`));
  const rows = dim === -1;
  const along = rows ? into[i] : into.map((row) => row[j]);
  const exp = (x) => msup(mi("e"), x);
  const sum = msub(mo("\u2211"), mi("k"));
  const each = rows ? indexed(name, i, "k") : indexed(name, "k", j);
  return mrow(
    alpha,
    eq,
    mfrac(exp(indexed(name, i, j)), mrow(sum, exp(each))),
    eq,
    mfrac(exp(number(into[i][j])), large(logSumExp(along))),
    eq,
    number(weights[i][j])
  );
}
function scaledLine(view, [i, j], temperature, headDim, many) {
  const t = mn(SPECS.g(temperature));
  const symbolic = many ? mrow(msqrt(msub(mi("d"), mi("k"))), mo("\xB7"), mi("T")) : mi("T");
  const numeric = many ? mrow(msqrt(mn(String(headDim))), mo("\xB7"), t) : t;
  return mrow(
    indexed("s", i, j),
    eq,
    mfrac(indexed("\u03C9", i, j), symbolic),
    eq,
    mfrac(number(view.scores[i][j]), numeric),
    eq,
    number(view.scaled[i][j])
  );
}
function contextLine(query, context2, vec) {
  const shown = shortened(context2, VECTOR_SHOWN, 3).map((v) => v === null ? mo("\u2026") : number(v));
  const items = shown.flatMap((node, k) => k ? [mo(","), node] : [node]);
  return mrow(
    vectorOf("z", query),
    eq,
    msub(mo("\u2211"), mi("j")),
    indexed("\u03B1", query, "j"),
    vectorOf(vec, "j"),
    eq,
    mrow(mo("["), ...items, mo("]"))
  );
}
function dropoutLine(view, [i, j], texts) {
  const alpha = indexed("\u03B1", i, j);
  const label = mtext(`${texts.after_dropout} `);
  if (view.masked[i][j]) return mrow(label, alpha, eq, mn("0"), mtext(` ${texts.math_masked}`));
  if (view.dropped[i][j]) return mrow(label, alpha, mo("\u2192"), mn("0"), mtext(` (${texts.dropped})`));
  const scale = mfrac(mn("1"), mrow(mn("1"), mo("\u2212"), mn(SPECS.g(view.rate))));
  return mrow(label, alpha, mo("\xB7"), scale, eq, number(view.weights[i][j]));
}
function maskedScoreLine([i, j], texts) {
  return mrow(indexed("s", i, j), eq, mo("\u2212\u221E"), mtext(` ${texts.math_masked}`));
}
function scoreLine(inputs, [i, j], score) {
  const pairs = shortened(
    inputs[i].map((a, k) => [a, inputs[j][k]]),
    PRODUCTS_SHOWN,
    2
  );
  const factor = (x) => mn(SPECS.factor(x));
  const terms2 = pairs.flatMap((pair, k) => {
    const term = pair === null ? [mo("\u22EF")] : [factor(pair[0]), mo("\xD7"), factor(pair[1])];
    return k ? [mo("+"), ...term] : term;
  });
  return mrow(
    indexed("\u03C9", i, j),
    eq,
    vectorOf("x", i),
    mo("\xB7"),
    vectorOf("x", j),
    eq,
    ...terms2,
    eq,
    number(score)
  );
}
function mathView(kind, data, view, state, cell2) {
  const n = data.tokens.length;
  const texts = data.texts.panels;
  const [i, j] = cell2.map((v) => Math.min(Math.max(v, 0), n - 1));
  if (kind === "loop") {
    const [a, b] = view.at;
    return [scoreLine(data.inputs, [a, b], data.scores[a][b])];
  }
  if (kind === "softmax") {
    const into = data.scores.map((row) => row.map((v) => v === null ? -Infinity : v));
    return [weightLine(into, view.weights, [i, j], state.dim, "\u03C9", texts)];
  }
  if (kind === "query") {
    const into = data.scores;
    return [
      weightLine(into, view.weights, [i, j], -1, "\u03C9", texts),
      contextLine(state.query, view.context, "x")
    ];
  }
  if (kind === "attention") {
    const many = data.heads.length > 1;
    const scaled = data.scale !== 1 || SPECS.g(state.temperature) !== "1";
    const lines = [];
    if (scaled && view.masked[i][j]) lines.push(maskedScoreLine([i, j], texts));
    else if (scaled) lines.push(scaledLine(view, [i, j], state.temperature, view.context.length, many));
    const name = scaled ? "s" : "\u03C9";
    lines.push(weightLine(view.scaled, view.softmax ?? view.weights, [i, j], state.dim, name, texts));
    if (view.rate > 0) lines.push(dropoutLine(view, [i, j], texts));
    lines.push(contextLine(state.query, view.context, many ? "v" : "x"));
    return lines;
  }
  return [];
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
var LEVELS = 128;
function levelOf(value, vmin, vmax) {
  const t = vmax > vmin ? (value - vmin) / (vmax - vmin) : 0.5;
  return Math.round(Math.min(Math.max(t, 0), 1) * LEVELS);
}
function colorsOfLevel(level) {
  const rgb = colorAt(level / LEVELS);
  const text = luminance(rgb) > LUMINANCE_THRESHOLD ? "#000" : "#fff";
  return { background: `rgb(${rgb.join(",")})`, color: text };
}
var LEVEL_COLORS = Array.from({ length: LEVELS + 1 }, (_, k) => colorsOfLevel(k));
function gradient() {
  return `linear-gradient(to right, ${VIRIDIS.join(", ")})`;
}

// attnlib/widgets/static/src/underlay.js
var PIXELS_FROM = 128;
function underlay(table, cells, scroller, { sticky = false, pixels = null } = {}) {
  const cols = cells[0].length;
  const size = cells.length * cols;
  if (pixels === null) {
    pixels = size >= PIXELS_FROM;
    table.classList.add(pixels ? "attnlib-pixels" : "attnlib-written");
  }
  const canvas = pixels ? make("canvas", "attnlib-underlay") : null;
  const layer = {
    pixels,
    table,
    scroller,
    sticky,
    cells,
    window: null,
    cols,
    canvas,
    // Where the cells are drawn, and how it is shown (null: the canvas itself is drawn on).
    paper: canvas,
    shown: null,
    looks: new Array(size).fill(null),
    texts: new Array(size).fill(""),
    names: new Array(size).fill(""),
    renamed: /* @__PURE__ */ new Set(),
    renaming: false,
    geometry: null,
    ctx: null,
    font: null,
    fill: null,
    colors: /* @__PURE__ */ new Map(),
    frames: /* @__PURE__ */ new Map(),
    // Far out of sight (not drawn), and a drawing skipped since.
    far: false,
    stale: false
  };
  cells.forEach(
    (row, r) => row.forEach((td, c) => {
      td.attnlibLayer = layer;
      td.attnlibIndex = r * cols + c;
      if (!pixels) td.append(document.createTextNode(""));
    })
  );
  if (!sticky) cells[0][0].classList.add("attnlib-anchor");
  if (typeof ResizeObserver !== "undefined") {
    const moved2 = new ResizeObserver(() => {
      if (!pixels) {
        layer.geometry = measure(layer);
        placeFrames(layer);
      } else if (layer.geometry && !sameGeometry(layer.geometry, measure(layer))) drawAll(layer);
    });
    moved2.observe(table);
    moved2.observe(scroller);
  }
  if (!pixels) return layer;
  canvas.setAttribute("aria-hidden", "true");
  presentWithBitmaps(layer);
  cells[0][0].append(canvas);
  scroller.addEventListener("scroll", () => layer.geometry && drawAll(layer, false), {
    passive: true
  });
  watchSight(layer);
  return layer;
}
function presentWithBitmaps(layer) {
  if (typeof OffscreenCanvas === "undefined" || typeof ImageBitmap === "undefined") return;
  const shown = layer.canvas.getContext("bitmaprenderer");
  if (!shown) return;
  const copy = new OffscreenCanvas(1, 1);
  layer.paper = document.createElement("canvas");
  layer.shown = { shown, copy, ctx: null };
}
function present(layer) {
  const { shown, paper } = layer;
  if (!shown) return;
  const { copy } = shown;
  if (copy.width !== paper.width || copy.height !== paper.height || !shown.ctx) {
    copy.width = paper.width;
    copy.height = paper.height;
    shown.ctx = copy.getContext("2d", { alpha: false });
  }
  shown.ctx.drawImage(paper, 0, 0);
  shown.shown.transferFromImageBitmap(copy.transferToImageBitmap());
}
var NEAR = "50% 0px";
function watchSight(layer) {
  if (typeof IntersectionObserver === "undefined") return;
  const near = new IntersectionObserver(
    (entries) => {
      layer.far = !entries[entries.length - 1].isIntersecting;
      if (!layer.far && layer.stale) {
        layer.stale = false;
        drawAll(layer);
      }
    },
    { rootMargin: NEAR }
  );
  near.observe(layer.scroller);
}
function frameCells(layer, name, span) {
  let frame = layer.frames.get(name);
  if (!frame) {
    const node = make("div", "attnlib-frame");
    node.dataset.frame = name;
    node.setAttribute("aria-hidden", "true");
    node.hidden = true;
    layer.cells[0][0].append(node);
    frame = { node, span: null, size: "", place: "" };
    layer.frames.set(name, frame);
  }
  frame.span = span;
  placeFrame(layer, frame);
}
function placeFrame(layer, frame) {
  const g = layer.geometry;
  const { node, span } = frame;
  const hidden = !span || !g;
  if (node.hidden !== hidden) node.hidden = hidden;
  if (hidden) return;
  const [r0, c0, r1, c1] = span;
  const x = g.cols[c0][0];
  const y = g.rows[r0][0];
  const width = g.cols[c1][0] + g.cols[c1][1] - x;
  const height = g.rows[r1][0] + g.rows[r1][1] - y;
  const size = `${width} ${height}`;
  if (frame.size !== size) {
    node.style.width = `${width}px`;
    node.style.height = `${height}px`;
    frame.size = size;
  }
  const place = `translate(${x}px, ${y}px)`;
  if (frame.place !== place) {
    node.style.transform = place;
    frame.place = place;
  }
}
function placeFrames(layer) {
  layer.frames.forEach((frame) => placeFrame(layer, frame));
}
function measure(layer) {
  const { cells, table } = layer;
  const origin = cells[0][0].getBoundingClientRect();
  const box = (td) => td.getBoundingClientRect();
  const style = getComputedStyle(cells[0][0]);
  const page = getComputedStyle(table);
  const font = `${style.fontSize} ${style.fontFamily}`;
  const frame = layer.scroller.getBoundingClientRect();
  return {
    // Where the first cell starts in the scroller's content, and how wide its box is.
    start: origin.left - frame.left - layer.scroller.clientLeft + layer.scroller.scrollLeft,
    sight: layer.scroller.clientWidth,
    cols: cells[0].map((td) => [box(td).left - origin.left, box(td).width]),
    rows: cells.map((row) => [box(row[0]).top - origin.top, box(row[0]).height]),
    dpr: window.devicePixelRatio || 1,
    pad: parseFloat(style.paddingRight) || 0,
    fonts: {
      normal: `400 ${font}`,
      italic: `italic 400 ${font}`,
      bold: `700 ${font}`,
      "bold italic": `italic 700 ${font}`
    },
    paper: page.getPropertyValue("--attnlib-paper").trim() || "#fff",
    ink: page.color
  };
}
function color(layer, value) {
  if (!value.startsWith("--")) return value;
  if (!layer.colors.has(value)) {
    const style = getComputedStyle(layer.table);
    layer.colors.set(value, style.getPropertyValue(value).trim() || "#888");
  }
  return layer.colors.get(value);
}
function sameGeometry(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
function inSight(layer, k) {
  const [x, w] = layer.geometry.cols[k % layer.cols];
  const [from, to] = layer.window;
  return x + w > from && x < to;
}
function fillWith(layer, ctx, style) {
  if (layer.fill !== style) {
    ctx.fillStyle = style;
    layer.fill = style;
  }
}
function drawCells(layer, ctx, ks) {
  const g = layer.geometry;
  const place = (k) => [...g.cols[k % layer.cols], ...g.rows[Math.floor(k / layer.cols)]];
  const byFont = /* @__PURE__ */ new Map([[layer.font, []]]);
  ks.forEach((k) => {
    const [x, w, y, h] = place(k);
    const look = layer.looks[k];
    fillWith(layer, ctx, g.paper);
    ctx.fillRect(x, y, w, h);
    if (!look) return;
    [look.fill].flat().forEach((fill2) => {
      fillWith(layer, ctx, color(layer, fill2));
      ctx.fillRect(x + 0.5, y + 0.5, w - 1, h - 1);
    });
    if (look.quiet) return;
    const font = g.fonts[look.weight ?? "normal"];
    if (!byFont.has(font)) byFont.set(font, []);
    byFont.get(font).push(k);
  });
  byFont.forEach((cells, font) => {
    if (!cells.length) return;
    if (layer.font !== font) {
      ctx.font = font;
      layer.font = font;
    }
    cells.forEach((k) => {
      const [x, w, y, h] = place(k);
      const look = layer.looks[k];
      fillWith(layer, ctx, look.ink ? color(layer, look.ink) : g.ink);
      ctx.fillText(look.text, x + w - g.pad, y + h / 2, Math.max(w - 2 * g.pad, 1));
    });
  });
}
function context(layer) {
  if (layer.ctx) return layer.ctx;
  const ctx = layer.paper.getContext("2d", { alpha: false });
  layer.ctx = ctx;
  const g = layer.geometry;
  ctx.setTransform(g.dpr, 0, 0, g.dpr, -layer.window[0] * g.dpr, 0);
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  ctx.font = g.fonts.normal;
  layer.font = g.fonts.normal;
  layer.fill = null;
  return ctx;
}
function drawAll(layer, remeasure = true) {
  if (remeasure || !layer.geometry) {
    layer.geometry = measure(layer);
    layer.colors.clear();
    placeFrames(layer);
  }
  const g = layer.geometry;
  const [x, w] = g.cols[g.cols.length - 1];
  const [y, h] = g.rows[g.rows.length - 1];
  const left = layer.sticky ? 0 : layer.scroller.scrollLeft - g.start;
  const from = Math.max(0, Math.floor(left));
  const right = layer.sticky ? x + w : Math.ceil(left + g.sight);
  const to = Math.max(from + 1, Math.min(x + w, right));
  const same = layer.window && layer.window[0] === from && layer.window[1] === to;
  if (!remeasure && same) return;
  layer.window = [from, to];
  const { canvas, paper } = layer;
  canvas.style.left = `${from}px`;
  canvas.style.width = `${to - from}px`;
  canvas.style.height = `${y + h}px`;
  const width = Math.max(Math.ceil((to - from) * g.dpr), 1);
  const height = Math.max(Math.ceil((y + h) * g.dpr), 1);
  [paper, canvas].forEach((each) => {
    each.width = width;
    each.height = height;
  });
  layer.ctx = null;
  const ctx = context(layer);
  drawCells(layer, ctx, layer.looks.map((_, k) => k).filter((k) => inSight(layer, k)));
  present(layer);
}
function setLook(layer, k, look, name = look ? look.text : "") {
  if (layer.names[k] !== name) {
    layer.names[k] = name;
    layer.renamed.add(k);
  }
  const was = layer.looks[k];
  const same = was === look || was && look && was.text === look.text && String(was.fill) === String(look.fill) && was.ink === look.ink && was.weight === look.weight && was.quiet === look.quiet;
  layer.looks[k] = look;
  layer.texts[k] = look && !look.quiet ? look.text : "";
  return !same;
}
function rename(layer) {
  if (!layer.renamed.size || layer.renaming) return;
  layer.renaming = true;
  const write = () => {
    layer.renaming = false;
    layer.renamed.forEach((k) => {
      const td = layer.cells[Math.floor(k / layer.cols)][k % layer.cols];
      const name = layer.names[k];
      if (name) td.setAttribute("aria-label", name);
      else td.removeAttribute("aria-label");
    });
    layer.renamed.clear();
  };
  requestAnimationFrame(() => setTimeout(write, 0));
}
var css = (value) => value.startsWith("--") ? `var(${value})` : value;
function writeCell(layer, k) {
  const td = layer.cells[Math.floor(k / layer.cols)][k % layer.cols];
  const look = layer.looks[k];
  const fills = look ? [look.fill].flat().map(css) : [];
  const tints = fills.slice(1).reverse().map((c) => `linear-gradient(${c}, ${c})`);
  const weight = look?.weight ?? "normal";
  const now = {
    text: look && !look.quiet ? look.text : "",
    background: [...tints, ...fills.slice(0, 1)].join(", "),
    color: look?.ink ? css(look.ink) : "",
    fontStyle: weight.includes("italic") ? "italic" : "",
    fontWeight: weight.includes("bold") ? "bold" : ""
  };
  const was = td.attnlibWritten ?? {};
  if (was.text !== now.text) td.firstChild.data = now.text;
  ["background", "color", "fontStyle", "fontWeight"].forEach((name) => {
    if (was[name] !== now[name]) td.style[name] = now[name];
  });
  td.attnlibWritten = now;
}
function draw(layer, changed) {
  rename(layer);
  if (!layer.pixels) {
    changed.forEach((k) => writeCell(layer, k));
    return;
  }
  if (layer.far) {
    layer.stale = true;
    return;
  }
  const g = layer.geometry;
  if (!g || !layer.window || g.dpr !== (window.devicePixelRatio || 1)) {
    drawAll(layer);
    return;
  }
  const shown = changed.filter((k) => inSight(layer, k));
  if (!shown.length) return;
  drawCells(layer, context(layer), shown);
  present(layer);
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
  if (totals) tr.append(header(texts.row_sum, "col", "attnlib-total attnlib-sums-head"));
  return tr;
}
function gridCell(i, j) {
  const td = cell("td", i, j);
  td.tabIndex = -1;
  return td;
}
function bodyRow(tokens, i, totals, parts, current) {
  const tr = make("tr");
  tr.dataset.row = i;
  const label = header("", "row");
  markable(label, tokens[i], current);
  const cells = tokens.map((_, j) => gridCell(i, j));
  tr.append(label, ...cells);
  if (totals) {
    const sum = cell("td", i, "sum", "attnlib-total");
    tr.append(sum);
    parts.rowSums.push(sum);
  }
  parts.rows.push(tr);
  parts.cells.push(cells);
  return tr;
}
function sumsRow(tokens, parts, texts) {
  const tr = make("tr");
  tr.dataset.row = "sum";
  parts.colSums = tokens.map((_, j) => cell("td", "sum", j, "attnlib-total"));
  const corner = make("td", "attnlib-sums-corner");
  tr.append(header(texts.column_sum, "row", "attnlib-total"), ...parts.colSums, corner);
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
function moved(key, i, j, n) {
  const clamp = (v) => Math.min(Math.max(v, 0), n - 1);
  const to = {
    ArrowUp: [i - 1, j],
    ArrowDown: [i + 1, j],
    ArrowLeft: [i, j - 1],
    ArrowRight: [i, j + 1],
    Home: [i, 0],
    End: [i, n - 1]
  }[key];
  return to ? to.map(clamp) : null;
}
function wireGrid(parts, details) {
  const n = parts.cells.length;
  const at = (node) => {
    const td = node?.closest?.("td[data-row]");
    const [i, j] = td ? [Number(td.dataset.row), Number(td.dataset.col)] : [NaN, NaN];
    return Number.isInteger(i) && Number.isInteger(j) ? [i, j] : null;
  };
  const show = (i, j) => {
    const text = parts.describe ? parts.describe(i, j) : "";
    parts.cells[i][j].title = text;
    setText(details, text);
    if (parts.onCell) parts.onCell(i, j);
  };
  parts.activate = (i, j) => {
    const [a, b] = parts.active;
    if (a !== i || b !== j) {
      parts.cells[a][b].tabIndex = -1;
      parts.cells[a][b].removeAttribute("aria-describedby");
      parts.cells[i][j].tabIndex = 0;
      parts.cells[i][j].setAttribute("aria-describedby", details.id);
      parts.active = [i, j];
    }
  };
  parts.table.addEventListener("keydown", (event) => {
    const here = at(event.target);
    const to = here && moved(event.key, here[0], here[1], n);
    if (!to) return;
    event.preventDefault();
    parts.activate(...to);
    show(...to);
    parts.cells[to[0]][to[1]].focus();
  });
  parts.table.addEventListener("focusin", (event) => {
    const here = at(event.target);
    if (!here) return;
    parts.activate(...here);
    show(...here);
    const ring = event.target.matches(":focus-visible") ? [...here, ...here] : null;
    frameCells(parts.layer, "focus", ring);
  });
  parts.table.addEventListener("focusout", (event) => {
    if (!parts.table.contains(event.relatedTarget)) frameCells(parts.layer, "focus", null);
  });
  parts.table.addEventListener("mouseover", (event) => {
    const here = at(event.target);
    if (here) show(...here);
    const sum = event.target.closest?.("td.attnlib-total");
    if (sum?.attnlibSum !== void 0 && sum.title !== sum.attnlibSum) sum.title = sum.attnlibSum;
  });
  parts.show = show;
}
function buildHeatmap(parent, tokens, { texts, label, totals = false, widest = "0.0000" }) {
  const table = make("table", "attnlib-heatmap");
  table.setAttribute("role", "grid");
  const caption = captionFor(table);
  const parts = { table, caption, rows: [], cells: [], rowSums: [], colSums: [] };
  table.append(headerRow(tokens, totals, texts));
  tokens.forEach((token, i) => {
    const current = fill(texts.current, { token });
    table.append(bodyRow(tokens, i, totals, parts, current));
  });
  if (totals) table.append(sumsRow(tokens, parts, texts));
  parts.legend = legend(label);
  parts.masked = texts.masked;
  parts.dropped = texts.dropped;
  parts.row = -1;
  parts.at = null;
  const size = tokens.length ** 2;
  const slots = () => new Array(size).fill(null);
  parts.shown = { how: slots(), value: slots(), scale: slots() };
  const digits2 = Math.max(widest.length, totals ? fixed(tokens.length).length : 0);
  table.style.setProperty("--attnlib-digits", String(digits2));
  parts.limits = "";
  const scroller = make("div", "attnlib-heatmap-scroll");
  scroller.append(table);
  const rows = totals ? [...parts.cells, parts.colSums] : parts.cells;
  parts.layer = underlay(table, rows, scroller);
  const sums = parts.rowSums.map((td) => [td]);
  const sticky = { sticky: true, pixels: parts.layer.pixels };
  parts.sumsLayer = totals ? underlay(table, sums, scroller, sticky) : null;
  const scroll = totals ? texts.scroll_sums : texts.scroll;
  const cue = make("div", "attnlib-scroll-cue", scroll);
  scroller.tabIndex = 0;
  scroller.setAttribute("role", "region");
  scroller.setAttribute("aria-label", scroll);
  const details = make("div", "attnlib-cell-details");
  details.id = uniqueId("attnlib-cell-details");
  parts.details = details;
  parts.describe = null;
  parts.onCell = null;
  parts.active = [0, 0];
  parts.cells[0][0].tabIndex = 0;
  parts.cells[0][0].setAttribute("aria-describedby", details.id);
  wireGrid(parts, details);
  const wrap = make("div", "attnlib-heatmap-wrap");
  wrap.append(caption, cue, scroller, parts.legend.box, details);
  parent.append(wrap);
  if (typeof ResizeObserver !== "undefined") {
    const mark2 = () => wrap.classList.toggle("attnlib-scrolls", scroller.scrollWidth > scroller.clientWidth + 1);
    new ResizeObserver(mark2).observe(scroller);
  }
  return parts;
}
var PLAIN = () => "plain";
function paintCell(parts, i, j, value, how, vmin, vmax) {
  const k = i * parts.cells.length + j;
  const { shown } = parts;
  if (shown.how[k] === how && shown.value[k] === value && shown.scale[k] === parts.scale) {
    return false;
  }
  const was = shown.how[k];
  shown.how[k] = how;
  shown.value[k] = value;
  shown.scale[k] = parts.scale;
  const td = parts.cells[i][j];
  if (was === "masked" !== (how === "masked")) td.classList.toggle("attnlib-masked");
  if (was === "dropped" !== (how === "dropped")) td.classList.toggle("attnlib-dropped");
  if (was === "blank" !== (how === "blank")) {
    if (how === "blank") td.dataset.empty = "1";
    else delete td.dataset.empty;
  }
  if (how === "blank") return setLook(parts.layer, k, null);
  const text = fixed(value);
  if (how === "masked" || how === "dropped") {
    const look = { text, fill: "--attnlib-masked-fill", ink: "--attnlib-masked-ink" };
    const word = how === "masked" ? parts.masked : parts.dropped;
    return setLook(parts.layer, k, { ...look, weight: "italic" }, `${text} ${word}`);
  }
  const { background, color: color2 } = LEVEL_COLORS[levelOf(value, vmin, vmax)];
  return setLook(parts.layer, k, { text, fill: background, ink: color2 });
}
var SUM = { fill: "--attnlib-sum-fill", weight: "italic" };
var SUM_ONE = { fill: ["--attnlib-paper", "rgba(0, 158, 115, 0.25)"], weight: "bold italic" };
function paintSum(layer, td, total2, k) {
  const text = total(total2);
  const one = Math.abs(total2 - 1) <= 1e-4;
  td.attnlibSum = String(total2);
  if (td.title) td.title = td.attnlibSum;
  return setLook(layer, k, { text, ...one ? SUM_ONE : SUM });
}
function paintRow(parts, row) {
  if (parts.row === row) return;
  [parts.row, row].forEach((i) => {
    if (i < 0 || i >= parts.rows.length) return;
    const current = i === row;
    parts.rows[i].classList.toggle("attnlib-highlight-row", current);
    if (current) parts.rows[i].setAttribute("aria-current", "true");
    else parts.rows[i].removeAttribute("aria-current");
  });
  parts.row = row;
  const n = parts.cells.length;
  frameCells(parts.layer, "row", row >= 0 && row < n ? [row, 0, row, n - 1] : null);
}
function paintAt(parts, at) {
  const key = at ? `${at[0]},${at[1]}` : "";
  if (parts.at === key) return;
  if (parts.at) {
    const [i, j] = parts.at.split(",").map(Number);
    parts.cells[i][j].classList.remove("attnlib-highlight-cell");
  }
  if (at) parts.cells[at[0]][at[1]].classList.add("attnlib-highlight-cell");
  parts.at = key;
  frameCells(parts.layer, "cell", at ? [at[0], at[1], at[0], at[1]] : null);
}
function paintHeatmap(parts, values, { vmin, vmax, how = PLAIN, row = -1, at = null, sums = null, caption = "" }) {
  setText(parts.caption, caption);
  const painted = [values, how, sums, vmin, vmax];
  const same = parts.painted?.every((x, k) => x === painted[k]) ?? false;
  parts.painted = painted;
  const changed = [];
  if (!same) {
    parts.scale = `${vmin} ${vmax}`;
    const n = parts.cells.length;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        if (paintCell(parts, i, j, values[i][j], how(i, j), vmin, vmax)) changed.push(i * n + j);
      }
    }
  }
  paintRow(parts, row);
  paintAt(parts, at);
  const sumsChanged = [];
  if (sums && !same) {
    const below = parts.cells.length ** 2;
    parts.colSums.forEach((td, j) => {
      if (paintSum(parts.layer, td, sums[1][j], below + j)) changed.push(below + j);
    });
    parts.rowSums.forEach((td, i) => {
      if (paintSum(parts.sumsLayer, td, sums[0][i], i)) sumsChanged.push(i);
    });
  }
  draw(parts.layer, changed);
  if (parts.sumsLayer) draw(parts.sumsLayer, sumsChanged);
  const limits = `${fixed(vmin)} ${fixed(vmax)}`;
  if (parts.limits !== limits) {
    setText(parts.legend.low, fixed(vmin));
    setText(parts.legend.high, fixed(vmax));
    parts.limits = limits;
  }
}

// attnlib/widgets/static/src/mathml.js
var NS = "http://www.w3.org/1998/Math/MathML";
function element(tree, texts) {
  const [tag, ...children] = tree;
  const node = document.createElementNS(NS, tag);
  children.forEach((child) => {
    if (typeof child !== "string") node.append(element(child, texts));
    else {
      const text = document.createTextNode(child);
      texts.push(text);
      node.append(text);
    }
  });
  return node;
}
function form(tree) {
  const [tag, ...children] = tree;
  return `${tag}(${children.map((c) => typeof c === "string" ? "" : form(c)).join(",")})`;
}
function textsOf(tree, out = []) {
  tree.slice(1).forEach((c) => typeof c === "string" ? out.push(c) : textsOf(c, out));
  return out;
}
function lineOf(line, shape) {
  const texts = [];
  const div = document.createElement("div");
  div.className = "attnlib-math-line";
  div.append(element(["math", line], texts));
  return { div, shape, texts };
}
function paintMath(node, lines) {
  const drawn = node.attnlibMath ?? [];
  node.attnlibMath = lines.map((line, k) => {
    const shape = form(line);
    const was = drawn[k];
    if (was && was.shape === shape) {
      textsOf(line).forEach((text, t) => {
        if (was.texts[t].data !== text) was.texts[t].data = text;
      });
      return was;
    }
    const now = lineOf(line, shape);
    if (was) was.div.replaceWith(now.div);
    else node.append(now.div);
    return now;
  });
  drawn.slice(lines.length).forEach((was) => was.div.remove());
}

// attnlib/widgets/static/src/panels.js
function paintToken(node, label) {
  setText(node, label);
}
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
function buildBars(node, tokens) {
  const heading = make("div", "attnlib-panel-title");
  const rows = [], bars = [], values = [];
  tokens.forEach((token, j) => {
    const row = make("div", "attnlib-bar-row");
    row.dataset.col = j;
    const bar = make("span", "attnlib-bar");
    const value = make("span", "attnlib-bar-value");
    const label = make("span", "attnlib-bar-label");
    markable(label, token);
    row.append(label, bar, value);
    rows.push(row);
    bars.push(bar);
    values.push(value);
  });
  node.replaceChildren(heading, ...rows);
  return { heading, rows, bars, values, scales: [], mark: -1 };
}
function paintBars(parts, weights, query, title) {
  const top = Math.max(...weights, 1e-12);
  setText(parts.heading, title);
  weights.forEach((w, j) => {
    const scale = `scaleX(${(Math.max(w, 0) / top).toFixed(3)})`;
    if (parts.scales[j] !== scale) {
      parts.bars[j].style.transform = scale;
      parts.scales[j] = scale;
    }
    setText(parts.values[j], fixed(w));
  });
  mark(parts.rows, query, parts);
}
function blendRow(size, className) {
  const tr = make("tr", className);
  const weight = make("td", "attnlib-weight");
  const th = make("th");
  tr.append(th, weight);
  const terms2 = Array.from({ length: size }, (_, k) => {
    const td = make("td", "attnlib-term");
    td.dataset.k = k;
    tr.append(td);
    return td;
  });
  return { tr, th, weight, terms: terms2 };
}
function buildBlend(node, tokens, size, widest, texts) {
  const table = make("table", "attnlib-blend");
  const caption = captionFor(table);
  const rows = tokens.map((token, j) => {
    const row = blendRow(size, "");
    markable(row.th, token);
    row.tr.dataset.col = j;
    table.append(row.tr);
    return row;
  });
  const context2 = blendRow(size, "attnlib-context");
  context2.labels = stacked(context2.th, tokens.map((_, query) => fill(texts.context, { query })));
  context2.shown = -1;
  table.append(context2.tr);
  table.style.setProperty("--attnlib-digits", String(widest.length));
  node.replaceChildren(caption, table);
  node.tabIndex = 0;
  node.setAttribute("role", "region");
  node.setAttribute("aria-labelledby", caption.id);
  const cells = [...rows, context2].map((row) => [row.weight, ...row.terms]);
  const layer = underlay(table, cells, node);
  return { caption, rows, trs: rows.map((r) => r.tr), context: context2, layer, mark: -1 };
}
var shade = (alpha) => `rgba(213, 94, 0, ${(0.45 * alpha).toFixed(3)})`;
var CONTEXT_SHADE = "rgba(213, 94, 0, 0.18)";
function paintBlend(parts, weights, values, context2, query, texts) {
  const top = Math.max(...weights, 1e-12);
  setText(parts.caption, texts.blend);
  const { context: z } = parts;
  z.shown = pick(z.labels, query, z.shown);
  const cols = parts.layer.cols;
  const changed = [];
  const paint = (k, look) => {
    if (setLook(parts.layer, k, look)) changed.push(k);
  };
  weights.forEach((w, j) => {
    paint(j * cols, { text: fixed(w), fill: "--attnlib-paper" });
    const fill2 = shade(Math.max(w, 0) / top);
    values[j].forEach((v, k) => paint(j * cols + 1 + k, { text: fixed(w * v), fill: fill2 }));
  });
  const last = weights.length * cols;
  paint(last, null);
  context2.forEach((v, k) => paint(last + 1 + k, { text: fixed(v), fill: CONTEXT_SHADE, weight: "bold" }));
  draw(parts.layer, changed);
  mark(parts.trs, query, parts);
  const inside = query >= 0 && query < weights.length;
  frameCells(parts.layer, "row", inside ? [query, 0, query, cols - 1] : null);
}
function paintText(node, text) {
  setText(node, text);
}

// attnlib/widgets/static/src/training.js
var SVG = "http://www.w3.org/2000/svg";
var WIDTH = 300;
var HEIGHT = 170;
var PAD = { left: 34, right: 8, top: 10, bottom: 28 };
function svg(tag, attrs = {}, text = "") {
  const node = document.createElementNS(SVG, tag);
  Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, String(v)));
  if (text) node.textContent = text;
  return node;
}
function buildGrid(tokens, texts) {
  const table = make("table", "attnlib-heatmap attnlib-colour-grid");
  table.setAttribute("role", "grid");
  const caption = captionFor(table);
  const head = make("tr");
  const corner = make("th", "attnlib-corner", texts.corner);
  corner.scope = "col";
  head.append(corner);
  tokens.forEach((token, j) => {
    const th = make("th", "", String(j + 1));
    th.scope = "col";
    th.title = token;
    th.setAttribute("aria-label", `${j + 1} ${token}`);
    head.append(th);
  });
  table.append(head);
  const rows = [];
  const cells = tokens.map((token, i) => {
    const tr = make("tr");
    tr.dataset.row = i;
    const th = make("th", "", token);
    th.scope = "row";
    th.title = token;
    tr.append(th);
    const row = tokens.map((_, j) => {
      const td = make("td");
      td.dataset.row = i;
      td.dataset.col = j;
      td.tabIndex = -1;
      tr.append(td);
      return td;
    });
    rows.push(tr);
    table.append(tr);
    return row;
  });
  const scroller = make("div", "attnlib-heatmap-scroll");
  scroller.append(table);
  const layer = underlay(table, cells, scroller);
  return { table, caption, rows, cells, scroller, layer };
}
function legend2(label) {
  const box = make("div", "attnlib-legend");
  const bar = make("span", "attnlib-legend-bar");
  bar.style.background = gradient();
  box.append(make("span", "", `${label}:`), make("span", "", "0"), bar, make("span", "", "1"));
  return box;
}
function wireGrid2(grid, details, describe) {
  const n = grid.cells.length;
  const at = (node) => {
    const td = node?.closest?.("td[data-row]");
    return td ? [Number(td.dataset.row), Number(td.dataset.col)] : null;
  };
  grid.active = [0, 0];
  grid.cells[0][0].tabIndex = 0;
  grid.cells[0][0].setAttribute("aria-describedby", details.id);
  const activate = (i, j) => {
    const [a, b] = grid.active;
    grid.cells[a][b].tabIndex = -1;
    grid.cells[a][b].removeAttribute("aria-describedby");
    grid.cells[i][j].tabIndex = 0;
    grid.cells[i][j].setAttribute("aria-describedby", details.id);
    grid.active = [i, j];
  };
  const show = (i, j) => {
    grid.shown = [i, j];
    setText(details, describe(i, j));
  };
  grid.table.addEventListener("keydown", (event) => {
    const here = at(event.target);
    const to = here && moved(event.key, here[0], here[1], n);
    if (!to) return;
    event.preventDefault();
    activate(...to);
    show(...to);
    grid.cells[to[0]][to[1]].focus();
  });
  grid.table.addEventListener("focusin", (event) => {
    const here = at(event.target);
    if (!here) return;
    activate(...here);
    show(...here);
  });
  grid.table.addEventListener("mouseover", (event) => {
    const here = at(event.target);
    if (here) show(...here);
  });
  grid.show = show;
}
function buildLossCurve(parent, data, texts) {
  const box = make("div", "attnlib-loss-panel");
  const title = make("div", "attnlib-panel-title", texts.loss_title);
  const chart = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: "attnlib-loss-curve",
    role: "img"
  });
  box.append(title, chart);
  parent.append(box);
  const points = data.losses ?? [];
  if (!points.length) {
    box.classList.add("attnlib-off");
    return null;
  }
  const last = Math.max(points[points.length - 1][0], ...data.steps);
  const top = Math.max(...points.map(([, l]) => l));
  const x = (s) => PAD.left + (WIDTH - PAD.left - PAD.right) * s / (last || 1);
  const y = (l) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - l / (top || 1));
  const axis = { class: "attnlib-loss-axis" };
  chart.append(
    svg("line", { ...axis, x1: x(0), x2: x(last), y1: y(0), y2: y(0) }),
    svg("line", { ...axis, x1: x(0), x2: x(0), y1: y(0), y2: y(top) }),
    svg("text", { x: x(0) - 4, y: y(0), "text-anchor": "end", class: "attnlib-loss-tick" }, "0"),
    svg("text", { x: x(0) - 4, y: y(top) + 8, "text-anchor": "end", class: "attnlib-loss-tick" }, top.toFixed(1)),
    svg("text", { x: x(0), y: HEIGHT - 14, "text-anchor": "start", class: "attnlib-loss-tick" }, "0"),
    svg("text", { x: x(last), y: HEIGHT - 14, "text-anchor": "end", class: "attnlib-loss-tick" }, String(last)),
    svg("text", { x: (x(0) + x(last)) / 2, y: HEIGHT - 2, "text-anchor": "middle", class: "attnlib-loss-tick" }, texts.loss_axis)
  );
  const line = points.map(([s, l]) => `${x(s).toFixed(1)},${y(l).toFixed(1)}`).join(" ");
  chart.append(svg("polyline", { points: line, class: "attnlib-loss-line" }));
  const marker = svg("line", { class: "attnlib-loss-marker", y1: y(0), y2: y(top) });
  const dot = svg("circle", { class: "attnlib-loss-dot", r: 4 });
  chart.append(marker, dot);
  const lossAt = (step) => points.reduce((best, p) => Math.abs(p[0] - step) < Math.abs(best[0] - step) ? p : best)[1];
  return { chart, marker, dot, x, y, lossAt, shown: null };
}
function paintLossCurve(curve, step, label) {
  if (!curve || curve.shown === step) return;
  curve.shown = step;
  const loss = curve.lossAt(step);
  const [cx, cy] = [curve.x(step).toFixed(1), curve.y(loss).toFixed(1)];
  curve.marker.setAttribute("x1", cx);
  curve.marker.setAttribute("x2", cx);
  curve.dot.setAttribute("cx", cx);
  curve.dot.setAttribute("cy", cy);
  curve.chart.setAttribute("aria-label", fill(label, { step, loss }));
}
var TRAINING = {
  build(root, data) {
    const { panels, training } = data.texts;
    const share = make("div", "attnlib-training-share");
    const row = make("div", "attnlib-row attnlib-training-row");
    const wrap = make("div", "attnlib-heatmap-wrap");
    const grid = buildGrid(data.tokens, panels);
    const details = make("div", "attnlib-cell-details attnlib-training-details");
    details.id = uniqueId("attnlib-cell-details");
    details.setAttribute("aria-live", "off");
    wrap.append(grid.caption, grid.scroller, legend2(training.legend), details);
    row.append(wrap);
    const curve = buildLossCurve(row, data, training);
    const formula = make("div", "attnlib-formula");
    root.append(share, row, formula);
    const parts = { share, grid, details, curve, formula, painted: null, row: -1, describe: null };
    wireGrid2(grid, details, (i, j) => parts.describe ? parts.describe(i, j) : "");
    parts.heatmap = { activate: () => {
    }, onCell: null };
    return parts;
  },
  draw(parts, data, view, { query, step }) {
    const { grid } = parts;
    setText(grid.caption, view.caption);
    if (parts.painted !== view.weights) {
      parts.painted = view.weights;
      const n = grid.cells.length;
      const changed = [];
      view.weights.forEach(
        (r, i) => r.forEach((w, j) => {
          const look = { text: fixed(w), fill: LEVEL_COLORS[levelOf(w, 0, 1)].background, quiet: true };
          if (setLook(grid.layer, i * n + j, look)) changed.push(i * n + j);
        })
      );
      draw(grid.layer, changed);
    }
    if (parts.row !== query) {
      grid.rows[parts.row]?.classList.remove("attnlib-highlight-row");
      grid.rows[parts.row]?.removeAttribute("aria-current");
      grid.rows[query].classList.add("attnlib-highlight-row");
      grid.rows[query].setAttribute("aria-current", "true");
      parts.row = query;
    }
    const texts = data.texts.training;
    parts.describe = (i, j) => fill(texts.cell, {
      i: i + 1,
      j: j + 1,
      token_i: data.tokens[i],
      token_j: data.tokens[j],
      value: view.weights[i][j]
    });
    if (grid.shown) setText(parts.details, parts.describe(...grid.shown));
    setText(parts.share, view.headline);
    paintLossCurve(parts.curve, data.steps[step], texts.loss_label);
    paintText(parts.formula, view.formula);
  }
};

// attnlib/widgets/static/src/views.js
var WEIGHT_LIMITS = [0, 1];
var prepared = /* @__PURE__ */ new WeakMap();
function once(data, make2) {
  if (!prepared.has(data)) prepared.set(data, make2());
  return prepared.get(data);
}
var SETTINGS_KEPT = 8;
var settings = /* @__PURE__ */ new WeakMap();
function perSetting(data, key, make2) {
  if (!settings.has(data)) settings.set(data, /* @__PURE__ */ new Map());
  const kept = settings.get(data);
  if (!kept.has(key)) {
    if (kept.size >= SETTINGS_KEPT) kept.delete(kept.keys().next().value);
    kept.set(key, make2());
  }
  return kept.get(key);
}
function queryPanels(data, query, row, vec) {
  const texts = data.texts.panels;
  const total2 = row.reduce((s, w) => s + w, 0);
  return {
    label: fill(texts.query, { query, token_repr: data.reprs[query] }),
    bars: fill(texts.bars, { query, total: total2 }),
    blend: fill(texts.blend, { query, vec }),
    context: fill(texts.context, { query })
  };
}
function queryView(data, { query }) {
  return {
    weights: data.weights,
    limits: WEIGHT_LIMITS,
    row: data.weights[query],
    values: data.values,
    caption: data.texts.query.caption,
    ...data.views[query]
  };
}
function softmaxView(data, { dim }) {
  return { limits: WEIGHT_LIMITS, ...data.views[DIMS.indexOf(dim)] };
}
function loopView(data, { step }) {
  const n = data.tokens.length;
  return {
    scores: data.scores,
    limits: data.limits,
    at: [Math.floor((step - 1) / n), (step - 1) % n],
    filled: (a, b) => a * n + b < step,
    caption: data.texts.loop.caption,
    ...data.views[step - 1]
  };
}
function dropoutFields(data, state, view) {
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
    drop_sum: view.rowSums[state.query]
  };
}
function attentionView(data, state) {
  const { query, dim, causal, temperature, head } = state;
  const key = `${head} ${dim} ${causal} ${temperature} ${state.dropout_index} ${state.draw}`;
  const setting = perSetting(data, key, () => {
    const grids = attentionSetting(data, state);
    const { masked, dropped } = grids;
    return {
      ...grids,
      limits: WEIGHT_LIMITS,
      sums: [grids.rowSums, grids.colSums],
      how: (i, j) => masked[i][j] ? "masked" : dropped && dropped[i][j] ? "dropped" : "plain"
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
    ...dropoutFields(data, state, view)
  };
  const flags = {
    rows: dim === -1,
    causal,
    many,
    // Temperature as shown: a slider's 1.0000000000000002 is 1 and changes nothing.
    changed: data.scale !== 1 || SPECS.g(temperature) !== "1" || causal,
    rows_one: ones(view.softRowSums),
    cols_one: ones(view.softColSums),
    drop: view.rate > 0
  };
  return {
    ...view,
    caption: compose(texts.caption, fields, flags),
    formula: compose(texts.formula, fields, flags),
    // Spoken: the weights shown (after dropout, if any) and their sum.
    announce: compose(texts.announce, { ...fields, row: view.row, row_sum: view.rowSums[query] }, flags),
    panels: queryPanels(data, query, view.row, vec)
  };
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
  const weights = perSetting(data, `${snapshot} ${head}`, () => {
    const flat = decoded(data);
    const start = (snapshot * heads + head) * n * n;
    return Array.from(
      { length: n },
      (_, i) => Array.from(flat.subarray(start + i * n, start + (i + 1) * n))
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
    even: data.even
  };
  const total2 = row.reduce((s, w) => s + w, 0);
  return {
    weights,
    limits: WEIGHT_LIMITS,
    row,
    caption: fill(texts.caption, fields),
    bars: fill(data.texts.panels.bars, { query, total: total2 }),
    formula: compose(texts.formula, fields, { first: query === 0 }),
    headline: fill(texts.headline, fields)
  };
}
function spoken(data, state) {
  const n = data.tokens.length;
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
    token_j: data.tokens[j] ?? ""
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
function dropoutBar(root, texts) {
  const bar = make("div", "attnlib-dropout");
  const button = make("button", "attnlib-resample", texts.resample);
  button.type = "button";
  const line = make("span", "attnlib-dropout-line");
  bar.append(button, line);
  root.append(bar);
  return { bar, button, line };
}
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
function queryLayout(root, data, legend3, totals, values) {
  const head = make("div", "attnlib-head");
  const token = make("b", "attnlib-token");
  head.append(token);
  const row = make("div", "attnlib-row");
  const { panels } = data.texts;
  const heatmap = buildHeatmap(row, data.tokens, { texts: panels, label: legend3, totals });
  const barsBox = make("div", "attnlib-bars");
  const blendBox = make("div", "attnlib-blend-panel");
  row.append(barsBox, blendBox);
  root.append(head, row);
  const bars = buildBars(barsBox, data.tokens);
  const most = Math.max(...values.flat().map(Math.abs));
  const blend2 = buildBlend(blendBox, data.tokens, values[0].length, fixed(-most), panels);
  return { token, heatmap, bars, blend: blend2, ...formulaBlock(root, panels) };
}
function drawQueryPanels(parts, data, query, view) {
  paintToken(parts.token, view.panels.label);
  paintBars(parts.bars, view.row, query, view.panels.bars);
  paintBlend(parts.blend, view.row, view.values, view.context, query, view.panels);
}
var QUERY = {
  build: (root, data) => queryLayout(root, data, data.texts.query.legend, false, data.values),
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
  }
};
var LOOP = {
  build(root, data) {
    const position = make("div", "attnlib-position");
    root.append(position);
    const { panels, loop } = data.texts;
    const widest = data.scores.flat().map(fixed).reduce((a, b) => b.length > a.length ? b : a);
    const heatmap = buildHeatmap(root, data.tokens, { texts: panels, label: loop.legend, widest });
    const code = make("div", "attnlib-code");
    root.append(code);
    return { position, heatmap, code, ...formulaBlock(root, panels) };
  },
  draw(parts, data, view) {
    const [vmin, vmax] = view.limits;
    const how = (a, b) => view.filled(a, b) ? "plain" : "blank";
    const options = { vmin, vmax, how, at: view.at, caption: view.caption };
    paintHeatmap(parts.heatmap, view.scores, options);
    parts.heatmap.describe = (i, j) => (view.filled(i, j) ? data.cells.done : data.cells.empty)[i][j];
    paintText(parts.position, view.position);
    paintText(parts.code, view.code);
    paintText(parts.formula, view.formula);
  }
};
var ATTENTION = {
  build(root, data) {
    const parts = queryLayout(
      root,
      data,
      data.texts.attention.legend,
      true,
      data.heads.flatMap((h) => h.values)
    );
    if (data.dropout) parts.dropout = dropoutBar(parts.token.parentElement, data.texts.panels);
    return parts;
  },
  draw(parts, data, view, state) {
    const { query } = state;
    const [vmin, vmax] = view.limits;
    const { how, sums } = view;
    const options = { vmin, vmax, how, row: query, sums, caption: view.caption };
    paintHeatmap(parts.heatmap, view.weights, options);
    const { dim } = state;
    parts.heatmap.describe = weightCell(data, view.weights, view.scaled, dim, view.masked, view);
    drawQueryPanels(parts, data, query, view);
    paintText(parts.formula, view.formula);
    if (parts.dropout) paintDropout(parts.dropout, data, view, state);
  }
};
function paintDropout(bar, data, view, state) {
  const texts = data.texts.panels;
  const on = view.rate > 0;
  const fields = dropoutFields(data, state, view);
  if (bar.button.disabled === on) bar.button.disabled = !on;
  const label = fill(texts.resample_label, fields);
  if (bar.button.getAttribute("aria-label") !== label) bar.button.setAttribute("aria-label", label);
  paintText(bar.line, on ? fill(texts.dropout_on, fields) : texts.dropout_off);
}
var KINDS = { query: QUERY, softmax: SOFTMAX, loop: LOOP, attention: ATTENTION, training: TRAINING };
var NAMED = {
  query: () => ["query"],
  softmax: () => ["dim"],
  loop: () => ["step"],
  attention: (data) => ["query", "temperature", "dim", ...data.heads.length > 1 ? ["head"] : []],
  // The head is a drop-down, named by its own label; the step slider walks the snapshots.
  training: () => ["query", "step"]
};
var CONTROLS = ["query", "dim_index", "causal", "temperature", "head", "step", "dropout_index", "draw"];
function stateOf(model) {
  return {
    query: model.get("query"),
    dim: DIMS[model.get("dim_index")],
    causal: model.get("causal"),
    temperature: model.get("temperature"),
    head: model.get("head"),
    step: model.get("step"),
    dropout_index: model.get("dropout_index") ?? 0,
    draw: model.get("draw") ?? 0
  };
}
var FOLLOWS_QUERY = /* @__PURE__ */ new Set(["query", "attention"]);
function render({ model, el }) {
  const name = model.get("kind");
  const kind = KINDS[name];
  const root = make("div", `attnlib-view attnlib-view-${name}`);
  el.append(root);
  let parts = null;
  let controls = null;
  let cell2 = [0, 0];
  let shown = null;
  const drawMath = () => {
    if (!parts?.math || !shown) return;
    const { data, view, state } = shown;
    paintMath(parts.math, mathView(name, data, view, state, cell2));
  };
  const redraw = () => {
    const data = model.get("data");
    const state = stateOf(model);
    if (!parts || !fits(data, state)) return;
    const view = VIEWS[name](data, state);
    kind.draw(parts, data, view, state);
    if (FOLLOWS_QUERY.has(name) && cell2[0] !== state.query) {
      cell2 = [state.query, cell2[1]];
      parts.heatmap.activate(...cell2);
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
    const texts = () => ({ ...data.texts.controls, ...data.texts[name]?.controls ?? {} });
    controls = parts ? watchControls(el, root, NAMED[name](data), texts) : null;
    if (parts?.dropout) {
      parts.dropout.button.addEventListener("click", () => {
        model.set("draw", ((model.get("draw") ?? 0) + 1) % data.dropout.draws);
        model.save_changes();
      });
    }
    if (parts) {
      const query = Math.min(Math.max(model.get("query"), 0), data.tokens.length - 1);
      cell2 = FOLLOWS_QUERY.has(name) ? [query, query] : [0, 0];
      parts.heatmap.activate(...cell2);
      parts.heatmap.onCell = (i, j) => {
        cell2 = FOLLOWS_QUERY.has(name) ? [model.get("query"), j] : [i, j];
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
var explorer_default = { render };
export {
  explorer_default as default
};
