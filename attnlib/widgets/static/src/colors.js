// Cell colours: viridis, a sequential map
// that reads the same with the common colour-vision deficiencies and in grey, as the
// course's static heatmaps (attnlib.plots.heatmap). Stops: matplotlib's viridis at 0, 1/16, .. 1.

const VIRIDIS = [
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
  "#fde725",
];
const STOPS = VIRIDIS.map((hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)));
// WCAG: above this relative luminance black text contrasts more than white text.
const LUMINANCE_THRESHOLD = 0.179;

/** The colour at `t` in [0, 1], interpolated between the stops: [r, g, b]. */
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

// Cells are coloured in LEVELS + 1 steps of the map (a step is far below what an eye tells
// apart), so that a repaint redraws a cell only when its number or its level changed.
export const LEVELS = 128;

/** The level (0..LEVELS) of `value` on the scale vmin..vmax; a flat grid sits in the middle. */
export function levelOf(value, vmin, vmax) {
  const t = vmax > vmin ? (value - vmin) / (vmax - vmin) : 0.5;
  return Math.round(Math.min(Math.max(t, 0), 1) * LEVELS);
}

/** Background and text colour of level `level`. */
export function colorsOfLevel(level) {
  const rgb = colorAt(level / LEVELS);
  const text = luminance(rgb) > LUMINANCE_THRESHOLD ? "#000" : "#fff";
  return { background: `rgb(${rgb.join(",")})`, color: text };
}

/** Every level's colours, by level. */
export const LEVEL_COLORS = Array.from({ length: LEVELS + 1 }, (_, k) => colorsOfLevel(k));

/** The map as a CSS gradient, for the legend. */
export function gradient() {
  return `linear-gradient(to right, ${VIRIDIS.join(", ")})`;
}
