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
