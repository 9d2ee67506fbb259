// Formulas (trees from formulas.js) drawn as MathML: native in Chromium, Firefox and
// Safari, offline, and read by screen readers. JupyterLab's MathJax does not reach into
// a widget, and none is needed.

const NS = "http://www.w3.org/1998/Math/MathML";

/** The MathML element of `tree` (["mrow", child, ...]; a string child is text). */
function element(tree) {
  const [tag, ...children] = tree;
  const node = document.createElementNS(NS, tag);
  children.forEach((child) =>
    node.append(typeof child === "string" ? document.createTextNode(child) : element(child)),
  );
  return node;
}

/** `lines` (formula trees) into `node`, one line each; redrawn only if changed. */
export function paintMath(node, lines) {
  // Kept on the node, not in an attribute: an unchanged formula writes nothing to the DOM.
  const key = JSON.stringify(lines);
  if (node.attnlibFormula === key) return;
  node.attnlibFormula = key;
  node.replaceChildren(
    ...lines.map((line) => {
      // Inline math in a line of its own: block math would be centred under the heatmap.
      const div = document.createElement("div");
      div.className = "attnlib-math-line";
      div.append(element(["math", line]));
      return div;
    }),
  );
}
