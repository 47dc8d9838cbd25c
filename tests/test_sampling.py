"""Sampling whole-board layouts from the compiled diagrams: uniform, seeded, within bounds."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from conftest import random_game_position

from mscsp import COVERED, FLAG, InconsistentBoardError, InvalidInputError, parse_board, solve
from mscsp.board import neighbour_sum
from mscsp.evaluation.families import band, lattice
from mscsp.layouts import sample_layouts


def consistent(board, layout: np.ndarray) -> bool:
    """Whether a layout has every flag, the board's mine count and every number right."""
    numbers = board.cells >= 0
    return (
        bool(layout[board.cells == FLAG].all())
        and not layout[numbers].any()
        and int(layout.sum()) == board.mines
        and bool((neighbour_sum(layout)[numbers] == board.cells[numbers]).all())
    )


def all_layouts(board) -> set[bytes]:
    """Every consistent layout of a small board, by trying every placement."""
    covered = np.argwhere(board.cells == COVERED)
    flags = board.cells == FLAG
    found = set()
    for chosen in combinations(range(len(covered)), board.mines - int(flags.sum())):
        layout = flags.copy()
        layout[tuple(covered[list(chosen)].T)] = True
        if consistent(board, layout):
            found.add(layout.tobytes())
    return found


# One component on each side of the column of numbers, free cells at the edges: 10 layouts.
SMALL = parse_board("5x5x3\n??.??\n??.??\n??2??\n??2??\n??2??\n")


def test_layouts_are_consistent_and_uniform() -> None:
    layouts = all_layouts(SMALL)
    assert len(layouts) == 10
    n = 10_000
    sample = sample_layouts(SMALL, n, seed=3)
    seen = Counter(layout.tobytes() for layout in sample.layouts)
    assert set(seen) == layouts  # every layout drawn is consistent, and every one is drawn
    # Each layout's frequency is a mean of n indicators: Hoeffding with a union bound over
    # the layouts, at delta = 1e-4.
    bound = sample.bound(delta=1e-4, cells=len(layouts))
    assert max(abs(c / n - 1 / len(layouts)) for c in seen.values()) <= bound


@pytest.mark.parametrize("seed", range(6))
def test_probabilities_within_stated_bound_on_real_positions(seed: int) -> None:
    board, _ = next(f for s in itertools.count(100 * seed) if (f := random_game_position(s)))
    exact = solve(board).probabilities
    sample = sample_layouts(board, 800, seed=seed)
    covered = int((board.cells == COVERED).sum())
    error = np.nanmax(np.abs(sample.probabilities - exact))
    assert error <= sample.bound(delta=1e-3, cells=covered)
    assert all(consistent(board, layout) for layout in sample.layouts[:50])


@pytest.mark.parametrize("make, rows, cols, density", [(lattice, 9, 9, 0.4), (band, 7, 18, 0.5)])
def test_probabilities_within_stated_bound_on_wide_components(make, rows, cols, density) -> None:
    board = make(rows, cols, density, 1)
    exact = solve(board).probabilities
    sample = sample_layouts(board, 1500, seed=7)
    covered = int((board.cells == COVERED).sum())
    assert sample.approximate
    assert np.nanmax(np.abs(sample.probabilities - exact)) <= sample.bound(1e-3, covered)
    assert all(consistent(board, layout) for layout in sample.layouts[:50])


def test_same_seed_same_layouts() -> None:
    first = sample_layouts(SMALL, 200, seed=11)
    assert np.array_equal(first.layouts, sample_layouts(SMALL, 200, seed=11).layouts)
    assert not np.array_equal(first.layouts, sample_layouts(SMALL, 200, seed=12).layouts)


def test_bad_input_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="samples"):
        sample_layouts(SMALL, 0)
    with pytest.raises(InconsistentBoardError):
        sample_layouts(parse_board("2x2x1\n2?\n??\n"), 10)
    with pytest.raises(InconsistentBoardError):
        sample_layouts(parse_board("2x2x3\n1?\n??\n"), 10)


def test_cli_sample_flags_its_estimates_approximate(tmp_path) -> None:
    from click.testing import CliRunner

    from mscsp.cli import main

    board = tmp_path / "board.txt"
    board.write_text("5x5x3\n??.??\n??.??\n??2??\n??2??\n??2??\n")
    layouts = tmp_path / "layouts.npy"
    runner = CliRunner()
    args = ["sample", str(board), "--samples", "300", "--seed", "4"]
    result = runner.invoke(main, [*args, "--json", "--out", str(layouts)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["approximate"] is True and out["samples"] == 300
    exact = solve(SMALL).probabilities
    got = np.array([[np.nan if p is None else p for p in row] for row in out["probabilities"]])
    widths = np.array([[np.nan if w is None else w for w in row] for row in out["half_width_95"]])
    assert widths.shape == exact.shape  # one half-width per cell
    assert np.nanmax(np.abs(got - exact) - 2 * widths) <= 0
    assert np.load(layouts).shape == (300, 5, 5)
    text = runner.invoke(main, args)
    assert text.exit_code == 0 and text.output.startswith("APPROXIMATE")
    board.write_text("2x2x1\n2?\n??\n")
    assert runner.invoke(main, ["sample", str(board)]).exit_code == 3
