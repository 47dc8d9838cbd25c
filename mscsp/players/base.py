"""The player interface and the board helpers every strategy shares."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from ..board import COVERED, FLAG, Board, neighbour_sum
from ..errors import InvalidInputError
from ..game import Game
from ..session import MineMemory  # noqa: F401 - the players' import of it

Cell = tuple[int, int]

_OFFSETS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def neighbours(cell: Cell, rows: int, cols: int) -> list[Cell]:
    """The (up to 8) cells around ``cell`` on a rows x cols board."""
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in _OFFSETS if 0 <= r + dr < rows and 0 <= c + dc < cols]


class Player(ABC):
    """A Minesweeper strategy.

    The harness calls :meth:`new_game` before each game, then :meth:`play`, which calls
    :meth:`next_moves` until the game ends, revealing the returned cells one by one (it
    stops early at a loss or a win).

    Attributes:
        name: Registry name of the strategy.
        turn_guesses: Set by :meth:`next_moves`: how many of the returned cells were guesses
            (cells not known to be safe). The harness sums it; players that do not report it
            count as never guessing.
    """

    name: ClassVar[str]
    turn_guesses: int = 0

    def new_game(self) -> None:  # noqa: B027 - optional hook, deliberately empty
        """Resets per-game state (optional hook)."""

    @abstractmethod
    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        """Cells to reveal this turn, in order (at least one while the game is on)."""

    def plays_batches(self, rows: int, cols: int, games: int) -> bool:
        """Whether ``games`` games of a rows x cols board may be played all at once on the
        compiled engine (:meth:`play_layouts`): the same games as :meth:`play` plays, for a
        player whose moves the engine makes itself (but for rare turns it hands back)."""
        return False

    def play_layouts(
        self, rows: int, cols: int, layouts: np.ndarray, firsts: np.ndarray
    ) -> np.ndarray:
        """Plays the games of ``layouts`` (games x mines, row-major cells), first clicks
        ``firsts`` (row-major cells), all at once on the compiled engine.

        Returns:
            Per game: won, safe cells uncovered, cells clicked (the first included) and
            guesses.

        Raises:
            InvalidInputError: The player does not play on the engine's batches.
        """
        raise InvalidInputError(f"strategy {self.name!r} does not play games in batches")

    def play(self, game: Game, rng: np.random.Generator) -> tuple[int, int]:
        """Plays ``game``, its first click made, to the end: each turn's cells are revealed
        one by one, stopping early at a loss or a win.

        Players may play faster (a compiled engine) as long as they play the same game.

        Returns:
            The cells clicked (each one counted, even one a zero had already opened) and
            the guesses reported.
        """
        moves = guesses = 0
        while not game.over:
            cells = self.next_moves(game.board(), rng)
            if not cells:
                raise RuntimeError(f"player {self.name!r} returned no move")
            guesses += self.turn_guesses
            for r, c in cells:
                moves += 1
                game.reveal(r, c)
                if game.over:
                    break
        return moves, guesses


def dilate(mask: np.ndarray) -> np.ndarray:
    """Cells next to at least one cell of ``mask`` (the 8-neighbourhood, excluding itself)."""
    return neighbour_sum(mask) > 0


def cells_of(mask: np.ndarray) -> list[Cell]:
    """The cells of a boolean mask in row-major order."""
    return [(int(r), int(c)) for r, c in np.argwhere(mask)]


def single_point(cells: np.ndarray, mines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Applies the two single-point rules to a fixpoint (seed 000, section 2.4.1).

    Rule 2 (a number's unknown neighbours are all mines when it still needs that many) runs
    first until nothing changes; rule 1 (a number already satisfied clears its neighbours)
    then gives the safe cells. Both rules are applied to every number at once.

    Args:
        cells: The board's cell codes.
        mines: Cells known to be mines (flags included); not modified.

    Returns:
        ``(safe, mines)``: covered cells proven safe, and the enlarged mine mask.
    """
    mines = mines | (cells == FLAG)
    unknown = (cells == COVERED) & ~mines
    numbers = cells >= 0
    while True:
        need = cells - neighbour_sum(mines)
        open_nb = neighbour_sum(unknown)
        full = numbers & (open_nb > 0) & (need == open_nb)
        if not full.any():
            break
        new = dilate(full) & unknown
        mines = mines | new
        unknown &= ~new
    clear = numbers & (open_nb > 0) & (need == 0)
    return dilate(clear) & unknown, mines
