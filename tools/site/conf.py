"""Sphinx settings of the course site (`make site`; tools/build_site.py lays out the sources).

Nothing a page loads comes from another host: MathJax, require.js, the widgets' HTML
manager and anywidget are copied into _static/ from pinned npm packages, so the site
works opened from files with the network cut off.
"""

project = "attention, step by step"
author = "the attention, step by step authors"
copyright = "the attention, step by step authors; example numbers from S. Raschka's book"
extensions = ["myst_nb"]
exclude_patterns = ["_build"]
root_doc = "index"

# The notebooks are committed executed: a page shows what `make notebooks` saved.
nb_execution_mode = "off"
# `$...$` and `$$...$$` as the notebooks write them.
myst_enable_extensions = ["dollarmath", "amsmath"]
# A link to another notebook (`03_softmax_weights.ipynb#...`) becomes a link to its page.
myst_heading_anchors = 3
# The saved widget state renders the explorers; these scripts (in _static/) run it, on the
# pages that have explorers only. The manager loads anywidget through require.js.
nb_ipywidgets_js = {"require.js": {"defer": "defer"}, "embed-amd.js": {"defer": "defer"}}
# MathJax from _static/ (npm `mathjax`, pinned in build_site.NPM_PACKAGES): its loader, which
# loads the components course.js names (build_site.MATHJAX_COMPONENTS).
mathjax_path = "mathjax/startup.js"

html_theme = "sphinx_book_theme"
html_title = "attention, step by step"
html_static_path = ["_static"]
html_extra_path = ["_extra"]
# The theme follows the reader's system until the reader picks light or dark.
html_context = {"default_mode": "auto"}
html_css_files = ["course.css"]
# Loaded before MathJax: it configures it (see the file).
html_js_files = [("course.js", {"priority": 200})]
templates_path = ["_templates"]
html_theme_options = {
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "home_page_in_toc": True,
}
# One search box: the header's (on a phone too); the sidebar's second one is left out.
html_sidebars = {"**": ["navbar-logo.html", "icon-links.html", "sbt-sidebar-nav.html"]}
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
