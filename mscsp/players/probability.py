"""``ProbabilityPlayer``: plays any mine-probability map, such as a learned model's."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..board import COVERED, Board
from .base import Cell, Player

ProbabilityFn = Callable[[Board], np.ndarray]


class ProbabilityPlayer(Player):
    """Reveals the covered cell that ``prob_fn`` rates least likely to be a mine.

    Args:
        prob_fn: ``prob_fn(board)`` returns a rows x cols array with the mine probability of
            every covered cell (other entries are ignored).
        safe_below: If given, every covered cell rated at or below it is revealed in the same
            turn (one call of ``prob_fn`` per batch of near-certain cells).
        name: Name reported for this player.
    """

    name = "probability"

    def __init__(
        self, prob_fn: ProbabilityFn, safe_below: float | None = None, name: str | None = None
    ):
        self.prob_fn = prob_fn
        self.safe_below = safe_below
        if name is not None:
            self.name = name

    def next_moves(self, board: Board, rng: np.random.Generator) -> list[Cell]:
        probs = np.asarray(self.prob_fn(board), dtype=float)
        if probs.shape != board.shape:
            raise ValueError(f"prob_fn returned shape {probs.shape}, board is {board.shape}")
        probs = np.where(board.cells == COVERED, probs, np.inf)
        best = int(np.argmin(probs))
        self.turn_guesses = int(probs.flat[best] > 0)
        if self.safe_below is not None and probs.flat[best] <= self.safe_below:
            return [(int(r), int(c)) for r, c in np.argwhere(probs <= self.safe_below)]
        return [divmod(best, board.cols)]
