// The TrainingExplorer's drawing: one head's weights as a grid of colours (no numbers: 16
// words of four-decimal numbers are not read; a cell's number is in the details line when
// the pointer or the keyboard is on it), the head's share of weight on the previous word in
// a line at the top (beside the controls above), and the loss over training beside the grid
// with the shown snapshot marked on it. Built once per sentence, repainted in place: a move
// of a control changes colours, texts and one marker, and lays nothing out (the details line
// has a fixed height).
// The colours are an underlay's fills (underlay.js), as the heatmap's: a new snapshot at 32
// words repaints a canvas, not a thousand cells' styles (restyling and laying those out took
// 30-40 ms a move in JupyterLab).
// Hooks for tests and styles: div.attnlib-training-share (the share line), table.attnlib-
// heatmap.attnlib-colour-grid (td[data-row][data-col], named by its number (aria-label);
// tr.attnlib-highlight-row the query's), div.attnlib-cell-details,
// svg.attnlib-loss-curve (line.attnlib-loss-marker at the snapshot's step).

import { LEVEL_COLORS, gradient, levelOf } from "./colors.js";
import { captionFor, make, setText, uniqueId } from "./dom.js";
import { fill, fixed } from "./format.js";
import { moved } from "./heatmap.js";
import { paintText } from "./panels.js";
import { draw, setLook, underlay } from "./underlay.js";

const SVG = "http://www.w3.org/2000/svg";
// The loss curve's box, in its own units (it scales with the page; see training.css).
const WIDTH = 300;
const HEIGHT = 170;
const PAD = { left: 34, right: 8, top: 10, bottom: 28 };

function svg(tag, attrs = {}, text = "") {
  const node = document.createElementNS(SVG, tag);
  Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, String(v)));
  if (text) node.textContent = text;
  return node;
}

/** The grid's table: column headers are the words' positions (1 to n: the words are too wide
 * for a cell), each named by its word; row headers the words. */
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
  // Its own stacking context (the canvas sits beneath the cells), and the box the underlay
  // draws in sight of.
  const scroller = make("div", "attnlib-heatmap-scroll");
  scroller.append(table);
  const layer = underlay(table, cells, scroller);
  return { table, caption, rows, cells, scroller, layer };
}

function legend(label) {
  const box = make("div", "attnlib-legend");
  const bar = make("span", "attnlib-legend-bar");
  bar.style.background = gradient();
  box.append(make("span", "", `${label}:`), make("span", "", "0"), bar, make("span", "", "1"));
  return box;
}

/** The grid's keyboard (arrows, Home/End; one tab stop) and pointer: the details line. */
function wireGrid(grid, details, describe) {
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

/** The loss over training as a line, downsampled in Python (data.losses: [step, loss]). */
function buildLossCurve(parent, data, texts) {
  const box = make("div", "attnlib-loss-panel");
  const title = make("div", "attnlib-panel-title", texts.loss_title);
  const chart = svg("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: "attnlib-loss-curve",
    role: "img",
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
  const x = (s) => PAD.left + ((WIDTH - PAD.left - PAD.right) * s) / (last || 1);
  const y = (l) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - l / (top || 1));
  const axis = { class: "attnlib-loss-axis" };
  chart.append(
    svg("line", { ...axis, x1: x(0), x2: x(last), y1: y(0), y2: y(0) }),
    svg("line", { ...axis, x1: x(0), x2: x(0), y1: y(0), y2: y(top) }),
    svg("text", { x: x(0) - 4, y: y(0), "text-anchor": "end", class: "attnlib-loss-tick" }, "0"),
    svg("text", { x: x(0) - 4, y: y(top) + 8, "text-anchor": "end", class: "attnlib-loss-tick" }, top.toFixed(1)),
    svg("text", { x: x(0), y: HEIGHT - 14, "text-anchor": "start", class: "attnlib-loss-tick" }, "0"),
    svg("text", { x: x(last), y: HEIGHT - 14, "text-anchor": "end", class: "attnlib-loss-tick" }, String(last)),
    svg("text", { x: (x(0) + x(last)) / 2, y: HEIGHT - 2, "text-anchor": "middle", class: "attnlib-loss-tick" }, texts.loss_axis),
  );
  const line = points.map(([s, l]) => `${x(s).toFixed(1)},${y(l).toFixed(1)}`).join(" ");
  chart.append(svg("polyline", { points: line, class: "attnlib-loss-line" }));
  const marker = svg("line", { class: "attnlib-loss-marker", y1: y(0), y2: y(top) });
  const dot = svg("circle", { class: "attnlib-loss-dot", r: 4 });
  chart.append(marker, dot);
  const lossAt = (step) =>
    points.reduce((best, p) => (Math.abs(p[0] - step) < Math.abs(best[0] - step) ? p : best))[1];
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

export const TRAINING = {
  build(root, data) {
    const { panels, training } = data.texts;
    const share = make("div", "attnlib-training-share");
    const row = make("div", "attnlib-row attnlib-training-row");
    const wrap = make("div", "attnlib-heatmap-wrap");
    const grid = buildGrid(data.tokens, panels);
    const details = make("div", "attnlib-cell-details attnlib-training-details");
    details.id = uniqueId("attnlib-cell-details");
    details.setAttribute("aria-live", "off");
    wrap.append(grid.caption, grid.scroller, legend(training.legend), details);
    row.append(wrap);
    const curve = buildLossCurve(row, data, training);
    const formula = make("div", "attnlib-formula");
    root.append(share, row, formula);
    const parts = { share, grid, details, curve, formula, painted: null, row: -1, describe: null };
    wireGrid(grid, details, (i, j) => (parts.describe ? parts.describe(i, j) : ""));
    // explorer.js's hooks: a heatmap that can be activated and tells which cell is shown.
    parts.heatmap = { activate: () => {}, onCell: null };
    return parts;
  },
  draw(parts, data, view, { query, step }) {
    const { grid } = parts;
    setText(grid.caption, view.caption);
    if (parts.painted !== view.weights) {
      parts.painted = view.weights;
      const n = grid.cells.length;
      const changed = [];
      view.weights.forEach((r, i) =>
        r.forEach((w, j) => {
          // Colour only (quiet): the number names the cell, the eye reads the colour.
          const look = { text: fixed(w), fill: LEVEL_COLORS[levelOf(w, 0, 1)].background, quiet: true };
          if (setLook(grid.layer, i * n + j, look)) changed.push(i * n + j);
        }),
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
    parts.describe = (i, j) =>
      fill(texts.cell, {
        i: i + 1,
        j: j + 1,
        token_i: data.tokens[i],
        token_j: data.tokens[j],
        value: view.weights[i][j],
      });
    if (grid.shown) setText(parts.details, parts.describe(...grid.shown));
    setText(parts.share, view.headline);
    paintLossCurve(parts.curve, data.steps[step], texts.loss_label);
    paintText(parts.formula, view.formula);
  },
};
