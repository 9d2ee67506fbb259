"""The site's alt text for the figures a cell draws (tools/site_alt.py): the expected words
are written here by hand from the cells' code, not produced by the code under test."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import site_alt  # noqa: E402


def test_a_heatmaps_title_and_axis_labels_make_its_alt_text() -> None:
    source = (
        "from attnlib import plots\n"
        'plots.heatmap(s, T, T, title="Attention scores", xlabel="key j", ylabel="query i")\n'
    )
    assert site_alt.figure_alt(source) == (
        "Heatmap: Attention scores. x axis key j, y axis query i."
    )


def test_a_suptitle_leads_and_panel_titles_follow() -> None:
    source = (
        "fig, (a, b) = plt.subplots(1, 2)\n"
        'plots.heatmap(x, T, T, ax=a, title="before")\n'
        'plots.heatmap(y, T, T, ax=b, title="after")\n'
        'fig.suptitle("Two grids")\n'
    )
    assert site_alt.figure_alt(source) == "Heatmap: Two grids. panels: before; after."


def test_a_line_chart_set_with_ax_set() -> None:
    source = 'ax.plot(steps, loss)\nax.set(xlabel="step", ylabel="loss", title="Training")\n'
    assert site_alt.figure_alt(source) == "Line chart: Training. x axis step, y axis loss."


def test_an_f_strings_kernel_values_are_left_out_and_the_text_above_added() -> None:
    source = (
        'for k in range(4):\n    plots.heatmap(w[k], T, T, ax=axes[k], title=f"step {k}")\n'
        'fig.suptitle(f"Head {head} over training")\n'
    )
    above = "Some words.\n\nWhich head it is depends on the start. More follows."
    assert site_alt.figure_alt(source, above) == (
        "Heatmap: Head … over training. Which head it is depends on the start."
    )


def test_a_title_given_to_the_cells_own_drawing_function() -> None:
    source = (
        "def draw(s, title):\n    fig = plots.new_figure((4, 4))\n    fig.suptitle(title)\n"
        "    return fig\n\n"
        'display(draw(snap, "Attention after 600 steps"))\n'
    )
    assert site_alt.figure_alt(source) == "Figure: Attention after 600 steps."


def test_no_title_in_the_code_takes_the_first_sentence_above_without_markup() -> None:
    above = "Each coordinate of $z^{(2)}$ lies in **the** [range](x.ipynb): see. Then more."
    assert site_alt.figure_alt("explorer.figure()", above) == (
        "Figure: Each coordinate of z^(2) lies in the range."
    )
    assert site_alt.figure_alt("x.figure()", "") == "Figure"


def test_a_cell_that_is_not_python_gives_no_titles() -> None:
    assert site_alt.titles("%timeit f()")["title"] == []
