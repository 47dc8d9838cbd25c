"""Every public entry of the Python API refuses a bad argument with the project's typed error.

Issue 30's list, case by case: a wrong type is an :class:`InvalidTypeError` (also a
``TypeError``), a value out of range an :class:`InvalidInputError` (also a ``ValueError``), a
board no layout fits an :class:`InconsistentBoardError`; each message is one line naming the
argument and the bad value. Nothing else (no ``AttributeError``, ``KeyError``,
``JSONDecodeError``) comes out, and no wrong input is taken silently.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import mscsp
from mscsp import Board, Game, parse_board, solve
from mscsp.backends import get_backend
from mscsp.board import MAX_SIDE
from mscsp.errors import (
    BoardParseError,
    InconsistentBoardError,
    InvalidInputError,
    InvalidTypeError,
    MscspError,
)
from mscsp.estimators import get_estimator, kind_of
from mscsp.explain import explain, explain_certain, explain_probability, parse_cells
from mscsp.game import first_move
from mscsp.layouts import sample_layouts
from mscsp.session import GameSession

TEXT = "??\n??\n"
COVERED_2X2 = np.full((2, 2), -1, dtype=np.int8)
#: A certain mine at (0, 1) (the 1's only neighbour) and a certain safe cell at (0, 2).
SMALL = parse_board("1??\n", mines=1)


def board() -> Board:
    return Board(COVERED_2X2.copy(), 1)


def game() -> Game:
    return Game(3, 3, 1, seed=1)


def assert_refused(call, error: type[MscspError], *fragments: str) -> MscspError:
    """Runs ``call``; it must raise ``error``, one line naming every fragment."""
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return info.value


# -- Board ----------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [9, 100, -5, -3, 127, -128])
def test_a_value_that_is_no_cell_code_is_refused(code):
    cells = np.array([[code, -1], [-1, -1]], dtype=np.int8)
    assert_refused(lambda: Board(cells, 1), InvalidInputError, "cells[0, 0]", str(code))


@pytest.mark.parametrize(
    ("dtype", "code"),
    [(np.int16, 300), (np.int32, 257), (np.int64, -255), (np.int64, 2**40), (np.uint64, 300)],
    ids=repr,
)
def test_a_wide_integer_is_checked_before_it_is_narrowed(dtype, code):
    other = 0 if np.dtype(dtype).kind == "u" else -1
    cells = np.array([[other, code], [other, other]], dtype=dtype)  # 300 as int8 would be 44
    assert_refused(lambda: Board(cells, 0), InvalidInputError, "cells[0, 1]", str(code))


@pytest.mark.parametrize(
    "cells",
    [None, "??", 2.5, {"a": 1}, [[1, 2], [3]], [[0.0, -1.0]], [[True, False]], [["a", "b"]]],
    ids=["none", "str", "float", "dict", "ragged", "floats", "bools", "strings"],
)
def test_cells_that_are_not_an_array_of_integers_are_refused(cells):
    assert_refused(
        lambda: Board(cells, 0), InvalidTypeError, "cells must be a 2-D array of integers"
    )


@pytest.mark.parametrize(
    "shape", [(2,), (0, 3), (3, 0), (0, 0), (1, 2, 2), ()], ids=lambda s: str(s)
)
def test_a_shape_that_is_no_board_is_refused(shape):
    cells = np.full(shape, -1, dtype=np.int8)
    assert_refused(lambda: Board(cells, 0), InvalidInputError, "shape", str(shape))


def test_a_single_number_is_no_board():
    assert_refused(lambda: Board(3, 0), InvalidInputError, "shape ()")


def test_a_board_over_the_longest_side_is_refused():
    cells = np.full((1, MAX_SIDE + 1), -1, dtype=np.int8)
    assert_refused(lambda: Board(cells, 1), InvalidInputError, "too large", f"1x{MAX_SIDE + 1}")


@pytest.mark.parametrize(
    ("mines", "error", "shown"),
    [
        (2.5, InvalidTypeError, "float 2.5"),
        (True, InvalidTypeError, "bool True"),
        ("2", InvalidTypeError, "str '2'"),
        (math.nan, InvalidTypeError, "float nan"),
        (None, InvalidTypeError, "NoneType None"),
        (np.float64(1.0), InvalidTypeError, "1.0"),
        (-1, InvalidInputError, "-1"),
    ],
    ids=["float", "bool", "str", "nan", "none", "numpy float", "negative"],
)
def test_a_mine_count_that_is_no_count_is_refused(mines, error, shown):
    assert_refused(lambda: Board(COVERED_2X2.copy(), mines), error, "mines", shown)
    if mines is not None:  # (parse_board's default: the count comes from the header)
        assert_refused(lambda: parse_board(TEXT, mines=mines), error, "mines", shown)


@pytest.mark.parametrize(
    ("rows", "cell", "value", "neighbours"),
    [
        (["4??", "???", "???"], (0, 0), 4, 3),  # a corner has 3 neighbours
        (["???", "6??", "???"], (1, 0), 6, 5),  # an edge has 5
        (["???", "???", "??4"], (2, 2), 4, 3),
        (["2?"], (0, 0), 2, 1),  # one row: the end cell has 1
        (["?", "3", "?"], (1, 0), 3, 2),  # one column: 2 inside
        (["1"], (0, 0), 1, 0),  # a 1x1 board has none
    ],
)
def test_a_number_above_its_neighbour_count_is_refused(rows, cell, value, neighbours):
    cells = parse_board("\n".join(rows).replace(str(value), "?") + "\n", mines=0).cells
    cells[cell] = value
    error = assert_refused(
        lambda: Board(cells, 0),
        InconsistentBoardError,
        f"the {value} at ({cell[0]}, {cell[1]}) exceeds its {neighbours} neighbour",
    )
    assert error.cell == cell


def test_every_number_a_cell_can_hold_is_taken():
    centre = np.full((3, 3), -1, dtype=np.int8)
    centre[1, 1] = 8
    assert Board(centre, 8).mines == 8
    edges = np.array([[3, 5, 3], [5, -1, 5], [3, 5, 3]], dtype=np.int8)  # inconsistent odds,
    assert Board(edges, 1).shape == (3, 3)  # but each number fits its neighbours


def test_more_flags_than_mines_or_mines_than_room_are_refused():
    flags = np.array([[-2, -2], [-1, -1]], dtype=np.int8)
    assert_refused(lambda: Board(flags, 1), InconsistentBoardError, "2 flags but only 1 mine")
    assert_refused(lambda: Board(COVERED_2X2.copy(), 5), InconsistentBoardError, "5 mines")


def test_a_list_or_a_wide_array_becomes_a_new_int8_array():
    listed = Board([[-1, 1], [-1, -1]], np.int64(1))
    assert listed.cells.dtype == np.int8 and type(listed.mines) is int
    wide = np.array([[-1, 1], [-1, -1]], dtype=np.int64)
    board = Board(wide, 1)
    assert board.cells.dtype == np.int8 and not np.shares_memory(board.cells, wide)
    assert board == listed
    int8 = COVERED_2X2.copy()
    assert Board(int8, 1).cells is int8  # an int8 array is kept as it is (hot paths)


# -- parse_board ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [(None, "NoneType None"), (123, "int 123"), (["??", "??"], "list"), ({}, "dict")],
    ids=["none", "int", "list", "dict"],
)
def test_parse_board_takes_text_only(text, shown):
    assert_refused(lambda: parse_board(text, mines=1), InvalidTypeError, "text", shown)


@pytest.mark.parametrize(
    ("text", "digit"),
    [
        ("٣x٣x٢\n???\n???\n???\n", "٣"),  # Arabic-Indic digits
        ("３x３x２\n???\n???\n???\n", "３"),  # fullwidth digits
        ("mines=٢\n???\n???\n", "٢"),
        ("3x3x２\n???\n???\n???\n", "２"),  # one digit is enough
        ("mines=1٠\n???\n???\n", "1٠"),
    ],
)
def test_header_digits_must_be_ascii(text, digit):
    assert_refused(lambda: parse_board(text), BoardParseError, "ASCII 0-9", digit, "line 1")


def test_ascii_headers_still_parse():
    assert parse_board("3x3x2\n???\n???\n???\n").mines == 2
    assert parse_board("mines=2\n???\n???\n").mines == 2
    assert parse_board(b"2x2x1\n??\n??\n", mines=1).mines == 1


# -- solve and get_backend ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "fragments"),
    [
        ("??\n??\n", ("board must be a mscsp.Board", "str", "parse it with mscsp.parse_board")),
        (None, ("board must be a mscsp.Board", "NoneType None")),
        (np.full((2, 2), -1), ("ndarray", "wrap it in mscsp.Board(cells, mines)")),
        ([[-1, -1]], ("list", "wrap it in mscsp.Board(cells, mines)")),
        (42, ("int 42",)),
    ],
    ids=["str", "none", "ndarray", "list", "int"],
)
def test_solve_takes_a_board_only(value, fragments):
    assert_refused(lambda: solve(value), InvalidTypeError, *fragments)


def test_an_object_whose_repr_fails_is_still_named():
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert_refused(lambda: solve(Broken()), InvalidTypeError, "board", "Broken (no repr)")


@pytest.mark.parametrize("backend", [None, 123, 1.5, ["dss"], b"dss"], ids=repr)
def test_a_backend_that_is_no_name_is_refused(backend):
    shown = type(backend).__name__
    assert_refused(lambda: solve(board(), backend=backend), InvalidTypeError, "backend", shown)
    assert_refused(lambda: get_backend(backend), InvalidTypeError, "backend", shown)


@pytest.mark.parametrize(
    ("limit", "error"),
    [
        ("1", InvalidTypeError),
        (True, InvalidTypeError),
        ([1], InvalidTypeError),
        (-1, InvalidInputError),
        (math.nan, InvalidInputError),
        (math.inf, InvalidInputError),
        (10**400, InvalidInputError),
    ],
    ids=repr,
)
def test_a_time_limit_that_is_no_number_of_seconds_is_refused(limit, error):
    shown = repr(limit)[:20]
    assert_refused(lambda: solve(board(), time_limit=limit), error, "time_limit", shown)


def test_good_options_still_work():
    assert solve(board(), time_limit=np.float64(5)).probabilities.shape == (2, 2)
    assert solve(board(), "brute", max_solutions=np.int64(10)).exact[(0, 0)] == 0.25
    assert_refused(
        lambda: solve(board(), "brute", max_solutions=0), InvalidInputError, "max_solutions"
    )
    assert_refused(lambda: solve(board(), bogus=1), InvalidInputError, "bogus")


def test_a_count_cache_needs_a_backend_and_a_size():
    assert_refused(lambda: mscsp.CountCache("dss"), InvalidTypeError, "inner", "str 'dss'")
    assert_refused(lambda: mscsp.CountCache(get_backend(), 1.5), InvalidTypeError, "maxsize")
    assert_refused(lambda: mscsp.CountCache(get_backend(), -1), InvalidInputError, "maxsize", "-1")
    assert solve(board(), mscsp.CountCache(get_backend(), 4)).exact[(0, 0)] == 0.25


# -- Game -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "fragments"),
    [
        (("3", 3, 1), {}, InvalidTypeError, ("rows", "str '3'")),
        ((3, 3.0, 1), {}, InvalidTypeError, ("cols", "float 3.0")),
        ((3, 3, True), {}, InvalidTypeError, ("mines", "bool True")),
        ((3, 3, -1), {}, InvalidInputError, ("mines", "-1")),
        ((3, 3, 1), {"first_click": ["safe"]}, InvalidInputError, ("first-click", "['safe']")),
        ((3, 3, 1), {"seed": "abc"}, InvalidTypeError, ("seed", "str 'abc'")),
        ((3, 3, 1), {"seed": -1}, InvalidInputError, ("seed", "-1")),
        ((3, 3, 1), {"layout": "abc"}, InvalidTypeError, ("layout", "str 'abc'")),
        ((3, 3, 1), {"layout": [[1, 0], [0]]}, InvalidTypeError, ("layout",)),
        ((2, 2, 1), {"layout": [[2, 0], [0, 0]]}, InvalidInputError, ("layout",)),
        ((2, 2, 1), {"layout": np.ones((3, 3), bool)}, InvalidInputError, ("layout",)),
    ],
    ids=[
        "rows str",
        "cols float",
        "mines bool",
        "mines negative",
        "first click list",
        "seed str",
        "seed negative",
        "layout str",
        "layout ragged",
        "layout not 0/1",
        "layout shape",
    ],
)
def test_bad_game_arguments_are_refused(args, kwargs, error, fragments):
    assert_refused(lambda: Game(*args, **kwargs), error, *fragments)


@pytest.mark.parametrize("method", ["reveal", "flag"])
@pytest.mark.parametrize(
    ("cell", "error", "shown"),
    [
        (("a", 0), InvalidTypeError, "str 'a'"),
        ((0, 1.0), InvalidTypeError, "float 1.0"),
        ((True, 0), InvalidTypeError, "bool True"),
        ((None, 0), InvalidTypeError, "NoneType None"),
        ((-1, 0), InvalidInputError, "(-1, 0) is off the 3x3 board"),
        ((0, 3), InvalidInputError, "(0, 3) is off the 3x3 board"),
    ],
    ids=repr,
)
def test_a_cell_that_is_no_cell_is_refused(method, cell, error, shown):
    assert_refused(lambda: getattr(game(), method)(*cell), error, "cell", shown)


def test_no_more_flags_than_mines():
    flagged = game()
    flagged.flag(0, 0)
    assert_refused(lambda: flagged.flag(0, 1), InvalidInputError, "no flag left")
    flagged.flag(0, 0)  # taken back: one flag is free again
    flagged.flag(0, 1)
    assert flagged.board().cells[0, 1] == mscsp.FLAG


def test_numpy_integers_are_cells_and_moves_stay_json():
    played = game()
    played.reveal(np.int64(0), np.int32(0))
    assert played.moves[0] == ("reveal", 0, 0)
    assert Game.replay(played.to_json()).moves == played.moves


@pytest.mark.parametrize(
    ("record", "error", "fragments"),
    [
        ("junk", InvalidInputError, ("not JSON",)),
        (b"\xff\xfe", InvalidInputError, ("not JSON",)),
        ("[" * 100_000, InvalidInputError, ("not JSON",)),
        ("[1, 2]", InvalidTypeError, ("must be a dict", "list [1, 2]")),
        (123, InvalidTypeError, ("must be a dict", "int 123")),
        (None, InvalidTypeError, ("must be a dict",)),
        ({}, InvalidInputError, ("no 'rows'", "'moves'")),
        (
            {"rows": 3, "cols": 3, "mines": 1, "first_click": "safe"},
            InvalidInputError,
            ("'layout'",),
        ),
    ],
    ids=["junk", "bytes", "deep", "list json", "int", "none", "empty", "no layout"],
)
def test_a_record_that_is_no_game_is_refused(record, error, fragments):
    assert_refused(lambda: Game.replay(record), error, *fragments)


def _record(**changes) -> dict:
    played = game()
    played.reveal(0, 0)
    return {**played.to_dict(), **changes}


@pytest.mark.parametrize(
    ("changes", "error", "fragments"),
    [
        ({"rows": "3"}, InvalidTypeError, ("rows", "str '3'")),
        ({"mines": 2.5}, InvalidTypeError, ("mines", "float 2.5")),
        ({"first_click": 7}, InvalidInputError, ("first-click", "7")),
        ({"layout": "0"}, InvalidTypeError, ("'layout'",)),
        ({"layout": [99]}, InvalidInputError, ("'layout'", "0 to 8")),
        ({"layout": [1.5]}, InvalidTypeError, ("'layout'",)),
        ({"layout": [1, 1]}, InvalidInputError, ("distinct",)),
        ({"layout": [1, 2]}, InvalidInputError, ("layout does not match",)),
        ({"moves": {}}, InvalidTypeError, ("'moves'",)),
        ({"moves": [["jump", 0, 0]]}, InvalidInputError, ("move", "'jump'")),
        ({"moves": [["reveal", 0]]}, InvalidInputError, ("move",)),
        ({"moves": [7]}, InvalidInputError, ("move", "int 7")),
        ({"moves": [["reveal", "a", 0]]}, InvalidTypeError, ("cell", "str 'a'")),
        ({"moves": [["flag", 5, 5]]}, InvalidInputError, ("(5, 5) is off",)),
    ],
    ids=repr,
)
def test_a_record_with_a_bad_field_is_refused(changes, error, fragments):
    assert_refused(lambda: Game.replay(_record(**changes)), error, *fragments)


def test_a_good_record_still_replays():
    record = _record()
    replayed = Game.replay(json.dumps(record))
    assert replayed.to_dict() == record
    assert Game.replay(record.copy()).to_dict() == record


def test_presets_and_first_moves_refuse_what_is_not_one():
    assert_refused(lambda: Game.from_preset(["expert"]), InvalidInputError, "preset", "['expert']")
    assert_refused(lambda: first_move((0,), 3, 3), InvalidTypeError, "first move", "tuple (0,)")
    assert_refused(lambda: first_move(("a", 0), 3, 3), InvalidTypeError, "first move", "str 'a'")
    assert_refused(lambda: first_move(None, 3, 3), InvalidTypeError, "first move", "NoneType")
    assert first_move((np.int64(1), 2), 3, 3) == (1, 2)


# -- the other entries: sampling, explanations, the session, estimators ---------------------


def test_sample_layouts_checks_its_arguments():
    assert_refused(lambda: sample_layouts("??"), InvalidTypeError, "board", "parse_board")
    assert_refused(lambda: sample_layouts(SMALL, 0), InvalidInputError, "samples", "0")
    assert_refused(lambda: sample_layouts(SMALL, 1.5), InvalidTypeError, "samples", "float 1.5")
    assert_refused(lambda: sample_layouts(SMALL, 10, seed=-1), InvalidInputError, "seed", "-1")
    limit = "1"
    assert_refused(
        lambda: sample_layouts(SMALL, 10, time_limit=limit), InvalidTypeError, "time_limit"
    )
    assert sample_layouts(SMALL, 10, seed=np.int64(3)).layouts.shape == (10, 1, 3)


def test_explanations_check_their_arguments():
    solution = solve(SMALL)
    assert_refused(lambda: explain_certain(None), InvalidTypeError, "board", "NoneType")
    assert_refused(lambda: explain_certain(SMALL, [(9, 9)]), InvalidInputError, "(9, 9) is off")
    assert_refused(lambda: explain_certain(SMALL, [(0,)]), InvalidTypeError, "cell", "tuple (0,)")
    assert_refused(lambda: explain_certain(SMALL, (0, 1)), InvalidTypeError, "cell", "int 0")
    assert_refused(lambda: explain_certain(SMALL, "0,1"), InvalidTypeError, "cells", "str '0,1'")
    assert_refused(lambda: explain_certain(SMALL, time_limit=-1), InvalidInputError, "time_limit")
    assert_refused(
        lambda: explain_probability("x", (0, 1)), InvalidTypeError, "solution", "str 'x'"
    )
    assert_refused(lambda: explain_probability(solution, [0]), InvalidTypeError, "cell", "list [0]")
    assert_refused(lambda: explain(SMALL, solution, [("a", 1)]), InvalidTypeError, "str 'a'")
    assert_refused(lambda: parse_cells([1], SMALL), InvalidTypeError, "cell", "int 1")
    assert_refused(lambda: parse_cells("0,1", SMALL), InvalidTypeError, "cells", "str '0,1'")
    assert explain(SMALL, solution, [[0, 1]])[0]["value"] == "mine"


def test_the_session_checks_its_arguments():
    session = GameSession()
    assert_refused(lambda: session.solve("??"), InvalidTypeError, "board", "parse_board")
    assert_refused(lambda: session.add([(0, 0)]), InvalidInputError, "no board yet")
    session.solve(SMALL)
    assert_refused(lambda: session.add([("a", 0)]), InvalidTypeError, "cell", "str 'a'")
    assert_refused(lambda: session.what_if(SMALL, (0,), 1), InvalidTypeError, "cell", "tuple (0,)")
    assert_refused(lambda: session.what_if(SMALL, (0, 1), 9), InvalidInputError, "value", "9")
    assert_refused(lambda: session.what_if(SMALL, (0, 1), 1.0), InvalidTypeError, "value", "float")
    assert_refused(
        lambda: session.what_if(SMALL, (0, 0), 1), InvalidInputError, "(0, 0) is not covered"
    )
    assert_refused(lambda: GameSession(backend=None), InvalidTypeError, "backend", "NoneType")


def test_estimators_check_their_arguments():
    assert_refused(lambda: get_estimator(None), InvalidTypeError, "backend", "NoneType None")
    assert_refused(lambda: kind_of(3), InvalidTypeError, "backend", "int 3")
    assert_refused(lambda: get_estimator("dss", time_limit="1"), InvalidTypeError, "time_limit")
    assert_refused(lambda: get_estimator("dss", time_limit=-2), InvalidInputError, "time_limit")
    assert get_estimator("dss", time_limit=1).estimate(SMALL)[0, 1] == 1.0


def test_errors_are_also_the_builtin_types_python_code_catches():
    with pytest.raises(TypeError):
        solve(None)
    with pytest.raises(ValueError):
        parse_board(TEXT, mines=-1)
    with pytest.raises(ValueError):
        Board(np.array([[9]], dtype=np.int8), 0)
    assert issubclass(mscsp.InvalidInputError, ValueError)
