// The theme's Font Awesome replaces every <i class="fa ..."> with an <svg>, the widgets'
// own icons too (the Play buttons), which left the loop stepper's links dead on a page.
// "nest" puts the svg inside the <i> instead, so the widgets keep the elements they made.
window.FontAwesomeConfig = { autoReplaceSvg: "nest" };

// The widgets' labels typeset their math with MathJax 2's call, MathJax.Hub.Queue(["Typeset",
// hub, element]); the site runs MathJax 3, which has no Hub. Whatever object window.MathJax
// is (this config before MathJax loads, MathJax's own object after), it gets a Hub whose
// Queue typesets the element with MathJax 3 once MathJax is ready.
(() => {
  let ready;
  const started = new Promise((resolve) => {
    ready = resolve;
  });
  const Hub = {
    Queue(command) {
      const element = Array.isArray(command) ? command[2] : undefined;
      started.then(() => window.MathJax.typesetPromise(element ? [element] : undefined));
    },
  };
  let current = {
    startup: {
      ready() {
        current.startup.defaultReady();
        current.startup.promise.then(ready);
      },
    },
  };
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    get: () => current,
    set: (value) => {
      current = value;
      if (value && typeof value === "object" && !value.Hub) value.Hub = Hub;
    },
  });
  current.Hub = Hub;
})();

// A code block or table that scrolls sideways (on a phone, say) takes keyboard focus, so it
// can be scrolled without a mouse; checked again when the window changes size.
(() => {
  const scrollers = () =>
    document.querySelectorAll(".bd-article pre, .bd-article table, .bd-article .cell_output");
  const update = () => {
    for (const element of scrollers()) {
      if (element.closest(".attnlib-explorer")) continue;
      if (element.scrollWidth > element.clientWidth + 1) element.setAttribute("tabindex", "0");
      else element.removeAttribute("tabindex");
    }
  };
  window.addEventListener("DOMContentLoaded", update);
  window.addEventListener("resize", update);
})();
