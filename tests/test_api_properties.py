"""Arbitrary objects thrown at the public API: only the project's errors come out, and every
answer given is right.

Hypothesis draws, with fixed seeds (``derandomize``), ``None``, ints of any size, floats with
nan and inf, bools, strings, bytes, nested lists and dicts, numpy arrays of any dtype and
shape, and boards of arbitrary cell values, and passes them to ``Board``, ``parse_board``,
``solve``, ``get_backend``, ``Game``, its moves and ``Game.replay``. Whatever they raise must
be an :class:`~mscsp.errors.MscspError`. Whatever they return must be valid: a Board holds
only cell codes and numbers its cells can show, and a solve of a small board equals the
brute force (:func:`mscsp.reference.brute_force`), or both find the board inconsistent.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import random_game_position
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mscsp import Board, Game, parse_board, solve
from mscsp.backends import BACKENDS, Backend, get_backend
from mscsp.board import COVERED, FLAG
from mscsp.errors import InconsistentBoardError, MscspError
from mscsp.reference import brute_force


def check(examples: int) -> settings:
    """Fixed seeds, no per-example deadline (a shared machine's hiccups are no failure)."""
    return settings(
        derandomize=True,
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-3, 12)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.binary(max_size=12)
    | st.sampled_from([np.int8(3), np.int64(-1), np.float32(1.5), np.bool_(True), np.uint8(9)])
)
arrays = hnp.arrays(
    dtype=hnp.integer_dtypes(endianness="=")
    | hnp.unsigned_integer_dtypes(endianness="=")
    | hnp.floating_dtypes(endianness="=")
    | hnp.boolean_dtypes()
    | st.just(np.dtype(object)),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
)
#: Any object: scalars, arrays, and lists, tuples and dicts of them.
anything = st.recursive(
    scalars | arrays,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
grid_shapes = hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=6)
#: Integer boards of any integer dtype, their values around the cell codes.
int_grids = hnp.arrays(
    dtype=st.sampled_from([np.int8, np.int16, np.int32, np.int64]),
    shape=grid_shapes,
    elements=st.integers(-4, 10),
) | hnp.arrays(
    dtype=st.sampled_from([np.uint8, np.uint16, np.uint64]),
    shape=grid_shapes,
    elements=st.integers(0, 10),
)


def only_our_errors(call):
    """Calls ``call``; returns its result, or ``None`` if it raised an MscspError."""
    try:
        return call()
    except MscspError as error:
        assert "\n" not in str(error)
        return None


def valid_board(cells: np.ndarray, mines: int) -> bool:
    """The rules, cell by cell, from their definition: the reference for Board's checks."""
    if cells.ndim != 2 or 0 in cells.shape or mines < 0:
        return False
    rows, cols = cells.shape
    for r in range(rows):
        for c in range(cols):
            value = int(cells[r, c])
            if value not in range(-2, 9):
                return False
            neighbours = sum(
                1
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
            )
            if value > neighbours:
                return False
    flags, covered = int((cells == FLAG).sum()), int((cells == COVERED).sum())
    return flags <= mines <= flags + covered


@check(800)
@given(cells=anything | int_grids, mines=scalars)
def test_board_of_anything_raises_only_our_errors(cells, mines):
    board = only_our_errors(lambda: Board(cells, mines))
    if board is not None:
        assert board.cells.dtype == np.int8 and type(board.mines) is int
        assert valid_board(board.cells, board.mines)


@check(800)
@given(cells=int_grids, mines=st.integers(-2, 40))
def test_board_takes_exactly_the_valid_boards(cells, mines):
    board = only_our_errors(lambda: Board(cells, mines))
    assert (board is not None) == valid_board(cells.astype(np.int64), mines)
    if board is not None:
        assert np.array_equal(board.cells, cells)


#: Text of cells, digits (some of other scripts), header pieces and junk, with or without a
#: header line in front.
board_text = st.builds(
    lambda header, body: header + body,
    st.sampled_from(["", "3x3x2\n", "mines=2\n", "٣x٣x٢\n", "３x3x2\n", "mines=٢\n", "2x2x\n"]),
    st.text(alphabet=st.sampled_from(list("?H.F*!0123456789xX=#\n\t ٣３\x00")), max_size=40),
)


@check(800)
@given(text=anything | board_text, mines=scalars)
def test_parse_board_of_anything_raises_only_our_errors(text, mines):
    board = only_our_errors(lambda: parse_board(text, mines=mines))
    if board is not None:
        assert valid_board(board.cells, board.mines)


backend_names = st.sampled_from(list(BACKENDS)) | st.builds(
    lambda name, sub: f"{name}:{sub}", st.sampled_from(list(BACKENDS)), st.text(max_size=6)
)


@check(300)
@given(spec=anything | backend_names, time_limit=scalars | st.none())
def test_get_backend_of_anything_raises_only_our_errors(spec, time_limit):
    backend = only_our_errors(lambda: get_backend(spec, time_limit=time_limit))
    assert backend is None or isinstance(backend, Backend)


SMALL = Board(np.array([[1, -1], [-1, -1]], dtype=np.int8), 1)


@check(300)
@given(board=anything, backend=anything | st.just("dss"))
def test_solve_of_anything_raises_only_our_errors(board, backend):
    assert only_our_errors(lambda: solve(board, backend)) is None  # neither is a board


#: Small boards: mostly covered cells, some numbers, a few flags.
small_cells = hnp.arrays(
    dtype=np.int8,
    shape=hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=4),
    elements=st.sampled_from([COVERED] * 5 + [FLAG] + list(range(9))),
)


@st.composite
def small_boards(draw) -> tuple[np.ndarray, int]:
    """Arbitrary cells with a mine count that fits them (mostly) or anything up to 16; or a
    position from a real game (consistent), up to 5x5."""
    if draw(st.booleans()):
        item = random_game_position(draw(st.integers(0, 2**32 - 1)), max_side=5)
        if item is not None:
            return item[0].cells, item[0].mines
    cells = draw(small_cells)
    flags, covered = int((cells == FLAG).sum()), int((cells == COVERED).sum())
    return cells, draw(st.integers(flags, flags + covered) | st.integers(0, 16))


@check(600)
@given(position=small_boards(), backend=st.sampled_from(["dss", "mdd"]))
def test_every_answer_of_solve_on_a_small_board_is_the_brute_force(position, backend):
    cells, mines = position
    board = only_our_errors(lambda: Board(cells, mines))
    if board is None or (cells == COVERED).sum() > 12:
        return
    try:
        reference = brute_force(board)
    except InconsistentBoardError:
        with pytest.raises(InconsistentBoardError):
            solve(board, backend)
        return
    solution = solve(board, backend)
    assert solution.exact == reference
    probabilities = solution.probabilities[cells == COVERED]
    assert np.isfinite(probabilities).all()
    assert ((probabilities >= 0) & (probabilities <= 1)).all()


sizes = st.integers(-2, 12) | scalars


@check(500)
@given(
    rows=sizes,
    cols=sizes,
    mines=sizes,
    seed=scalars,
    first_click=anything | st.sampled_from(["safe", "opening", "any"]),
)
def test_game_of_anything_raises_only_our_errors(rows, cols, mines, seed, first_click):
    game = only_our_errors(lambda: Game(rows, cols, mines, seed=seed, first_click=first_click))
    if game is not None:
        assert game.view.shape == (game.rows, game.cols) and game.mines >= 0


coordinates = st.integers(-2, 5) | scalars


@check(300)
@given(moves=st.lists(st.tuples(st.booleans(), coordinates, coordinates), max_size=12))
def test_moves_of_anything_raise_only_our_errors(moves):
    game = Game(4, 4, 3, seed=7)
    for reveal, r, c in moves:
        only_our_errors(lambda: game.reveal(r, c) if reveal else game.flag(r, c))  # noqa: B023
        assert all(isinstance(v, int) for _, *cell in game.moves for v in cell)
        assert game.board().shape == (4, 4)  # every position of a game is a Board
    assert Game.replay(game.to_json()).to_dict() == game.to_dict()


def _played() -> dict:
    game = Game(4, 4, 3, seed=3)
    game.reveal(0, 0)
    game.flag(3, 3)
    return game.to_dict()


PLAYED = _played()
#: Values JSON can hold.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 20)
    | st.integers()
    | st.floats()
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)
fields = st.sampled_from(list(PLAYED))
#: A played game's record with one field changed to anything, or dropped.
changed_records = st.builds(
    lambda k, v: {**PLAYED, k: v}, fields, anything | json_values
) | st.builds(lambda k: {key: v for key, v in PLAYED.items() if key != k}, fields)


@check(600)
@given(
    record=anything
    | changed_records
    | st.builds(lambda k, v: json.dumps({**PLAYED, k: v}), fields, json_values)
    | st.builds(lambda text: json.dumps(PLAYED)[: len(text)], st.text(max_size=60))
    | st.text(max_size=30)
)
def test_replay_of_anything_raises_only_our_errors(record):
    game = only_our_errors(lambda: Game.replay(record))
    if game is not None:
        assert Game.replay(game.to_dict()).to_dict() == game.to_dict()
