"""Big boards: every stage grows with the frontier, honours the time limit, stays exact."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mscsp
from mscsp import probabilities
from mscsp.board import Board, neighbour_sum
from mscsp.cli import main
from mscsp.errors import SolverLimitError
from mscsp.probabilities import free_ways, middle_product, multiply


def all_openings(rows: int, cols: int, density: float, seed: int) -> Board:
    """A board with every opening of a random layout revealed: many components at once."""
    mine = np.random.default_rng(seed).random((rows, cols)) < density
    numbers = neighbour_sum(mine.astype(np.int8))
    zero = ~mine & (numbers == 0)
    shown = (zero | (neighbour_sum(zero.astype(np.int8)) > 0)) & ~mine
    return Board(np.where(shown, numbers, mscsp.COVERED).astype(np.int8), int(mine.sum()))


def schoolbook(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


coefficients = st.lists(st.integers(0, 2**200), min_size=1, max_size=40)


@pytest.fixture(params=["gmpy2", "pure", "sliced"])
def big_products(request, monkeypatch):
    """Each way of doing big-integer work: GMP if installed, pure Python, tiny slices."""
    if request.param == "gmpy2":
        pytest.importorskip("gmpy2")
    if request.param == "pure":
        monkeypatch.setattr(probabilities, "_gmpy2", lambda: None)
    if request.param == "sliced":
        monkeypatch.setattr(probabilities, "_SLICE_BITS", {True: 64, False: 64})


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(coefficients, coefficients)
def test_multiply_equals_the_schoolbook_product(big_products, a, b):
    assert multiply(a, b) == schoolbook(a, b)


@settings(max_examples=60, deadline=None)
@given(coefficients, st.lists(st.integers(0, 2**100), min_size=1, max_size=40))
def test_middle_product_pairs_weights_with_one_factor(b, a):
    g = [(7 * i + 3) ** 5 for i in range(len(a) + len(b) - 1)]
    out = middle_product(b, g, len(a))
    # Pairing a with the transposed product equals pairing a * b with g.
    assert sum(x * w for x, w in zip(a, out, strict=True)) == sum(
        x * w for x, w in zip(schoolbook(a, b), g, strict=True)
    )


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 60), st.integers(0, 80), st.integers(0, 80), st.integers(0, 30))
def test_free_ways_are_binomials(big_products, n_free, left, first, span):
    expected = [
        comb(n_free, left - s) if 0 <= left - s <= n_free else 0
        for s in range(first, first + span + 1)
    ]
    assert free_ways(n_free, left, first, first + span) == expected


def direct_probabilities(solution: mscsp.Solution, board: Board) -> dict:
    """Frontier probabilities from the definition: every other component's product in full."""
    system = mscsp.constraints.build_system(board)
    reduction = mscsp.reduce.reduce_system(system)
    left = system.remaining - sum(x for _, x in reduction.fixed)
    n_free = system.n_unconstrained
    polys = [list(count.counts) for _, count in solution.components]
    out = {}
    for i, (component, count) in enumerate(solution.components):
        others = [1]
        for j, p in enumerate(polys):
            if j != i:
                others = schoolbook(others, p)
        ways = [
            sum(w * comb(n_free, left - k - s) for s, w in enumerate(others) if left - k - s >= 0)
            for k in range(len(count.counts))
        ]
        weight = sum(c * w for c, w in zip(count.counts, ways, strict=True))
        for cells, per_k in zip(component.cells, count.cell_counts, strict=True):
            value = Fraction(sum(c * w for c, w in zip(per_k, ways, strict=True)), weight)
            out.update(dict.fromkeys(cells, value))
    return out


def test_many_components_combine_exactly():
    board = all_openings(40, 40, 0.2, seed=5)
    solution = mscsp.solve(board)
    assert len(solution.components) > 10
    exact = solution.exact
    for cell, value in direct_probabilities(solution, board).items():
        assert exact[cell] == value
    # The expected number of mines over the covered cells is the number of mines.
    assert sum(exact.values()) == board.mines


def test_time_limit_stops_a_big_board_cleanly():
    board = all_openings(150, 150, 0.2, seed=1)
    try:
        mscsp.solve(board, time_limit=0.001)
    except SolverLimitError as error:
        assert "time limit" in str(error)
    else:
        raise AssertionError("a 150x150 board was solved within a millisecond")


def test_cli_exits_5_when_the_time_limit_is_hit(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text(all_openings(150, 150, 0.2, seed=2).to_text())
    result = CliRunner().invoke(main, ["probs", str(path), "--time-limit", "0.001"])
    assert result.exit_code == 5, result.output
    assert "Traceback" not in result.output


def test_a_million_cells_after_the_opening_answer_or_stop_cleanly():
    game = mscsp.Game(1000, 1000, 50_000, seed=3, first_click="opening")
    game.reveal(500, 500)
    board = game.board()
    try:
        solution = mscsp.solve(board, time_limit=0.5)
    except SolverLimitError:
        return  # stopped at its limit: the clean outcome on a slow machine
    assert all(not game.mine[cell] for cell in solution.safe)
    assert all(game.mine[cell] for cell in solution.mines)
