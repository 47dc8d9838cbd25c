"""Players built on full CSP inference (exact probabilities), differing only in the guess.

* ``csp-random``: a random covered cell when nothing is certain (the baseline of Becerra's
  thesis, which reports 91.25 / 75.94 / 32.90 % on beginner / intermediate / expert).
* ``csp-minprob``: the covered cell with the lowest exact mine probability.
* ``csp-edge``: seed paper 004, version 4.0 (section 4.2.1): among cells within 0.05 of the
  lowest probability, the one closest (Manhattan distance) to the board edge, ties broken by
  the "zero probability" score of the paper's equation (4).

Every turn first applies the single-point rules (cheap, vectorised) and reveals all the
safe cells they find at once; the full solver runs only when they are stuck, and all of its
safe cells are revealed before the next solve.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from ..backends import DEFAULT_BACKEND
from ..board import Board, neighbour_counts
from ..errors import InvalidInputError
from ..game import Game
from ..probabilities import Solution
from ..session import GameSession
from ..validate import check_layouts
from . import compiled_play
from .base import Cell, Player, cells_of


class CspPlayer(Player):
    """Full CSP inference; subclasses choose the guess when no cell is certain.

    Args:
        backend: Counting backend name (see :mod:`mscsp.backends`).

    Attributes:
        engine_guesses: Whether the guess is ``solution.best_move``, which the compiled
            engine then makes itself.
        engine_looks_ahead: Whether the compiled engine guesses by :meth:`engine_lookahead`.
    """

    engine_guesses: ClassVar[bool] = False
    engine_looks_ahead: ClassVar[bool] = False

    def __init__(self, backend: str = "dss"):
        # The session solves each turn's position from the clusters that changed; its
        # counts of unchanged components are reused from one game to the next too.
        self.memory = GameSession(backend)
        self.backend = self.memory.counter

    def new_game(self) -> None:
        self.memory.reset()

    def infer(self, board: Board) -> tuple[list[Cell], Solution | None]:
        """Certain-safe cells, or ``([], solution)`` when a guess is needed.

        Proven mines are remembered (and flagged for the solver) from then on.
        """
        safe = self.memory.single_point(board)
        if safe:
            return safe, None
        # Propagation first, so that cells it alone proves safe skip the counting.
        reduced = self.memory.reduce(board)
        if reduced.safe:
            self.memory.add(reduced.mines)
            return reduced.safe, None
        solution = self.memory.solution(reduced)
        self.memory.add(solution.mines)
        return solution.safe, solution

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        safe, solution = self.infer(board)
        if safe:
            self.turn_guesses = 0
            return safe
        self.turn_guesses = 1
        return [self.guess(board, solution, rng)]

    @abstractmethod
    def guess(self, board: Board, solution: Solution, rng: np.random.Generator) -> Cell:
        """The cell to try when no covered cell is certainly safe."""

    def engine_lookahead(self, rows: int, cols: int, mines: int) -> compiled_play.Lookahead | None:
        """The look-ahead the compiled engine guesses by on a rows x cols board with
        ``mines`` (``csp-lookahead``'s, :mod:`mscsp.engine._lookahead`); ``None``: the engine
        hands every guess to :meth:`guess` (unless :attr:`engine_guesses`)."""
        return None

    def play(self, game: Game, rng: np.random.Generator) -> tuple[int, int]:
        """Plays ``game`` as :meth:`next_moves` would, on the compiled engine where it can
        (:mod:`mscsp.players.compiled_play`): the engine plays every turn that needs no guess, and
        hands the guesses to :meth:`guess` (unless it makes them itself)."""
        if self.backend.inner.name != DEFAULT_BACKEND or not compiled_play.usable(game):
            return super().play(game, rng)
        lookahead = self.engine_lookahead(game.rows, game.cols, game.mines)
        played = compiled_play.CompiledGame(game, lookahead)
        return compiled_play.play_turns(played, self._python_guess(played, game.board, rng))

    def _python_guess(
        self,
        played: compiled_play._Engine,
        board: Callable[[], Board],
        rng: np.random.Generator | None,
    ) -> Callable[[Solution], Cell] | None:
        """The guess of the turns the engine hands back (``board``: the position, proven
        mines not flagged); ``None`` where the engine makes every guess itself."""
        if self.engine_guesses:
            return None

        def guess(solution: Solution) -> Cell:
            now = board()
            # The memory of proven mines, as infer leaves it (its numbers counted only if
            # the guess asks for them).
            self.memory.adopt(now, played.known_flat())
            return self.guess(now, solution, rng)

        return guess

    def plays_batches(self, rows: int, cols: int, games: int) -> bool:
        return (
            (self.engine_guesses or self.engine_looks_ahead)
            and self.backend.inner.name == DEFAULT_BACKEND
            and compiled_play.batch_usable(rows, cols, games)
        )

    def play_layouts(
        self, rows: int, cols: int, layouts: np.ndarray, firsts: np.ndarray
    ) -> np.ndarray:
        if not self.engine_guesses and not self.engine_looks_ahead:
            return super().play_layouts(rows, cols, layouts, firsts)
        # (The engine reads them without bounds checks.)
        layouts, firsts = check_layouts(rows, cols, layouts, firsts)
        if rows * cols > compiled_play.MAX_CELLS:
            raise InvalidInputError(
                f"the engine plays boards of at most {compiled_play.MAX_CELLS} cells, "
                f"not {rows}x{cols}"
            )
        lookahead = self.engine_lookahead(rows, cols, layouts.shape[1])
        batch = compiled_play.CompiledBatch(rows, cols, layouts, firsts, lookahead)
        game = -1  # the batch's game that Python last guessed in

        def position() -> Board:
            # A player's state of one game (best's endgame search that outgrew its budget)
            # must not carry over to the next: each game starts afresh, as play's do.
            nonlocal game
            if batch.cursor[0] != game:
                game = int(batch.cursor[0])
                self.new_game()
            return Board(batch.view.reshape(rows, cols).copy(), batch.mines)

        compiled_play.play_turns(batch, self._python_guess(batch, position, None))
        return batch.results


class CspRandomPlayer(CspPlayer):
    """Full inference, then a uniformly random covered cell not proven to be a mine."""

    name = "csp-random"

    def guess(self, board: Board, solution: Solution, rng: np.random.Generator) -> Cell:
        options = cells_of(self.memory.unknown(board))
        return options[int(rng.integers(len(options)))]


class CspMinProbPlayer(CspPlayer):
    """Full inference, then the cell with the lowest exact mine probability.

    Exact ties go to the cell with the fewest neighbours (see ``Solution.best_move``).
    """

    name = "csp-minprob"
    engine_guesses = True

    def guess(self, board: Board, solution: Solution, rng: np.random.Generator) -> Cell:
        return solution.best_move


def edge_distance(rows: int, cols: int) -> np.ndarray:
    """Manhattan distance of every cell to the nearest board edge (0 on the border)."""
    r = np.arange(rows)[:, None]
    c = np.arange(cols)[None, :]
    return np.minimum(np.minimum(r, rows - 1 - r), np.minimum(c, cols - 1 - c))


def zero_score(board: Board, n_unknown: int, n_known_mines: int) -> np.ndarray:
    """Seed 004, equation (4): the chance that a cell shows a zero, from its position.

    With ``d = (mines - flags) / covered`` the mine density of the unknown cells, a cell with
    ``n`` neighbours (3 in a corner, 5 on an edge, 8 inside) scores ``(1 - d) ** n``. The
    printed equation reads ``1 - d ** n`` with exponents 4/6/8, which ranks corners *last*,
    contrary to the text ("corner block will have the maximum score"); we follow the text.
    """
    density = (board.mines - n_known_mines) / max(n_unknown, 1)
    return (1.0 - density) ** neighbour_counts(*board.shape)


def edge_heuristic(
    board: Board,
    probabilities: np.ndarray,
    unknown: np.ndarray,
    n_known_mines: int,
    tolerance: float = 0.05,
) -> Cell:
    """Seed 004 section 4.2.1: near-safest cells, then nearest the edge, then equation (4)."""
    probs = np.where(unknown, probabilities, np.inf)
    near = probs <= probs.min() + tolerance
    distance = edge_distance(*board.shape)
    score = zero_score(board, int(unknown.sum()), n_known_mines)
    # lexsort sorts by its last key first: distance, then -score, then probability.
    idx = np.flatnonzero(near)
    order = np.lexsort((probs.flat[idx], -score.flat[idx], distance.flat[idx]))
    r, c = divmod(int(idx[order[0]]), board.cols)
    return r, c


class CspEdgePlayer(CspPlayer):
    """Seed 004 version 4.0: full inference plus the edge-distance guess heuristic.

    Args:
        backend: Counting backend name.
        tolerance: How far above the lowest probability a candidate may be (0.05 in 004).
    """

    name = "csp-edge"

    def __init__(self, backend: str = "dss", tolerance: float = 0.05):
        super().__init__(backend)
        self.tolerance = tolerance

    def guess(self, board: Board, solution: Solution, rng: np.random.Generator) -> Cell:
        known = self.memory.known(board)
        return edge_heuristic(
            board,
            solution.probabilities,
            self.memory.unknown(board),
            int(known.sum()),
            self.tolerance,
        )
