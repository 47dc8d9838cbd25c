"""The small-board fast paths give exactly what the general code gives: the pure road for
small boards against the array code, and the compiled kernel (``mscsp.engine.compiled``, when
numba is installed) against the pure path."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from math import comb, prod

import numpy as np
import pytest
from conftest import repo_env
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import mscsp
from mscsp import constraints
from mscsp.backends import dss
from mscsp.backends.brute import BruteBackend
from mscsp.board import COVERED, FLAG, Board, neighbour_counts
from mscsp.constraints import Component, build_system
from mscsp.engine import compiled
from mscsp.errors import InconsistentBoardError
from mscsp.evaluation.played_positions import game_positions
from mscsp.game import PRESETS, Game
from mscsp.reduce import reduce_system
from mscsp.reference import brute_force


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


@st.composite
def _edited_positions(draw, tag: int, mine_shift: int = 0) -> Board:
    """A position of a real game (preset, game and stage drawn; seeds ``[tag, game]``)
    with up to 4 cells changed (flags, covered cells, wrong numbers) and the mine count
    moved by up to ``mine_shift``."""
    rows, cols, mines = PRESETS[draw(st.sampled_from(list(PRESETS)))]
    game = mscsp.Game(rows, cols, mines, seed=[tag, draw(st.integers(0, 10_000))])
    boards = list(game_positions(game, first=(0, 0)))
    board = boards[min(len(boards) - 1, int(draw(st.floats(0, 1)) * len(boards)))]
    cells = board.cells.copy()
    codes = st.sampled_from([COVERED, FLAG, 0, 1, 3, 8])
    for r, c, code in draw(
        st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29), codes), max_size=4)
    ):
        cells[r % rows, c % cols] = code
    return _fitted(cells, mines + draw(st.integers(-mine_shift, mine_shift)))


def _fitted(cells: np.ndarray, mines: int) -> Board:
    """A Board of ``cells`` and ``mines`` as far as Board takes them: each number at most its
    neighbour count, the mines between the flags and the flags and covered cells (the
    numbers may still contradict each other)."""
    cells = np.where(cells >= 0, np.minimum(cells, neighbour_counts(*cells.shape)), cells)
    flags, covered = int((cells == FLAG).sum()), int((cells == COVERED).sum())
    return Board(cells.astype(np.int8), min(max(mines, flags), flags + covered))


# (Each example plays a game to draw its position: slow to generate by design.)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited=_edited_positions(11))
def test_small_build_matches_general_on_edited_positions(edited):
    """Real-game positions, some with cells changed (flags, covered cells, wrong numbers):
    the same system or the same error, naming the same cell."""
    fast = _small(edited)
    if fast is not None:
        assert fast == _general(edited)


def test_small_build_of_an_untouched_board():
    board = Board(np.full((9, 9), COVERED, dtype=np.int8), 10)
    assert _small(board) == _general(board)


@st.composite
def _random_boards(draw, codes: list[int]) -> Board:
    """Any shape (one row, one column, one cell), cells drawn from ``codes``, 0-40 mines."""
    shape = draw(st.tuples(st.integers(1, 12), st.integers(1, 12)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cells = rng.choice(np.array(codes, dtype=np.int8), size=shape)
    return _fitted(cells, draw(st.integers(0, 40)))


@settings(max_examples=300, deadline=None)
@given(board=_random_boards([COVERED, COVERED, FLAG, 0, 1, 2, 3, 8]))
def test_small_build_matches_general_on_random_boards(board):
    """Any shape and any mix of codes, most of them inconsistent: the same system or the
    same error."""
    fast = _small(board)
    if fast is not None:
        assert fast == _general(board)


def _solution(board: Board):
    """Everything ``mscsp.solve`` answers, masks as lists (so answers compare with ==)."""
    return _answer(mscsp.solve(board))


def _answer(solution):
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


@pytest.fixture
def pure(monkeypatch):
    """``mscsp.solve`` on the pure path only (the compiled kernel switched off)."""
    monkeypatch.setattr(compiled, "enabled", False)


def _played(preset: str, games: int, tag: int) -> Iterator[Board]:
    """Every position of real games (seeds ``[tag, g]``), as it comes and with every other
    mine still covered flagged, as a player who flags what it proves sees it."""
    rows, cols, mines = PRESETS[preset]
    for g in range(games):
        game = Game(rows, cols, mines, seed=[tag, g])
        for k, board in enumerate(game_positions(game, first=(0, 0))):
            cells = board.cells.copy()
            for r, c in np.argwhere(game.mine & (cells == COVERED))[k % 2 :: 2]:
                cells[r, c] = FLAG
            yield board
            yield Board(cells, mines)


@pytest.mark.usefixtures("pure")
@pytest.mark.parametrize("preset", list(PRESETS))
def test_solve_on_the_small_road_matches_the_general_one(preset):
    """Every position of real games, as they come and with half the known mines flagged:
    the same odds (cells, in order), components, counts, weight and probability bytes."""
    compared = 0
    for position in _played(preset, 8, tag=13):
        assert _solution(position) == _general_solution(position)
        compared += 1
    assert compared >= 40


@st.composite
def _small_game_positions(draw, flags: bool = False) -> Board:
    """A position of a seeded game on a small board of any shape (up to 7x7, density,
    stage drawn), with the game's covered mines flagged when ``flags`` draws so, and few
    enough layouts for the brute force."""
    rows, cols = draw(st.tuples(st.integers(1, 7), st.integers(1, 7)))
    assume(rows * cols >= 2)
    mines = min(max(1, round(draw(st.floats(0.1, 0.35)) * rows * cols)), rows * cols - 1)
    game = Game(rows, cols, mines, seed=draw(st.integers(0, 2**32 - 1)))
    boards = list(game_positions(game, first=(0, 0)))
    assume(boards)  # the first click may win the game
    board = boards[min(len(boards) - 1, int(draw(st.floats(0, 1)) * len(boards)))]
    if flags and draw(st.booleans()):
        cells = board.cells.copy()
        cells[game.mine & (cells == COVERED)] = FLAG
        board = Board(cells, mines)
    covered = int(np.count_nonzero(board.cells == COVERED))
    assume(comb(covered, mines - int(np.count_nonzero(board.cells == FLAG))) <= 20_000)
    return board


@pytest.mark.usefixtures("pure")
@settings(max_examples=60, deadline=None)
@given(board=_small_game_positions())
def test_solve_on_the_small_road_matches_the_brute_force(board):
    """Positions of seeded games on small boards of any shape: the exact probabilities
    are those of trying every placement of the mines."""
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


needs_numba = pytest.mark.skipif(
    compiled.numba_missing(),
    reason="the compiled path needs numba (a dependency; here it cannot be imported)",
)


def _outcome_of(board: Board, use_kernel: bool):
    """``mscsp.solve``'s whole answer on one path, or its error's class and words."""
    saved = compiled.enabled
    compiled.enabled = use_kernel
    compiled.load()  # (no warm-up on the pure path first)
    try:
        return _answer(mscsp.solve(board))
    except InconsistentBoardError as error:
        return ("error", type(error), str(error), error.cell)
    finally:
        compiled.enabled = saved


@needs_numba
@pytest.mark.parametrize("preset", list(PRESETS))
def test_compiled_path_matches_the_pure_one_on_real_games(preset):
    """Every position of 12 real games per preset, as they come and with every other known
    mine flagged: the same odds (cells, in order), components, counts, weight and
    probability bytes. The kernel answers most of them itself (the rest it hands back)."""
    answered = compared = 0
    for position in _played(preset, 12, tag=17):
        assert _outcome_of(position, True) == _outcome_of(position, False)
        answered += compiled.solve_small(position) is not None
        compared += 1
    assert answered >= 0.9 * compared


@needs_numba
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited=_edited_positions(19, mine_shift=3))
def test_compiled_path_matches_the_pure_one_on_edited_positions(edited):
    """Real-game positions with cells changed and the mine count moved (most of them
    inconsistent): the same answer, or the same error class, words and cell."""
    assert _outcome_of(edited, True) == _outcome_of(edited, False)


@needs_numba
@settings(max_examples=300, deadline=None)
@given(board=_random_boards([COVERED, COVERED, COVERED, FLAG, 0, 1, 2, 3, 8]))
def test_compiled_path_matches_the_pure_one_on_random_boards(board):
    """Any shape and any mix of codes (mostly inconsistent boards): the same answer or
    the same error."""
    assert _outcome_of(board, True) == _outcome_of(board, False)


@needs_numba
@settings(max_examples=100, deadline=None)
@given(board=_small_game_positions(flags=True))
def test_compiled_path_matches_the_brute_force(board):
    """Positions of seeded games on small boards of any shape, with or without flags on
    the mines: the kernel's own answer is what trying every placement gives."""
    solution = compiled.solve_small(board)
    assert solution is not None
    assert solution.exact == brute_force(board)


#: A strip of bench/corpora/stress.jsonl: one component of 40 cells, too loose to enumerate in the
#: kernel's node budget.
_LOOSE_STRIP = """40x3x37
????????????????????????????????????????
F4F3F3F3F3F4F3F3F4F3F3F4F3F3F3F4F4F3F3F2
1212121212121212121212121212121212121211
"""


def _long_strip() -> Board:
    """A 3x60 strip under a row of numbers: one component of 120 cells, beyond 64 bits."""
    cells = np.full((3, 60), COVERED, dtype=np.int8)
    cells[1] = 1
    return Board(cells, 40)


@needs_numba
@pytest.mark.parametrize("board", [mscsp.parse_board(_LOOSE_STRIP), _long_strip()])
def test_compiled_path_hands_back_what_it_cannot_count(board):
    """Components beyond the kernel's limits (too many nodes to enumerate, too many
    cells for 64-bit counts): it hands the board back, and ``solve`` answers on the pure
    path, with the same answer as with the kernel switched off."""
    assert compiled.solve_small(board) is None
    assert _outcome_of(board, True) == _outcome_of(board, False)


@needs_numba
def test_compiled_path_weighs_big_counts_with_python_integers():
    """On expert boards the ways to place the other mines exceed 64 bits: the kernel
    counts the components, Python integers weigh them, and the answer is the pure one."""
    rows, cols, mines = PRESETS["expert"]
    board = next(
        b
        for b in game_positions(Game(rows, cols, mines, seed=[23, 0]), first=(0, 0))
        if len(mscsp.solve(b).components) > 1
    )
    solution = compiled.solve_small(board)
    assert solution is not None
    assert "probabilities" not in solution.__dict__  # the map comes from the exact odds
    assert solution.weight > 2**64
    assert _answer(solution) == _outcome_of(board, False)


def test_solve_falls_back_cleanly_without_numba():
    """With numba missing (blocked from import) or the path switched off by the
    environment, ``solve`` answers on the pure path, and ``import mscsp`` never loads
    numba."""
    code = (
        "import sys; sys.modules['numba'] = None; import numpy, mscsp; "
        "from mscsp.engine import compiled; "
        "s = mscsp.solve(mscsp.Board(numpy.full((9, 9), -1, dtype=numpy.int8), 10)); "
        "print(compiled.available(), s.exact[(0, 0)])"
    )
    assert _run(code) == "False 10/81"
    assert _run("import sys, mscsp; print('numba' in sys.modules)") == "False"
    switched_off = "from mscsp.engine import compiled; print(compiled.available())"
    assert _run(switched_off, **{compiled.PURE_ENV: "1"}) == "False"


@needs_numba
def test_kernel_is_loaded_only_after_the_warm_up():
    """A process that solves a few small boards (``mscsp probs``) never loads numba; the
    solve after ``WARMUP`` of them does."""
    code = (
        "import sys, numpy, mscsp; from mscsp.engine import compiled; "
        "b = mscsp.Board(numpy.full((9, 9), -1, dtype=numpy.int8), 10); "
        "[mscsp.solve(b) for _ in range(compiled.WARMUP)]; before = 'numba' in sys.modules; "
        "mscsp.solve(b); print(before, 'numba' in sys.modules)"
    )
    assert _run(code) == "False True"


def _run(code: str, **env: str) -> str:
    """What ``code`` prints, run by a fresh interpreter on this checkout."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**repo_env(), **env},
    ).stdout.strip()
