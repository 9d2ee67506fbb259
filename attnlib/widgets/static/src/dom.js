// The one DOM helper the drawing modules share.

/** A new element `tag` with `className` and text `text` (both optional). */
export function make(tag, className = "", text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}
