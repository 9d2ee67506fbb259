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

/** A line of the formula drawn anew: its div, its form and its text nodes. */
function lineOf(line, shape) {
  const texts = [];
  // Inline math in a line of its own: block math would be centred under the heatmap.
  const div = document.createElement("div");
  div.className = "attnlib-math-line";
  div.append(element(["math", line], texts));
  return { div, shape, texts };
}

/**
 * `lines` (formula trees) into `node`, one line each; redrawn only where changed. A line of
 * the same form as the one shown in its place (a move changed its numbers, not its terms)
 * keeps its elements: only the texts that differ are written. A line of another form (the
 * weight's sum along the other axis) is drawn anew alone: the other lines stay, and are not
 * styled and laid out again.
 */
export function paintMath(node, lines) {
  // Kept on the node, not in an attribute: an unchanged formula writes nothing to the DOM.
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
