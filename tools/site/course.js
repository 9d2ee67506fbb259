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
  const ours = {
    // Only what the notebooks' math needs (\operatorname is ams's); core and the rest of
    // what these need come with them. build_site.MATHJAX_COMPONENTS copies these files.
    loader: {
      load: ["input/tex-base", "[tex]/ams", "[tex]/noundefined", "output/chtml", "a11y/assistive-mml"],
    },
    tex: { packages: ["base", "ams", "noundefined"] },
    startup: {
      ready() {
        current.startup.defaultReady();
        current.startup.promise.then(ready);
      },
    },
  };
  let current = ours;
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    get: () => current,
    set: (value) => {
      // The page's own configuration (Sphinx writes one, its "options") would replace this
      // one: a configuration, unlike MathJax itself, has no version, and both are kept.
      const config = value && typeof value === "object" && !value.version;
      current = config ? { ...ours, ...value } : value;
      value = current;
      if (value && typeof value === "object" && !value.Hub) value.Hub = Hub;
    },
  });
  current.Hub = Hub;
})();

// A code block or table that scrolls sideways (on a phone, say) takes keyboard focus, so it
// can be scrolled without a mouse; checked again when the window changes size, and once the
// page is loaded and its math typeset (a formula in a table can widen it past the page).
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
  window.addEventListener("load", () => {
    update();
    const typeset = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    if (typeset) typeset.then(update);
    if (document.fonts) document.fonts.ready.then(update);
  });
})();
