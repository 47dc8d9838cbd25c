"""Generators of hard positions: frontiers that form one wide component.

Every position is consistent by construction: a real mine layout is drawn first (mines only
on cells that stay covered) and each revealed number is the count of mines around it. The
families follow the shapes where counting cost explodes:

* **lattice**: numbers on every other row and column (odd rows and columns), every other
  cell covered: one 2-D component whose width grows with the board's side.
* **band**: rows of numbers (every third cell left covered) alternating with covered rows:
  one long component, narrow enough for a left-to-right sweep (a full number row would be
  solved by the reductions alone).
* **toollib**: the 21x10 speed-test board of the ``ms_toollib`` crate's tests, rebuilt from
  its description: rows 0, 2 and 4 alternate numbers and covered cells; everything else is
  covered.
* **dense** and **large**: positions a solver-driven player meets in seeded games on dense
  boards and on 100x100 boards at 20 % (see :mod:`mscsp.positions`).
* **strip**: long three-row strips whose chain has very many solutions
  (``bench/make_stress.py``).

Usage from Python: ``lattice(12, 12, seed=1)`` returns a :class:`mscsp.Board`.
"""

from __future__ import annotations

from itertools import islice

import numpy as np

from mscsp.board import COVERED, Board, neighbour_sum
from mscsp.game import Game
from mscsp.positions import game_positions

#: Mine density on the covered cells of the pattern families.
DENSITY = 0.2


def from_pattern(revealed: np.ndarray, density: float, seed: int) -> Board:
    """A consistent board: numbers on ``revealed``, mines at ``density`` on the rest.

    Args:
        revealed: Boolean mask of the cells showing their number.
        density: Probability that a covered cell holds a mine (at least one mine is placed).
        seed: Seed of the mine layout.
    """
    rng = np.random.default_rng(seed)
    covered = ~revealed
    mines = covered & (rng.random(revealed.shape) < density)
    if not mines.any():
        free = np.argwhere(covered)
        mines[tuple(free[rng.integers(len(free))])] = True
    cells = np.where(revealed, neighbour_sum(mines), COVERED).astype(np.int8)
    return Board(cells, int(mines.sum()))


def lattice(rows: int, cols: int, density: float = DENSITY, seed: int = 0) -> Board:
    """Numbers on every odd row and odd column; every other cell covered."""
    r, c = np.indices((rows, cols))
    return from_pattern((r % 2 == 1) & (c % 2 == 1), density, seed)


def band(rows: int, cols: int, density: float = DENSITY, seed: int = 0) -> Board:
    """Numbers on odd rows except every third column; every other cell covered."""
    r, c = np.indices((rows, cols))
    return from_pattern((r % 2 == 1) & (c % 3 != 0), density, seed)


def toollib(density: float = DENSITY, seed: int = 0) -> Board:
    """21 rows x 10 columns; rows 0, 2, 4 show numbers in even columns, the rest covered."""
    r, c = np.indices((21, 10))
    return from_pattern((r <= 4) & (r % 2 == 0) & (c % 2 == 0), density, seed)


def game_position(rows: int, cols: int, mines: int, seed: int, step: int) -> Board | None:
    """The board after ``step`` decisions of a solver-driven player (``None``: game over)."""
    boards = list(islice(game_positions(Game(rows, cols, mines, seed=seed)), step + 1))
    return boards[step] if len(boards) > step else None
