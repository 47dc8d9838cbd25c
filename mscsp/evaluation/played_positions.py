"""Positions from real games: what a solver-driven player sees, for tests, benchmarks and data."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..backends import DEFAULT_BACKEND, Backend, get_backend
from ..board import FLAG, Board
from ..errors import InvalidInputError
from ..game import Game
from ..probabilities import Solution
from ..solver import solve
from ..validate import check_int


def solved_positions(
    game: Game,
    first: tuple[int, int] | None = None,
    *,
    flag_mines: bool = False,
    backend: str | Backend = DEFAULT_BACKEND,
) -> Iterator[tuple[Board, Solution]]:
    """Every position of ``game`` at which a solver-driven player decides, with its solution.

    The player opens ``first`` (default the centre), then repeatedly opens every cell the
    exact probabilities prove safe, or else the least likely mine, until the game ends.
    ``game.mine`` holds the true layout from the first yielded position on.

    Args:
        game: A fresh game (its seed fixes the layout).
        first: The first click.
        flag_mines: Flag certain mines as they are found (positions then carry flags).
        backend: Backend the player solves with.
    """
    counter = get_backend(backend)
    game.reveal(*(first or (game.rows // 2, game.cols // 2)))
    while not game.over:
        board = game.board()
        solution = solve(board, counter)
        yield board, solution
        if flag_mines:
            for r, c in solution.mines:
                if game.view[r, c] != FLAG:
                    game.flag(r, c)
        for r, c in solution.safe or [solution.best_move]:
            if not game.over:
                game.reveal(r, c)


def game_positions(
    game: Game, first: tuple[int, int] | None = None, **kwargs: Any
) -> Iterator[Board]:
    """The boards of :func:`solved_positions` (same arguments)."""
    for board, _ in solved_positions(game, first, **kwargs):
        yield board


#: Most positions :func:`sample_positions` draws in one call (``--positions`` of bench and
#: export): a typo must not start a day-long run or fill memory with boards.
MAX_SAMPLED = 100_000
#: Games played per position asked for before giving up (a size and mine count whose games
#: never show a frontier, such as a board full of mines, would otherwise play forever).
GAMES_PER_POSITION = 100


def sample_positions(
    rows: int, cols: int, mines: int, count: int, seed: int = 0, per_game: int = 5
) -> list[Board]:
    """``count`` positions, at most ``per_game`` from each seeded game, deterministically.

    Positions are drawn uniformly from each game's decision points, so they cover the
    opening, the middle game and the end game; boards without any frontier are skipped.

    Raises:
        InvalidTypeError: An argument is not an integer.
        InvalidInputError: ``count`` outside 1 to :data:`MAX_SAMPLED`, ``per_game`` below
            1, a negative ``seed``, a bad size or mine count, or no frontier in
            :data:`GAMES_PER_POSITION` games per position asked for.
    """
    count = check_int(count, "count", 1)
    if count > MAX_SAMPLED:
        raise InvalidInputError(f"{count} positions asked for; at most {MAX_SAMPLED}")
    per_game, seed = check_int(per_game, "per_game", 1), check_int(seed, "seed")
    rng = np.random.default_rng(seed)
    out: list[Board] = []
    game_index = 0
    while len(out) < count:
        if game_index == GAMES_PER_POSITION * count:
            raise InvalidInputError(
                f"{rows}x{cols} boards with {mines} mines: no position with a frontier in "
                f"{game_index} games"
            )
        game = Game(rows, cols, mines, seed=[seed, game_index])
        game_index += 1
        boards = [b for b in game_positions(game) if _has_frontier(b)]
        if boards:
            take = min(per_game, len(boards), count - len(out))
            for i in sorted(rng.choice(len(boards), size=take, replace=False)):
                out.append(boards[i])
    return out


def _has_frontier(board: Board) -> bool:
    covered = board.cells < 0
    return bool(covered.any()) and bool((board.cells > 0).any())
