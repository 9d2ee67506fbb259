"""The browser layer: JupyterLab and Voila in headless Chromium, driven by Playwright.

Its modules, one job each (test modules import them, never ``conftest``):

- ``gate``: whether the layer runs, skips, or fails (CI set, no browser);
- ``process``: a server in its own process group, ready-polled and stopped;
- ``servers``: JupyterLab's and Voila's command lines, settings and lifetimes;
- ``pages``: Chromium's launch settings, watched pages and the checks every page passes;
- ``steps``: Run All in Lab, and driving an explorer's controls from the keyboard;
- ``views``: what a step of an explorer must show, and how a shown view is compared;
- ``dom``: CSS selectors of the explorers' controls, heatmaps and texts;
- ``expected``: the views expected, computed with plain torch from the book's inputs;
- ``cases``: the explorers of notebooks 01, 03, 04, 06 and 08 and their steps;
- ``settings``: random settings of an explorer's controls, the drawing compared with ``view``;
- ``plans``: how many random settings each notebook's explorers go through;
- ``jupyter/``: a Jupyter data folder with the Voila template ``lab-offline``.
"""
