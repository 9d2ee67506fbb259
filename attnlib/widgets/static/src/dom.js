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
 * `texts` in `node`, drawn one over another, one of them shown at a time: the node is as wide
 * as the widest of them, and showing another is a change of visibility, which lays nothing
 * out (a table around the node is not laid out again). `classes`: each text's (default
 * attnlib-off, hidden until `show` picks it); the stylesheet shows or hides the others.
 */
export function stacked(node, texts, classes = []) {
  const box = make("span", "attnlib-stack");
  const spans = texts.map((text, k) => make("span", classes[k] ?? "attnlib-off", text));
  box.append(...spans);
  node.replaceChildren(box);
  return spans;
}

/** The text of `spans` (from `stacked`) equal to `text` shown, in place of the one shown. */
export function show(spans, text) {
  let k = spans.findIndex((span) => span.textContent === text);
  if (k < 0) {
    // A text not foreseen: written into the first one (its width then unforeseen too).
    setText(spans[0], text);
    k = 0;
  }
  spans.forEach((span, m) => span.classList.toggle("attnlib-off", m !== k));
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
