"""``csp-lookahead``: exact inference plus ``best``'s one-click look-ahead guess alone.

When no cell is certainly safe, the candidates are the living cells near the safest (and a
few unconstrained representatives), each probed for every number it could show; the one
most likely to survive this click and the next, plus a little progress, is played (or a
safer cell it implies safe first), as step 4 and 5 of :mod:`mscsp.players.best`. Without
best's other rules (50/50s, pseudo 50/50s, the endgame search, looming 50/50s) every guess
fits the compiled engine (:mod:`mscsp.engine._lookahead`), which plays whole games of it, many a
call: between ``csp-minprob`` and ``best`` in strength, near the first in speed.
"""

from __future__ import annotations

from ..board import Board
from ..probabilities import Solution
from .base import Cell
from .best import BestPlayer


class LookaheadPlayer(BestPlayer):
    """Exact inference, then the one-click look-ahead guess (``best``'s, alone).

    Args: ``backend``, ``tolerance``, ``progress_weight`` and ``blend``, as
    :class:`~mscsp.players.best.BestPlayer`'s.

    Attributes:
        reason: The rule behind the last guess: ``lookahead``, ``dominated``, ``implied``
            (see :class:`~mscsp.players.best.BestPlayer`) or ``dead`` (nothing lives).
    """

    name = "csp-lookahead"
    engine_looks_ahead = True

    def __init__(
        self,
        backend: str = "dss",
        tolerance: float = 0.1,
        progress_weight: float = 0.1,
        blend: float = 0.2,
    ):
        super().__init__(backend, tolerance, progress_weight, blend, pseudo=False, looming=False)

    def engine_settings(self) -> tuple[float, ...]:
        return (self.tolerance, self.progress_weight, self.blend, 0.0, 0.0)  # (no rules)

    def _guess(self, board: Board, solution: Solution) -> tuple[Cell, str]:
        flagged = self.memory.flagged(board)
        self._flagged = (flagged, self.memory, flagged)  # (flagged already)
        cells = self.candidates(flagged, solution)
        self.considered = (flagged, solution, cells, lambda cell: 1.0)
        scored, dead = self.lookahead(flagged, solution, cells)
        if not scored:
            return dead[0].cell, "dead"
        return self.first(scored[0][1], 1.0 - solution.probabilities)
