"""``mscsp probs --png``: the heat map as an image, in the colours of the web page."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest
from click.testing import CliRunner

import mscsp
import mscsp.display.heatmap
from mscsp.cli import main
from mscsp.display.heatmap import (
    BEST_COLOUR,
    COLOUR_STOPS,
    FLAG_GLYPH_COLOUR,
    MINE_COLOUR,
    cell_rgb,
    heat_rgb,
    heatmap_figure,
)
from mscsp.estimators import Estimate

image = pytest.importorskip("matplotlib.image", reason="--png needs pip install 'mscsp[plot]'")
plt = pytest.importorskip("matplotlib.pyplot")

EXAMPLE = resources.files("mscsp.data").joinpath("example.txt").read_text("utf-8")


def test_png_has_every_cell_colour_of_the_page(tmp_path):
    path = tmp_path / "heat.png"
    result = CliRunner().invoke(main, ["probs", "--png", str(path), "--json"])
    assert result.exit_code == 0, result.output
    pixels = np.round(image.imread(path)[:, :, :3] * 255).astype(int).reshape(-1, 3)
    present = {tuple(p) for p in pixels}
    board = mscsp.parse_board(EXAMPLE)
    probs = mscsp.solve(board).probabilities
    wanted = {
        cell_rgb(int(board.cells[r, c]), float(probs[r, c]))
        for r in range(board.rows)
        for c in range(board.cols)
    }
    assert len(wanted) > 5
    assert wanted <= present
    assert tuple(int(BEST_COLOUR[i : i + 2], 16) for i in (1, 3, 5)) in present


def test_heat_scale_runs_through_the_stops():
    for p, colour in COLOUR_STOPS:
        assert heat_rgb(p) == tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    reds = [heat_rgb(p)[1] for p in np.linspace(0.2, 1, 9)]
    assert reds == sorted(reds, reverse=True)  # greener for safer cells


def test_png_to_a_bad_path_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(main, ["probs", "--png", str(tmp_path / "no" / "x.png")])
    assert result.exit_code == 2
    assert "cannot write" in result.output and "Traceback" not in result.output


# ---- labels, key and flags (issue 32) -------------------------------------------------------


def flagged_position(preset: str, seed: int, click: tuple[int, int]) -> mscsp.Board:
    """A real position with two of its certain mines flagged (so it shows every mark)."""
    game = mscsp.Game.from_preset(preset, seed=seed, first_click="opening")
    game.reveal(*click)
    for r, c in mscsp.solve(game.board()).mines[:2]:
        game.flag(r, c)
    return game.board()


def drawn(board: mscsp.Board):
    """The heat map figure of ``board``, drawn, with its pixels (rows top to bottom)."""
    fig = heatmap_figure(mscsp.solve(board))
    fig.canvas.draw()
    return fig, np.asarray(fig.canvas.buffer_rgba())[:, :, :3].astype(int)


def axes_named(fig, label: str):
    (ax,) = [ax for ax in fig.axes if ax.get_label() == label]
    return ax


def pixel(pixels: np.ndarray, ax, x: float, y: float) -> tuple[int, ...]:
    """The colour at data point ``(x, y)`` of ``ax``."""
    px, py = ax.transData.transform((x, y))
    return tuple(pixels[int(round(pixels.shape[0] - py)), int(round(px))])


def hex_rgb(colour: str) -> tuple[int, ...]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


@pytest.fixture(scope="module", params=[("beginner", 3, (4, 4)), ("expert", 7, (8, 15))])
def position(request) -> mscsp.Board:
    board = flagged_position(*request.param)
    solution = mscsp.solve(board)
    cells = board.cells
    # The position shows every mark the key names, or the tests below prove little.
    assert (cells == mscsp.FLAG).any() and (cells > 0).any()
    probs = solution.probabilities
    assert solution.safe and solution.mines and ((probs > 0) & (probs < 1)).any()
    return board


def test_rows_are_labelled_down_the_left_and_columns_across_the_top(position):
    fig, _ = drawn(position)
    try:
        ax = axes_named(fig, "board")
        box = ax.get_window_extent()
        renderer = fig.canvas.get_renderer()
        for axis, n, centre in ((ax.xaxis, position.cols, 0), (ax.yaxis, position.rows, 1)):
            ticks = axis.get_major_ticks()
            assert [int(t) for t in axis.get_ticklocs()] == list(range(n))  # each, from 0
            for tick, where in zip(ticks, axis.get_ticklocs(), strict=True):
                label = tick.label2 if axis is ax.xaxis else tick.label1
                assert label.get_visible() and label.get_text() == str(int(where))
                extent = label.get_window_extent(renderer)
                point = ax.transData.transform((where, where))
                mid = ((extent.x0 + extent.x1) / 2, (extent.y0 + extent.y1) / 2)
                assert abs(mid[centre] - point[centre]) < 2  # on its cell's centre
                if axis is ax.xaxis:
                    assert extent.y0 >= box.y1  # above the board
                else:
                    assert extent.x1 <= box.x0  # left of the board
    finally:
        plt.close(fig)


@pytest.mark.parametrize("shape", [(9, 9), (16, 30), (30, 100), (100, 100), (300, 300), (1, 2000)])
def test_labels_never_overlap_and_stay_regular(shape):
    rows, cols = shape
    board = mscsp.Board(np.full(shape, mscsp.COVERED), mines=min(rows * cols // 5, 10))
    fig, _ = drawn(board)
    try:
        ax = axes_named(fig, "board")
        renderer = fig.canvas.get_renderer()
        for axis, n in ((ax.xaxis, cols), (ax.yaxis, rows)):
            where = [int(v) for v in axis.get_ticklocs()]
            step = where[1] - where[0] if len(where) > 1 else 1
            assert where == list(range(0, n, step)) and step in (1, 2, 5, 10, 20, 50, 100)
            labels = [t.label2 if axis is ax.xaxis else t.label1 for t in axis.get_major_ticks()]
            boxes = [label.get_window_extent(renderer) for label in labels]
            assert [label.get_text() for label in labels] == [str(v) for v in where]
            for a, b in zip(boxes, boxes[1:], strict=False):
                assert not a.overlaps(b), (shape, a, b)
    finally:
        plt.close(fig)


def test_the_key_names_every_mark_as_the_board_draws_it(position):
    fig, pixels = drawn(position)
    try:
        board_ax, key = axes_named(fig, "board"), axes_named(fig, "key")
        swatches = {p.get_label(): p for p in key.patches if p.get_label()}
        names = {
            "certain safe",
            "certain mine",
            "flag",
            "revealed number",
            "mine probability",
            "suggested move",
        }
        assert set(swatches) == names
        assert {t.get_text() for t in key.texts} >= names  # each named next to its swatch
        assert "mine probability" in axes_named(fig, "scale").get_xlabel()
        solution = mscsp.solve(position)
        cells = position.cells
        example = {
            "certain safe": solution.safe[-1],
            "certain mine": solution.mines[-1],
            "flag": tuple(np.argwhere(cells == mscsp.FLAG)[0]),
            "revealed number": tuple(np.argwhere(cells > 0)[0]),
        }
        # A board cell and its swatch have the same colour at their corner, and the same
        # glyph (sampled on the flag's pennant, or the number's stroke-free corner).
        for name, (r, c) in example.items():
            (x, y), size = swatches[name].get_xy(), swatches[name].get_width()
            corner = pixel(pixels, key, x + 0.1 * size, y + 0.1 * size)
            assert corner == pixel(pixels, board_ax, c - 0.4, r - 0.4), name
        flag = swatches["flag"]
        (x, y), size = flag.get_xy(), flag.get_width()
        pennant = pixel(pixels, key, x + size * 0.55, y + size * 0.35)
        assert pennant == hex_rgb(FLAG_GLYPH_COLOUR)
        heat = swatches["mine probability"].get_facecolor()[:3]
        heat_rgb_of_swatch = tuple(int(round(v * 255)) for v in heat)
        assert heat_rgb_of_swatch in {cell_rgb(-1, p / 100) for p in range(1, 100)}
        frame = swatches["suggested move"]
        assert any(
            p.get_edgecolor()[:3] == tuple(v / 255 for v in hex_rgb(BEST_COLOUR))
            for p in key.patches
            if p.get_xy() == frame.get_xy()
        )
    finally:
        plt.close(fig)


def test_flags_are_drawn_apart_from_certain_mines(position):
    fig, pixels = drawn(position)
    try:
        ax = axes_named(fig, "board")
        solution = mscsp.solve(position)
        fr, fc = np.argwhere(position.cells == mscsp.FLAG)[0]
        mr, mc = solution.mines[-1]
        flag_corner = pixel(pixels, ax, fc - 0.4, fr - 0.4)
        mine_corner = pixel(pixels, ax, mc - 0.4, mr - 0.4)
        assert flag_corner != mine_corner
        assert mine_corner == hex_rgb(MINE_COLOUR)
        # The flag glyph: a pennant where a certain mine has none.
        assert pixel(pixels, ax, fc + 0.05, fr - 0.16) == hex_rgb(FLAG_GLYPH_COLOUR)
        assert pixel(pixels, ax, mc + 0.05, mr - 0.16) != hex_rgb(FLAG_GLYPH_COLOUR)
        assert mscsp.display.heatmap.palette()["flag"] != mscsp.display.heatmap.palette()["mine"]
    finally:
        plt.close(fig)


def test_an_estimate_is_titled_as_one():
    board = mscsp.parse_board(EXAMPLE)
    estimate = Estimate(board, mscsp.solve(board).probabilities)
    fig = heatmap_figure(estimate)
    try:
        title = axes_named(fig, "board").get_title()
        assert "estimated" in title and "exact" not in title
    finally:
        plt.close(fig)
