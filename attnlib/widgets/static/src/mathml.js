// Formulas (trees from formulas.js) drawn as MathML: native in Chromium, Firefox and
// Safari, offline, and read by screen readers. JupyterLab's MathJax does not reach into
// a widget, and none is needed.

const NS = "http://www.w3.org/1998/Math/MathML";

/**
 * The MathML element of `tree` (["mrow", child, ...]; a string child is text); its text
 * nodes are pushed on `texts`, in document order.
 */
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

/** `tree`'s form: its element names, its texts left out ("" where one stands). */
function form(tree) {
  const [tag, ...children] = tree;
  return `${tag}(${children.map((c) => (typeof c === "string" ? "" : form(c))).join(",")})`;
}

/** `tree`'s texts in document order. */
function textsOf(tree, out = []) {
  tree.slice(1).forEach((c) => (typeof c === "string" ? out.push(c) : textsOf(c, out)));
  return out;
}

/**
 * `lines` (formula trees) into `node`, one line each; redrawn only if changed. A formula of
 * the same form as the one shown (a move changed its numbers, not its terms) keeps its
 * elements: only the texts that differ are written.
 */
export function paintMath(node, lines) {
  const shape = lines.map(form).join(";");
  const texts = lines.flatMap((line) => textsOf(line));
  const drawn = node.attnlibMath;
  if (drawn && drawn.shape === shape) {
    texts.forEach((text, k) => {
      if (drawn.texts[k].data !== text) drawn.texts[k].data = text;
    });
    return;
  }
  const nodes = [];
  node.replaceChildren(
    ...lines.map((line) => {
      // Inline math in a line of its own: block math would be centred under the heatmap.
      const div = document.createElement("div");
      div.className = "attnlib-math-line";
      div.append(element(["math", line], nodes));
      return div;
    }),
  );
  // Kept on the node, not in an attribute: an unchanged formula writes nothing to the DOM.
  node.attnlibMath = { shape, texts: nodes };
}
