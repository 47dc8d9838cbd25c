"""Seed 001 (section III.A): training games, local windows, and Algorithm 1.

The paper generates data by playing each game to a win, always choosing a correct (safe)
move: from the perimeter (covered cells next to revealed ones) with a fixed probability,
otherwise from all covered safe cells. Every visited position is solved exactly, which gives
the labels: a cell is *certainly safe* when it holds no mine in any consistent layout.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from mscsp import Board, Game, Solution, solve
from mscsp.backends import Backend, get_backend
from mscsp.board import COVERED
from mscsp.players.base import Cell, dilate

#: Cell code of a window square outside the board (the paper's OUT_OF_BOUNDS).
OUT_OF_BOUNDS = -3
#: Every cell code a window can hold: off board, flag, covered, 0-8.
CODES = list(range(OUT_OF_BOUNDS, 9))
#: Board sizes (rows, cols, mines) the paper reports for its learners, and beginner.
PAPER_BOARDS = ((4, 4, 3), (5, 5, 5), (6, 6, 7), (8, 8, 10), (9, 9, 10))


def perimeter(cells: np.ndarray) -> np.ndarray:
    """Covered cells next to at least one revealed cell (seed 000's bordering cells).

    ``cells`` is one board or a batch ``(..., rows, cols)``.
    """
    return (cells == COVERED) & dilate(cells >= 0)


def oracle_states(
    rows: int,
    cols: int,
    mines: int,
    seed: int,
    *,
    perimeter_prob: float = 0.8,
    backend: str | Backend = "dss",
) -> Iterator[tuple[Board, Solution]]:
    """Every position of one game played to a win by always choosing a correct move.

    The first click is the top-left corner under the safe first-click rule (as in 001).

    Args:
        rows: Board rows.
        cols: Board columns.
        mines: Mine count.
        seed: Seeds the layout and the move choices.
        perimeter_prob: Chance of choosing the next move among safe perimeter cells.
        backend: Counting backend for the exact labels.
    """
    counter = get_backend(backend)
    rng = np.random.default_rng([seed, 1])
    game = Game(rows, cols, mines, seed=[seed, 0])
    game.reveal(0, 0)
    while not game.over:
        board = game.board()
        yield board, solve(board, counter)
        safe = (board.cells == COVERED) & ~game.mine
        near = safe & perimeter(board.cells)
        pool = near if near.any() and rng.random() < perimeter_prob else safe
        options = np.flatnonzero(pool)
        game.reveal(*divmod(int(options[rng.integers(len(options))]), cols))


def windows(cells: np.ndarray, radius: int = 2) -> np.ndarray:
    """The ``(2 radius + 1)^2 - 1`` neighbours of every cell, row-major (rows*cols, k)."""
    side = 2 * radius + 1
    padded = np.pad(cells, radius, constant_values=OUT_OF_BOUNDS)
    view = np.lib.stride_tricks.sliding_window_view(padded, (side, side))
    flat = view.reshape(cells.size, side * side)
    return np.delete(flat, side * side // 2, axis=1)


def one_hot(codes: np.ndarray) -> np.ndarray:
    """One-hot encoding of cell codes over :data:`CODES` (``n x k`` -> ``n x 12k``, float32).

    The fast stateless stand-in for ``OneHotEncoder`` with fixed categories, for use in a
    ``FunctionTransformer`` (scikit-learn's encoder costs ~0.1 s per call at play time).
    """
    codes = np.asarray(codes, dtype=np.int64)
    out = np.eye(len(CODES), dtype=np.float32)[codes - OUT_OF_BOUNDS]
    return out.reshape(len(codes), -1)


def algorithm1(
    board: Board, safety: np.ndarray, reasonable: np.ndarray, rng: np.random.Generator
) -> tuple[Cell, bool]:
    """Seed 001's Algorithm 1: the perimeter cell least likely a mine, else a random cell off it.

    Args:
        board: The position.
        safety: Per-cell score, higher = less likely a mine (rows x cols).
        reasonable: Cells the model considers a reasonable move (rows x cols, bool).
        rng: Generator for the random move.

    Returns:
        ``(cell, random)``: the move and whether it was the random fallback.
    """
    covered = board.cells == COVERED
    edge = perimeter(board.cells)
    if (edge & reasonable).any() or (edge.any() and not (covered & ~edge).any()):
        index = int(np.argmax(np.where(edge, safety, -np.inf)))
        return divmod(index, board.cols), False
    options = np.flatnonzero(covered & ~edge)
    return divmod(int(options[rng.integers(len(options))]), board.cols), True
