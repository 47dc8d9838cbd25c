"""Issue 30's list of Python API misuses, each tried once: what comes out of it.

Every case should end in one of the project's errors (an ``MscspError``), except those in
:data:`ACCEPTED`, which should return. The script prints one line per case: ``ok`` (as it
should), ``BARE`` (an exception other than an MscspError) or ``SILENT`` (the call returned,
so a wrong input was accepted), then the counts.

    python bench/serving/api_misuse.py
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

import mscsp
from mscsp import Board, Game, parse_board, solve
from mscsp.backends import get_backend
from mscsp.errors import MscspError

TEXT = "??\n??\n"
GOOD = Board(np.full((2, 2), -1, dtype=np.int8), 1)


def _revealed_game() -> Game:
    return Game(3, 3, 1, seed=1)


CASES: dict[str, Callable[[], object]] = {
    "parse_board(None)": lambda: parse_board(None),
    "parse_board(123)": lambda: parse_board(123),
    "parse_board(list)": lambda: parse_board(["??", "??"]),
    "parse_board(mines=2.5)": lambda: parse_board(TEXT, mines=2.5),
    "parse_board(mines=True)": lambda: parse_board(TEXT, mines=True),
    "parse_board(mines='2')": lambda: parse_board(TEXT, mines="2"),
    "parse_board(mines=nan)": lambda: parse_board(TEXT, mines=math.nan),
    "parse_board(mines=-1)": lambda: parse_board(TEXT, mines=-1),
    "parse_board(arabic header)": lambda: parse_board("٣x٣x٢\n???\n???\n???\n"),
    "parse_board(fullwidth header)": lambda: parse_board("３x３x２\n???\n???\n???\n"),
    "parse_board(mines=٢ header)": lambda: parse_board("mines=٢\n???\n???\n"),
    "solve(str)": lambda: solve(TEXT),
    "solve(None)": lambda: solve(None),
    "solve(ndarray)": lambda: solve(np.full((2, 2), -1)),
    "solve(backend=None)": lambda: solve(GOOD, backend=None),
    "solve(backend=123)": lambda: solve(GOOD, backend=123),
    "solve(backend='nope')": lambda: solve(GOOD, backend="nope"),
    "solve(time_limit=-1)": lambda: solve(GOOD, time_limit=-1),
    "solve(bogus option)": lambda: solve(GOOD, bogus=1),
    "solve(Board with 9)": lambda: solve(Board(np.array([[9, -1], [-1, -1]]), 1)),
    "solve(Board with 100)": lambda: solve(Board(np.array([[100, -1], [-1, -1]]), 1)),
    "solve(Board with -5)": lambda: solve(Board(np.array([[-5, -1], [-1, -1]]), 1)),
    "Board(list)": lambda: Board([[-1, -1], [-1, -1]], 1).cells.dtype,
    "Board(1-D)": lambda: Board(np.array([-1, -1], dtype=np.int8), 1).shape,
    "Board(mines=2.5)": lambda: Board(np.full((2, 2), -1, dtype=np.int8), 2.5),
    "get_backend(None)": lambda: get_backend(None),
    "Game(0, 5, 1)": lambda: Game(0, 5, 1),
    "Game.replay('junk')": lambda: Game.replay("junk"),
    "Game.replay({})": lambda: Game.replay({}),
    "reveal('a', 0)": lambda: _revealed_game().reveal("a", 0),
    "reveal(100, 0)": lambda: _revealed_game().reveal(100, 0),
}
#: Cases that are no misuse: the call should return (a list of cell codes makes a Board).
ACCEPTED = {"Board(list)"}


def main() -> None:
    """Runs every case and prints its outcome, then the counts."""
    tally = {"ok": 0, "BARE": 0, "SILENT": 0}
    for name, call in CASES.items():
        try:
            result = call()
        except MscspError as exc:
            outcome, detail = "ok", f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # noqa: BLE001 - the point is to see every other error
            outcome, detail = "BARE", f"{type(exc).__name__}: {exc}"
        else:
            outcome = "ok" if name in ACCEPTED else "SILENT"
            detail = f"returned {result!r}"
        tally[outcome] += 1
        print(f"{outcome:6} {name:30} {detail.splitlines()[0][:110]}")
    print(f"mscsp {mscsp.__version__}: {len(CASES)} cases, {tally}")


if __name__ == "__main__":
    main()
