"""Positions from real games, for tests, benchmarks and training data."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .backends import DEFAULT_BACKEND, Backend, get_backend
from .board import FLAG, Board
from .game import Game, first_move
from .solver import solve


def game_positions(
    rows: int,
    cols: int,
    mines: int,
    *,
    seed: int,
    first_click: str = "safe",
    start: str | tuple[int, int] = "corner",
    flag_mines: bool = False,
    backend: str | Backend = DEFAULT_BACKEND,
) -> Iterator[tuple[Board, np.ndarray]]:
    """Yields every position of one game played by the exact min-probability player.

    The player reveals all certain-safe cells at once, else the cell least likely to hold a
    mine. The game is seeded by ``seed``; the position before each turn is yielded.

    Args:
        rows: Board rows.
        cols: Board columns.
        mines: Number of mines.
        seed: Seed of the game.
        first_click: First-click rule (see :class:`mscsp.FirstClick`).
        start: First-move policy (see :func:`mscsp.game.first_move`).
        flag_mines: Flag certain mines as they are found (positions then carry flags).
        backend: Backend used by the player.

    Yields:
        ``(board, layout)``: the position and the true mine layout (bool array).
    """
    counter = get_backend(backend)
    game = Game(rows, cols, mines, seed=seed, first_click=first_click)
    game.reveal(*first_move(start, rows, cols, np.random.default_rng(seed)))
    while not game.over:
        board = game.board()
        yield board, game.mine
        solution = solve(board, counter)
        if flag_mines:
            for r, c in solution.mines:
                if game.view[r, c] != FLAG:
                    game.flag(r, c)
        moves = solution.safe or [solution.best_move]
        for r, c in moves:
            if game.over:
                break
            game.reveal(r, c)


def sample_positions(
    rows: int, cols: int, mines: int, n: int, *, seed: int, **kwargs
) -> list[tuple[Board, np.ndarray]]:
    """``n`` positions from consecutive seeded games (every stage of each game).

    Extra keyword arguments go to :func:`game_positions`.
    """
    found: list[tuple[Board, np.ndarray]] = []
    game_seed = seed
    while len(found) < n:
        for item in game_positions(rows, cols, mines, seed=game_seed, **kwargs):
            found.append(item)
            if len(found) == n:
                break
        game_seed += 1
    return found
