"""``mscsp probs --png``: the heat map as an image, in the colours of the web page."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest
from click.testing import CliRunner

import mscsp
from mscsp.cli import main
from mscsp.heatmap import BEST_COLOUR, COLOUR_STOPS, cell_rgb, heat_rgb

image = pytest.importorskip("matplotlib.image", reason="--png needs pip install 'mscsp[plot]'")

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
