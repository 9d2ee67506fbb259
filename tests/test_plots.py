"""attnlib.plots: static figures, checked through the artists they draw (Agg, no display)."""

from __future__ import annotations

import io

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from book import BOOK_INPUTS, JOURNEY_CONTEXT, JOURNEY_WEIGHTS, TOKENS
from matplotlib.colors import ListedColormap, to_rgba
from matplotlib.figure import Figure

from attnlib import plots

TOKENS = list(TOKENS)
SMALL = [[0.10, 0.25], [0.50, 1.00]]


def _render(fig: Figure) -> None:
    """Draw ``fig`` for real, as Jupyter does (a bare Figure's ``canvas.draw()`` draws nothing)."""
    fig.savefig(io.BytesIO(), format="png")


def _square(n: int = 6) -> np.ndarray:
    return np.arange(n * n, dtype=np.float64).reshape(n, n) / (n * n)


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def _text_at(ax, x: float, y: float):
    found = [t for t in ax.texts if t.get_position() == (x, y)]
    assert len(found) <= 1
    return found[0] if found else None


def _tick_labels(ax, axis: str) -> list[str]:
    ticks = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    return [t.get_text() for t in ticks]


def _highlights(ax, gid: str):
    return [p for p in ax.patches if p.get_gid() == gid]


# ----------------------------------------------------------------------------- heatmap


def test_heatmap_returns_figure_with_tokens_on_both_axes():
    fig = plots.heatmap(_square(), TOKENS, TOKENS)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert _tick_labels(ax, "x") == TOKENS
    assert _tick_labels(ax, "y") == TOKENS
    assert ax.get_xlabel() == "key"
    assert ax.get_ylabel() == "query"


def test_heatmap_is_not_registered_with_pyplot():
    # A pyplot figure would be shown twice in Jupyter (by the backend and as the cell's value).
    plots.heatmap(_square(), TOKENS, TOKENS)
    plots.weights_bar(JOURNEY_WEIGHTS, TOKENS)
    plots.vectors_3d(BOOK_INPUTS, TOKENS)
    assert plt.get_fignums() == []


def test_heatmap_writes_every_cells_value():
    ax = plots.heatmap(SMALL, ["a", "b"], ["c", "d"]).axes[0]
    assert sorted(_texts(ax)) == ["0.10", "0.25", "0.50", "1.00"]
    assert _text_at(ax, 1, 0).get_text() == "0.25"  # text (x=col, y=row)
    assert _text_at(ax, 0, 1).get_text() == "0.50"


def test_heatmap_custom_fmt_shows_book_values():
    ax = plots.heatmap([JOURNEY_WEIGHTS], ["journey"], TOKENS, fmt="{:.4f}").axes[0]
    assert _texts(ax) == ["0.1385", "0.2379", "0.2333", "0.1240", "0.1082", "0.1581"]


def test_heatmap_accepts_torch_and_numpy_alike():
    from_torch = plots.heatmap(torch.tensor(SMALL), ["a", "b"], ["c", "d"]).axes[0]
    from_numpy = plots.heatmap(np.array(SMALL), ["a", "b"], ["c", "d"]).axes[0]
    assert _texts(from_torch) == _texts(from_numpy) == ["0.10", "0.25", "0.50", "1.00"]


def test_heatmap_labels_title_and_colorbar():
    fig = plots.heatmap(
        SMALL,
        ["a", "b"],
        ["c", "d"],
        title="attention weights",
        colorbar_label="weight",
        xlabel="keys j",
        ylabel="queries i",
    )
    ax, cbar_ax = fig.axes[0], fig.axes[-1]
    assert ax.get_title() == "attention weights"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("keys j", "queries i")
    assert cbar_ax is not ax
    assert cbar_ax.get_ylabel() == "weight"


def test_heatmap_colour_limits_default_to_data_and_honour_vmin_vmax():
    ax = plots.heatmap(SMALL, ["a", "b"], ["c", "d"]).axes[0]
    assert ax.images[0].get_clim() == pytest.approx((0.10, 1.00))
    ax = plots.heatmap(SMALL, ["a", "b"], ["c", "d"], vmin=0.0, vmax=2.0).axes[0]
    assert ax.images[0].get_clim() == (0.0, 2.0)
    ax = plots.heatmap(SMALL, ["a", "b"], ["c", "d"], vmin=0.0).axes[0]
    assert ax.images[0].get_clim() == pytest.approx((0.0, 1.0))


@pytest.mark.filterwarnings("error")
def test_heatmap_takes_numpy_float32_limits_without_an_overflow_warning():
    # abs(np.float32) compared with 1e300 used to warn "overflow encountered in cast".
    limits = {"vmin": np.float32(0.0), "vmax": np.float32(2.0)}
    ax = plots.heatmap(SMALL, ["a", "b"], ["c", "d"], **limits).axes[0]
    assert ax.images[0].get_clim() == (0.0, 2.0)


def test_heatmap_refuses_an_int_limit_too_big_for_a_float_in_words():
    # float(10**400) raises OverflowError; the refusal must come first, as a sentence.
    expected = "vmax: expected None or a finite number within ±1e300, got int 1000"
    with pytest.raises(ValueError, match=expected):
        plots.heatmap(SMALL, ["a", "b"], ["c", "d"], vmax=10**400)


def test_heatmap_uses_viridis_by_default_and_the_given_cmap():
    ax = plots.heatmap(SMALL, ["a", "b"], ["c", "d"]).axes[0]
    assert ax.images[0].get_cmap().name.startswith("viridis")
    ax = plots.heatmap(SMALL, ["a", "b"], ["c", "d"], cmap="magma").axes[0]
    assert ax.images[0].get_cmap().name.startswith("magma")


def test_heatmap_text_is_white_on_dark_and_black_on_light_cells():
    # viridis: the minimum is dark purple, the maximum light yellow.
    ax = plots.heatmap([[0.0, 1.0]], ["q"], ["dark", "light"]).axes[0]
    assert to_rgba(_text_at(ax, 0, 0).get_color()) == to_rgba("white")
    assert to_rgba(_text_at(ax, 1, 0).get_color()) == to_rgba("black")


def test_heatmap_highlight_row_and_col_draw_outlines_in_place():
    ax = plots.heatmap(_square(), TOKENS, TOKENS).axes[0]
    assert _highlights(ax, "highlight_row") == []
    assert _highlights(ax, "highlight_col") == []
    ax = plots.heatmap(_square(), TOKENS, TOKENS, highlight_row=1, highlight_col=4).axes[0]
    (row,) = _highlights(ax, "highlight_row")
    assert row.get_xy() == (-0.5, 0.5)
    assert (row.get_width(), row.get_height()) == (6, 1)
    (col,) = _highlights(ax, "highlight_col")
    assert col.get_xy() == (3.5, -0.5)
    assert (col.get_width(), col.get_height()) == (1, 6)


def test_heatmap_highlight_cell():
    ax = plots.heatmap(_square(), TOKENS, TOKENS, highlight_cell=(1, 0)).axes[0]
    (cell,) = _highlights(ax, "highlight_cell")
    assert cell.get_xy() == (-0.5, 0.5)
    assert (cell.get_width(), cell.get_height()) == (1, 1)


def test_heatmap_masked_cells_render_sensibly():
    matrix = torch.tensor([[1.0, float("-inf")], [float("nan"), 0.5]])
    fig = plots.heatmap(matrix, ["a", "b"], ["c", "d"])
    ax = fig.axes[0]
    assert _text_at(ax, 1, 0).get_text() == "-inf"
    assert _text_at(ax, 0, 1) is None  # NaN: blank
    assert len(_highlights(ax, "masked")) == 1
    mask = np.ma.getmaskarray(ax.images[0].get_array())
    assert mask.tolist() == [[False, True], [True, False]]
    assert ax.images[0].get_clim() == pytest.approx((0.5, 1.0))  # limits from finite cells
    _render(fig)  # draws without warnings or errors


def test_heatmap_causal_weights_with_zeros_above_diagonal():
    weights = torch.tril(torch.ones(3, 3)) / torch.arange(1, 4).unsqueeze(1)
    ax = plots.heatmap(weights, ["a", "b", "c"], ["a", "b", "c"]).axes[0]
    assert _text_at(ax, 2, 0).get_text() == "0.00"
    assert _text_at(ax, 0, 2).get_text() == "0.33"


def test_heatmap_draws_on_given_axes():
    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert plots.heatmap(SMALL, ["a", "b"], ["c", "d"], ax=right) is fig
    assert len(right.texts) == 4
    assert len(left.texts) == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"row_labels": TOKENS[:5]},
            r"row_labels: expected 6 labels \(one per row of matrix, shape \(6, 6\)\), got 5",
        ),
        (
            {"col_labels": TOKENS + ["extra"]},
            r"col_labels: expected 6 labels \(one per column of matrix, shape \(6, 6\)\), got 7",
        ),
        ({"row_labels": "Your journey"}, r"row_labels: expected a list of 6 labels"),
        ({"matrix": [1.0, 2.0]}, r"matrix: expected shape \(rows, cols\) \(2-d\), got 1-d"),
        ({"matrix": np.zeros((0, 6))}, r"matrix: expected at least one entry"),
        ({"matrix": np.array([["a"] * 6] * 6)}, r"matrix: expected a tensor or array of numbers"),
        ({"highlight_row": 6}, r"highlight_row: expected None or an int in \[0, 5\], got 6"),
        ({"highlight_col": 1.0}, r"highlight_col: expected None or an int"),
        ({"highlight_cell": (1,)}, r"highlight_cell: expected None or a pair"),
        ({"highlight_cell": (None, 1)}, r"highlight_cell: expected None or a pair of ints"),
        ({"highlight_cell": (1, None)}, r"highlight_cell: expected None or a pair of ints"),
        ({"highlight_cell": 5}, r"highlight_cell: expected None or a pair of ints.*got int 5"),
        ({"highlight_cell": (1, 6)}, r"highlight_cell\[1\]: expected None or an int in \[0, 5\]"),
        ({"fmt": "{0.missing}"}, r"fmt: expected a format string"),
        ({"vmin": 1.0, "vmax": 0.5}, r"vmin, vmax: expected vmin < vmax, got vmin=1.0, vmax=0.5"),
        ({"vmin": float("nan")}, r"vmin: expected None or a finite number"),
        ({"fmt": "{:d}"}, r"fmt: expected a format string"),
        ({"cmap": "not-a-colormap"}, r"cmap: expected a matplotlib colormap"),
        ({"ax": "axes"}, r"ax: expected None or a matplotlib Axes"),
        # Limits: a number in every cell, and colours that can be computed.
        (
            {"matrix": np.zeros((65, 2)), "row_labels": ["r"] * 65, "col_labels": ["a", "b"]},
            r"matrix: expected at most 64 rows and columns .*got shape \(65, 2\); draw a slice",
        ),
        ({"matrix": np.full((6, 6), 1e301)}, r"matrix: expected values within ±1e300"),
        ({"vmax": 1e301}, r"vmax: expected None or a finite number within ±1e300, got 1e\+301"),
        ({"row_labels": ["x" * 101] + TOKENS[1:]}, r"row_labels\[0\]: expected at most 100"),
        ({"title": "t" * 101}, r"title: expected at most 100 characters, got 101"),
        ({"xlabel": None}, r"xlabel: expected a str, got NoneType None"),
        ({"colorbar_label": 3}, r"colorbar_label: expected a str, got int 3"),
    ],
)
def test_heatmap_bad_arguments_name_expected_and_received(kwargs, message):
    args = {"matrix": _square(), "row_labels": TOKENS, "col_labels": TOKENS}
    args.update(kwargs)
    matrix, rows, cols = args.pop("matrix"), args.pop("row_labels"), args.pop("col_labels")
    with pytest.raises(ValueError, match=message):
        plots.heatmap(matrix, rows, cols, **args)


def test_heatmap_one_row_one_label_in_the_singular():
    with pytest.raises(ValueError, match=r"row_labels: expected 1 label \(one per row"):
        plots.heatmap([[0.5, 0.5]], ["a", "b"], ["c", "d"])


@pytest.mark.parametrize("projection", ["3d", "polar", "mollweide"])
@pytest.mark.parametrize(
    "draw",
    [
        lambda ax: plots.heatmap(SMALL, ["a", "b"], ["c", "d"], ax=ax),
        lambda ax: plots.weights_bar([0.5, 0.5], ["a", "b"], ax=ax),
    ],
    ids=["heatmap", "weights_bar"],
)
def test_2d_plots_refuse_a_3d_or_curved_axes_before_drawing(draw, projection):
    ax = Figure().add_subplot(projection=projection)
    drawn = len(ax.get_children())
    with pytest.raises(ValueError, match=rf"ax: expected a 2-d Axes .*got a '{projection}' Axes"):
        draw(ax)
    assert len(ax.get_children()) == drawn


@pytest.mark.parametrize(
    "draw",
    [
        lambda: plots.heatmap([[-1e301, 0.5]], ["q"], ["a", "b"]),
        lambda: plots.weights_bar([-1e301, 0.5], ["a", "b"]),
    ],
    ids=["heatmap", "weights_bar"],
)
def test_a_value_too_large_to_draw_is_the_one_named(draw):
    with pytest.raises(ValueError, match=r"got -1e\+301"):
        draw()


def test_labels_and_titles_are_drawn_as_typed_never_as_math():
    # "$\\bad{$" would stop mathtext with an error; as plain text it draws.
    label, title = "$\\bad{$", "cost in $ and $"
    fig = plots.heatmap(SMALL, [label, "b"], ["c", "d"], title=title)
    _render(fig)
    ax = fig.axes[0]
    assert _tick_labels(ax, "y")[0] == label and ax.get_title() == title
    fig = plots.weights_bar([0.5, 0.5], [label, "b"], title=title)
    _render(fig)
    assert _tick_labels(fig.axes[0], "x")[0] == label


# ----------------------------------------------------------------------------- weights_bar


def test_weights_bar_draws_one_bar_per_token_with_value_labels():
    fig = plots.weights_bar(torch.tensor(JOURNEY_WEIGHTS), TOKENS, query=1)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == pytest.approx(JOURNEY_WEIGHTS)
    assert _tick_labels(ax, "x") == TOKENS
    texts = _texts(ax)
    for value in ["0.1385", "0.2379", "0.2333", "0.1240", "0.1082", "0.1581"]:
        assert value in texts
    assert "sum of weights = 1.0000" in texts
    assert "journey" in ax.get_title()
    assert ax.get_ylabel() == "attention weight"


def test_weights_bar_marks_the_query_token_bar():
    ax = plots.weights_bar(JOURNEY_WEIGHTS, TOKENS, query=1).axes[0]
    hatches = [bar.get_hatch() for bar in ax.patches]
    assert hatches[1] == "//"
    assert hatches[0] is None and hatches[2] is None
    assert ax.patches[1].get_facecolor() != ax.patches[0].get_facecolor()


def test_weights_bar_reports_a_sum_that_is_not_one():
    # A wrong axis gives rows that do not sum to 1; the figure must say so, not claim 1.
    ax = plots.weights_bar([0.5, 0.25, 0.5], ["a", "b", "c"], title="dim=0 row").axes[0]
    assert "sum of weights = 1.2500" in _texts(ax)
    assert ax.get_title() == "dim=0 row"


@pytest.mark.parametrize(
    ("weights", "tokens", "kwargs", "message"),
    [
        (JOURNEY_WEIGHTS, TOKENS[:5], {}, r"tokens: expected 6 labels \(one per weight"),
        (
            [JOURNEY_WEIGHTS],
            TOKENS,
            {},
            r"weights: expected shape \(num_tokens,\) \(1-d\), got 2-d",
        ),
        ([0.5, float("nan")], ["a", "b"], {}, r"weights: expected finite numbers"),
        (JOURNEY_WEIGHTS, TOKENS, {"query": 6}, r"query: expected None or an int in \[0, 5\]"),
        ([1e301, 0.5], ["a", "b"], {}, r"weights: expected values within ±1e300 to draw"),
    ],
)
def test_weights_bar_bad_arguments(weights, tokens, kwargs, message):
    with pytest.raises(ValueError, match=message):
        plots.weights_bar(weights, tokens, **kwargs)


# ----------------------------------------------------------------------------- vectors_3d


def test_vectors_3d_draws_labelled_inputs_and_a_distinct_context_vector():
    fig = plots.vectors_3d(
        torch.tensor(BOOK_INPUTS),
        TOKENS,
        torch.tensor(JOURNEY_CONTEXT),
        torch.tensor(JOURNEY_WEIGHTS),
        query=1,
    )
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.name == "3d"
    texts = _texts(ax)
    for token, weight in zip(TOKENS, ["0.14", "0.24", "0.23", "0.12", "0.11", "0.16"], strict=True):
        assert f"{token} ({weight})" in texts
    assert "z(journey)" in texts
    arrows = ax.collections
    assert len(arrows) == 7  # six inputs and the context vector
    colours = [tuple(to_rgba(a.get_color()[0])) for a in arrows]
    assert colours[-1] == to_rgba(plots.CONTEXT_COLOR)
    assert colours[-1] not in colours[:-1]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "context vector z" in legend


def test_vectors_3d_without_context_or_weights():
    ax = plots.vectors_3d(np.array(BOOK_INPUTS), TOKENS).axes[0]
    assert sorted(_texts(ax)) == sorted(TOKENS)
    assert len(ax.collections) == 6


def test_vectors_3d_draws_on_a_given_3d_axes():
    fig = Figure()
    ax = fig.add_subplot(projection="3d")
    assert plots.vectors_3d(BOOK_INPUTS, TOKENS, ax=ax) is fig
    assert len(ax.collections) == 6


@pytest.mark.parametrize(
    ("inputs", "kwargs", "message"),
    [
        (np.zeros((6, 4)), {}, r"inputs: expected shape \(num_tokens, 3\).*got shape \(6, 4\)"),
        (np.zeros(3), {}, r"inputs: expected shape \(num_tokens, 3\) \(2-d\), got 1-d"),
        (BOOK_INPUTS, {"tokens": TOKENS[:2]}, r"tokens: expected 6 labels \(one per input"),
        (BOOK_INPUTS, {"context_vec": [1.0, 2.0]}, r"context_vec: expected shape \(3,\)"),
        (BOOK_INPUTS, {"weights": [0.5, 0.5]}, r"weights: expected shape \(6,\), one per input"),
        (BOOK_INPUTS, {"query": -1}, r"query: expected None or an int in \[0, 5\], got -1"),
        (
            [[0.1, 0.2, float("nan")], [0.3, 0.4, 0.5]],
            {"tokens": ["a", "b"]},
            r"inputs: expected finite numbers, got nan at index \(0, 2\)",
        ),
        (
            [[0.1, 0.2, 0.3], [float("inf"), 0.4, 0.5]],
            {"tokens": ["a", "b"]},
            r"inputs: expected finite numbers, got inf at index \(1, 0\)",
        ),
        (
            BOOK_INPUTS,
            {"context_vec": [0.4, float("inf"), 0.5]},
            r"context_vec: expected finite numbers, got inf at index 1",
        ),
        (
            BOOK_INPUTS,
            {"weights": [0.2, 0.2, float("nan"), 0.2, 0.2, 0.2]},
            r"weights: expected finite numbers, got nan at index 2",
        ),
        ([[1e301, 0.0, 0.0]], {"tokens": ["a"]}, r"inputs: expected values within ±1e300"),
        (
            BOOK_INPUTS,
            {"context_vec": [0.4, 1e301, 0.5]},
            r"context_vec: expected values within ±1e300",
        ),
    ],
)
def test_vectors_3d_bad_arguments(inputs, kwargs, message):
    tokens = kwargs.pop("tokens", TOKENS)
    with pytest.raises(ValueError, match=message):
        plots.vectors_3d(inputs, tokens, **kwargs)


@pytest.mark.parametrize("projection", [None, "polar"])
def test_vectors_3d_refuses_a_2d_axes(projection):
    ax = Figure().add_subplot(projection=projection)
    with pytest.raises(ValueError, match=r"ax: expected a 3-d Axes"):
        plots.vectors_3d(BOOK_INPUTS, TOKENS, ax=ax)


def test_vectors_3d_refuses_what_is_not_an_axes():
    with pytest.raises(ValueError, match=r"ax: expected None or a 3-d Axes, got str 'axes'"):
        plots.vectors_3d(BOOK_INPUTS, TOKENS, ax="axes")


# ----------------------------------------------------------------------------- new_figure


def test_new_figure_is_an_empty_unregistered_figure_of_the_given_size():
    fig = plots.new_figure((12, 4.6))
    assert isinstance(fig, Figure) and fig.axes == []
    assert tuple(fig.get_size_inches()) == (12.0, 4.6)
    assert plt.get_fignums() == []
    left, right = fig.subplots(1, 2)
    plots.heatmap(SMALL, ["a", "b"], ["c", "d"], ax=left)
    plots.weights_bar([0.5, 0.5], ["a", "b"], ax=right)


@pytest.mark.parametrize(
    "figsize",
    ["big", (0, 3), (3, -1), (float("inf"), 2), (float("nan"), 2), (3,), (1, 2, 3), None,
     (True, 2), ("4", 3)],
)  # fmt: skip
def test_new_figure_refuses_a_bad_figsize(figsize):
    with pytest.raises(ValueError, match=r"figsize: expected a pair \(width, height\) of positive"):
        plots.new_figure(figsize)


@pytest.mark.parametrize(
    ("figsize", "message"),
    [
        ((1000, 1000), "figsize: expected 0.1 to 455 inches a side (65,535 pixels at most, "
         "matplotlib's limit), got (1000.0, 1000.0): 144,000 x 144,000 pixels at 144 dpi"),
        ((456, 1), "figsize: expected 0.1 to 455 inches a side (65,535 pixels at most, "
         "matplotlib's limit), got (456.0, 1.0): 65,664 x 144 pixels at 144 dpi"),
        ((1e-6, 3), "figsize: expected 0.1 to 455 inches a side (65,535 pixels at most, "
         "matplotlib's limit), got (1e-06, 3.0): 0 x 432 pixels at 144 dpi"),
        ((400, 400), "figsize (400.0, 400.0) (57,600 x 57,600 pixels at 144 dpi): shape "
         "(57600, 57600, 4) needs 13,271,040,000 bytes, over the limit of 2,147,483,648 bytes"
         " (2 GiB)"),
    ],
    ids=["1000x1000", "too-wide", "too-small", "over-2GiB"],
)  # fmt: skip
def test_new_figure_refuses_a_size_it_cannot_save_naming_pixels_and_limit(figsize, message):
    with pytest.raises(ValueError) as info:
        plots.new_figure(figsize)
    assert str(info.value) == message


@pytest.mark.parametrize("figsize", [(0.1, 0.1), (455, 1)], ids=["smallest", "widest"])
def test_new_figure_saves_at_its_limits(figsize):
    fig = plots.new_figure(figsize)
    fig.add_subplot()
    fig.savefig(io.BytesIO(), format="png", dpi=plots.SAVE_DPI)  # no error: it can be saved


def test_the_explorers_pngs_are_saved_at_most_at_the_resolution_new_figure_checks():
    from attnlib.widgets import figures

    assert figures.PNG_DPI <= plots.SAVE_DPI


def test_the_courses_tokens_need_no_room_and_long_ones_get_it():
    assert plots.label_room(list(TOKENS), list(TOKENS)) == (0.0, 0.0)
    wide, tall = plots.label_room(["W" * 20] * 2, ["W" * 20] * 2)
    # 20 W's are about 2.6 in wide at 10 pt: beside, that less 0.8 in; slanted, 0.7 of it less 0.6.
    assert 1.5 < wide < 2.2 and 1.0 < tall < 1.5, (wide, tall)
    assert plots.label_room(["x"], ["W" * 20]) == (0.0, tall)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("abc", "row_labels: expected a list of labels, got str 'abc'"),
        (["a"] * 65, "row_labels: expected at most 64 labels (a grid's rows), got 65"),
    ],
)
def test_label_room_refuses_what_is_not_a_grids_labels(rows, message):
    with pytest.raises(ValueError) as info:
        plots.label_room(rows, ["a"])
    assert str(info.value) == message


def test_only_the_figures_are_public():
    # The colour and formatting helpers are plumbing shared with attnlib.widgets; besides the
    # figures, label_room: the room a figure of a grid needs for long labels (figures.py's too).
    import inspect

    public = {
        name
        for name, obj in vars(plots).items()
        if inspect.isfunction(obj) and obj.__module__ == plots.__name__ and name[0] != "_"
    }
    assert public == {"heatmap", "weights_bar", "vectors_3d", "new_figure", "label_room"}


# ----------------------------------------------------------------------------- side effects


def test_no_function_shows_or_saves(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("plots must not save or show")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(Figure, "savefig", refuse)
    monkeypatch.setattr(plt, "show", refuse)
    monkeypatch.setattr(plt, "savefig", refuse)
    plots.heatmap(_square(), TOKENS, TOKENS, highlight_row=1)
    plots.weights_bar(JOURNEY_WEIGHTS, TOKENS, query=1)
    plots.vectors_3d(BOOK_INPUTS, TOKENS, JOURNEY_CONTEXT, JOURNEY_WEIGHTS, query=1)
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- colours


def _cell_rgba(ax) -> np.ndarray:
    """The colour the heatmap's image gives each cell, (rows, cols, 4)."""
    image = ax.images[0]
    return np.asarray(image.to_rgba(image.get_array()), dtype=float)


def test_heatmap_cells_take_the_colormap_and_masked_cells_are_grey_or_blank():
    matrix = [[0.0, 1.0, float("nan"), float("-inf")]]
    ax = plots.heatmap(matrix, ["q"], ["low", "high", "nan", "masked"], vmin=0, vmax=1).axes[0]
    rgba = _cell_rgba(ax)[0]
    viridis = matplotlib.colormaps["viridis"]
    assert tuple(rgba[0]) == pytest.approx(viridis(0.0), abs=1 / 255)
    assert tuple(rgba[1]) == pytest.approx(viridis(1.0), abs=1 / 255)
    assert rgba[2, 3] == 0.0 and rgba[3, 3] == 0.0  # NaN and -inf: nothing drawn by the image
    (grey,) = _highlights(ax, "masked")  # ... the masked cell gets a grey patch instead
    assert grey.get_xy() == (2.5, -0.5)
    assert grey.get_facecolor() == pytest.approx(to_rgba(plots.MASKED_COLOR))
    assert to_rgba(_text_at(ax, 3, 0).get_color()) == to_rgba("black")  # "-inf" on light grey


@pytest.mark.parametrize(
    "background, text",
    [("navy", "white"), ("black", "white"), ("yellow", "black"), ("white", "black")],
)
def test_cell_text_is_whichever_of_black_and_white_reads_better(background, text):
    # A one-colour map paints every cell `background`.
    cmap = ListedColormap([background, background])
    ax = plots.heatmap([[0.0, 1.0]], ["q"], ["a", "b"], cmap=cmap).axes[0]
    for x in (0, 1):
        assert to_rgba(_text_at(ax, x, 0).get_color()) == to_rgba(text)


def test_weights_bar_names_the_query_as_the_book_and_shows_a_softmax_sum_as_1():
    row = torch.tensor([0.33331, 0.33331, 0.33331])  # sums to 0.9999 at four decimals
    ax = plots.weights_bar(row, ["a", "b", "c"], query=1).axes[0]
    assert ax.get_title() == "attention weights of 'b': x⁽²⁾, inputs[1]"
    assert "sum of weights = 1.0000" in _texts(ax)


def test_weights_bar_writes_no_numbers_that_would_run_together():
    tokens = [f"w{i}" for i in range(16)]
    fig = plots.new_figure((6, 3))
    ax = fig.add_subplot()
    plots.weights_bar(torch.full((16,), 1 / 16), tokens, ax=ax)
    assert not [t for t in _texts(ax) if t == "0.0625"], "16 labels in 6 inches overlap"
    wide = plots.weights_bar(torch.full((4,), 0.25), tokens[:4]).axes[0]
    assert _texts(wide).count("0.2500") == 4
