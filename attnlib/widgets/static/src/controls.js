// Names and states for the explorer's controls (standard ipywidgets drawn beside this view)
// and the line a screen reader announces after each change. ipywidgets gives slider handles
// no name, toggle buttons no pressed state and the Play buttons only icons: this module
// adds them, once the controls are on the page, and keeps the states current. The words
// come with the data (TEXTS["controls"]).

import { fill } from "./format.js";
import { make, setText, uniqueId } from "./dom.js";

// The announcement waits until the controls rest: a dragged slider or Play says its last value.
const ANNOUNCE_DELAY_MS = 300;
// How long to look for the controls after the view is drawn (ipywidgets draws them apart).
const FIND_TRIES = 50;
const FIND_EVERY_MS = 100;

/** `node`'s attribute `name` set to `value` only if it differs (no needless DOM writes). */
function setAttr(node, name, value) {
  if (node && node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Each control of `box` described by the line of its messages right under it (base.py puts
 * the pair in a box of class attnlib-with-status): a screen reader on the control reads them. */
function describeControls(box) {
  box.querySelectorAll(".attnlib-with-status").forEach((pair) => {
    const line = pair.querySelector(".attnlib-status-beside");
    if (!line) return;
    if (!line.id) line.id = uniqueId("attnlib-said");
    pair
      .querySelectorAll("input, select, textarea, button, .noUi-handle")
      .forEach((target) => setAttr(target, "aria-describedby", line.id));
  });
}

/** The query slider's readout in the book's counting ("journey: x⁽²⁾, inputs[1]"), where
 * ipywidgets' own (hidden by the kernel: readout=False) would show Python's index alone. */
function showReadout(handle, text) {
  const slider = handle.closest(".attnlib-control-query");
  if (!slider) return;
  let readout = slider.querySelector(".attnlib-readout");
  if (!readout) {
    readout = make("span", "attnlib-readout");
    readout.setAttribute("aria-hidden", "true"); // the handle's valuetext says the same
    slider.append(readout);
  }
  setText(readout, text);
}

/** The controls of the explorer box `box`, by the class the kernel gave them. */
function controlsOf(box) {
  const one = (name, selector) => box.querySelector(`.attnlib-control-${name} ${selector}`);
  return {
    // [the view's name, the control's class]: the TrainingExplorer's step is its snapshot.
    sliders: [
      ["query", "query"],
      ["temperature", "temperature"],
      ["head", "head"],
      ["step", "step"],
      ["step", "snapshot"],
    ]
      .map(([name, control]) => [name, one(control, ".noUi-handle")])
      .filter(([, handle]) => handle),
    toggles: box.querySelectorAll(".attnlib-control-dim button"),
    group: one("dim", ".widget-toggle-button")?.parentElement ?? null,
    play: box.querySelector(".attnlib-control-play"),
    // The TrainingExplorer's head: a drop-down whose label ipywidgets does not tie to it.
    menu: one("head", "select"),
  };
}

/**
 * Watch the controls around `el` (in the explorer box) and name them: `names`, the controls
 * the view follows ("query", "dim", "temperature", "head", "step"); `getTexts()`, the
 * sentence's TEXTS["controls"]. The live line goes after `root`. Returns
 * { update(state, values, line), dispose }.
 */
export function watchControls(el, root, names, getTexts) {
  const live = make("div", "attnlib-live");
  live.setAttribute("role", "status");
  live.setAttribute("aria-live", "polite");
  root.after(live);
  let found = null;
  let last = null;
  let timer = null;
  let finder = null;
  let tries = 0;
  let observer = null;

  const paintPlay = () => {
    const texts = getTexts();
    const buttons = found?.play?.querySelectorAll("button") ?? [];
    const names = [texts.play, texts.pause, texts.stop, texts.repeat];
    buttons.forEach((button, k) => {
      if (!names[k]) return;
      setAttr(button, "aria-label", names[k]);
      setAttr(button, "title", names[k]);
      if (k === 3) setAttr(button, "aria-pressed", String(button.classList.contains("mod-active")));
    });
  };

  const paint = () => {
    if (!found || !last) return;
    const texts = getTexts();
    const { state, values } = last;
    found.sliders.forEach(([name, handle]) => {
      const said = fill(texts[`${name}_value`], values);
      setAttr(handle, "aria-label", texts[name]);
      setAttr(handle, "aria-valuetext", said);
      if (name === "query") showReadout(handle, said);
    });
    setAttr(found.menu, "aria-label", texts.head);
    if (found.group) {
      setAttr(found.group, "role", "group");
      setAttr(found.group, "aria-label", texts.dim);
    }
    found.toggles.forEach((button, k) => {
      setAttr(button, "aria-pressed", String(k === state.dim_index));
    });
    paintPlay();
  };

  const find = () => {
    const box = el.closest(".attnlib-explorer");
    const ready = (controls) =>
      names.every((name) => {
        if (name === "dim") return controls.toggles.length > 0;
        // The head is a menu (the AttentionExplorer's, the TrainingExplorer's).
        if (name === "head" && controls.menu) return true;
        return controls.sliders.some(([n]) => n === name);
      });
    if (box) {
      const controls = controlsOf(box);
      if (ready(controls) || tries >= FIND_TRIES) {
        found = controls;
        describeControls(box);
        if (found.play && !observer) {
          // Play and Repeat change their own state on a click, outside any model we see.
          observer = new MutationObserver(paintPlay);
          const options = { attributes: true, subtree: true, attributeFilter: ["class"] };
          observer.observe(found.play, options);
        }
        paint();
        return;
      }
    }
    tries += 1;
    if (tries <= FIND_TRIES) finder = setTimeout(find, FIND_EVERY_MS);
  };
  finder = setTimeout(find, 0);

  return {
    /** New control values `state`, their fields for the texts `values`, the line to announce. */
    update(state, values, line) {
      last = { state, values };
      paint();
      clearTimeout(timer);
      timer = setTimeout(() => {
        setText(live, line);
      }, ANNOUNCE_DELAY_MS);
    },
    dispose() {
      clearTimeout(timer);
      clearTimeout(finder);
      if (observer) observer.disconnect();
      live.remove();
    },
  };
}
