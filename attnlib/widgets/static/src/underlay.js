// Numbers and fills drawn on one canvas beneath a table's cells (an underlay). A move that
// changes a thousand numbers then redraws pixels, instead of restyling, laying out and
// painting a thousand elements. The cells stay in the table, empty and transparent: the
// keyboard, the pointer and screen readers use them, each named by its number (aria-label,
// written once the move's frame is painted).
// The canvas rides in the first cell, so it moves with the table (a caption above it that
// wraps anew, say); the cells' widths must not depend on their numbers. It
// spans only the part of the table in sight in its scroller, and follows the scrolling: a
// 32-token grid is then a canvas of the box's width, not of the grid's, and a move hands
// that much fewer pixels to the compositor.
// A small table is written into its cells instead (text and inline colours): under
// PIXELS_FROM cells, a canvas's fixed cost per frame (its own bitmap handed to the
// compositor) is more than restyling and laying out a few dozen cells.
// Marks over its cells (a query's row, the loop's cell) are frames: one box each in the first
// cell, over the others, moved by a transform (`frameCells`), so that moving a mark repaints
// no cell, as a shadow drawn in each of a row's cells did.
// The numbers are drawn on a canvas kept off the page (its `paper`) and shown as a bitmap
// (an ImageBitmap in a "bitmaprenderer" canvas): Chromium hands a 2D canvas on the page to
// the compositor again in every frame that changes anything on the page (0.4 ms for a
// 900 x 700 canvas, without a GPU), a bitmap only when a move gives it a new one.
// A canvas far out of sight (more than half a window above or below it: the blend under a
// 32-token grid while the reader moves the query above the grid) is not drawn: its looks
// are kept, and it is drawn whole as it comes within half a window of sight, before it can
// be seen. A move then draws only what the reader may see.
// Hooks for tests: td.attnlibLayer (the underlay drawing the cell; its `canvas`, on the
// page, has the pixels shown), its `texts` (the text each cell shows, drawn whenever the
// cell is in sight; rows in order) and td.attnlibIndex (the cell's place in them);
// div.attnlib-frame[data-frame] (its `span`: [r0, c0, r1, c1]).

import { make } from "./dom.js";

// From this many cells, a table's numbers are pixels of an underlay: a heatmap of 11 tokens
// with its sums (132), the blend of 32 keys and 4 dimensions a head of d_out 64 over 16 heads
// has (165). Measured in JupyterLab, restyling and laying out that many cells took longer
// than drawing them.
const PIXELS_FROM = 128;

/**
 * An underlay for `cells` (rows of td of `table`, each row with the same columns), in sight
 * in `scroller`. A cell's look: null (blank: the page's colour) or { text, fill, ink,
 * weight: "normal" | "italic" | "bold" | "bold italic" }: colours as CSS gives them, or the
 * name of a custom property of the table ("--attnlib-…", so that the theme decides); `fill`
 * may be a list, drawn in turn (a tint over a fill); `ink` null is the table's text colour;
 * `quiet`: colour only, its text names the cell but is not drawn.
 * `sticky`: the cells stick in the scroller (a column of sums): the canvas spans all of them
 * and its first cell, already positioned, carries it. `pixels`: on a canvas, or written
 * into the cells; by default from the number of cells (a table's other underlays follow its
 * first: the table is marked attnlib-pixels or attnlib-written).
 */
export function underlay(table, cells, scroller, { sticky = false, pixels = null } = {}) {
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
    renamed: new Set(),
    renaming: false,
    geometry: null,
    ctx: null,
    font: null,
    fill: null,
    colors: new Map(),
    frames: new Map(),
    // Far out of sight (not drawn), and a drawing skipped since.
    far: false,
    stale: false,
  };
  cells.forEach((row, r) =>
    row.forEach((td, c) => {
      td.attnlibLayer = layer;
      td.attnlibIndex = r * cols + c;
      if (!pixels) td.append(document.createTextNode(""));
    }),
  );
  // The first cell carries the canvas and the frames; a sticky layer's is positioned already.
  if (!sticky) cells[0][0].classList.add("attnlib-anchor");
  if (typeof ResizeObserver !== "undefined") {
    // Fonts loaded late, a zoom, a table first drawn out of sight: cells moved, redraw. A
    // written table is measured here only, after its layout, for its frames.
    const moved = new ResizeObserver(() => {
      if (!pixels) {
        layer.geometry = measure(layer);
        placeFrames(layer);
      } else if (layer.geometry && !sameGeometry(layer.geometry, measure(layer))) drawAll(layer);
    });
    moved.observe(table);
    moved.observe(scroller);
  }
  if (!pixels) return layer;
  canvas.setAttribute("aria-hidden", "true");
  presentWithBitmaps(layer);
  cells[0][0].append(canvas);
  scroller.addEventListener("scroll", () => layer.geometry && drawAll(layer, false), {
    passive: true,
  });
  watchSight(layer);
  return layer;
}

/** The layer drawn on a paper off the page and shown as bitmaps, where the browser can. */
function presentWithBitmaps(layer) {
  if (typeof OffscreenCanvas === "undefined" || typeof ImageBitmap === "undefined") return;
  const shown = layer.canvas.getContext("bitmaprenderer");
  if (!shown) return;
  const copy = new OffscreenCanvas(1, 1);
  layer.paper = document.createElement("canvas");
  layer.shown = { shown, copy, ctx: null };
}

/** What the paper shows now, handed to the canvas on the page (a copy: the paper keeps it). */
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

// How near sight a canvas is drawn: half the window's height above and below it.
const NEAR = "50% 0px";

/** While `layer`'s box is far out of sight it is not drawn; back near sight, drawn whole if a
 * drawing was skipped. */
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
    { rootMargin: NEAR },
  );
  near.observe(layer.scroller);
}

/**
 * Frame `name` of `layer` around its cells from row r0, column c0 to row r1, column c1
 * (`span` [r0, c0, r1, c1]), or none (null). Placed from the cells' last measured places
 * (none yet: when the table is laid out), so that a move reads no layout.
 */
export function frameCells(layer, name, span) {
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

/** Frame `frame` where its span's cells are, written only where that changed. */
function placeFrame(layer, frame) {
  const g = layer.geometry;
  const { node, span } = frame;
  // Shown once it has a place: a table not laid out yet has none.
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

/** Where each cell is, relative to the first (px), the device pixel ratio, fonts and colours. */
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
      "bold italic": `italic 700 ${font}`,
    },
    paper: page.getPropertyValue("--attnlib-paper").trim() || "#fff",
    ink: page.color,
  };
}

/** A look's colour: a custom property of the table resolved (once per drawing of all). */
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

/** Whether cell k is in the canvas's window (a cell out of sight is not drawn). */
function inSight(layer, k) {
  const [x, w] = layer.geometry.cols[k % layer.cols];
  const [from, to] = layer.window;
  return x + w > from && x < to;
}

/** `style` as the context's fill, set only when it changes (each set is parsed). */
function fillWith(layer, ctx, style) {
  if (layer.fill !== style) {
    ctx.fillStyle = style;
    layer.fill = style;
  }
}

/**
 * Cells `ks` (in sight) as their looks say: the page's colour, each fill, then each number at
 * the right, the numbers of one weight together. Setting a context's font makes Chromium
 * bring the page's styles up to date (every class a move toggled so far) and parse it: the
 * weights are taken in turn, the current one first, so a move sets it once or not at all.
 */
function drawCells(layer, ctx, ks) {
  const g = layer.geometry;
  const place = (k) => [...g.cols[k % layer.cols], ...g.rows[Math.floor(k / layer.cols)]];
  const byFont = new Map([[layer.font, []]]);
  ks.forEach((k) => {
    const [x, w, y, h] = place(k);
    const look = layer.looks[k];
    fillWith(layer, ctx, g.paper);
    ctx.fillRect(x, y, w, h);
    if (!look) return;
    // One pixel of the page between cells, as a grid of separate cells reads.
    [look.fill].flat().forEach((fill) => {
      fillWith(layer, ctx, color(layer, fill));
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
  // Set up once per size of the canvas (a new size resets a context's state): parsing the
  // font and the transform again on every move cost more than drawing a few cells.
  if (layer.ctx) return layer.ctx;
  // Opaque (the page's colour between and under cells): cheaper to hand to the compositor.
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

/**
 * The canvas over the cells in sight and every one of them drawn; `remeasure`: false when
 * only the scrolling moved (the cells are where they were).
 */
function drawAll(layer, remeasure = true) {
  if (remeasure || !layer.geometry) {
    layer.geometry = measure(layer);
    layer.colors.clear();
    placeFrames(layer);
  }
  const g = layer.geometry;
  const [x, w] = g.cols[g.cols.length - 1];
  const [y, h] = g.rows[g.rows.length - 1];
  // In sight: from the box's left edge (scrolled) to its right one, within the grid; a
  // sticky column is always in sight.
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

/**
 * Cell k to be drawn with `look` and named `name` (its text unless said: a masked cell's
 * number and the word); true if that changes its pixels.
 */
export function setLook(layer, k, look, name = look ? look.text : "") {
  if (layer.names[k] !== name) {
    layer.names[k] = name;
    layer.renamed.add(k);
  }
  const was = layer.looks[k];
  const same =
    was === look ||
    (was &&
      look &&
      was.text === look.text &&
      String(was.fill) === String(look.fill) &&
      was.ink === look.ink &&
      was.weight === look.weight &&
      was.quiet === look.quiet);
  layer.looks[k] = look;
  layer.texts[k] = look && !look.quiet ? look.text : "";
  return !same;
}

/**
 * The cells renamed since the last drawing named, once the frame showing it is painted: a
 * move that renames every cell (the blend's, with the query) no longer holds its pixels
 * back, and a screen reader reads the new names a frame later.
 */
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
  // A task posted from the frame's animation callback runs once that frame is painted.
  requestAnimationFrame(() => setTimeout(write, 0));
}

/** A colour of a look, for CSS: a custom property's name becomes var(). */
const css = (value) => (value.startsWith("--") ? `var(${value})` : value);

/** Cell k written as its look says: its text, fill, ink and weight, inline, where changed. */
function writeCell(layer, k) {
  const td = layer.cells[Math.floor(k / layer.cols)][k % layer.cols];
  const look = layer.looks[k];
  // A list of fills: each over the ones before it.
  const fills = look ? [look.fill].flat().map(css) : [];
  const tints = fills.slice(1).reverse().map((c) => `linear-gradient(${c}, ${c})`);
  const weight = look?.weight ?? "normal";
  const now = {
    text: look && !look.quiet ? look.text : "",
    background: [...tints, ...fills.slice(0, 1)].join(", "),
    color: look?.ink ? css(look.ink) : "",
    fontStyle: weight.includes("italic") ? "italic" : "",
    fontWeight: weight.includes("bold") ? "bold" : "",
  };
  const was = td.attnlibWritten ?? {};
  if (was.text !== now.text) td.firstChild.data = now.text;
  ["background", "color", "fontStyle", "fontWeight"].forEach((name) => {
    if (was[name] !== now[name]) td.style[name] = now[name];
  });
  td.attnlibWritten = now;
}

/** The cells in `changed` drawn again; all of them if the cells moved or were never drawn. */
export function draw(layer, changed) {
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
