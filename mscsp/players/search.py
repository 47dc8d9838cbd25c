"""``search``: ``best`` with rollouts at the guesses its heuristic cannot separate.

Rollout policy improvement (Bertsekas; Tesauro and Galperin's backgammon rollouts): where
``best``'s look-ahead scores of its top candidates lie within ``gap`` of each other, each of
those candidates (at most ``width``) is valued by playing the rest of the game from it with
a fast base policy, on ``samples`` mine layouts drawn exactly uniformly from all those
consistent with the board (:func:`mscsp.layouts.sample_layouts`): its value is its exact
chance of being safe times its rollouts' win rate on the layouts where it is safe. The
candidate of highest value is played; ties go to ``best``'s order. Elsewhere the player is
``best``.

With common random numbers (``crn``, the default) every candidate is played out on the same
layouts, so the comparison between two candidates is paired and its noise is only that of the
layouts on which they differ; without, each candidate draws layouts of its own.

The base policy is ``csp-minprob`` on the compiled engine
(:func:`mscsp.players.compiled_play.play_out`: where its exact odds would need Python integers,
floating-point ones, so that a rollout never waits on Python), or ``best`` itself (for
comparison: far slower per rollout). Layout seeds come from the game's generator, so the
same seed plays the same games on any number of workers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..board import COVERED, FLAG, Board
from ..errors import InvalidInputError
from ..game import Game, GameState
from ..layouts import sample_layouts
from ..probabilities import Solution
from . import compiled_play
from .base import Cell, Player
from .best import BestPlayer, Probe
from .csp import CspMinProbPlayer

#: The players rollouts may use: the fast one, and ``best`` itself (for comparison).
BASES: dict[str, type[Player]] = {"csp-minprob": CspMinProbPlayer, "best": BestPlayer}


def play_out(player: Player, view: np.ndarray, layout: np.ndarray, cell: Cell) -> bool:
    """Whether ``player`` wins the game on ``layout`` from ``view`` (the revealed cells,
    nothing flagged) after clicking ``cell``."""
    rows, cols = view.shape
    game = Game(rows, cols, int(layout.sum()), layout=layout)
    game.view[:] = view
    game.revealed = int((view >= 0).sum())
    if game.reveal(*cell) < 0:
        return False
    if game.over:
        return game.state == GameState.WON
    if isinstance(player, CspMinProbPlayer) and compiled_play.usable(game):
        return compiled_play.play_out(game)  # (floating-point odds where exact ones are slow)
    player.new_game()
    player.play(game, np.random.default_rng(0))
    return game.state == GameState.WON


class SearchPlayer(BestPlayer):
    """``best``, with rollouts deciding between its closest candidates.

    Args:
        samples: Layouts each candidate is played out on.
        gap: Candidates whose look-ahead score is within this of the best one's are rolled
            out (``best`` evaluates them fully for that).
        width: Most candidates rolled out, the best-scored first.
        crn: The same layouts for every candidate (common random numbers).
        base: The rollouts' player: ``csp-minprob`` or ``best`` (see :data:`BASES`).
        **options: ``best``'s options.

    Attributes:
        searched: Per rolled-out guess of the current game: the candidates, their
            estimated chances of winning and the candidate played.
    """

    name = "search"

    def __init__(
        self,
        samples: int = 64,
        gap: float = 0.02,
        width: int = 4,
        crn: bool = True,
        base: str = "csp-minprob",
        **options,
    ):
        super().__init__(**options)
        if samples < 1:
            raise InvalidInputError(f"samples must be at least 1, not {samples}")
        if width < 2:
            raise InvalidInputError(f"width must be at least 2, not {width}")
        if gap < 0:
            raise InvalidInputError(f"gap must be at least 0, not {gap}")
        if base not in BASES:
            raise InvalidInputError(f"base must be one of {', '.join(BASES)}, not {base!r}")
        self.samples = samples
        self.gap = gap
        self.width = width
        self.crn = crn
        self.base = BASES[base]()
        self.searched: list[tuple[list[Cell], list[float], Cell]] = []
        self._seed = 0

    def new_game(self) -> None:
        super().new_game()
        self.searched = []

    def guess(self, board: Board, solution: Solution, rng: np.random.Generator) -> Cell:
        self._seed = int(rng.integers(2**63))
        return super().guess(board, solution, rng)

    def probe_margin(self) -> float:
        return max(super().probe_margin(), self.gap)

    def choose(
        self,
        board: Board,
        solution: Solution,
        scored: list[tuple[float, Probe]],
        keep: Callable[[Cell], float],
    ) -> Probe:
        top = scored[0][0]
        close = [probe for value, probe in scored if value >= top - self.gap][: self.width]
        if len(close) < 2:
            return super().choose(board, solution, scored, keep)
        cells = [probe.cell for probe in close]
        values = self.rollouts(board, solution, cells, self._seed)
        chosen = int(np.argmax(values))  # (the first of the best: best's order breaks ties)
        self.searched.append((cells, values, cells[chosen]))
        return close[chosen]

    def rollouts(
        self, board: Board, solution: Solution, cells: list[Cell], seed: int
    ) -> list[float]:
        """The estimated chance of winning after clicking each of ``cells`` on ``board``
        (proven mines flagged): its exact chance of being safe times its rollouts' win rate
        on the sampled layouts where it is safe (the layouts where it is a mine would only
        add the noise of a known figure)."""
        view = np.where(board.cells == FLAG, COVERED, board.cells).astype(np.int8)
        shared = sample_layouts(board, self.samples, seed).layouts if self.crn else None
        values = []
        for k, cell in enumerate(cells):
            layouts = shared
            if layouts is None:
                layouts = sample_layouts(board, self.samples, seed + k + 1).layouts
            safe = layouts[~layouts[:, cell[0], cell[1]]]
            wins = sum(play_out(self.base, view, layout, cell) for layout in safe)
            chance = 1.0 - float(solution.probabilities[cell])
            values.append(chance * wins / len(safe) if len(safe) else 0.0)
        return values
