"""Exact probabilities: every backend against the brute force, on positions from real games."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from conftest import random_game_position
from hypothesis import given, settings
from hypothesis import strategies as st

import mscsp
from mscsp.backends import get_backend
from mscsp.board import neighbour_sum
from mscsp.constraints import build_system
from mscsp.errors import InvalidInputError, SolverLimitError
from mscsp.reduce import reduce_system
from mscsp.reference import brute_force

#: Positions with more placements than this are left out (the reference is slow Python).
BRUTE_LIMIT = 20_000


def _reference(board):
    covered = int((board.cells == mscsp.COVERED).sum())
    left = board.mines - int((board.cells == mscsp.FLAG).sum())
    if comb(covered, left) > BRUTE_LIMIT:
        return None
    return brute_force(board)


@pytest.fixture(scope="module")
def references(positions):
    """Real-game positions with their brute-force answers (computed once per module)."""
    found = [(board, _reference(board)) for board, _ in positions]
    return [(board, ref) for board, ref in found if ref is not None]


def test_every_backend_equals_the_brute_force(backend_name, references):
    """Positions with and without flags, through the whole pipeline."""
    backend = get_backend(backend_name)
    checked = 0
    for board, reference in references:
        try:
            solution = mscsp.solve(board, backend)
        except SolverLimitError:
            continue  # the brute backend declines large components
        assert solution.exact == reference
        checked += 1
    assert checked > 80


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**9))
def test_dss_equals_the_brute_force_on_random_games(seed):
    # A game over before the chosen stage gives no position: take the next seed, so every
    # example checks one.
    item = None
    while item is None:
        item, seed = random_game_position(seed, max_side=6), seed + 1
    board, _ = item
    reference = _reference(board)
    if reference is not None:
        assert mscsp.solve(board).exact == reference


def test_solution_properties_hold_on_expert_games():
    from mscsp.evaluation.played_positions import game_positions

    game = mscsp.Game.from_preset("expert", seed=3)
    for board in game_positions(game, first=(0, 0), flag_mines=True):
        layout = game.mine
        solution = mscsp.solve(board)
        probs = solution.probabilities
        covered = board.cells == mscsp.COVERED
        flags = board.cells == mscsp.FLAG
        # Expected mines over covered cells equals the mines not flagged.
        total = sum(solution.exact.values())
        assert total == board.mines - int(flags.sum())
        assert np.isnan(probs[~covered & ~flags]).all()
        assert (probs[flags] == 1.0).all()
        assert ((probs[covered] >= 0) & (probs[covered] <= 1)).all()
        for cell, value in solution.exact.items():
            assert probs[cell] == float(value)
        # Certain cells agree with the true layout.
        assert not any(layout[cell] for cell in solution.safe)
        assert all(layout[cell] for cell in solution.mines)
        r, c = solution.best_move
        assert probs[r, c] == np.nanmin(np.where(covered, probs, np.nan))


def test_hand_made_position():
    board = mscsp.parse_board("3x3x2\n1??\n???\n???\n")
    exact = mscsp.solve(board).exact
    assert exact[(0, 1)] == exact[(1, 0)] == exact[(1, 1)] == Fraction(1, 3)
    assert exact[(2, 2)] == Fraction(1, 5)


def test_global_mine_count_changes_the_answer():
    # One mine among the 1's three neighbours; four cells touch no number.
    text = "1???\n????\n"
    one = mscsp.solve(mscsp.parse_board(text, mines=1)).exact
    assert one[(0, 3)] == 0 and one[(0, 1)] == Fraction(1, 3)
    two = mscsp.solve(mscsp.parse_board(text, mines=2)).exact
    assert two[(0, 3)] == Fraction(1, 4) and two[(0, 1)] == Fraction(1, 3)
    five = mscsp.solve(mscsp.parse_board(text, mines=5)).exact
    assert five[(0, 3)] == 1


def test_subset_rule_then_dss_solve_the_position_before_search():
    # a+b=1 and a+b+c=2 give c=1 (subset rule); then b+c=1 gives b=0 and a=1 (DSS).
    board = mscsp.parse_board("mines=2\n???\n121\n")
    reduction = reduce_system(build_system(board))
    assert reduction.components == []
    assert sorted(x for _, x in reduction.fixed) == [0, 1, 1]
    solution = mscsp.solve(board)
    assert solution.mines == [(0, 0), (0, 2)]
    assert solution.safe == [(0, 1)]


@pytest.mark.parametrize(
    ("text", "mines"),
    [
        ("2?\n??\n", 1),  # a 2 needs two mines, only one exists
        ("1?\n2F\n", 1),  # the 2 needs a second mine, but the flag is the only one
        ("F1\n1?\n", 2),  # the second mine has nowhere to go
        ("1.\n??\n", 1),  # the 0 forbids the mine the 1 needs... cells below touch the 0
        ("?2?\n.1.\n", 2),  # the 1 allows one mine, the 2 needs two among the same cells
        ("F2\n??\n", 1),  # the 2 needs one more mine than exists
    ],
)
def test_inconsistent_boards_are_reported(text, mines):
    with pytest.raises(mscsp.InconsistentBoardError):
        mscsp.solve(mscsp.parse_board(text, mines=mines))


def test_no_frontier_and_fully_solved_boards():
    empty = mscsp.solve(mscsp.parse_board("???\n???\n", mines=3))
    assert set(empty.exact.values()) == {Fraction(1, 2)}
    done = mscsp.solve(mscsp.parse_board("1F\n11\n", mines=1))
    assert done.exact == {}
    assert done.best_move is None


def test_best_move_prefers_a_corner_on_ties():
    solution = mscsp.solve(mscsp.parse_board("????\n????\n????\n", mines=3))
    assert solution.best_move == (0, 0)


def test_unknown_backend_lists_the_valid_ones():
    with pytest.raises(InvalidInputError, match="choose from dss"):
        mscsp.solve(mscsp.parse_board("??", mines=1), backend="nope")


def test_limits_are_explicit_errors():
    game = mscsp.Game(16, 30, 99, seed=0, first_click="opening")
    game.reveal(8, 15)
    big = game.board()
    assert max(c.n_cells for c, _ in mscsp.solve(big).components) > 22
    with pytest.raises(SolverLimitError, match="time limit"):
        mscsp.solve(big, get_backend("dss", time_limit=0.0))
    with pytest.raises(SolverLimitError, match="limited to 22 cells"):
        mscsp.solve(big, "brute")


def test_dss_counts_huge_components_exactly():
    # Two groups of 40 cells under one constraint of 40 mines, plus a third group chained
    # on: counts past 2**64 exercise the generic unpacking path. Closed forms by
    # Vandermonde's identity.
    from mscsp.constraints import Component

    two = Component(sizes=(40, 40), constraints=(((0, 1), 40),))
    count = get_backend("dss").count(two)
    assert count.counts[40] == comb(80, 40)
    assert sum(count.counts) == comb(80, 40)
    assert count.cell_counts[0][40] == comb(79, 39)
    chain = Component(sizes=(30, 30, 30), constraints=(((0, 1), 30), ((1, 2), 30)))
    count = get_backend("dss").count(chain)
    # x0 = x2 = 30 - x1: sum over x1 of C(30, x1) * C(30, 30 - x1)**2 layouts.
    by_total = {}
    for x1 in range(31):
        k = 60 - x1
        by_total[k] = by_total.get(k, 0) + comb(30, x1) * comb(30, 30 - x1) ** 2
    assert {k: v for k, v in enumerate(count.counts) if v} == by_total
    assert count.cell_counts[1][45] == comb(29, 14) * comb(30, 15) ** 2


def test_count_cache_reuses_unchanged_components_without_changing_answers():
    from mscsp.evaluation.played_positions import game_positions
    from mscsp.solver import CountCache

    cached = CountCache(get_backend("dss"))
    game = mscsp.Game.from_preset("expert", seed=11)
    for board in game_positions(game, first=(0, 0)):
        assert mscsp.solve(board, cached).exact == mscsp.solve(board).exact
    # Within a game most components come back unchanged from one position to the next.
    assert cached.hits > 0
    assert 0 < len(cached.entries) <= cached.maxsize


def test_count_cache_forgets_the_least_recently_used_first():
    from mscsp.constraints import Component
    from mscsp.solver import CountCache

    cached = CountCache(get_backend("dss"), maxsize=2)
    shapes = [Component(sizes=(n, n), constraints=(((0, 1), 1),)) for n in (1, 2, 3)]
    for shape in (shapes[0], shapes[1], shapes[0], shapes[2]):
        cached.count(shape)
    assert cached.hits == 1
    assert [key[0] for key in cached.entries] == [(1, 1), (3, 3)]


def test_single_point_pass_settles_known_mines_and_safe_cells():
    # Mines at (0, 1) and (3, 0); three cells of the top-left 2x2 block and (2, 2) are
    # revealed. The 1 in the corner has one covered neighbour: a mine, settled while
    # building; (2, 2) shows 0: its covered neighbours are settled safe. The rest is counted,
    # and the answers stay those of the brute force.
    mine = np.zeros((4, 4), dtype=bool)
    mine[0, 1] = mine[3, 0] = True
    shown = np.zeros((4, 4), dtype=bool)
    shown[0, 0] = shown[1, 0] = shown[1, 1] = shown[2, 2] = True
    numbers = neighbour_sum(mine.astype(np.int8))
    board = mscsp.Board(np.where(shown, numbers, mscsp.COVERED).astype(np.int8), 2)
    system = build_system(board)
    mines = {cell for g, x in system.settled if x for cell in system.cells[g]}
    safe = {cell for g, x in system.settled if not x for cell in system.cells[g]}
    assert mines == {(0, 1)}
    assert safe == {(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)}
    frontier = {cell for group in system.cells[: -len(system.settled)] for cell in group}
    assert not frontier & (mines | safe)
    assert mscsp.solve(board).exact == brute_force(board)
