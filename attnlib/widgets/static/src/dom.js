// The DOM helpers the drawing modules share.

/** A new element `tag` with `className` and text `text` (both optional). */
export function make(tag, className = "", text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

/**
 * `node`'s text set to `text`, if it differs. Its one text node is kept and given the new
 * text: replacing the node (textContent) would take it out of the layout and put a new one in.
 */
export function setText(node, text) {
  const only = node.firstChild;
  if (only && only === node.lastChild && only.nodeType === 3 /* a text node */) {
    if (only.data !== text) only.data = text;
  } else if (node.textContent !== text) node.textContent = text;
}

/**
 * `texts` in `node`, drawn one over another: the node is as wide as the widest of them, and
 * showing another is a change of visibility, which lays nothing out (a table around the node
 * is not laid out again). Each span has class `classes[k]`; the stylesheet hides
 * attnlib-off and attnlib-marked (but in a marked row) and shows the others.
 */
function stack(node, texts, classes) {
  const spans = texts.map((text, k) => make("span", classes[k], text));
  const box = make("span", "attnlib-stack");
  box.append(...spans);
  node.replaceChildren(box);
  return spans;
}

/** `text` in `node`, and `marked` (bold) in its place when its row is marked (stylesheet). */
export function markable(node, text, marked = text) {
  stack(node, [text, marked], ["attnlib-plain", "attnlib-marked"]);
}

/** `texts` in `node`, one shown at a time (`pick`): the spans, none shown yet. */
export function stacked(node, texts) {
  return stack(node, texts, texts.map(() => "attnlib-off"));
}

/** Span `k` of `spans` (from `stacked`) shown in place of `was` (-1: none); returns k. */
export function pick(spans, k, was) {
  if (k !== was) {
    if (spans[was]) spans[was].classList.add("attnlib-off");
    spans[k]?.classList.remove("attnlib-off");
  }
  return k;
}

/**
 * A caption for `table`: a box of its own, to be put before it, naming it (aria-labelledby).
 * Not a <caption>: one whose text changes with a control would lay the whole table out again.
 */
export function captionFor(table) {
  const caption = make("div", "attnlib-caption");
  caption.id = uniqueId("attnlib-caption");
  table.setAttribute("aria-labelledby", caption.id);
  return caption;
}

/**
 * An id unique in the page, starting with `prefix`. The count is the page's, not this
 * module's: anywidget loads the module afresh for every explorer, so a count kept here would
 * start again at 1 in each, and a second explorer's ids would name the first one's elements.
 */
export function uniqueId(prefix) {
  globalThis.attnlibIds = (globalThis.attnlibIds ?? 0) + 1;
  return `${prefix}-${globalThis.attnlibIds}`;
}
