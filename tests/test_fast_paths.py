"""The small-board fast paths give exactly what the general code gives."""

from __future__ import annotations

from math import comb, prod

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import mscsp
from mscsp import constraints
from mscsp.backends import dss
from mscsp.backends.brute import BruteBackend
from mscsp.board import COVERED, FLAG, Board
from mscsp.brute import brute_force
from mscsp.constraints import Component, build_system
from mscsp.errors import InconsistentBoardError
from mscsp.game import PRESETS, Game
from mscsp.positions import game_positions
from mscsp.reduce import reduce_system


def _general(board: Board):
    """The array code's answer (the fast path switched off), or its error."""
    saved = constraints.SMALL_BOARD
    constraints.SMALL_BOARD = 0
    try:
        return _outcome(constraints.build_system, board)
    finally:
        constraints.SMALL_BOARD = saved


def _outcome(build, board: Board):
    try:
        system = build(board)
    except InconsistentBoardError as error:
        return ("error", str(error), error.cell)
    return (
        system.sizes,
        system.cells,
        system.constraints,
        system.numbers,
        system.unconstrained.tolist(),
        system.remaining,
        system.settled,
    )


def _small(board: Board):
    """The fast path's answer, or ``None`` where it hands over to the array code."""
    try:
        system = constraints._build_small(board)
    except InconsistentBoardError as error:
        return ("error", str(error), error.cell)
    return None if system is None else _outcome(lambda _: system, board)


def _positions(preset: str, games: int) -> list[Board]:
    rows, cols, mines = PRESETS[preset]
    return [
        board
        for g in range(games)
        for board in game_positions(mscsp.Game(rows, cols, mines, seed=[7, g]), first=(0, 0))
    ]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_small_build_matches_general_on_real_games(preset):
    positions = _positions(preset, 4)
    used = 0
    for board in positions:
        fast = _small(board)
        if fast is not None:
            used += 1
            assert fast == _general(board)
    assert used  # the fast path did take some positions


@pytest.mark.parametrize("preset", list(PRESETS))
def test_small_build_matches_general_with_flags(preset):
    """As the players see the board: every other mine they have proven carries a flag."""
    rows, cols, mines = PRESETS[preset]
    used = 0
    for g in range(3):
        game = mscsp.Game(rows, cols, mines, seed=[9, g])
        for k, board in enumerate(game_positions(game, first=(0, 0))):
            cells = board.cells.copy()
            mine_cells = np.argwhere(game.mine & (cells == COVERED))
            for r, c in mine_cells[k % 2 :: 2]:
                cells[r, c] = FLAG
            flagged = Board(cells, mines)
            fast = _small(flagged)
            if fast is not None:
                used += 1
                assert fast == _general(flagged)
    assert used


@settings(max_examples=200, deadline=None)
@given(
    preset=st.sampled_from(list(PRESETS)),
    game=st.integers(0, 10_000),
    step=st.floats(0, 1),
    edits=st.lists(
        st.tuples(
            st.integers(0, 29), st.integers(0, 29), st.sampled_from([COVERED, FLAG, 0, 1, 3, 8])
        ),
        max_size=4,
    ),
)
def test_small_build_matches_general_on_edited_positions(preset, game, step, edits):
    """Real-game positions, some with cells changed (flags, covered cells, wrong numbers):
    the same system or the same error, naming the same cell."""
    rows, cols, mines = PRESETS[preset]
    boards = list(game_positions(mscsp.Game(rows, cols, mines, seed=[11, game]), first=(0, 0)))
    board = boards[min(len(boards) - 1, int(step * len(boards)))]
    cells = board.cells.copy()
    for r, c, code in edits:
        cells[r % rows, c % cols] = code
    edited = Board(cells, mines)
    fast = _small(edited)
    if fast is not None:
        assert fast == _general(edited)


def test_small_build_of_an_untouched_board():
    board = Board(np.full((9, 9), COVERED, dtype=np.int8), 10)
    assert _small(board) == _general(board)


@settings(max_examples=300, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 12), st.integers(1, 12)),
    seed=st.integers(0, 2**32 - 1),
    mines=st.integers(0, 40),
)
def test_small_build_matches_general_on_random_boards(shape, seed, mines):
    """Any shape (one row, one column, one cell) and any mix of codes, most of them
    inconsistent: the same system or the same error."""
    rng = np.random.default_rng(seed)
    codes = np.array([COVERED, COVERED, FLAG, 0, 1, 2, 3, 8], dtype=np.int8)
    board = Board(rng.choice(codes, size=shape), mines)
    fast = _small(board)
    if fast is not None:
        assert fast == _general(board)


def _solution(board: Board):
    """Everything ``mscsp.solve`` answers, masks as lists (so answers compare with ==)."""
    solution = mscsp.solve(board)
    odds = [
        (odd.cells.tolist() if isinstance(odd.cells, np.ndarray) else odd.cells, odd.num, odd.den)
        for odd in solution.odds
    ]
    return odds, solution.components, solution.weight, solution.probabilities.tobytes()


def _general_solution(board: Board):
    saved = constraints.SMALL_BOARD
    constraints.SMALL_BOARD = 0
    try:
        return _solution(board)
    finally:
        constraints.SMALL_BOARD = saved


@pytest.mark.parametrize("preset", list(PRESETS))
def test_solve_on_the_small_road_matches_the_general_one(preset):
    """Every position of real games, as they come and with half the known mines flagged:
    the same odds (cells, in order), components, counts, weight and probability bytes."""
    rows, cols, mines = PRESETS[preset]
    compared = 0
    for g in range(8):
        game = Game(rows, cols, mines, seed=[13, g])
        for k, board in enumerate(game_positions(game, first=(0, 0))):
            cells = board.cells.copy()
            for r, c in np.argwhere(game.mine & (cells == COVERED))[k % 2 :: 2]:
                cells[r, c] = FLAG
            for position in (board, Board(cells, mines)):
                assert _solution(position) == _general_solution(position)
                compared += 1
    assert compared >= 40


@settings(max_examples=60, deadline=None)
@given(
    shape=st.tuples(st.integers(2, 7), st.integers(2, 7)),
    density=st.floats(0.1, 0.3),
    seed=st.integers(0, 2**32 - 1),
    step=st.floats(0, 1),
)
def test_solve_on_the_small_road_matches_the_brute_force(shape, density, seed, step):
    """Positions of seeded games on small boards of any shape: the exact probabilities
    are those of trying every placement of the mines."""
    rows, cols = shape
    mines = max(1, round(density * rows * cols))
    boards = list(game_positions(Game(rows, cols, mines, seed=seed), first=(0, 0)))
    assume(boards)  # the first click may win the game
    board = boards[min(len(boards) - 1, int(step * len(boards)))]
    covered = int(np.count_nonzero(board.cells == COVERED))
    assume(comb(covered, mines - int(np.count_nonzero(board.cells == FLAG))) <= 20_000)
    assert mscsp.solve(board).exact == brute_force(board)


def _components(preset: str, games: int) -> list[Component]:
    return [
        component
        for board in _positions(preset, games)
        for component in reduce_system(build_system(board)).components
    ]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_enumeration_and_merged_search_count_alike_on_real_games(preset):
    """The two counting roads of ``dss`` on every component of real games, and the brute
    force (every cell assignment) on those small enough for it."""
    brute = BruteBackend()
    enumerated = 0
    for component in _components(preset, 3):
        merged = dss.merged_search(component)
        if prod(size + 1 for size in component.sizes) <= 1 << 16:
            assert dss._enumerate(component) == merged
            enumerated += 1
        if component.n_cells <= 10:
            assert brute.count(component) == merged
    assert enumerated


@settings(max_examples=150, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 3), min_size=2, max_size=5),
    picks=st.lists(st.tuples(st.integers(0, 2**5 - 1), st.integers(0, 5)), min_size=1, max_size=5),
)
def test_enumeration_and_merged_search_count_alike_on_random_components(sizes, picks):
    """Made-up components (groups of up to 3 cells, constraints on random subsets, listed
    in descending order, targets possibly unreachable): both roads and the brute force
    agree, zero counts included."""
    n = len(sizes)
    subsets = [subset % (1 << n) for subset, _ in picks]
    for g in range(1, n):  # link each group to the one before it, so all form one component
        subsets[(g - 1) % len(subsets)] |= 3 << (g - 1)
    constraints = [
        (tuple(g for g in reversed(range(n)) if subset >> g & 1), target)
        for subset, (_, target) in zip(subsets, picks, strict=True)
        if subset
    ]
    component = Component(tuple(sizes), tuple(sorted(set(constraints))))
    merged = dss.merged_search(component)
    assert dss._enumerate(component) == merged
    assert BruteBackend().count(component) == merged


def test_loose_components_leave_the_enumeration_for_the_merged_search():
    """Sixteen cells under one number (after reductions, a component no real frontier
    has): enumerating would visit thousands of nodes, so ``dss`` gives up after its
    budget and the merged search counts it, exactly."""
    component = Component((1,) * 16, ((tuple(range(16)), 8),))
    with pytest.raises(dss._OverBudget):
        dss._enumerate(component, dss._NODES)
    count = dss.count_component(component)
    assert count.counts == tuple(comb(16, 8) if k == 8 else 0 for k in range(17))
    assert count.cell_counts == ((tuple(comb(15, 7) if k == 8 else 0 for k in range(17)),) * 16)
