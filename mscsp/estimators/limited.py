"""``csp-limited``: the limited traversal of :class:`~mscsp.players.limited.CspLimitedPlayer`.

Propagation is exact; each component's probabilities are frequencies over at most ``N``
solutions found by a capped, randomised depth-first search (seeded, so repeatable).
"""

from __future__ import annotations

import numpy as np

from ..board import Board
from ..players.limited import CspLimitedPlayer
from .base import Estimator, EstimatorKind, on_board, whole_arg

#: Solutions per component when the spec gives no ``N`` (seed 004's cap).
DEFAULT_SOLUTIONS = 100
#: Most solutions per component a spec may ask for: it has no clock, so ``N`` is its bound.
MAX_SOLUTIONS = 100_000


class LimitedEstimator(Estimator):
    """The player's estimate on a fresh memory, with a generator seeded per board."""

    def __init__(self, kind: EstimatorKind, max_solutions: int):
        super().__init__(kind, f"{kind.name}:{max_solutions}")
        self.player = CspLimitedPlayer(max_solutions=max_solutions)

    def estimate(self, board: Board) -> np.ndarray:
        # Mines proven on an earlier board must not leak into an unrelated one.
        self.player.new_game()
        _, probabilities = self.player.estimate(board, np.random.default_rng(0))
        return on_board(board, probabilities)


def build(kind: EstimatorKind, arg: str, time_limit: float | None) -> LimitedEstimator:
    """``csp-limited`` or ``csp-limited:N`` (it has no clock: ``N`` bounds its work)."""
    return LimitedEstimator(kind, whole_arg(kind, arg, DEFAULT_SOLUTIONS, MAX_SOLUTIONS))


KIND = EstimatorKind(
    name="csp-limited",
    family="approximate",
    exact=False,
    extra=None,
    description="exact propagation, frequencies over at most N solutions per component "
    f"(csp-limited:N, default {DEFAULT_SOLUTIONS}, at most {MAX_SOLUTIONS})",
    arg="N",
    batches=False,
    available=lambda: True,
    build=build,
)
